/// The world's event queue: a binary min-heap ordered by (time, sequence number). The sequence
/// number makes equal-time events run in the order they were scheduled, so a run never depends
/// on heap layout or hashing: the same program gives the same order every time.
struct EventScheduler {
    /// What a scheduled event does. The periodic notification source, the one event a long
    /// session schedules thousands of times, is a value naming a reusable `NotificationTick`
    /// rather than a fresh closure context with weak captures per notification.
    enum Event {
        case action(() -> Void)
        case notificationTick(NotificationTick)
    }

    struct Item {
        let time: Int64
        let sequence: UInt64
        let event: Event

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
        heap.append(Item(time: time, sequence: nextSequence, event: event))
        nextSequence &+= 1
        var i = heap.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            guard heap[i].precedes(heap[p]) else { break }
            heap.swapAt(i, p)
            i = p
        }
    }

    /// Removes and returns the earliest item if it is due at or before `limit`.
    mutating func pop(notAfter limit: Int64) -> Item? {
        guard let first = heap.first, first.time <= limit else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var i = 0
            let n = heap.count
            while true {
                let l = 2 * i + 1, r = l + 1
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

    mutating func removeAll() { heap.removeAll() }
}
