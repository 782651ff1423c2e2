import BLEBytes
import BLETimeline

/// Runs a set of rules over one input. Feed `LintInput`s (and the capture facts as they are
/// learned), then `finish`. Rules are called in id order; the sink keeps their findings.
public final class LintEngine {
    struct Slot {
        var rule: any LintRule
        let descriptor: RuleDescriptor
        let settings: RuleSettings
        let type: any LintRule.Type
    }

    var slots: [Slot]
    public let sink = FindingSink()
    public var facts = CaptureFacts()
    var lastTime: Int64 = 0

    public init(rules: [(rule: any LintRule.Type, settings: RuleSettings)]) {
        slots = rules.map {
            Slot(
                rule: $0.rule.init(settings: $0.settings), descriptor: $0.rule.descriptor,
                settings: $0.settings, type: $0.rule)
        }
        sink.identities = slots.map { ($0.descriptor.id, $0.descriptor.slug) }
    }

    public convenience init(configuration: LintConfiguration = LintConfiguration()) {
        self.init(rules: configuration.selectedRules)
    }

    public func observe(_ input: LintInput) {
        switch input {
        case .timeline(let e):
            lastTime = max(lastTime, e.time)
            if case .connectionComplete(let info) = e.kind, let c = e.connection {
                sink.owners[info.handle] = (c, e.peer)
            }
        case .hci(let f): lastTime = max(lastTime, f.time)
        case .api(let c):
            lastTime = max(lastTime, c.time)
            facts.apiCalls += 1
        }
        for i in slots.indices {
            sink.currentIndex = i
            sink.severity = slots[i].settings.severity
            switch input {
            case .timeline(let e): slots[i].rule.observe(e, sink)
            case .hci(let f): slots[i].rule.observe(f, sink)
            case .api(let c): slots[i].rule.observe(c, sink)
            }
        }
        sink.currentIndex = nil
    }

    /// Ends the input. Returns the findings (fingerprinted, in frame order) and the rules that
    /// could not be evaluated, whole or in part.
    public func finish() -> (findings: [Finding], notEvaluated: [NotEvaluated]) {
        var whole: [NotEvaluated] = []
        for i in slots.indices {
            sink.currentIndex = i
            sink.severity = slots[i].settings.severity
            slots[i].rule.finish(at: lastTime, sink)
            if let why = slots[i].type.notEvaluable(facts) {
                whole.append(
                    NotEvaluated(
                        ruleID: slots[i].descriptor.id, slug: slots[i].descriptor.slug, reason: why, whole: true))
            }
        }
        sink.currentIndex = nil
        var hidden: [NotEvaluated] = []
        if let from = facts.linkLayerEncryptedFrom {
            for s in slots where s.type.readsATTOrSMP && !whole.contains(where: { $0.ruleID == s.descriptor.id }) {
                hidden.append(
                    NotEvaluated(
                        ruleID: s.descriptor.id, slug: s.descriptor.slug,
                        reason:
                            "over-the-air capture: the link is encrypted from frame \(from) and blecap has no key, so ATT and SMP after it are not visible",
                        whole: false))
            }
        }
        var findings = sink.findings
        for i in findings.indices { findings[i].fingerprint = Fingerprint.compute(findings[i]) }
        findings.sort { ($0.firstFrame, $0.ruleID) < ($1.firstFrame, $1.ruleID) }
        let wholeIDs = Set(whole.map(\.ruleID))
        let partial = sink.limitations.filter { !wholeIDs.contains($0.ruleID) }
        var dropped: [NotEvaluated] = []
        for (id, n) in sink.dropped.sorted(by: { $0.key < $1.key }) {
            let d = slots.first { $0.descriptor.id == id }?.descriptor
            dropped.append(
                NotEvaluated(
                    ruleID: id, slug: d?.slug ?? id,
                    reason:
                        "\(n) more findings not kept (limit \(FindingSink.maximumFindingsPerRule) per rule and capture)",
                    whole: false))
        }
        return (findings, whole + hidden + partial + dropped)
    }
}
