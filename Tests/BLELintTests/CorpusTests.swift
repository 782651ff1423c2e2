import BLELint
import Foundation
import TestSupport
import Testing

/// The labelled corpus: every Bumble capture linted, findings compared with
/// Corpus/expected.json. Fails below 100 % recall or on any false positive, over the rules
/// that exist; expected findings of rules not implemented yet are listed, not counted.
@Suite struct CorpusTests {
    struct Expected {
        var findings: [(rule: String, frame: Int)] = []
        var notEvaluable: [String] = []
    }

    static func expectations() throws -> [String: Expected] {
        let url = Fixtures.repositoryRoot.appendingPathComponent("Tests/BLELintTests/Corpus/expected.json")
        let root = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let files = try #require(root["files"] as? [String: [String: Any]])
        var out: [String: Expected] = [:]
        for (name, body) in files {
            var e = Expected()
            for f in body["findings"] as? [[String: Any]] ?? [] {
                e.findings.append((try #require(f["rule"] as? String), try #require(f["frame"] as? Int)))
            }
            e.notEvaluable = body["not_evaluable"] as? [String] ?? []
            out[name] = e
        }
        return out
    }

    @Test func recallAndFalsePositivesOverTheBumbleCorpus() throws {
        let expected = try Self.expectations()
        let implemented = Set(RuleRegistry.descriptors.map(\.slug))
        let files = Fixtures.captures(in: "bumble")
        #expect(files.count == 21)
        for name in expected.keys {
            #expect(files.contains { $0.hasSuffix("/" + name) }, "expected.json names a missing file \(name)")
        }

        var truePositives = 0
        var falseNegatives: [String] = []
        var falsePositives: [String] = []
        var notImplemented: [String] = []
        for path in files {
            let name = URL(fileURLWithPath: path).lastPathComponent
            let exp = expected[name] ?? Expected()
            let report = CaptureLinter.lint(path: path)
            #expect(report.error == nil && report.damage == nil, "\(name)")
            var found = report.findings.map { ($0.slug, $0.firstFrame) }
            for (rule, frame) in exp.findings {
                guard implemented.contains(rule) else {
                    notImplemented.append("\(name): \(rule) @\(frame)")
                    continue
                }
                if let i = found.firstIndex(where: { $0 == (rule, frame) }) {
                    truePositives += 1
                    found.remove(at: i)
                } else {
                    falseNegatives.append("\(name): \(rule) @\(frame)")
                }
            }
            falsePositives += found.map { "\(name): \($0.0) @\($0.1)" }
            for rule in exp.notEvaluable where implemented.contains(rule) {
                #expect(report.notEvaluable(rule) != nil, "\(name): \(rule) should be not evaluable")
            }
        }
        let expectedCount = truePositives + falseNegatives.count
        let recall = expectedCount == 0 ? 0 : Double(truePositives) / Double(expectedCount)
        print(
            "lint corpus: \(files.count) captures, \(expectedCount) expected findings of implemented rules, recall \(truePositives)/\(expectedCount) = \(Int(recall * 100)) %, \(falsePositives.count) false positives; \(notImplemented.count) expected findings of rules not implemented yet: \(notImplemented.joined(separator: "; "))"
        )
        #expect(expectedCount >= 6, "the corpus must exercise the implemented rules")
        #expect(falseNegatives.isEmpty, "missed: \(falseNegatives)")
        #expect(falsePositives.isEmpty, "false positives: \(falsePositives)")
        #expect(recall == 1)
    }
}
