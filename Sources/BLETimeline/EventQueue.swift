/// Holds events until everything before them is final, so the timeline comes out in frame
/// order even though a request's outcome is known only when its answer arrives.
///
/// Bounded: an event waits at most until its deadline (capture time) and the queue never holds
/// more than `capacity` events; past either, the oldest pending event is resolved as a timeout.
/// Storage is one array reused for the whole run (compacted in place), so steady state does
/// not allocate.
struct EventQueue {
    static let capacity = 4096

    private var events: [TimelineEvent] = []
    private var deadlines: [Int64] = []
    private var head = 0
    /// Sequence number of `events[head]`; sequence numbers grow by one per appended event.
    private(set) var headSequence = 0

    init() {
        events.reserveCapacity(256)
        deadlines.reserveCapacity(256)
    }

    var count: Int { events.count - head }
    var isEmpty: Bool { head == events.count }

    /// Appends and returns the event's sequence number. `deadline` matters only for pending
    /// events.
    mutating func append(_ e: consuming TimelineEvent, deadline: Int64 = .max) -> Int {
        events.append(e)
        deadlines.append(deadline)
        return headSequence + count - 1
    }

    /// Numbers an event that was emitted without being queued (`TimelineBuilder.addFinal`,
    /// only while the queue is empty): it takes the sequence number an append would have given
    /// it, so later numbers stay what they would have been.
    mutating func skipEmitted() {
        precondition(isEmpty)
        headSequence += 1
    }

    /// Whether the event `sequence` is still held and pending.
    func isPending(_ sequence: Int) -> Bool {
        let i = sequence - headSequence + head
        return sequence >= headSequence && i < events.count && events[i].outcome == .pending
    }

    /// Whether the held, pending event `sequence` is past its deadline at `now`: `drain` would
    /// resolve it as a timeout.
    func isOverdue(_ sequence: Int, now: Int64) -> Bool {
        let i = sequence - headSequence + head
        return isPending(sequence) && deadlines[i] < now
    }

    /// Changes a held event; false if it was already emitted.
    @discardableResult
    mutating func update(_ sequence: Int, _ body: (inout TimelineEvent) -> Void) -> Bool {
        let i = sequence - headSequence + head
        guard sequence >= headSequence, i < events.count else { return false }
        body(&events[i])
        return true
    }

    /// Changes every held event after `sequence` (those emitted already are out of reach).
    mutating func updateAll(after sequence: Int, _ body: (inout TimelineEvent) -> Void) {
        var i = Swift.max(sequence + 1 - headSequence, 0) + head
        while i < events.count {
            body(&events[i])
            i += 1
        }
    }

    /// Emits every final event at the front; resolves overdue or overflowing pending events
    /// as timeouts first.
    mutating func drain(now: Int64, _ emit: (TimelineEvent) -> Void) {
        while head < events.count {
            // The outcome, not `isPending`: a computed property of the element copied the
            // whole event out of the array first.
            if events[head].outcome == .pending {
                guard deadlines[head] < now || count > Self.capacity else { break }
                events[head].outcome = .timeout
            }
            emitHead(emit)
            head += 1
            headSequence += 1
        }
        // Emitted events are dropped in batches: emptying both arrays after every frame's event
        // was 3 % of `lint`.
        if head == events.count, head >= 256 {
            events.removeAll(keepingCapacity: true)
            deadlines.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 && head * 2 >= events.count {
            events.removeSubrange(0..<head)
            deadlines.removeSubrange(0..<head)
            head = 0
        }
    }

    /// Hands the front event to `emit` where it lies: read through the array's subscript it
    /// was copied out first (a ~240-byte value; while it held a reference the copy went through
    /// its value witness: 4 % of `lint`). `emit` cannot reach the queue, which its caller holds
    /// inout.
    private func emitHead(_ emit: (TimelineEvent) -> Void) {
        events.withUnsafeBufferPointer { emit($0[head]) }
    }

    /// Resolves every pending event with `outcome` and emits all (end of capture).
    mutating func flush(_ outcome: Outcome, _ emit: (TimelineEvent) -> Void) {
        while head < events.count {
            if events[head].outcome == .pending { events[head].outcome = outcome }
            emitHead(emit)
            head += 1
            headSequence += 1
        }
        events.removeAll(keepingCapacity: true)
        deadlines.removeAll(keepingCapacity: true)
        head = 0
    }
}
