import BLEBytes

/// Changes to the captured conditions, to test a fix against variations of a captured
/// failure. Times count from the replayed connection's start (its Connection Complete).
public struct ReplayFaults: Sendable, Equatable {
    /// The link goes silent at this time (µs after connection start): nothing more is
    /// delivered either way, and the supervision timeout later the connection ends with
    /// 0x08 Connection Timeout (Core Vol 6 Part B 4.5.2).
    public var dropLinkAtMicros: Int64?
    /// The central's adapter powers off at this time: HCI Reset, every connection gone.
    public var powerOffAtMicros: Int64?
    /// Added to every response's captured latency, µs.
    public var responseDelayMicros: Int64 = 0
    /// The server answers Exchange MTU with this Server Rx MTU instead of the captured one.
    public var serverMTU: UInt16?
    /// Requests on these handles fail with this ATT error code (Vol 3 Part F 3.4.1.1).
    public var errors: [UInt16: UInt8] = [:]
    /// Probability (0…1) that a notification or indication of the captured stream is not sent.
    public var notificationDropProbability: Double = 0
    /// Seed of the drop decisions: the same seed drops the same notifications.
    public var seed: UInt64 = 1
    /// The drop-link and power-off times count from the capture's first frame (the clock
    /// `blecap timeline` prints) instead of from each connection's start.
    public var timesFromCaptureStart = false

    public init(
        dropLinkAtMicros: Int64? = nil, powerOffAtMicros: Int64? = nil, responseDelayMicros: Int64 = 0,
        serverMTU: UInt16? = nil, errors: [UInt16: UInt8] = [:], notificationDropProbability: Double = 0,
        seed: UInt64 = 1, timesFromCaptureStart: Bool = false
    ) {
        self.dropLinkAtMicros = dropLinkAtMicros
        self.powerOffAtMicros = powerOffAtMicros
        self.responseDelayMicros = responseDelayMicros
        self.serverMTU = serverMTU
        self.errors = errors
        self.notificationDropProbability = notificationDropProbability
        self.seed = seed
        self.timesFromCaptureStart = timesFromCaptureStart
    }

    /// The same faults with times counted from the start of a connection that began
    /// `connectionOffset` µs after the capture's first frame.
    public func relative(toConnectionAt connectionOffset: Int64) -> ReplayFaults {
        guard timesFromCaptureStart else { return self }
        var f = self
        f.timesFromCaptureStart = false
        f.dropLinkAtMicros = dropLinkAtMicros.map { max(0, $0 &- connectionOffset) }
        f.powerOffAtMicros = powerOffAtMicros.map { max(0, $0 &- connectionOffset) }
        return f
    }

    /// Which items of `model.stream` the notification drop fault removes, one decision per
    /// item in capture order from a generator seeded with `seed` and the connection number:
    /// the ATT-level replay (`CaptureReplay.run`) and the simulator path
    /// (`CaptureReplay.install(into:)`) drop the same notifications for the same seed.
    public func streamDrops(of model: ReplayConnectionModel) -> StreamDrops {
        StreamDrops(
            probability: notificationDropProbability,
            seed: seed &+ UInt64(truncatingIfNeeded: model.number) &* 0x9E37_79B9)
    }

    /// The notification drop decisions of one connection, item by item in any order: decision
    /// `i` is the `i`-th draw of `SplitMix64(seed:)`, whose state after `i` draws is the seed
    /// plus `i` times its increment, so no decision is stored (a stream of millions of
    /// notifications would otherwise keep a flag each).
    public struct StreamDrops: Sendable {
        let probability: Double
        let seed: UInt64

        public func drops(_ item: Int) -> Bool {
            guard probability > 0 else { return false }
            var rng = SplitMix64(seed: seed &+ UInt64(truncatingIfNeeded: item) &* 0x9E37_79B9_7F4A_7C15)
            return rng.unit() < probability
        }
    }

    public static let none = ReplayFaults()
    /// Nothing is changed (the clock the times count on does not matter then).
    public var isEmpty: Bool {
        var f = self
        f.timesFromCaptureStart = false
        f.seed = 1
        return f == .none
    }
}
