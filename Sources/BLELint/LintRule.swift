import BLEBytes
import BLEPackets
import BLETimeline

/// One check. A rule is a small value type in its own file under `Rules/`: it observes the
/// input one item at a time and reports findings through the sink. Its state must stay bounded
/// per connection (or per peer), never per frame.
///
/// Adding a rule: one file here, its tests, and one line in `RuleRegistry.all`.
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
}

extension LintRule {
    public mutating func observe(_ event: TimelineEvent, _ sink: FindingSink) {}
    public mutating func observe(_ fact: HCIFact, _ sink: FindingSink) {}
    public mutating func observe(_ call: APICall, _ sink: FindingSink) {}
    public mutating func finish(at time: Int64, _ sink: FindingSink) {}
    public static var readsATTOrSMP: Bool { false }
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

/// Collects what the rules of one run report. Bounded: at most `maximumFindingsPerRule`
/// findings and `maximumLimitationsPerRule` partial-evaluation notes per rule; the rest are
/// counted, not kept.
public final class FindingSink {
    public static let maximumFindingsPerRule = 500
    public static let maximumLimitationsPerRule = 20

    public private(set) var findings: [Finding] = []
    public private(set) var limitations: [NotEvaluated] = []
    /// Findings dropped past the per-rule cap, by rule id.
    public private(set) var dropped: [String: Int] = [:]
    var perRule: [String: Int] = [:]
    var limitationsPerRule: [String: Int] = [:]
    /// Id and slug of each rule the engine runs, and the index of the rule being called with
    /// its effective severity. An index, not the descriptor: the engine switches rules for
    /// every input, and copying a descriptor (strings, arrays) each time dominated lint's cost.
    var identities: [(id: String, slug: String)] = []
    var currentIndex: Int? = nil
    var severity: Severity = .warning

    var current: (id: String, slug: String)? { currentIndex.map { identities[$0] } }

    /// Connection number and peer of each connection handle, from the timeline's Connection
    /// Complete events, for rules that see only handles (bounded: 12-bit handles).
    var owners: [UInt16: (connection: Int, peer: BDAddr?)] = [:]

    public init() {}

    /// The latest connection seen on `handle`.
    public func owner(ofHandle handle: UInt16) -> (connection: Int, peer: BDAddr?)? { owners[handle] }

    /// Reports a finding of the current rule.
    public func report(
        _ message: String, event: TimelineEvent, handle: UInt16? = nil, related: [Int] = [],
        evidence: EvidenceKind = .hci
    ) {
        report(
            message, connection: event.connection, peer: event.peer, handle: handle, time: event.time,
            frames: [event.frame] + related, evidence: evidence)
    }

    public func report(
        _ message: String, connection: Int?, peer: BDAddr?, handle: UInt16?, time: Int64,
        frames: [Int], evidence: EvidenceKind
    ) {
        guard let rule = current else { return }
        let n = perRule[rule.id, default: 0]
        guard n < Self.maximumFindingsPerRule else {
            dropped[rule.id, default: 0] += 1
            return
        }
        perRule[rule.id] = n + 1
        // First frame stays first; related frames sorted, deduplicated, capped.
        var related = Array(Set(frames.dropFirst())).filter { $0 != frames.first }.sorted()
        if related.count > 32 { related = Array(related.prefix(32)) }
        findings.append(
            Finding(
                ruleID: rule.id, slug: rule.slug, severity: severity, message: message, connection: connection,
                peer: peer?.description, handle: handle, time: time, frames: Array(frames.prefix(1)) + related,
                evidence: evidence))
    }

    /// Notes that part of the input could not be checked by the current rule (e.g. writes to
    /// a handle whose properties were never discovered). Deduplicated by reason.
    public func notEvaluable(_ reason: String) {
        guard let rule = current else { return }
        let n = limitationsPerRule[rule.id, default: 0]
        guard n < Self.maximumLimitationsPerRule,
            !limitations.contains(where: { $0.ruleID == rule.id && $0.reason == reason })
        else { return }
        limitationsPerRule[rule.id] = n + 1
        limitations.append(NotEvaluated(ruleID: rule.id, slug: rule.slug, reason: reason, whole: false))
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
