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
    /// Largest and mean |replayed − captured| offset over the matching PDUs, µs (nil when
    /// the speed is not realtime or nothing matched).
    public var maximumTimingDelta: Int64?
    public var meanTimingDelta: Double?
    /// Whether the comparison kept the order between client traffic and the server's own
    /// notifications (only at realtime, where both keep the captured pace).
    public var ordered: Bool

    public var isIdentical: Bool { divergence == nil }

    /// Compares `replayed` with the captured exchange of `connection`. At realtime the whole
    /// sequence is compared in order; at other speeds the client's requests with their
    /// responses and the server's notifications are compared as two sequences, since
    /// changing the client's pace legitimately interleaves them differently.
    public init(connection: CapturedConnection, replayed: ReplayedConnection, speed: ReplaySpeed) {
        let start = connection.summary.startTime
        let cap = connection.att.enumerated().map {
            Side(index: $0.offset, offset: $0.element.time &- start, sentByHost: $0.element.sentByHost,
                 bytes: $0.element.bytes, frame: $0.element.frame)
        }
        let rep = replayed.pdus.enumerated().map {
            Side(index: $0.offset, offset: $0.element.offset, sentByHost: $0.element.sentByHost, bytes: $0.element.bytes,
                 frame: nil)
        }
        captured = cap.count
        self.replayed = rep.count
        ordered = speed == .realtime
        func isStream(_ s: Side) -> Bool { ATTRole.isServerInitiated(s.bytes.first ?? 0) }
        let flows: [([Side], [Side])] = ordered ? [(cap, rep)]
            : [(cap.filter { !isStream($0) }, rep.filter { !isStream($0) }), (cap.filter(isStream), rep.filter(isStream))]
        var matching = 0
        var divergence: Divergence?
        var deltas: [Int64] = []
        for (c, r) in flows {
            var i = 0
            while i < c.count, i < r.count, c[i].sentByHost == r[i].sentByHost, c[i].bytes == r[i].bytes {
                if ordered { deltas.append(abs(r[i].offset &- c[i].offset)) }
                i += 1
            }
            matching += i
            if divergence == nil, i < max(c.count, r.count) {
                divergence = Divergence(position: i, captured: i < c.count ? c[i] : nil, replayed: i < r.count ? r[i] : nil)
            }
        }
        self.matching = matching
        self.divergence = divergence
        maximumTimingDelta = deltas.max()
        meanTimingDelta = deltas.isEmpty ? nil : Double(deltas.reduce(0, &+)) / Double(deltas.count)
    }
}
