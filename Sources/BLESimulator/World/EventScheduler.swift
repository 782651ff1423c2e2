/// The world's event queue: a binary min-heap ordered by (time, sequence number). The sequence
/// number makes equal-time events run in the order they were scheduled, so a run never depends
/// on heap layout or hashing: the same program gives the same order every time.
///
/// Items are trivially copyable (time, sequence, an `Unmanaged` reference the queue owns, its
/// kind), so sifting moves plain bytes: items holding an enum with references cost an outlined
/// copy, a retain and a release per move and per pop. The queue takes a +1 reference when it
/// schedules and hands it to `run` when the item pops; `releaseAll` gives back what never ran
/// (the world calls it from `deinit`).
struct EventScheduler {
    /// What a scheduled event does. The periodic notification source, the one event a long
    /// session schedules thousands of times, is a value naming a reusable `NotificationTick`
    /// rather than a fresh closure context per notification.
    enum Event {
        case action(() -> Void)
        case notificationTick(NotificationTick)
    }

    /// A closure as an object the queue can hold unmanaged.
    final class Action {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    struct Item {
        let time: Int64
        let sequence: UInt64
        /// A `NotificationTick` when `isTick`, else an `Action`; owned (+1) by the queue.
        let object: Unmanaged<AnyObject>
        let isTick: Bool

        @inline(__always) func precedes(_ o: Item) -> Bool {
            time != o.time ? time < o.time : sequence < o.sequence
        }
    }

    private var heap: [Item] = []
    private var nextSequence: UInt64 = 0

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }
    var nextTime: Int64? { heap.first?.time }

    mutating func schedule(at time: Int64, _ event: Event) {
        let item =
            switch event {
            case .action(let body):
                Item(time: time, sequence: nextSequence, object: .passRetained(Action(body)), isTick: false)
            case .notificationTick(let tick):
                Item(time: time, sequence: nextSequence, object: .passRetained(tick), isTick: true)
            }
        heap.append(item)
        nextSequence &+= 1
        var i = heap.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            guard heap[i].precedes(heap[p]) else { break }
            heap.swapAt(i, p)
            i = p
        }
    }

    /// Removes the earliest item if it is due at or before `limit`. The caller owns its
    /// reference and must pass the item to `run`.
    mutating func pop(notAfter limit: Int64) -> Item? {
        guard let first = heap.first, first.time <= limit else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
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
        }
        return first
    }

    /// Runs a popped item, taking back its reference.
    @inline(__always)
    static func run(_ item: Item) {
        let object = item.object.takeRetainedValue()
        if item.isTick {
            unsafeDowncast(object, to: NotificationTick.self).fire()
        } else {
            unsafeDowncast(object, to: Action.self).body()
        }
    }

    /// Drops every queued event, giving back the references.
    mutating func releaseAll() {
        for item in heap { item.object.release() }
        heap.removeAll()
    }
}
