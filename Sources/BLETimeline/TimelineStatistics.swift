import BLEBytes
import BLEPackets

/// An advertiser seen in the capture (advertising reports, Vol 4 Part E 7.7.65.2/.13).
public struct DeviceSeen: Sendable {
    public var address: BDAddr
    public var addressType: UInt8?
    /// Complete or Shortened Local Name from its AD data (Vol 3 Part C 11 / CSS Part A 1.2),
    /// the first one seen; AD bytes that are not UTF-8 are repaired.
    public var name: String?
    public var reports: Int
    public var firstFrame: Int
    public var lastFrame: Int
    /// Whether any report said connectable (legacy ADV_IND/ADV_DIRECT_IND, extended bit 0).
    public var connectable: Bool
}

/// One connection in a capture, without its GATT databases (for summaries).
public struct ConnectionRecord: Sendable {
    public var number: Int
    public var peer: BDAddr?
    public var peerAddressType: UInt8?
    public var role: UInt8?
    public var handle: UInt16
    public var startFrame: Int
    public var endFrame: Int?
    /// Microseconds from the connection's first frame to its Disconnection Complete; nil when
    /// it never ended in the capture.
    public var duration: Int64?
    public var endReason: UInt8?
    public var endSide: DisconnectionSide?
    public var mtu: UInt16
    public var unknownStart: Bool
    public var linkLayer: LinkLayerCounters?
    /// The connection's facts (the record every command reads).
    public var facts: ConnectionFacts

    public init(_ s: ConnectionSummary) {
        facts = s.facts
        number = s.number
        peer = s.peer
        peerAddressType = s.peerAddressType
        role = s.role
        handle = s.handle
        startFrame = s.startFrame
        endFrame = s.endFrame
        duration = s.endTime.map { $0 &- s.startTime }
        endReason = s.endReason
        endSide = s.endSide
        mtu = s.mtu
        unknownStart = s.unknownStart
        linkLayer = s.linkLayer
    }
}

/// What `blecap info` reports about a timeline: devices seen, connections and event counts,
/// gathered in the decoding pass. Bounded: at most `maximumDevices` devices and
/// `maximumConnections` connection records are kept (the rest are only counted); counts by
/// type live in a table keyed by the static type name, so counting allocates nothing.
public struct TimelineStatistics {
    public static let maximumDevices = 1024
    public static let maximumConnections = 4096

    public private(set) var devices: [DeviceSeen] = []
    private var deviceIndex: [BDAddr: Int] = [:]
    /// Reports from advertisers past `maximumDevices`.
    public private(set) var reportsFromUnlistedDevices = 0
    public private(set) var connections: [ConnectionRecord] = []
    public private(set) var connectionCount = 0
    /// Events by type, in order of first appearance, without the current run. A list, not a
    /// dictionary: there are a few dozen types (hashing a name's address twice per event was
    /// 4 % of `info`).
    private var counts: [(type: StaticString, count: Int)] = []
    /// The type counted last and how many events of it since the type changed: a capture's
    /// events come in long runs of one type (a notification stream), counted with a comparison
    /// and an increment each (writing into `counts` for each event cost more; docs/performance.md).
    /// Added to `counts` when the type changes, and when counts are read.
    private var runType: StaticString = ""
    private var runCount = 0

    public init() {}

    public mutating func add(_ e: TimelineEvent) {
        count(e.type)
        guard case .advertisement(let a) = e.kind, let address = e.peer else { return }
        let connectable = a.extended ? a.eventType & 0x01 != 0 : a.eventType <= 1
        if let i = deviceIndex[address] {
            devices[i].reports += 1
            devices[i].lastFrame = e.frame
            devices[i].connectable = devices[i].connectable || connectable
            if devices[i].name == nil { devices[i].name = Self.name(e.value) }
            return
        }
        guard devices.count < Self.maximumDevices else {
            reportsFromUnlistedDevices += 1
            return
        }
        deviceIndex[address] = devices.count
        devices.append(
            DeviceSeen(
                address: address, addressType: e.peerAddressType, name: Self.name(e.value),
                reports: 1, firstFrame: e.frame, lastFrame: e.frame, connectable: connectable))
    }

    mutating func count(_ type: StaticString) {
        if type.utf8Start == runType.utf8Start {
            runCount += 1
            return
        }
        Self.add(run: (runType, runCount), to: &counts)
        runType = type
        runCount = 1
    }

    private static func add(run: (type: StaticString, count: Int), to counts: inout [(type: StaticString, count: Int)])
    {
        guard run.count > 0 else { return }
        if let i = counts.firstIndex(where: { $0.type.utf8Start == run.type.utf8Start }) {
            counts[i].count += run.count
        } else {
            counts.append(run)
        }
    }

    /// `counts` with the current run added.
    private var allCounts: [(type: StaticString, count: Int)] {
        var all = counts
        Self.add(run: (runType, runCount), to: &all)
        return all
    }

    public mutating func add(_ s: ConnectionSummary) {
        connectionCount += 1
        guard connections.count < Self.maximumConnections else { return }
        let record = ConnectionRecord(s)
        // Summaries arrive as connections end; keep them in connection order.
        let i = connections.lastIndex { $0.number < record.number }.map { $0 + 1 } ?? 0
        connections.insert(record, at: i)
    }

    /// Event counts by type, most frequent first (ties by name).
    public var eventCounts: [(type: StaticString, count: Int)] {
        allCounts.sorted { $0.count != $1.count ? $0.count > $1.count : $0.type.description < $1.type.description }
    }

    public func count(of type: String) -> Int {
        allCounts.first { $0.type.description == type }?.count ?? 0
    }

    private static func name(_ value: InlineBytes) -> String? {
        value.withView { v in AdvertisingData(v).localName.map { String(decoding: $0.toArray(), as: UTF8.self) } }
    }
}
