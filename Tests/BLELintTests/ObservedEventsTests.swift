import CaptureIO
import Foundation
import TestSupport
import Testing

@testable import BLELint

/// Rules declare which classes of timeline event (`observedEvents`) and of HCI fact
/// (`observedFacts`) they read and the engine hands them those only. A declaration that leaves
/// out a class the rule does read would lose findings silently: every shipped capture is linted
/// both ways and must give the same findings and the same not-evaluated notes.
@Suite struct ObservedEventsTests {
    static let captures =
        ["bumble", "formats", "public", "synthetic", "linklayer"].flatMap { Fixtures.captures(in: $0) }

    static func lint(_ path: String, everyEventToEveryRule: Bool) throws -> CaptureReport {
        let engine = LintEngine(
            rules: LintConfiguration().selectedRules, everyEventToEveryRule: everyEventToEveryRule)
        var report = CaptureReport(path: path)
        let reader = try CaptureFile.open(path: path)
        CaptureLinter.lint(reader: reader, engine: engine, report: &report)
        return report
    }

    @Test(arguments: captures)
    func declarationsLoseNoFinding(_ path: String) throws {
        guard (try? CaptureFile.open(path: path)) != nil else { return }  // not a capture blecap reads
        let dispatched = try Self.lint(path, everyEventToEveryRule: false)
        let everything = try Self.lint(path, everyEventToEveryRule: true)
        // Compared whole: a finding's text is the same in every run (no clock in it).
        #expect(dispatched.findings == everything.findings, "\(Fixtures.relative(path))")
        #expect(
            dispatched.notEvaluated.map { "\($0.ruleID) \($0.reason)" }
                == everything.notEvaluated.map { "\($0.ruleID) \($0.reason)" }, "\(Fixtures.relative(path))")
    }

    /// Reports every HCI fact it is handed, of the classes it declares.
    struct FactEcho<Classes: FactClassList>: LintRule {
        static var descriptor: RuleDescriptor {
            RuleDescriptor(
                id: "TEST\(Classes.classes.rawValue)", slug: "fact-echo", title: "", defaultSeverity: .note,
                summary: "", enforces: [], references: [], evidence: [.hci], fix: "")
        }
        static var observedFacts: HCIFactClasses { Classes.classes }
        init(settings: RuleSettings) {}
        static func notEvaluable(_ facts: CaptureFacts) -> String? { nil }
        mutating func observe(_ fact: HCIFact, _ sink: FindingSink) {
            sink.report(
                "\(fact.kind)", connection: nil, peer: nil, handle: nil, time: fact.time, frames: [fact.frame],
                evidence: .hci)
        }
    }
    protocol FactClassList { static var classes: HCIFactClasses { get } }
    enum Management: FactClassList { static let classes: HCIFactClasses = .management }
    enum Every: FactClassList { static let classes: HCIFactClasses = .all }

    @Test func factsGoOnlyToTheRulesThatReadTheirClass() {
        let settings = RuleSettings(severity: .note)
        let engine = LintEngine(rules: [(FactEcho<Management>.self, settings), (FactEcho<Every>.self, settings)])
        engine.observe(
            HCIFact(frame: 1, time: 0, kind: .aclSent(handle: 1, attOpcode: 0x52, attHandle: 3, valueLength: 4)))
        engine.observe(HCIFact(frame: 2, time: 1, kind: .completedPackets(handle: 1, count: 1)))
        engine.observe(HCIFact(frame: 3, time: 2, kind: .managementStatus(opcode: 0x0023, status: 0x0F)))
        let frames = engine.finish().findings.map { "\($0.ruleID) \($0.frames.first ?? 0)" }
        #expect(frames == ["TEST63 1", "TEST63 2", "TEST16 3", "TEST63 3"])
    }

    @Test func theCorpusHasFindingsToLose() throws {
        // The comparison above is only worth something if the corpus makes the rules report.
        var total = 0
        for path in Self.captures where (try? CaptureFile.open(path: path)) != nil {
            total += try Self.lint(path, everyEventToEveryRule: false).findings.count
        }
        #expect(total >= 10)
    }
}
