import BLEBytes
import BLEPackets
import BLETimeline

/// One check. A rule is a small value type in its own file under `Rules/`: it observes the
/// input one item at a time and reports findings through the sink. Its state must stay bounded
/// per connection (or per peer), never per frame.
///
/// Adding a rule: one file here, its tests, and one line in `RuleRegistry.all`; declare
/// `observedEvents` when the rule reads only some classes of timeline event, `observedFacts`
/// when it reads only some kinds of HCI fact (or none).
public protocol LintRule: Sendable {
    static var descriptor: RuleDescriptor { get }
    init(settings: RuleSettings)
    /// Why this input cannot be checked by the rule at all, or nil when it can. Called after
    /// the input was read, with what it turned out to contain.
    static func notEvaluable(_ facts: CaptureFacts) -> String?
    mutating func observe(_ event: TimelineEvent, _ sink: FindingSink)
    mutating func observe(_ fact: HCIFact, _ sink: FindingSink)
    mutating func observe(_ call: APICall, _ sink: FindingSink)
    /// The input ended (`time` is its last timestamp).
    mutating func finish(at time: Int64, _ sink: FindingSink)
    /// The rule judges ATT or SMP traffic: on a link-layer capture whose link became
    /// encrypted (without a key) it sees only the part before.
    static var readsATTOrSMP: Bool { get }
    /// The classes of timeline event `observe(_: TimelineEvent, _:)` reads: the engine hands the
    /// rule those only. A rule that uses every event's time (timeouts) keeps `.all`.
    static var observedEvents: TimelineEventClasses { get }
    /// The classes of HCI fact `observe(_: HCIFact, _:)` reads: the engine hands the rule those
    /// only (none to a rule that reads no fact).
    static var observedFacts: HCIFactClasses { get }
}

/// Classes of timeline event, for `LintRule.observedEvents`. A rule about scanning is then not
/// called for each of a capture's million notifications (calling every rule with every event
/// was a fifth of `lint`'s instructions).
public struct TimelineEventClasses: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Reset, initialisation, BlueZ management, index and power events, annotations.
    public static let controller = TimelineEventClasses(rawValue: 1 << 0)
    /// Scan start/stop, scan filters, advertisements.
    public static let scanning = TimelineEventClasses(rawValue: 1 << 1)
    /// Connection create/cancel/complete/failed/update, parameter requests, data length, PHY,
    /// encryption, disconnection, link-layer control.
    public static let connection = TimelineEventClasses(rawValue: 1 << 2)
    /// What an ATT client starts: MTU exchange, discovery, reads, writes, subscriptions, and
    /// responses that answer nothing.
    public static let gattRequests = TimelineEventClasses(rawValue: 1 << 3)
    /// What an ATT server sends unasked: notifications and indications.
    public static let gattUpdates = TimelineEventClasses(rawValue: 1 << 4)
    /// SMP: pairing, security requests, key distribution.
    public static let security = TimelineEventClasses(rawValue: 1 << 5)
    public static let all: TimelineEventClasses = [
        .controller, .scanning, .connection, .gattRequests, .gattUpdates, .security,
    ]
    /// Bit positions, for the engine's table.
    static let count = 6
}

extension TimelineEvent.Kind {
    /// The class's bit position (`TimelineEventClasses`).
    var classIndex: Int {
        switch self {
        case .controllerReset, .initComplete, .managementSetPowered, .managementSettings,
            .managementDiscoveryStart, .managementDiscoveryStop, .managementDiscovering, .indexAdded,
            .indexRemoved, .indexOpened, .indexClosed, .power, .annotation:
            0
        case .scanStart, .scanStop, .scanFilters, .advertisement, .advertisingStart, .advertisingStop: 1
        case .connectionCreate, .connectionCancel, .connectionComplete, .connectionFailed, .connectionUpdate,
            .connectionParameterRequest, .connectionParameterResponse, .dataLengthChange, .phyUpdate,
            .channelMapUpdate, .encryptionChange, .disconnection, .linkLayerControl, .linkLayerEncrypted:
            2
        case .mtuExchange, .discovery, .read, .write, .subscribe, .unmatchedResponse: 3
        case .notification, .indication: 4
        case .pairingRequest, .pairingResponse, .pairingFailed, .securityRequest, .identityAddress,
            .keyDistribution, .linkLayerDecryption:
            5
        }
    }
}

/// Classes of HCI fact, for `LintRule.observedFacts`. A capture has an `aclSent` fact for every
/// ACL packet the host sent and a `completedPackets` one for every Number Of Completed Packets
/// entry; handing each to all sixteen rules, ten of which read no fact at all, was about a fifth
/// of the instructions batch `lint` spends beyond decoding (docs/performance.md).
public struct HCIFactClasses: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Reset and the controller's buffers (LE Read Buffer Size).
    public static let controller = HCIFactClasses(rawValue: 1 << 0)
    /// An ACL packet the host sent.
    public static let aclSent = HCIFactClasses(rawValue: 1 << 1)
    /// Number Of Completed Packets, per handle.
    public static let completedPackets = HCIFactClasses(rawValue: 1 << 2)
    /// Connection Complete and Disconnection Complete.
    public static let connections = HCIFactClasses(rawValue: 1 << 3)
    /// BlueZ management commands and their statuses.
    public static let management = HCIFactClasses(rawValue: 1 << 4)
    /// What the capture is: its host stack, over the air.
    public static let capture = HCIFactClasses(rawValue: 1 << 5)
    public static let all: HCIFactClasses = [
        .controller, .aclSent, .completedPackets, .connections, .management, .capture,
    ]
    /// Bit positions, for the engine's table.
    static let count = 6
}

extension HCIFact.Kind {
    /// The class's bit position (`HCIFactClasses`).
    var classIndex: Int {
        switch self {
        case .reset, .leBufferSize: 0
        case .aclSent: 1
        case .completedPackets: 2
        case .connectionComplete, .disconnected: 3
        case .managementCommand, .managementStatus: 4
        case .hostStack, .overTheAir: 5
        }
    }
}

extension LintRule {
    public mutating func observe(_ event: TimelineEvent, _ sink: FindingSink) {}
    public mutating func observe(_ fact: HCIFact, _ sink: FindingSink) {}
    public mutating func observe(_ call: APICall, _ sink: FindingSink) {}
    public mutating func finish(at time: Int64, _ sink: FindingSink) {}
    public static var readsATTOrSMP: Bool { false }
    public static var observedEvents: TimelineEventClasses { .all }
    public static var observedFacts: HCIFactClasses { .all }
}

/// A rule's effective settings: severity and thresholds after the config file.
public struct RuleSettings: Sendable {
    public var severity: Severity
    public var thresholds: [String: Double]

    public init(severity: Severity, thresholds: [String: Double] = [:]) {
        self.severity = severity
        self.thresholds = thresholds
    }

    /// The configured value of `name`, else the rule's default.
    public func threshold(_ name: String, in descriptor: RuleDescriptor) -> Double {
        if let v = thresholds[name] { return v }
        return descriptor.thresholds.first { $0.name == name }?.defaultValue ?? 0
    }
}

/// What the rules of one run reported. Bounded: at most `FindingSink.maximumFindingsPerRule`
/// findings and `FindingSink.maximumLimitationsPerRule` partial-evaluation notes per rule; the
/// rest are counted, not kept. Rules reach it only through their own `FindingSink`.
final class FindingStore {
    var findings: [Finding] = []
    var limitations: [NotEvaluated] = []
    /// Findings dropped past the per-rule cap, by rule id.
    var dropped: [String: Int] = [:]
    /// Connection number and peer of each connection handle, from the timeline's Connection
    /// Complete events, for rules that see only handles (bounded: 12-bit handles).
    var owners: [UInt16: (connection: Int, peer: BDAddr?)] = [:]
    /// The tables the timeline's `scan.filters` events name (the builder's).
    var scanFilterTables = ScanFilterTables()
    /// The platform as known so far (forced by `--platform`, or detected from the frames read
    /// up to now): rules phrase their advice in its API.
    var platform: Platform = .unknown
}

/// One rule's way to report: it knows the rule's id, slug and effective severity, and writes
/// into the run's shared `FindingStore`. The engine makes one per rule when it starts, so
/// switching rules for every input sets nothing (it used to set the current rule and severity
/// on one shared sink: two checked class accesses per rule per input, ~4 % of `lint`).
public final class FindingSink {
    public static let maximumFindingsPerRule = 500
    public static let maximumLimitationsPerRule = 20

    let store: FindingStore
    let ruleID: String
    let slug: String
    let severity: Severity
    /// Whose behaviour the rule's findings report unless `report` says otherwise.
    let party: Party
    /// Findings and notes this rule reported so far (the caps are per rule).
    var reported = 0
    var limitationsReported = 0

    init(store: FindingStore, ruleID: String, slug: String, severity: Severity, party: Party = .app) {
        self.store = store
        self.ruleID = ruleID
        self.slug = slug
        self.severity = severity
        self.party = party
    }

    /// The host's platform as far as the input told so far (or as `--platform` forced it):
    /// `.unknown` until a sign was read. Rules name that platform's API in their advice.
    public var platform: Platform { store.platform }

    /// The latest connection seen on `handle`.
    public func owner(ofHandle handle: UInt16) -> (connection: Int, peer: BDAddr?)? { store.owners[handle] }

    /// The scan filter table a `scan.filters` event names (nil only for an event kept long
    /// after it was emitted: `ScanFilterTables`).
    public func scanFilterTable(_ snapshot: ScanFilterSnapshot) -> ScanFilterTable? {
        store.scanFilterTables[snapshot]
    }

    /// The Filter Accept List a `connection.create` names (nil when it named none, or for an
    /// event kept long after it was emitted: `ScanFilterTables`).
    public func acceptList(_ snapshot: FilterAcceptListSnapshot?) -> FilterAcceptList? {
        snapshot.flatMap { store.scanFilterTables.acceptList($0) }
    }

    /// Reports a finding of this rule.
    /// `party`: whose behaviour this case is, when not the rule's default.
    public func report(
        _ message: String, event: TimelineEvent, handle: UInt16? = nil, related: [Int] = [],
        evidence: EvidenceKind = .hci, party: Party? = nil
    ) {
        report(
            message, connection: event.connection, peer: event.peer, handle: handle, time: event.time,
            frames: [event.frame] + related, evidence: evidence, party: party)
    }

    public func report(
        _ message: String, connection: Int?, peer: BDAddr?, handle: UInt16?, time: Int64,
        frames: [Int], evidence: EvidenceKind, party: Party? = nil
    ) {
        report(
            message, connection: connection, peer: peer, handle: handle, time: time, frames: frames,
            evidence: evidence, severity: severity, party: party)
    }

    /// Reports a finding of this rule at `severity` (for a rule's lesser half, `reportAtMost`).
    func report(
        _ message: String, connection: Int?, peer: BDAddr?, handle: UInt16?, time: Int64,
        frames: [Int], evidence: EvidenceKind, severity: Severity, party: Party? = nil
    ) {
        guard reported < Self.maximumFindingsPerRule else {
            store.dropped[ruleID, default: 0] += 1
            return
        }
        reported += 1
        // First frame stays first; related frames sorted, deduplicated, capped.
        var related = Array(Set(frames.dropFirst())).filter { $0 != frames.first }.sorted()
        if related.count > 32 { related = Array(related.prefix(32)) }
        store.findings.append(
            Finding(
                ruleID: ruleID, slug: slug, severity: severity, message: message, connection: connection,
                peer: peer?.description, handle: handle, time: time, frames: Array(frames.prefix(1)) + related,
                evidence: evidence, party: party ?? self.party))
    }

    /// Notes that part of the input could not be checked by this rule (e.g. writes to a handle
    /// whose properties were never discovered). Deduplicated by reason.
    public func notEvaluable(_ reason: String) {
        guard limitationsReported < Self.maximumLimitationsPerRule,
            !store.limitations.contains(where: { $0.ruleID == ruleID && $0.reason == reason })
        else { return }
        limitationsReported += 1
        store.limitations.append(NotEvaluated(ruleID: ruleID, slug: slug, reason: reason, whole: false))
    }
}

/// Naming helpers shared by rules.
enum Describe {
    /// What an operation's answer adds to a finding: the server's refusal when its error code is
    /// one of `refusals` (as a reason), and the answering frame as related evidence.
    static func answer(_ outcome: Outcome, refusals: Set<UInt8>) -> (refusal: String?, related: [Int]) {
        if case .error(let f, _, let code, _) = outcome, refusals.contains(code) {
            return ("the server answered \(attError(code))", [f])
        }
        return (nil, outcome.responseFrame.map { [$0] } ?? [])
    }

    static func handle(_ h: UInt16) -> String { "0x" + hex(h, 4) }

    static func hex<T: BinaryInteger>(_ v: T, _ digits: Int) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - s.count)) + s
    }

    /// "0x0012 (F0A3C002-…)" or "0x0010 (Heart Rate Measurement)" or just the handle.
    static func attribute(_ op: AttributeOperation) -> String {
        guard let a = op.attribute else { return handle(op.handle) }
        return "\(handle(op.handle)) (\(a.displayName))"
    }

    static func properties(_ p: UInt8) -> String {
        let names = GATTCharacteristicProperties.names.filter { p & $0.0 != 0 }.map { "\($0.1)" }
        return names.isEmpty ? "none" : names.joined(separator: "|")
    }

    static func seconds(_ us: Int64) -> String {
        let tenths = (us + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10) s"
    }

    static func hciStatus(_ code: UInt8) -> String {
        "0x\(hex(code, 2)) \(HCIError.name(code).map { "\($0)" } ?? "Unknown")"
    }

    static func attError(_ code: UInt8) -> String {
        "0x\(hex(code, 2)) \(ATTErrorCode.name(code).map { "\($0)" } ?? "Unknown")"
    }
}
