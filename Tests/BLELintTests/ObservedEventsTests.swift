import CaptureIO
import Foundation
import TestSupport
import Testing

@testable import BLELint

/// Rules declare which classes of timeline event they read (`observedEvents`) and the engine
/// hands them those only. A declaration that leaves out a class the rule does read would lose
/// findings silently: every shipped capture is linted both ways and must give the same
/// findings and the same not-evaluated notes.
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

    @Test func theCorpusHasFindingsToLose() throws {
        // The comparison above is only worth something if the corpus makes the rules report.
        var total = 0
        for path in Self.captures where (try? CaptureFile.open(path: path)) != nil {
            total += try Self.lint(path, everyEventToEveryRule: false).findings.count
        }
        #expect(total >= 10)
    }
}
