import BLEPackets

/// How closely a replayed connection reproduces the captured one: the two ATT exchanges
/// aligned PDU by PDU, the first place they differ, and how far the replayed times are from
/// the captured ones.
public struct ReplayFidelity: Sendable {
    /// One side of a divergence: a PDU, or nothing (one exchange ended earlier).
    public struct Side: Sendable, Equatable {
        /// Index in the connection's exchange.
        public var index: Int
        /// µs after connection start.
        public var offset: Int64
        public var sentByHost: Bool
        public var bytes: [UInt8]
        /// Frame number in the capture (captured side only).
        public var frame: Int?
    }

    public struct Divergence: Sendable {
        /// Position in the compared sequence (0-based).
        public var position: Int
        public var captured: Side?
        public var replayed: Side?
    }

    public var captured: Int
    public var replayed: Int
    /// PDUs equal in direction and bytes, from the start up to the first divergence.
    public var matching: Int
    public var divergence: Divergence?
    /// Largest and mean |replayed − expected| offset over the matching PDUs, µs, where the
    /// expected offset is the captured one put through the replay's clock (the captured one
    /// at realtime). Nil when nothing matched.
    public var maximumTimingDelta: Int64?
    public var meanTimingDelta: Double?
    /// The whole exchange was compared in capture order, client traffic and the server's own
    /// notifications together. Always true: every speed runs both sides on one clock that
    /// keeps the captured order (`ReplayClock`); kept for readers of the JSON report.
    public var ordered: Bool { true }

    public var isIdentical: Bool { divergence == nil }

    /// Compares `replayed` with the captured exchange of `connection` on a clock of that
    /// connection alone.
    public init(connection: CapturedConnection, replayed: ReplayedConnection, speed: ReplaySpeed) {
        self.init(
            connection: connection, replayed: replayed,
            clock: ReplayClock(speed: speed, connections: [connection], origin: connection.summary.startTime))
    }

    /// Compares `replayed`, run on `clock`, with the captured exchange of `connection`, PDU by
    /// PDU in order at every speed: the clock changes times, never the order, so a PDU out of
    /// its captured place is a divergence (a response before its request's notifications were
    /// all delivered, a link end that cut a stream short).
    init(
        captured: Int, replayed: Int, matching: Int, divergence: Divergence?, maximumTimingDelta: Int64?,
        meanTimingDelta: Double?
    ) {
        self.captured = captured
        self.replayed = replayed
        self.matching = matching
        self.divergence = divergence
        self.maximumTimingDelta = maximumTimingDelta
        self.meanTimingDelta = meanTimingDelta
    }

    public init(connection: CapturedConnection, replayed: ReplayedConnection, clock: ReplayClock) {
        let start = connection.summary.startTime
        let replayedStart = clock.time(start)
        let cap = connection.att
        let rep = replayed.pdus
        captured = cap.count
        self.replayed = rep.count
        // Compared in place, one PDU at a time: a long exchange is not copied.
        var i = 0
        var largest: Int64?
        var sum: Int64 = 0
        // Through the stores' accessors: no PDU is made (copied) to be compared.
        while i < cap.count, i < rep.count, cap.sentByHost(at: i) == rep.sentByHost(at: i),
            cap.bytes(at: i) == rep.bytes(at: i)
        {
            let expected = clock.time(cap.time(at: i)) &- replayedStart
            let d = rep.offset(at: i) &- expected
            let delta = d == .min ? .max : abs(d)  // damaged timestamps must not trap
            largest = Swift.max(largest ?? delta, delta)
            sum = sum &+ delta
            i += 1
        }
        matching = i
        divergence =
            i < Swift.max(cap.count, rep.count)
            ? Divergence(
                position: i,
                captured: i < cap.count
                    ? Side(
                        index: i, offset: cap[i].time &- start, sentByHost: cap[i].sentByHost, bytes: cap[i].bytes,
                        frame: cap[i].frame) : nil,
                replayed: i < rep.count
                    ? Side(
                        index: i, offset: rep[i].offset, sentByHost: rep[i].sentByHost, bytes: rep[i].bytes, frame: nil)
                    : nil)
            : nil
        maximumTimingDelta = largest
        meanTimingDelta = i == 0 ? nil : Double(sum) / Double(i)
    }
}

/// `ReplayFidelity` worked out while the replay runs, one replayed PDU at a time, so that a
/// replay whose report is all that is wanted (`CaptureReplay.streamed`) need not keep the
/// replayed exchange: counts, the running timing statistics and, once found, the first
/// divergence are all the comparison keeps. Gives what `ReplayFidelity(connection:replayed:
/// clock:)` gives for the same PDUs.
struct ReplayFidelityAccumulator {
    let captured: CapturedATTPDUs
    /// The captured PDUs in order: PDU `matching` is the next one compared.
    private var cursor: CapturedATTPDUs.Iterator
    let clock: ReplayClock
    let start: Int64
    let replayedStart: Int64
    private var replayed = 0
    private var matching = 0
    private var largest: Int64?
    private var sum: Int64 = 0
    /// The first replayed PDU that differs from (or has no) captured one, at `matching`.
    private var divergent: ReplayFidelity.Side?

    init(connection: CapturedConnection, clock: ReplayClock) {
        captured = connection.att
        cursor = captured.makeIterator()
        self.clock = clock
        start = connection.summary.startTime
        replayedStart = clock.time(start)
    }

    mutating func add(_ pdu: ReplayedPDU) {
        let i = replayed
        replayed += 1
        guard divergent == nil else { return }
        // Until the first divergence every replayed PDU is compared, so `i` is `matching`.
        if let c = cursor.next(), c.sentByHost == pdu.sentByHost, c.bytes == pdu.bytes {
            // As `ReplayFidelity.init`: the same arithmetic, PDU by PDU.
            let expected = clock.time(c.time) &- replayedStart
            let d = pdu.offset &- expected
            let delta = d == .min ? .max : abs(d)
            largest = Swift.max(largest ?? delta, delta)
            sum = sum &+ delta
            matching += 1
        } else {
            divergent = ReplayFidelity.Side(
                index: i, offset: pdu.offset, sentByHost: pdu.sentByHost, bytes: pdu.bytes, frame: nil)
        }
    }

    var fidelity: ReplayFidelity {
        let i = matching
        let cap = captured
        let divergence =
            i < Swift.max(cap.count, replayed)
            ? ReplayFidelity.Divergence(
                position: i,
                captured: i < cap.count
                    ? ReplayFidelity.Side(
                        index: i, offset: cap.time(at: i) &- start, sentByHost: cap.sentByHost(at: i),
                        bytes: Array(cap.bytes(at: i)), frame: cap[i].frame) : nil,
                replayed: divergent)
            : nil
        return ReplayFidelity(
            captured: cap.count, replayed: replayed, matching: i, divergence: divergence, maximumTimingDelta: largest,
            meanTimingDelta: i == 0 ? nil : Double(sum) / Double(i))
    }
}
