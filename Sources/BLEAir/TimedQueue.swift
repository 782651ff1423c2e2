/// The virtual air's one timed queue: a binary min-heap of payloads ordered by (time in µs,
/// order). `schedule(at:_:)` gives each entry the next scheduling number as its order, so
/// entries due in the same µs come out in the order they were scheduled: a run never depends on
/// heap layout or hashing, and the same program gives the same order every time.
/// `schedule(at:order:_:)` takes the caller's order instead (the replay engine ranks a µs's
/// events by their captured index first).
///
/// The simulator's `EventScheduler`, the virtual controller's timers and the replay engine's
/// queue are this type. Every method is inlinable so that each of them gets a copy specialized
/// for its payload: a trivially copyable payload (the simulator's) keeps the entries trivially
/// copyable, so sifting moves plain bytes. Sifting is the same in every client (a strict
/// "precedes", the last entry moved to the root on pop), so even two entries with equal keys
/// come out in the order they did before the three queues were one.
public struct TimedQueue<Payload> {
    public struct Entry {
        public let time: Int64
        public let order: Int
        public let payload: Payload

        @inlinable init(time: Int64, order: Int, payload: Payload) {
            self.time = time
            self.order = order
            self.payload = payload
        }

        @inlinable @inline(__always) func precedes(_ o: Entry) -> Bool {
            time != o.time ? time < o.time : order < o.order
        }
    }

    @usableFromInline var heap: [Entry] = []
    @usableFromInline var nextOrder = 0

    @inlinable public init() {}

    @inlinable public var isEmpty: Bool { heap.isEmpty }
    @inlinable public var count: Int { heap.count }
    /// When the earliest entry is due.
    @inlinable public var nextTime: Int64? { heap.first?.time }

    /// Queues `payload` at `time`, after everything already queued for that µs.
    @inlinable public mutating func schedule(at time: Int64, _ payload: Payload) {
        let order = nextOrder
        nextOrder &+= 1
        insert(Entry(time: time, order: order, payload: payload))
    }

    /// Queues `payload` at `time` ranked by `order` among the entries of that µs.
    @inlinable public mutating func schedule(at time: Int64, order: Int, _ payload: Payload) {
        insert(Entry(time: time, order: order, payload: payload))
    }

    @inlinable mutating func insert(_ entry: Entry) {
        heap.append(entry)
        var i = heap.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            guard heap[i].precedes(heap[p]) else { break }
            heap.swapAt(i, p)
            i = p
        }
    }

    /// Removes and returns the earliest entry.
    @inlinable public mutating func pop() -> Entry? {
        guard let first = heap.first else { return nil }
        // The last entry to the root, then down: the layout a swap of the two would leave.
        let last = heap.removeLast()
        guard !heap.isEmpty else { return first }
        heap[0] = last
        var i = 0
        let n = heap.count
        while true {
            let l = 2 * i + 1
            let r = l + 1
            var m = i
            if l < n, heap[l].precedes(heap[m]) { m = l }
            if r < n, heap[r].precedes(heap[m]) { m = r }
            if m == i { break }
            heap.swapAt(i, m)
            i = m
        }
        return first
    }

    /// Removes and returns the earliest entry if it is due at or before `limit`.
    @inlinable public mutating func pop(notAfter limit: Int64) -> Entry? {
        guard let first = heap.first, first.time <= limit else { return nil }
        return pop()
    }

    /// Drops the entries whose payload `drop` selects; the rest keep their times and orders.
    @inlinable public mutating func removeAll(where drop: (Payload) -> Bool) {
        let kept = heap.filter { !drop($0.payload) }
        // A sorted array is a heap.
        heap = kept.sorted { $0.precedes($1) }
    }

    /// Empties the queue, handing each entry (in heap order, not time order) to `body`.
    @inlinable public mutating func drain(_ body: (Entry) -> Void) {
        for entry in heap { body(entry) }
        heap.removeAll()
    }
}
