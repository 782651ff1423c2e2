import BLEDiagnose
import BLETimeline

/// Everything the HTML report shows about one capture, aggregated in the single streaming
/// pass that lints it (`SessionReportBuilder`). Bounded whatever the capture's size: time
/// series have a fixed number of buckets, repetitive runs of events are collapsed into one
/// band, sequence charts and lists are capped and say how much they left out.
///
/// Times are microseconds since the capture's first frame (`header.firstTime`), so that the
/// page's numbers stay small; `header.firstTime` is microseconds since 1970.
public struct SessionReportModel: Sendable, Encodable {
    public var header: ReportHeader
    public var scanning: [ScanPeriod] = []
    /// Scan periods past `Limits.scanPeriods`, only counted.
    public var scanningOmitted = 0
    public var devices: [AdvertiserModel] = []
    /// Advertisers past `Limits.devices`, only counted.
    public var devicesOmitted = 0
    public var connections: [ConnectionModel] = []
    /// Connections past `Limits.connections`, only counted.
    public var connectionsOmitted = 0
    public var throughput: BucketSeries<ThroughputBucket>
    public var latency: [LatencyHistogram] = []
    public var databases: [PeerDatabase] = []
    /// Connections whose GATT database was left out because `Limits.databasePeers` other peers
    /// had one already (a peer on several such connections counts for each); nil when none was.
    /// Counted rather than keyed by peer, so that counting is bounded too.
    public var databasesOmitted: Int?
    public var findings: [FindingModel] = []
    public var notEvaluated: [NotEvaluatedModel] = []
    /// Timeline event counts by type, most frequent first.
    public var events: [EventCount] = []
    /// `blecap diagnose`'s verdicts that belong to no connection of `connections`: connection
    /// attempts that never became one, Disconnection Completes for links the capture never
    /// showed, connections past `Limits.connections` (in the order they started; each
    /// connection's own is its `diagnosis`). Encoded as `blecap diagnose` writes them
    /// (docs/diagnose.md).
    public var verdicts: [Verdict] = []
    /// Verdicts past `Limits.verdicts`, only counted.
    public var verdictsOmitted = 0

    /// The caps that keep the model (and the page) bounded.
    public enum Limits {
        public static let scanPeriods = 1000
        public static let devices = 256
        /// Advertisers that get an RSSI series (the first ones seen).
        public static let rssiSeries = 32
        public static let rssiBuckets = 120
        /// Advertisers the RSSI plot draws before its "others" entry is expanded: six lines
        /// with their min–max bands stay apart in the 220-pixel plot, more become a tangle.
        public static let rssiPlotted = 6
        public static let connections = 4096
        /// Connections that get a sequence chart, parameter history and density (the first).
        public static let detailedConnections = 128
        /// Sequence items kept from a connection's start and from its end.
        public static let sequenceHead = 150
        public static let sequenceTail = 30
        /// Members of a collapsed run kept as examples (first ones), shown when expanded.
        public static let bandSamples = 6
        public static let parameterChanges = 64
        public static let densityBuckets = 120
        public static let throughputBuckets = 600
        public static let findingFrames = 32
        public static let databasePeers = 64
        /// Verdicts listed outside the connections (failed attempts above all).
        public static let verdicts = 1000
    }

    public var findingsBySeverity: SeverityCounts {
        var counts = SeverityCounts()
        for f in findings {
            switch f.severity {
            case "error": counts.error += 1
            case "warning": counts.warning += 1
            default: counts.note += 1
            }
        }
        return counts
    }
}

/// Findings by severity for the page's header. A struct, not a `[String: Int]`: a dictionary is
/// encoded in its hash order, which Swift seeds per process, so the same capture gave a page
/// whose `findings` keys came in a different order from run to run. Declared properties are
/// encoded in declaration order, the same every time.
public struct SeverityCounts: Sendable, Encodable, Equatable {
    public var error = 0
    public var warning = 0
    public var note = 0

    public init(error: Int = 0, warning: Int = 0, note: Int = 0) {
        self.error = error
        self.warning = warning
        self.note = note
    }
}

public struct ReportHeader: Sendable, Encodable {
    public var path: String
    public var container: String?
    public var frames = 0
    /// µs since 1970 of the first frame, and of the last (by time), nil without frames.
    public var firstTime: Int64?
    public var lastTime: Int64?
    /// µs from the earliest to the latest frame.
    public var duration: Int64 = 0
    public var controllers = 0
    public var devices = 0
    /// More advertisers sent reports than `devices` counts (TimelineStatistics keeps 1,024).
    public var devicesCapped = false
    public var connections = 0
    public var findings = SeverityCounts()
    public var damage: String?
    public var error: String?
    /// `report -Y` / `--connection` …: the options that narrowed the page, and how many
    /// timeline events they kept; nil for a page of the whole capture.
    public var scope: String?
    public var scopeEvents: Int?
    public var generator = "blecap"

    public init(path: String) { self.path = path }
}

/// A scan (LE Set Scan Enable / BlueZ mgmt discovery), from its start to its stop or the end
/// of the capture.
public struct ScanPeriod: Sendable, Encodable {
    public var start: Int64
    public var end: Int64
    public var startFrame: Int
    public var active: Bool?
    /// Ended with the capture rather than by a stop.
    public var open: Bool
    /// Android's offloaded scan filters (timeline `scan.filters`) at the start, in one line
    /// ("APCF enabled: index 1 all-pass; 3 UUID FE2C"); nil when the capture has none.
    public var filters: String? = nil
    /// Whether the controller passed every advertisement at some point of the scan (an all-pass
    /// index in force, or APCF disabled); nil without offloaded filters.
    public var passesEverything: Bool? = nil
}

/// A device seen in advertising reports, with its RSSI over time.
public struct AdvertiserModel: Sendable, Encodable {
    public var address: String
    public var name: String?
    public var reports: Int
    public var connectable: Bool
    public var rssi: BucketSeries<RSSIBucket>?
    /// The RSSI plot draws this advertiser only when its "others" entry is expanded: it has a
    /// series but is not among the `Limits.rssiPlotted` most heard (`RSSIFold`).
    public var folded = false
}

/// Which advertisers the RSSI plot draws at first: the `limit` with the most advertising
/// reports, the rest folded into one "N others" legend entry. Ranked by reports, not by median
/// RSSI: the most heard draw the densest lines, and a device heard once up close would
/// otherwise push out one heard all capture long; the count is the one `info` shows too.
/// Ties keep the order the devices were first seen in.
public enum RSSIFold {
    /// Indices into `devices` to fold (those with an RSSI series past the first `limit`).
    public static func folded(_ devices: [AdvertiserModel], limit: Int) -> Set<Int> {
        let ranked = devices.indices.filter { devices[$0].rssi != nil }
            .sorted { devices[$0].reports != devices[$1].reports ? devices[$0].reports > devices[$1].reports : $0 < $1 }
        return Set(ranked.dropFirst(max(0, limit)))
    }
}

/// One connection: its bar on the timeline, its parameter history, notification density and
/// the sequence chart of its GATT exchange.
public struct ConnectionModel: Sendable, Encodable {
    public var number: Int
    public var peer: String?
    public var peerName: String?
    /// This host's role: "central" or "peripheral"; nil when unknown.
    public var role: String?
    public var start: Int64
    public var end: Int64
    public var startFrame: Int
    public var endFrame: Int?
    /// How it ended: "local", "remote", "link_loss" (Disconnection Complete's side), "open"
    /// (still up at the end of the capture) or "lost_track" (ended without a Disconnection
    /// Complete: a reset or a new connection on the handle).
    public var ended: String
    public var reason: Int?
    public var reasonName: String?
    /// ATT_MTU when it is a fact; nil when the capture missed the exchange (`mtuAtLeast` then
    /// says what it is at least).
    public var mtu: Int?
    public var mtuAtLeast: Int?
    public var unknownStart: Bool
    public var notifications = 0
    public var notificationBytes = 0
    public var writes = 0
    public var writeBytes = 0
    public var attErrors = 0
    /// False past `Limits.detailedConnections`: bar only.
    public var detailed: Bool
    public var parameters: [ParameterChange] = []
    public var parametersOmitted = 0
    public var density: BucketSeries<CountBucket>?
    /// The sequence chart: items from the start, then (when `omitted` is set) the gap, then
    /// items from the end (`tailStart` is the index of the first of those).
    public var sequence: [SequenceItem] = []
    public var omitted: OmittedRun?
    public var tailStart: Int?
    /// Link-layer (sniffer) captures: what the air showed of the connection.
    public var linkLayer: LinkLayerModel?
    /// The connection's facts as the timeline established them: the record `info`, `gatt`,
    /// `timeline` and `lint` state too (the fields above are read from it).
    public var facts: ConnectionFacts?
    /// Why it ended (or failed): `blecap diagnose`'s verdict for the connection, made in the
    /// same pass, encoded as `diagnose` writes it.
    public var diagnosis: Verdict?
}

/// A sniffed connection's link-layer counters (BLETimeline's `LinkLayerCounters`).
public struct LinkLayerModel: Sendable, Encodable {
    public var accessAddress: String
    public var dataPDUs: Int
    public var emptyPDUs: Int
    public var retransmissions: Int
    /// Retransmissions per data PDU, 0…1.
    public var retransmissionRate: Double
    public var crcErrors: Int
    public var encryptedPDUs: Int
    public var encryptedFromFrame: Int?
    /// Encrypted PDUs blecap decrypted, and those whose MIC the link's key did not verify.
    public var decryptedPDUs: Int = 0
    public var micFailures: Int = 0
    public var missedEvents: Int
    public var directionInferred: Bool
    /// Channel use, RSSI per side and retransmissions over time (the report's link-layer charts).
    public var radio: LinkLayerRadioSeries? = nil
}

/// Connection timing as set (Connection Complete, Connection Update Complete) or requested
/// (L2CAP Connection Parameter Update Request).
public struct ParameterChange: Sendable, Encodable {
    public var t: Int64
    public var frame: Int
    /// "initial", "update", "request".
    public var kind: String
    public var intervalMs: Double
    public var intervalMaxMs: Double?
    public var latency: Int
    public var timeoutMs: Int
    public var accepted: Bool?
}

/// One row of a sequence chart: one PDU exchange, or a collapsed run of identical ones.
public struct SequenceItem: Sendable, Encodable {
    /// Frame and time of the (first) request/PDU.
    public var frame: Int
    public var t: Int64
    /// "c2p" central → peripheral, "p2c" peripheral → central, "link" a link-layer/HCI event
    /// of the connection drawn across both lifelines.
    public var dir: String
    /// What happened: "Write Request", "Notification", "MTU Exchange", "Disconnection" …
    public var op: String
    public var handle: Int?
    /// The attribute's name from the connection's GATT database.
    public var name: String?
    public var detail: String?
    /// Set when the operation failed: ATT error or HCI status, with its name.
    public var error: String?
    public var responseFrame: Int?
    public var latency: Int64?
    /// Members of the run: 1 for a single exchange.
    public var count = 1
    public var lastFrame: Int
    public var lastT: Int64
    public var bytes = 0
    public var minLength: Int?
    public var maxLength: Int?
    /// The first members of a run as (frame, t, length), for the expanded band.
    public var samples: [[Int64]]?
}

/// Sequence items dropped between the head and the tail of a long sequence.
public struct OmittedRun: Sendable, Encodable {
    public var items: Int
    public var events: Int
    public var firstFrame: Int
    public var lastFrame: Int
}

/// Round-trip latencies of one kind of ATT operation (request → response, indication →
/// confirmation) as a histogram over `LatencyHistogram.edges`.
public struct LatencyHistogram: Sendable, Encodable {
    /// Bin i holds latencies in [edges[i], edges[i+1]) µs; the last bin is open-ended.
    public static let edges: [Int64] = [
        0, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000,
        100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000,
    ]
    public var operation: String
    public var count = 0
    public var minimum: Int64 = .max
    public var maximum: Int64 = 0
    public var sum: Int64 = 0
    public var bins = [Int](repeating: 0, count: LatencyHistogram.edges.count)
    public var edges: [Int64] { Self.edges }

    public init(operation: String) { self.operation = operation }

    public mutating func add(_ latency: Int64) {
        let l = max(0, latency)
        count += 1
        minimum = min(minimum, l)
        maximum = max(maximum, l)
        sum &+= l
        var i = Self.edges.count - 1
        while i > 0 && l < Self.edges[i] { i -= 1 }
        bins[i] += 1
    }

    enum CodingKeys: String, CodingKey { case operation, count, minimum, maximum, sum, bins, edges }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(operation, forKey: .operation)
        try c.encode(count, forKey: .count)
        try c.encode(count == 0 ? 0 : minimum, forKey: .minimum)
        try c.encode(maximum, forKey: .maximum)
        try c.encode(sum, forKey: .sum)
        try c.encode(bins, forKey: .bins)
        try c.encode(edges, forKey: .edges)
    }
}

/// A peer's GATT server as discovered (the largest database seen for that peer), or this
/// host's own server as peers discovered it.
public struct PeerDatabase: Sendable, Encodable {
    public var peer: String?
    /// "remote" (the peer's server) or "local" (this host's).
    public var side: String
    public var connection: Int
    public var services: [ServiceNode]
    /// Characteristics outside any discovered service.
    public var orphans: [CharacteristicNode]
}

public struct ServiceNode: Sendable, Encodable {
    public var uuid: String
    public var name: String?
    public var primary: Bool
    public var startHandle: Int
    public var endHandle: Int
    public var characteristics: [CharacteristicNode]
}

public struct CharacteristicNode: Sendable, Encodable {
    public var uuid: String
    public var name: String?
    public var declarationHandle: Int
    public var valueHandle: Int
    public var properties: [String]
    public var descriptors: [DescriptorNode]
}

public struct DescriptorNode: Sendable, Encodable {
    public var uuid: String
    public var name: String?
    public var handle: Int
}

/// A lint finding with its rule's explanation and fix, and where its frames are drawn.
public struct FindingModel: Sendable, Encodable {
    public var rule: String
    public var slug: String
    public var severity: String
    public var title: String
    public var message: String
    public var connection: Int?
    public var peer: String?
    public var handle: Int?
    public var t: Int64
    public var frames: [Int]
    public var evidence: String
    public var explanation: String
    /// Code that avoids the problem, in the API of `fixPlatform` (the capture's platform).
    public var fix: String
    /// "Android" or "Core Bluetooth".
    public var fixPlatform: String
    /// The rule's page in the repository (`docs/rules/<slug>.md`, also `blecap explain`).
    public var docs: String
    /// The public documentation the rule rests on, for the capture's platform, one line each
    /// ("Core Bluetooth: CBPeripheral.canSendWriteWithoutResponse").
    public var references: [String]
    public var baselined: Bool
    /// Sequence-chart rows holding the finding's frames: (connection, item index).
    public var anchors: [FindingAnchor] = []
}

public struct FindingAnchor: Sendable, Encodable, Equatable {
    public var connection: Int
    public var item: Int
}

public struct NotEvaluatedModel: Sendable, Encodable {
    public var rule: String
    public var slug: String
    public var reason: String
    public var whole: Bool
}

public struct EventCount: Sendable, Encodable {
    public var type: String
    public var count: Int
}
