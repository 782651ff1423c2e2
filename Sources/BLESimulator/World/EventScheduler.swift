import BLEAir

/// The world's event queue: the virtual air's `TimedQueue` (BLEAir), ordered by (time,
/// scheduling order), so equal-time events run in the order they were scheduled and the same
/// program gives the same order every time.
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

    /// What the queue holds: trivially copyable, so sifting moves plain bytes.
    struct Payload {
        /// A `NotificationTick` when `isTick`, else an `Action`; owned (+1) by the queue.
        let object: Unmanaged<AnyObject>
        let isTick: Bool
    }

    typealias Item = TimedQueue<Payload>.Entry

    private var queue = TimedQueue<Payload>()

    var isEmpty: Bool { queue.isEmpty }
    var count: Int { queue.count }
    var nextTime: Int64? { queue.nextTime }

    mutating func schedule(at time: Int64, _ event: Event) {
        let payload =
            switch event {
            case .action(let body): Payload(object: .passRetained(Action(body)), isTick: false)
            case .notificationTick(let tick): Payload(object: .passRetained(tick), isTick: true)
            }
        queue.schedule(at: time, payload)
    }

    /// Removes the earliest item if it is due at or before `limit`. The caller owns its
    /// reference and must pass the item to `run`.
    mutating func pop(notAfter limit: Int64) -> Item? { queue.pop(notAfter: limit) }

    /// Runs a popped item, taking back its reference.
    @inline(__always)
    static func run(_ item: Item) {
        let object = item.payload.object.takeRetainedValue()
        if item.payload.isTick {
            unsafeDowncast(object, to: NotificationTick.self).fire()
        } else {
            unsafeDowncast(object, to: Action.self).body()
        }
    }

    /// Drops every queued event, giving back the references.
    mutating func releaseAll() {
        queue.drain { $0.payload.object.release() }
    }
}
