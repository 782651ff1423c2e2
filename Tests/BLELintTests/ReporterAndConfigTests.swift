import BLELint
import Foundation
import TestSupport
import Testing

@Suite struct ReporterTests {
    static let oversized = bumble("oversized_and_unchecked_writes.central")

    @Test func sarifCarriesRulesRegionsFramesAndFingerprints() throws {
        let text = SARIFReporter.render([Self.oversized])
        let root = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(root["version"] as? String == "2.1.0")
        let run = try #require((root["runs"] as? [[String: Any]])?.first)
        let driver = try #require((run["tool"] as? [String: Any])?["driver"] as? [String: Any])
        let rules = try #require(driver["rules"] as? [[String: Any]])
        #expect(rules.map { $0["id"] as? String } == RuleRegistry.descriptors.map(\.id))
        #expect(
            rules.allSatisfy { ($0["helpUri"] as? String)?.hasSuffix("docs/rules/\($0["name"] as! String).md") == true }
        )
        // Each rule's help lists what it enforces and the public documentation it rests on.
        for (rule, d) in zip(rules, RuleRegistry.descriptors) {
            let help = try #require(rule["help"] as? [String: String])
            for r in d.references {
                #expect(help["text"]?.contains(r.text) == true, "\(d.id) help lacks \(r.text)")
                #expect(help["markdown"]?.contains(r.markdown) == true, "\(d.id) help lacks \(r.markdown)")
            }
            #expect(d.enforces.allSatisfy { help["markdown"]?.contains($0) == true })
        }
        let results = try #require(run["results"] as? [[String: Any]])
        #expect(results.count == Self.oversized.findings.count)
        let first = try #require(results.first)
        #expect(first["ruleId"] as? String == "BLE002")
        #expect(first["level"] as? String == "error")
        let loc = try #require(((first["locations"] as? [[String: Any]])?.first?["physicalLocation"]) as? [String: Any])
        let region = try #require(loc["region"] as? [String: Any])
        // Frame 57's record: a 24-byte btsnoop record header + H4 byte + 4-byte ACL header + 20.
        #expect(region["byteLength"] as? Int == 24 + 1 + 4 + 20)
        #expect((region["byteOffset"] as? Int ?? 0) > 16)
        #expect((first["properties"] as? [String: Any])?["frames"] as? [Int] == [57, 60])
        #expect(((first["partialFingerprints"] as? [String: String])?.values.first?.count) == 16)
    }

    @Test func junitHasOneSuitePerCaptureOneCasePerRuleOneFailurePerFinding() {
        let xml = JUnitReporter.render([Self.oversized, bumble("clean_heart_rate.central")])
        #expect(xml.components(separatedBy: "<testsuite ").count - 1 == 2)
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == 2 * RuleRegistry.all.count)
        #expect(xml.components(separatedBy: "<failure ").count - 1 == Self.oversized.findings.count)
        #expect(xml.contains("<skipped message=\"not evaluable: "))
    }

    @Test func xmlModelEscapesEveryValueOnceAndKeepsTheLayout() {
        let root = XMLOutput.Element(
            "a", ["n": "x\"<&>'\n\u{1}y"],
            children: [
                XMLOutput.Element("b", ["k": "v"], inline: true, children: [XMLOutput.Element("c")]),
                XMLOutput.Element("d", text: "t<\n\tu"),
                XMLOutput.Element("e"),
            ])
        #expect(
            XMLOutput.Document(root: root).text == """
                <?xml version="1.0" encoding="UTF-8"?>
                <a n="x&quot;&lt;&amp;&gt;&apos;&#10;y">
                  <b k="v"><c/></b>
                  <d>t&lt;&#10;\tu</d>
                  <e/>
                </a>

                """)
    }

    @Test func githubAnnotationsEscapeProperties() {
        let text = GitHubReporter.render([Self.oversized])
        let lines = text.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("::error file=") && lines[0].contains("title=BLE002 oversized-write::"))
        #expect(lines[1].hasPrefix("::warning file="))
        // A path with ',' and ':' must not end the property early; a newline in data is %0A.
        var odd = Self.oversized
        odd.path = "logs/a:b,c.btsnoop"
        odd.findings[0].message = "two\nlines"
        let first = GitHubReporter.render([odd]).split(separator: "\n")[0]
        #expect(
            first
                == "::error file=logs/a%3Ab%2Cc.btsnoop,title=BLE002 oversized-write::two%0Alines (frames 57, 60; observed in HCI; behaviour of this app)"
        )
    }

    @Test func textGroupsByConnectionWorstFirstWithTheFix() {
        let text = TextReporter.render([Self.oversized])
        #expect(text.contains("connection #1 (DC:C0:57:00:00:05)"))
        let error = text.range(of: "error BLE002")!
        let warning = text.range(of: "warning BLE003")!
        #expect(error.lowerBound < warning.lowerBound)
        #expect(text.contains("maximumWriteValueLength(for: type)"))
        #expect(text.contains("not evaluated: BLE005, BLE016 (--verbose for the reasons)"))
        #expect(TextReporter.render([Self.oversized], verbose: true).contains("not evaluated: BLE005 unfiltered-scan"))
        #expect(text.contains(": 4 findings (1 error, 3 warnings, 0 notes)"))
    }

    @Test func jsonAndMarkdownListEveryFinding() throws {
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(JSONReporter.render([Self.oversized]).utf8)) as? [String: Any])
        let capture = try #require((json["captures"] as? [[String: Any]])?.first)
        #expect((capture["findings"] as? [Any])?.count == 4)
        let md = MarkdownReporter.render([Self.oversized])
        // Not evaluable: BLE005 (no filter in HCI) and BLE016 (needs an API trace).
        #expect(md.contains("| 1 | 3 | 0 | 2 | 483 |"))
    }
}

@Suite struct ConfigAndBaselineTests {
    func write(_ text: String, _ ext: String) throws -> String {
        let p = FileManager.default.temporaryDirectory.appendingPathComponent("blecap-cfg-\(UUID().uuidString).\(ext)")
            .path
        try text.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }

    @Test func yamlAndJSONGiveTheSameConfiguration() throws {
        let yaml = try write(
            """
            # blecap lint config
            rules:
              oversized-write:
                severity: warning   # downgrade
              BLE004:
                thresholds:
                  after_last_connection_s: 0.5
              unchecked-write: off
            """, "yml")
        let json = try write(
            #"{"rules": {"oversized-write": {"severity": "warning"}, "BLE004": {"thresholds": {"after_last_connection_s": 0.5}}, "unchecked-write": false}}"#,
            "json")
        defer {
            try? FileManager.default.removeItem(atPath: yaml)
            try? FileManager.default.removeItem(atPath: json)
        }
        for path in [yaml, json] {
            let c = try LintConfiguration.load(path: path)
            let r = bumble("oversized_and_unchecked_writes.central", c)
            #expect(r.of("oversized-write").first?.severity == .warning)
            #expect(r.of("unchecked-write").isEmpty)
            #expect(bumble("nil_scan_all_services.central", c).of("scan-left-running").count == 2)
        }
    }

    @Test func jsonNumbersAreNumbersAndZeroOneBooleans() throws {
        // A whole-number threshold is a number (JSONSerialization once turned 1 into "true"),
        // and 1/0 still enable/disable as they did.
        let json = try write(
            #"{"rules": {"BLE004": {"enabled": 1, "thresholds": {"after_last_connection_s": 1}}, "unchecked-write": 0}}"#,
            "json")
        defer { try? FileManager.default.removeItem(atPath: json) }
        let c = try LintConfiguration.load(path: json)
        #expect(c.overrides["BLE004"] == .init(enabled: true, thresholds: ["after_last_connection_s": 1]))
        #expect(c.disabledRules.map(\.slug) == ["unchecked-write"])
        let broken = try write(#"{"rules": {"BLE004": {"enabled": true}"#, "json")
        defer { try? FileManager.default.removeItem(atPath: broken) }
        #expect { _ = try LintConfiguration.load(path: broken) } throws: { "\($0)".contains("not valid JSON") }
    }

    @Test(arguments: [
        ("rules:\n  no-such-rule: off\n", "unknown rule"),
        ("rules:\n  oversized-write:\n    severity: fatal\n", "severity"),
        ("rules:\n  oversized-write:\n    thresholds:\n      x: 1\n", "no threshold"),
        ("rules:\n  - oversized-write\n", "expected"),
        ("rulez: {}\n", "only"),
    ])
    func badConfigsAreRejectedWithAReason(_ text: String, _ expected: String) throws {
        let p = try write(text, "yml")
        defer { try? FileManager.default.removeItem(atPath: p) }
        #expect {
            _ = try LintConfiguration.load(path: p)
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    @Test func fingerprintsIgnoreFramesAndDurationsButNotSizes() throws {
        var a = try #require(Self.oversizedFinding())
        let original = Fingerprint.compute(a)
        a.frames = [1000, 1003]
        a.time += 5_000_000
        #expect(Fingerprint.compute(a) == original)
        a.message = a.message.replacingOccurrences(of: "40 bytes", with: "41 bytes")
        #expect(Fingerprint.compute(a) != original)
        var b = a
        b.message = "the scan kept running more than 30.0 s after"
        var c = a
        c.message = "the scan kept running more than 12.5 s after"
        #expect(Fingerprint.compute(b) == Fingerprint.compute(c))
    }

    static func oversizedFinding() -> Finding? { ReporterTests.oversized.of("oversized-write").first }

    @Test func baselinedFindingsAreReportedButDoNotFail() throws {
        let report = ReporterTests.oversized
        let file = try write(Baseline.render(report.findings), "json")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let baseline = try Baseline.load(path: file)
        #expect(baseline.fingerprints.count == 4)
        let again = CaptureLinter.lint(path: report.path, baseline: baseline)
        #expect(again.findings.count == 4 && again.findings.allSatisfy(\.baselined))
        #expect(again.failing(at: .note).isEmpty)
        #expect(report.failing(at: .error).count == 1)
        #expect(report.failing(at: .warning).count == 4)
    }

    @Test func everyRuleHasADocsPageMatchingExplain() throws {
        var ids: Set<String> = []
        for d in RuleRegistry.descriptors {
            #expect(ids.insert(d.id).inserted, "duplicate id \(d.id)")
            let page = Fixtures.repositoryRoot.appendingPathComponent(d.docsPath)
            let text = try String(contentsOf: page, encoding: .utf8)
            #expect(text == RuleDocs.markdown(d), "\(d.docsPath) is stale: regenerate with blecap explain \(d.slug)")
            #expect(!d.enforces.isEmpty && !d.references.isEmpty && !d.fix.isEmpty && !d.evidence.isEmpty)
        }
    }
}
