import BLEBytes
import BLEPackets
import BLETimeline

/// A connection's throughput and latency budget (docs/diagnose.md, "Budget"): each busy
/// stretch with the payload rate it reached, the ceiling the connection's parameters allowed,
/// what bounds that ceiling and the one setting that would raise it most; and the latency of
/// each request type.
public struct Budget: Sendable, Equatable, Encodable {
    /// The platform the advice is phrased for.
    public var platform: Platform
    public var stretches: [Stretch]
    /// Busy stretches past `Budget.maximumStretches`, counted only.
    public var stretchesOmitted: Int?
    public var latency: [Latency]

    public struct Parameters: Sendable, Equatable, Encodable {
        public var intervalUs: Int?
        public var peripheralLatency: Int?
        /// The sender's PHY ("1M", "2M", "Coded"); "1M" assumed when no PHY update was seen.
        public var phy: String
        public var phyKnown: Bool
        /// LL data length (max payload octets) the sender may use; 27 assumed when the capture
        /// shows no LE Data Length Change or LL_LENGTH_RSP.
        public var dataLength: Int
        public var dataLengthKnown: Bool
        public var mtu: Int
        public var mtuKnown: Bool
        public var encrypted: Bool
        /// The controller's LE ACL buffers (HCI LE Read Buffer Size), when this host sends.
        public var aclBuffers: Int?
        /// Most value PDUs the capture shows in one connection event of the stretch.
        public var packetsPerEvent: Int?

        enum CodingKeys: String, CodingKey {
            case intervalUs = "interval_us"
            case peripheralLatency = "peripheral_latency"
            case phy
            case phyKnown = "phy_known"
            case dataLength = "data_length"
            case dataLengthKnown = "data_length_known"
            case mtu
            case mtuKnown = "mtu_known"
            case encrypted
            case aclBuffers = "acl_buffers"
            case packetsPerEvent = "packets_per_event"
        }
    }

    public struct Advice: Sendable, Equatable, Encodable {
        /// `connection_interval`, `mtu`, `data_length`, `phy_2m`, `write_without_response`,
        /// `notifications`.
        public var setting: String
        public var ceilingBytesPerSecond: Int
        public var android: String?
        public var coreBluetooth: String?

        enum CodingKeys: String, CodingKey {
            case setting
            case ceilingBytesPerSecond = "ceiling_bytes_per_second"
            case android
            case coreBluetooth = "core_bluetooth"
        }
    }

    public struct Stretch: Sendable, Equatable, Encodable {
        /// `notifications`, `indications`, `write_commands`, `write_requests`, `reads`.
        public var kind: String
        /// `host` (this host sent the values) or `peer`.
        public var sender: String
        public var firstFrame: Int
        public var lastFrame: Int
        public var pdus: Int
        /// ATT value bytes of all its PDUs.
        public var valueBytes: Int
        /// The largest value of the stretch (the ceiling assumes values that fill the MTU).
        public var largestValue: Int
        public var durationUs: Int
        /// Value bytes of PDUs 2…n over the time from the first PDU to the last.
        public var bytesPerSecond: Int
        public var parameters: Parameters
        /// Nil when the interval is unknown.
        public var ceilingBytesPerSecond: Int?
        /// `request_response`, `airtime`, `packets_per_event`, `acl_buffers`, `unknown_interval`.
        public var limit: String
        public var limitText: String
        public var advice: Advice?

        enum CodingKeys: String, CodingKey {
            case kind, sender
            case firstFrame = "first_frame"
            case lastFrame = "last_frame"
            case pdus
            case valueBytes = "value_bytes"
            case largestValue = "largest_value"
            case durationUs = "duration_us"
            case bytesPerSecond = "bytes_per_second"
            case parameters
            case ceilingBytesPerSecond = "ceiling_bytes_per_second"
            case limit
            case limitText = "limit_text"
            case advice
        }
    }

    public struct Latency: Sendable, Equatable, Encodable {
        /// `read`, `write`, `subscribe`, `mtu`, `discovery`, `indication`, `prepare_write`, `execute_write`.
        public var operation: String
        /// `host` (this host asked; the peer's server answered) or `peer`.
        public var requester: String
        public var count: Int
        public var medianUs: Int
        public var p95Us: Int
        public var maxUs: Int
        /// The request that took longest.
        public var maxFrame: Int
        /// Why the slowest took as long, where the capture shows it.
        public var slowest: String

        enum CodingKeys: String, CodingKey {
            case operation, requester, count
            case medianUs = "median_us"
            case p95Us = "p95_us"
            case maxUs = "max_us"
            case maxFrame = "max_frame"
            case slowest
        }
    }

    enum CodingKeys: String, CodingKey {
        case platform, stretches
        case stretchesOmitted = "stretches_omitted"
        case latency
    }

    /// Busy stretches kept per connection.
    public static let maximumStretches = 16
    /// A busy stretch has at least this many value PDUs of one kind from one sender…
    public static let minimumPDUs = 10
    /// …each within this long of the one before (or 3 connection intervals, if longer).
    public static let maximumGapUs: Int64 = 250_000
    /// Latency samples kept per operation type and requester (count and max go on past it).
    public static let maximumSamples = 4096
    /// The shortest interval the advice asks for: Android's CONNECTION_PRIORITY_HIGH gives
    /// 11.25–15 ms, Apple's accessory guidelines ask for at least 15 ms.
    public static let shortInterval = 15_000
}

// MARK: the link model

/// The steady-state link model of docs/diagnose.md: what one connection's parameters allow.
struct LinkModel: Equatable {
    var intervalUs: Int
    var dataPHY: UInt8
    var ackPHY: UInt8
    var dataLength: Int
    var mtu: Int
    var encrypted: Bool
    /// ATT header bytes in front of the value (3; 1 for a read response).
    var attOverhead: Int
    var requestResponse: Bool
    /// LL data PDUs per event the capture showed (nil: not shown).
    var observedLLPerEvent: Double?
    var aclBuffers: Int?
    var aclLength: Int?

    static let tIFS = 150

    /// Air time of an LL data PDU with `octets` of payload (Core Vol 6 Part B 2.1, 2.2).
    static func airtime(_ octets: Int, phy: UInt8) -> Int {
        switch phy {
        case 2: (2 + 4 + 2 + octets + 3) * 4
        case 3: 376 + 24 + (2 + octets + 3) * 64  // Coded S=8
        default: (1 + 4 + 2 + octets + 3) * 8
        }
    }

    var value: Int { max(mtu - attOverhead, 1) }
    var l2capLength: Int { value + attOverhead + 4 }
    var fragments: Int { (l2capLength + dataLength - 1) / max(dataLength, 1) }

    /// Air time of one ATT PDU with its acknowledgements: each fragment and the empty PDU
    /// answering it, T_IFS after each.
    var attAirtime: Int {
        let mic = encrypted ? 4 : 0
        let full = l2capLength / dataLength
        let rest = l2capLength % dataLength
        let ack = Self.airtime(0, phy: ackPHY) + 2 * Self.tIFS
        var t = full * (Self.airtime(dataLength + mic, phy: dataPHY) + ack)
        if rest > 0 { t += Self.airtime(rest + mic, phy: dataPHY) + ack }
        return t
    }

    enum Limit: String {
        case requestResponse = "request_response"
        case airtime
        case packetsPerEvent = "packets_per_event"
        case aclBuffers = "acl_buffers"
    }

    /// Value bytes per second, and what bounds it.
    func ceiling() -> (rate: Double, limit: Limit) {
        let i = Double(intervalUs)
        let perEventAir = i / Double(attAirtime)
        if requestResponse {
            // A request in one event, its response in the next, the next request in the one
            // after: one transaction per two intervals (less if it does not fit in the air).
            let perEvent = min(0.5, perEventAir)
            return (perEvent * Double(value) * 1e6 / i, perEvent < 0.5 ? .airtime : .requestResponse)
        }
        var perEvent = perEventAir
        var limit = Limit.airtime
        if let b = aclBuffers, let len = aclLength, len > 0 {
            let acl = Double(b) / Double((l2capLength + len - 1) / len)
            if acl < perEvent * 0.999 {
                perEvent = acl
                limit = .aclBuffers
            }
        }
        if let k = observedLLPerEvent {
            let att = k / Double(fragments)
            if att < perEvent * 0.999 {
                perEvent = att
                limit = .packetsPerEvent
            }
        }
        return (perEvent * Double(value) * 1e6 / i, limit)
    }
}

// MARK: accumulating

/// One connection's budget as its events go by: the parameters in force, the open busy
/// stretches (one per kind and sender), the closed ones, and latency samples. Bounded.
struct BudgetAccumulator {
    var intervalUs: Int?
    var peripheralLatency: Int?
    var txPHY: UInt8?
    var rxPHY: UInt8?
    var dataLength: (tx: Int, rx: Int)?
    var mtu = 23
    var mtuKnown = true
    var encrypted = false

    /// Open stretches, by kind and sender (`slot`): a slot holds an open stretch when its bit of
    /// `openSlots` is set. A bit test instead of an optional stretch, whose tag was read
    /// through an outlined copy twice for every value (docs/performance.md). Ten slots: one per
    /// sender for each of `StreamKind`'s five cases. Inline, not an array: no uniqueness check
    /// on each stretch extended.
    var open = InlineArray<10, OpenStretch>(repeating: .closed)
    var openSlots: UInt16 = 0
    var closed: [OpenStretch] = []
    var closedOmitted = 0
    var samples: [LatencyKey: LatencySamples] = [:]

    enum StreamKind: Int, CaseIterable {
        case notifications, indications, writeCommands, writeRequests, reads
        var name: String {
            switch self {
            case .notifications: "notifications"
            case .indications: "indications"
            case .writeCommands: "write_commands"
            case .writeRequests: "write_requests"
            case .reads: "reads"
            }
        }
        var requestResponse: Bool { self == .indications || self == .writeRequests || self == .reads }
    }

    struct OpenStretch {
        var kind: StreamKind
        var sentByHost: Bool
        var firstFrame: Int
        var lastFrame: Int
        var firstTime: Int64
        var lastTime: Int64
        var pdus = 1
        var bytes: Int
        var firstBytes: Int
        var truncated: Bool
        var largest: Int
        // Bursts: PDUs less than a quarter interval apart share a connection event.
        var burst = 1
        var maxBurst = 1
        var bursts = 1
        // The parameters in force (a change closes the stretch).
        var intervalUs: Int?
        var peripheralLatency: Int?
        var dataPHY: UInt8?
        var ackPHY: UInt8?
        var dataLength: Int?
        var mtu: Int
        var mtuKnown: Bool
        var encrypted: Bool

        /// What an empty slot of `open` holds (never read: `openSlots` says which are open).
        static let closed = OpenStretch(
            kind: .notifications, sentByHost: false, firstFrame: 0, lastFrame: 0, firstTime: 0, lastTime: 0,
            bytes: 0, firstBytes: 0, truncated: false, largest: 0, mtu: 0, mtuKnown: false, encrypted: false)

        /// Takes the next PDU of the stream when it follows within the gap allowed; false when
        /// the stretch has ended before it.
        @inline(__always)
        mutating func extend(time: Int64, frame: Int, bytes: Int, truncated t: Bool) -> Bool {
            let gap = time - lastTime
            let bound = max(Budget.maximumGapUs, Int64(3 * (intervalUs ?? 0)))
            guard gap >= 0, gap <= bound else { return false }
            pdus += 1
            self.bytes += bytes
            lastFrame = frame
            lastTime = time
            truncated = truncated || t
            largest = max(largest, bytes)
            if let i = intervalUs, gap * 4 < Int64(i) {
                burst += 1
                maxBurst = max(maxBurst, burst)
            } else {
                burst = 1
                bursts += 1
            }
            return true
        }
    }

    struct LatencyKey: Hashable {
        var operation: String
        var sentByHost: Bool
    }

    struct LatencySamples {
        var values: [Int64] = []
        var count = 0
        var max: Int64 = -1
        var maxFrame = 0
        var maxIntervalUs: Int?
        var maxPeripheralLatency: Int?
    }

    // MARK: events

    mutating func connected(_ timing: ConnectionTiming?) {
        guard let t = timing else { return }
        intervalUs = Int(t.interval) * 1250
        peripheralLatency = Int(t.latency)
    }

    /// `observe(e)` for a notification, given the fields of its operation that it reads.
    @inline(__always) mutating func notification(
        _ e: TimelineEvent, _ opMTU: UInt16, _ opMTUKnown: Bool, _ opSent: Bool
    ) {
        value(e, .notifications, opMTU, opMTUKnown, opSent)
    }

    mutating func observe(_ e: TimelineEvent) {
        switch e.kind {
        case .notification(let op): value(e, .notifications, op.mtu, op.mtuKnown, op.sent)
        case .indication(let op):
            value(e, .indications, op.mtu, op.mtuKnown, op.sent)
            sample(e, "indication", op.sent)
        case .write(let op, let variant):
            switch variant {
            case .command, .signed: value(e, .writeCommands, op.mtu, op.mtuKnown, op.sent)
            case .request:
                value(e, .writeRequests, op.mtu, op.mtuKnown, op.sent)
                sample(e, "write", op.sent)
            case .prepare: sample(e, "prepare_write", op.sent)
            case .execute: sample(e, "execute_write", op.sent)
            }
        case .read(let op, _):
            value(e, .reads, op.mtu, op.mtuKnown, op.sent)
            sample(e, "read", op.sent)
        case .subscribe(let op, _): sample(e, "subscribe", op.sent)
        case .discovery(_, let sent): sample(e, "discovery", sent)
        case .mtuExchange(_, _, let effective, let sent):
            sample(e, "mtu", sent)
            if case .success = e.outcome, Int(effective) != mtu || !mtuKnown {
                closeAll()
                mtu = Int(effective)
                mtuKnown = true
            }
        case .connectionUpdate(let status, let timing):
            guard status == 0 else { return }
            closeAll()
            connected(timing)
        case .phyUpdate(let status, let tx, let rx):
            guard status == 0 else { return }
            closeAll()
            txPHY = tx
            rxPHY = rx
        case .dataLengthChange(let tx, let rx):
            closeAll()
            dataLength = (Int(tx), Int(rx))
        case .encryptionChange(let status, let enabled):
            if status == 0 {
                closeAll()
                encrypted = enabled != 0
            }
        default: break
        }
    }

    /// Takes the operation's three fields it reads, not the operation: passing the whole
    /// `AttributeOperation` rebuilt it on the stack for every value (docs/performance.md).
    private mutating func value(
        _ e: TimelineEvent, _ kind: StreamKind, _ opMTU: UInt16, _ opMTUKnown: Bool, _ opSent: Bool
    ) {
        // A read's value is in its response: unanswered reads carry none.
        if kind == .reads, e.outcome.responseFrame == nil { return }
        if kind == .writeRequests, e.outcome.responseFrame == nil { return }
        if opMTU > mtu || (!opMTUKnown && mtuKnown && opMTU != mtu) {
            // The MTU the timeline knows moved (a lower bound grew): new parameters.
            closeAll()
            mtu = Int(opMTU)
            mtuKnown = opMTUKnown
        }
        // Reads carry the responder's values: the peer's server when this host asked.
        let sentByHost = kind == .reads ? !opSent : opSent
        let slot = kind.rawValue * 2 + (sentByHost ? 1 : 0)
        let bytes = e.value.count
        let time = kind == .reads ? e.time &+ (e.outcome.latency ?? 0) : e.time
        if openSlots & (1 &<< slot) != 0 {
            // Extended in place: copying the stretch out of the array and back was most of the
            // budget's cost per notification.
            let lastFrame = kind == .reads ? (e.outcome.responseFrame ?? e.frame) : e.frame
            if open[slot].extend(time: time, frame: lastFrame, bytes: bytes, truncated: e.valueTruncated) { return }
            close(slot)
        }
        let frame = kind == .reads ? (e.outcome.responseFrame ?? e.frame) : e.frame
        open[slot] = OpenStretch(
            kind: kind, sentByHost: sentByHost, firstFrame: frame, lastFrame: frame, firstTime: time,
            lastTime: time, bytes: bytes, firstBytes: bytes, truncated: e.valueTruncated, largest: bytes,
            intervalUs: intervalUs,
            peripheralLatency: peripheralLatency, dataPHY: sentByHost ? txPHY : rxPHY,
            ackPHY: sentByHost ? rxPHY : txPHY, dataLength: dataLength.map { sentByHost ? $0.tx : $0.rx }, mtu: mtu,
            mtuKnown: mtuKnown, encrypted: encrypted)
        openSlots |= 1 &<< slot
    }

    private mutating func close(_ slot: Int) {
        guard openSlots & (1 &<< slot) != 0 else { return }
        openSlots &= ~(1 &<< slot)
        let s = open[slot]
        guard s.pdus >= Budget.minimumPDUs, s.lastTime > s.firstTime, !s.truncated else { return }
        if closed.count < Budget.maximumStretches {
            closed.append(s)
        } else {
            closedOmitted += 1
        }
    }

    mutating func closeAll() {
        for i in open.indices where openSlots & (1 &<< i) != 0 { close(i) }
    }

    private mutating func sample(_ e: TimelineEvent, _ operation: String, _ sentByHost: Bool) {
        guard let latency = e.outcome.latency, e.outcome.responseFrame != nil else { return }
        let key = LatencyKey(operation: operation, sentByHost: sentByHost)
        var s = samples[key] ?? LatencySamples()
        samples[key] = nil
        s.count += 1
        if s.values.count < Budget.maximumSamples { s.values.append(latency) }
        if latency > s.max {
            s.max = latency
            s.maxFrame = e.frame
            s.maxIntervalUs = intervalUs
            s.maxPeripheralLatency = peripheralLatency
        }
        samples[key] = s
    }

    // MARK: the result

    /// The budget, or nil when the connection had no busy stretch and no answered request.
    mutating func finish(platform: Platform, role: UInt8?, aclBuffers: (packets: Int, length: Int)?) -> Budget? {
        closeAll()
        guard !closed.isEmpty || !samples.isEmpty else { return nil }
        var b = Budget(
            platform: platform, stretches: [], stretchesOmitted: closedOmitted > 0 ? closedOmitted : nil, latency: [])
        for s in closed {
            b.stretches.append(Self.stretch(s, platform: platform, acl: s.sentByHost ? aclBuffers : nil))
        }
        let keys = samples.keys.sorted { ($0.operation, $0.sentByHost ? 0 : 1) < ($1.operation, $1.sentByHost ? 0 : 1) }
        for k in keys {
            guard let s = samples[k] else { continue }
            b.latency.append(Self.latency(k, s, hostIsCentral: role == 0))
        }
        return b
    }

    static func phyName(_ p: UInt8) -> String {
        switch p {
        case 2: "2M"
        case 3: "Coded"
        default: "1M"
        }
    }

    static func stretch(_ s: OpenStretch, platform: Platform, acl: (packets: Int, length: Int)?) -> Budget.Stretch {
        let duration = Int(s.lastTime - s.firstTime)
        let rate = Int((Double(s.bytes - s.firstBytes) * 1e6 / Double(duration)).rounded())
        // Packets per event are shown only by bursts: at least 3, one per connection event
        // (their mean period within half an interval of it), each with a gap before it.
        var shown: Int?
        if let i = s.intervalUs, i > 0, s.bursts >= 3 {
            let period = Int(s.lastTime - s.firstTime) / (s.bursts - 1)
            if period * 2 >= i, period * 2 <= 3 * i { shown = s.maxBurst }
        }
        let p = Budget.Parameters(
            intervalUs: s.intervalUs, peripheralLatency: s.peripheralLatency, phy: phyName(s.dataPHY ?? 1),
            phyKnown: s.dataPHY != nil, dataLength: s.dataLength ?? 27, dataLengthKnown: s.dataLength != nil,
            mtu: s.mtu, mtuKnown: s.mtuKnown, encrypted: s.encrypted, aclBuffers: acl?.packets,
            packetsPerEvent: s.kind.requestResponse ? nil : shown)
        var out = Budget.Stretch(
            kind: s.kind.name, sender: s.sentByHost ? "host" : "peer", firstFrame: s.firstFrame, lastFrame: s.lastFrame,
            pdus: s.pdus, valueBytes: s.bytes, largestValue: s.largest, durationUs: duration, bytesPerSecond: rate,
            parameters: p,
            ceilingBytesPerSecond: nil, limit: "unknown_interval",
            limitText: "the connection interval is not in the capture, so no ceiling can be computed", advice: nil)
        guard let interval = s.intervalUs, interval > 0 else { return out }
        let model = LinkModel(
            intervalUs: interval, dataPHY: s.dataPHY ?? 1, ackPHY: s.ackPHY ?? 1,
            dataLength: max(s.dataLength ?? 27, 27),
            mtu: max(s.mtu, 23), encrypted: s.encrypted, attOverhead: s.kind == .reads ? 1 : 3,
            requestResponse: s.kind.requestResponse, observedLLPerEvent: nil, aclBuffers: acl?.packets,
            aclLength: acl?.length)
        var m = model
        if let k = p.packetsPerEvent {
            // In LL PDUs, from the values the stretch carried (not the MTU's).
            let l2 = s.largest + (s.kind == .reads ? 1 : 3) + 4
            m.observedLLPerEvent = Double(k * ((l2 + m.dataLength - 1) / m.dataLength))
        }
        let (ceiling, limit) = m.ceiling()
        out.ceilingBytesPerSecond = Int(ceiling.rounded())
        out.limit = limit.rawValue
        out.limitText = limitText(limit, m, s)
        if Double(rate) * 2 < ceiling {
            // Below half the ceiling: the sender, not the link, set the pace.
            out.limitText +=
                "; this stretch reached \(Int(Double(rate) * 100 / ceiling)) % of it: the sender left the link idle"
                + (s.largest < m.value
                    ? " (values of at most \(s.largest) bytes of the \(m.value) the MTU allows)" : "")
                + ", so a setting raises the ceiling, not this transfer"
        }
        out.advice = advice(m, s.kind, ceiling, platform)
        return out
    }

    static func limitText(_ l: LinkModel.Limit, _ m: LinkModel, _ s: OpenStretch) -> String {
        let interval = Codes.micros(m.intervalUs)
        switch l {
        case .requestResponse:
            return
                "each \(s.kind == .reads ? "read" : s.kind == .indications ? "indication" : "write request") waits for its answer: a request in one connection event, the answer in the next, the next request in the one after, one \(m.value)-byte value per two \(interval) intervals"
        case .airtime:
            return
                "the air time of the \(interval) interval: \(m.fragments) LL PDU(s) of at most \(m.dataLength) octets per \(m.value)-byte value on the \(phyName(m.dataPHY)) PHY, each answered after 150 µs, take \(Codes.micros(m.attAirtime)) per value"
        case .packetsPerEvent:
            return
                "no connection event carried more than \(Int(m.observedLLPerEvent ?? 0)) LL PDU(s), though \(Int(Double(m.intervalUs) / Double(m.attAirtime) * Double(m.fragments))) fit in the \(interval) interval: the controllers most likely end each event early (the connection event length; inferred from the bursts, which HCI times only as the host saw them)"
        case .aclBuffers:
            return
                "this host's controller has \(m.aclBuffers ?? 0) LE ACL buffers of \(m.aclLength ?? 0) octets (HCI LE Read Buffer Size), freed only after the event that sent them: at most that many packets per \(interval) interval"
        }
    }

    /// The one setting that raises the ceiling most (by at least 10 %), in the platform's API.
    static func advice(_ m: LinkModel, _ kind: StreamKind, _ now: Double, _ platform: Platform) -> Budget.Advice? {
        var options: [(String, LinkModel)] = []
        if m.requestResponse {
            var x = m
            x.requestResponse = false
            x.attOverhead = 3
            options.append(
                (
                    kind == .writeRequests
                        ? "write_without_response" : kind == .reads ? "notifications" : "notifications", x
                ))
        }
        if m.intervalUs > Budget.shortInterval {
            var x = m
            x.intervalUs = Budget.shortInterval
            options.append(("connection_interval", x))
        }
        if m.mtu < 247 {
            var x = m
            x.mtu = 247
            options.append(("mtu", x))
        }
        if m.dataLength < 251 {
            var x = m
            x.dataLength = 251
            options.append(("data_length", x))
        }
        if m.dataPHY != 2 || m.ackPHY != 2 {
            var x = m
            x.dataPHY = 2
            x.ackPHY = 2
            options.append(("phy_2m", x))
        }
        var best: (String, Double)?
        for (name, x) in options {
            let r = x.ceiling().rate
            if r >= now * 1.1, r > (best?.1 ?? 0) { best = (name, r) }
        }
        guard let (setting, rate) = best else { return nil }
        let text = apiText(setting, kind)
        return Budget.Advice(
            setting: setting, ceilingBytesPerSecond: Int(rate.rounded()),
            android: platform == .apple ? nil : text.android, coreBluetooth: platform == .android ? nil : text.apple)
    }

    static func apiText(_ setting: String, _ kind: StreamKind) -> (android: String, apple: String) {
        switch setting {
        case "connection_interval":
            return (
                "BluetoothGatt.requestConnectionPriority(BluetoothGatt.CONNECTION_PRIORITY_HIGH): an 11.25–15 ms interval",
                "the interval is the peripheral's to ask for on iOS and macOS (Core Bluetooth has no call for it): its firmware sends an L2CAP Connection Parameter Update Request for 15 ms"
            )
        case "mtu":
            return (
                "BluetoothGatt.requestMtu(247) (or more), then values up to the new MTU − 3",
                "Core Bluetooth exchanges the MTU itself: size each value by CBPeripheral.maximumWriteValueLength(for:) (writes) or CBCentral.maximumUpdateValueLength (notifications)"
            )
        case "data_length":
            return (
                "no app API: the stacks negotiate it; the peripheral's firmware can ask for 251 octets (LL_LENGTH_REQ, HCI LE Set Data Length)",
                "no app API: the system negotiates it; the peripheral's firmware can ask for 251 octets (LL_LENGTH_REQ, HCI LE Set Data Length)"
            )
        case "phy_2m":
            return (
                "BluetoothGatt.setPreferredPhy(BluetoothDevice.PHY_LE_2M_MASK, BluetoothDevice.PHY_LE_2M_MASK, BluetoothDevice.PHY_OPTION_NO_PREFERRED)",
                "no Core Bluetooth call: the system takes the 2M PHY when the peripheral asks for it (LL_PHY_REQ)"
            )
        case "write_without_response":
            return (
                "write with BluetoothGattCharacteristic.WRITE_TYPE_NO_RESPONSE, sending the next value from onCharacteristicWrite",
                "CBPeripheral.writeValue(_:for:type: .withoutResponse) while canSendWriteWithoutResponse is true, resuming in peripheralIsReady(toSendWriteWithoutResponse:)"
            )
        default:
            if kind == .reads {
                return (
                    "BluetoothGatt.setCharacteristicNotification and a CCCD write (notifications) instead of repeated readCharacteristic",
                    "CBPeripheral.setNotifyValue(true, for:) instead of repeated readValue(for:)"
                )
            }
            return (
                "notifications, not indications: BluetoothGattServer.notifyCharacteristicChanged(device, characteristic, false, value)",
                "notifications, not indications: a characteristic with the .notify property, sent with CBPeripheralManager.updateValue(_:for:onSubscribedCentrals:)"
            )
        }
    }

    static func latency(_ k: LatencyKey, _ s: LatencySamples, hostIsCentral: Bool) -> Budget.Latency {
        let sorted = s.values.sorted()
        let n = sorted.count
        let median = n > 0 ? sorted[(n - 1) / 2] : 0
        let p95 = n > 0 ? sorted[max(0, (95 * n + 99) / 100 - 1)] : 0
        return Budget.Latency(
            operation: k.operation, requester: k.sentByHost ? "host" : "peer", count: s.count, medianUs: Int(median),
            p95Us: Int(p95), maxUs: Int(s.max), maxFrame: s.maxFrame,
            slowest: slowest(s, requestToPeripheral: k.sentByHost == hostIsCentral))
    }

    /// Why the slowest request took as long, from the interval and peripheral latency in force.
    static func slowest(_ s: LatencySamples, requestToPeripheral: Bool) -> String {
        guard let i = s.maxIntervalUs, i > 0 else {
            return "the connection interval is not in the capture: not explained"
        }
        let events = Double(s.max) / Double(i)
        let n = Int(events.rounded(.up))
        if events <= 2.5 {
            return
                "\(Codes.micros(Int(s.max))) is within \(n) connection interval(s) of \(Codes.micros(i)): the request waited for the next connection event and the answer came in the one after"
        }
        if let l = s.maxPeripheralLatency, l > 0, requestToPeripheral, events <= Double(l) + 2.5 {
            return
                "\(Codes.micros(Int(s.max))), \(n) intervals of \(Codes.micros(i)): the peripheral may skip \(l) event(s) (its peripheral latency), so the request waited until it listened"
        }
        return
            "\(Codes.micros(Int(s.max))), \(n) intervals of \(Codes.micros(i)): the server answered \(n - 1) connection events after the request (a slow server)"
    }
}

extension Codes {
    /// Microseconds as text with ms precision: "15 ms", "1.25 ms", "676 µs".
    static func micros(_ us: Int) -> String {
        if us < 1000 { return "\(max(us, 0)) µs" }
        if us % 1000 == 0 { return "\(us / 1000) ms" }
        let hundredths = us / 10
        let frac = hundredths % 100
        return "\(us / 1000).\(frac < 10 ? "0" : "")\(frac) ms"
    }
}
