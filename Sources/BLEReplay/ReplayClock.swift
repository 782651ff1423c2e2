import BLESpool

/// How fast the replay runs on the virtual clock (no replay ever sleeps).
public enum ReplaySpeed: Sendable, Equatable {
    /// As captured: every PDU at its captured time.
    case realtime
    /// Idle time removed on both sides: every stretch between two things the capture shows
    /// (a PDU either way, a connection's start or end) shrinks to `ReplayClock.maxSpeedGap`.
    /// The exchange is the captured one, in the captured order; only the times differ.
    case max
    /// Every interval divided by the factor (2: twice as fast).
    case factor(Double)

    public var description: String {
        switch self {
        case .realtime: "realtime"
        case .max: "max"
        case .factor(let f): "\(f)x"
        }
    }
}

/// The replay's clock as a function of the capture's.
///
/// Every time the replay schedules — a client step after its anchor, a response after its
/// request, a notification after the CCCD write that enabled it, the end of the link, a fault
/// (`--drop-link-at`, `--power-off-at`, the supervision timeout after a silent link, a delayed
/// response) — is a captured time or a captured interval put through this one mapping, and so
/// is every timestamp of the export. Both sides of a connection, and every connection of the
/// session, therefore speed up together: a faster client never outruns the server's captured
/// notifications, nor ends the link before they arrived.
///
/// The mapping never decreases, and events that land on one µs keep the capture's order
/// (`ReplayEngine`), so at every speed the replayed exchange is the captured one in the
/// captured order.
public struct ReplayClock: Sendable {
    public let speed: ReplaySpeed
    /// The capture's time that stays where it is: the capture's first frame, so the replayed
    /// session starts when the captured one did (µs since 1970).
    public let origin: Int64
    /// `.max`: the captured instants (ascending, distinct). The first stays put and each later
    /// one comes one idle stretch after the one before, and that stretch is always
    /// `maxSpeedGap` (distinct µs instants are at least 1 µs = `maxSpeedGap` apart): instant k
    /// lands at `instants.first + k * maxSpeedGap`, so where each lands is not stored. The
    /// table itself is spooled past 1 MiB (`ReplayInstants`): 10 M PDUs are 80 MB of
    /// instants, which memory need not hold.
    private let instants: ReplayInstants

    /// At `.max`, the longest an idle stretch between two captured instants stays: one tick
    /// of the btsnoop clock (µs), so that instants the capture tells apart stay apart, in
    /// order, in the replay and in its export's timestamps.
    public static let maxSpeedGap: Int64 = 1

    /// The clock of a whole captured session: at `.max` every connection's start, ATT PDUs
    /// and end are the instants kept, so concurrent connections keep their interleaving and
    /// a reconnect still follows the disconnection before it.
    public init(speed: ReplaySpeed, session: CapturedSession) {
        self.init(speed: speed, connections: session.connections, origin: session.startTime)
    }

    /// The clock over `connections` only, starting at `origin` (µs since 1970).
    public init(speed: ReplaySpeed, connections: [CapturedConnection], origin: Int64) {
        var all = ExternalSorter<Int64>()
        if speed == .max {
            for c in connections { Self.addInstants(of: c, to: &all) }
        }
        self.init(speed: speed, origin: origin, instants: &all)
    }

    /// The instants of `c` a `.max` clock keeps: its start, its ATT PDUs, its end.
    static func addInstants(of c: CapturedConnection, to all: inout ExternalSorter<Int64>) {
        all.append(c.summary.startTime)
        for i in c.att.indices { all.append(c.att.time(at: i)) }
        if let end = c.disconnection { all.append(end.time) }
    }

    /// The clock over the captured `instants` (any order, repeats allowed; `origin` is added),
    /// as collected by `addInstants(of:to:)` (`CaptureReplay.maxSpeedClock`); empties them.
    init(speed: ReplaySpeed, origin: Int64, instants all: inout ExternalSorter<Int64>) {
        self.speed = speed
        self.origin = origin
        guard speed == .max else {
            instants = ReplayInstants()
            return
        }
        all.append(origin)
        // Sorted and without repeats: 8 bytes per distinct instant, spooled.
        instants = ReplayInstants(&all)
    }

    /// When the captured time `t` (µs since 1970) happens in the replay.
    public func time(_ t: Int64) -> Int64 {
        switch speed {
        case .realtime:
            return t
        case .factor(let f):
            return origin &+ Self.divide(t &- origin, by: f)
        case .max:
            // The last kept instant at or before t; before the first one the clock runs as captured.
            guard let (k, instant) = instants.last(atOrBefore: t), let first = instants.first else { return t }
            return first &+ Int64(k) &* Self.maxSpeedGap &+ Self.idle(instant, t)
        }
    }

    /// The replayed length of the captured interval of `length` µs that starts at captured
    /// time `t`. At `.max` it depends on where the interval lies (how many captured instants
    /// it spans); at realtime and for a factor only on its length.
    public func interval(from t: Int64, length: Int64) -> Int64 {
        time(t &+ length) &- time(t)
    }

    /// A captured idle stretch from `a` to `b` at `.max`.
    private static func idle(_ a: Int64, _ b: Int64) -> Int64 {
        let d = b &- a
        return d <= 0 ? 0 : Swift.min(d, maxSpeedGap)
    }

    /// `d / f` rounded to the µs, kept inside Int64 (a tiny factor or a damaged timestamp
    /// must not trap).
    private static func divide(_ d: Int64, by f: Double) -> Int64 {
        guard f > 0, f.isFinite else { return d }
        let x = (Double(d) / f).rounded()
        let limit = Double(Int64.max / 2)
        return x.isFinite ? Int64(Swift.max(-limit, Swift.min(limit, x))) : (x > 0 ? Int64.max / 2 : Int64.min / 2)
    }
}
