import Foundation
import TestSupport
import Testing

/// `blecap lint`, `rules` and `explain` as a CI job runs them: exit codes, formats, directories.
@Suite struct LintCommandTests {
    static let oversized = Fixtures.capture("bumble/oversized_and_unchecked_writes.central.btsnoop")
    static let clean = Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")

    @Test func exitCodesFollowTheThreshold() throws {
        #expect(try CLIRunner.run(["lint", Self.clean]).status == 0)
        #expect(try CLIRunner.run(["lint", Self.oversized]).status == 1)
        #expect(try CLIRunner.run(["lint", "--fail-on", "never", Self.oversized]).status == 0)
        // Only warnings left once the error rule is off, and the threshold is error.
        #expect(
            try CLIRunner.run(["lint", "--fail-on", "error", "--disable", "oversized-write", Self.oversized]).status
                == 0)
        #expect(try CLIRunner.run(["lint", "--fail-on", "error", Self.oversized]).status == 1)
    }

    @Test func usageErrorsExit2AndUnreadableInputExits4() throws {
        #expect(try CLIRunner.run(["lint", "/nonexistent/x.btsnoop"]).status == 4)
        #expect(try CLIRunner.run(["lint", "--disable", "no-such-rule", Self.clean]).status == 2)
        #expect(try CLIRunner.run(["lint", "--format", "xml", Self.clean]).status == 2)
        let cfa = Fixtures.capture("synthetic/unknown-raw-h4-stream.bin")
        #expect(try CLIRunner.run(["lint", cfa]).status == 4)
    }

    @Test func directoryIsWalkedInSortedOrderWithOneSummaryPerCapture() throws {
        let run = try CLIRunner.run(["lint", "--format", "json", Fixtures.capture("bumble")])
        #expect(run.status == 1)
        let root = try #require(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let paths = try #require((root["captures"] as? [[String: Any]])?.compactMap { $0["path"] as? String })
        #expect(paths.count == 21)
        #expect(paths == paths.sorted())
        // README.md is no capture: skipped silently.
        #expect(!paths.contains { $0.hasSuffix(".md") })
        let summaries = run.stderr.split(separator: "\n").filter {
            $0.contains(" findings (") || $0.contains(" finding (")
        }
        #expect(summaries.count == 21)
    }

    @Test func jobsChangesHowManyAtOnceNotTheReport() throws {
        let bumble = Fixtures.capture("bumble")
        let all = try CLIRunner.run(["lint", "--format", "json", bumble])
        for n in ["1", "2", "64"] {
            let run = try CLIRunner.run(["lint", "--format", "json", "--jobs", n, bumble])
            #expect(run.status == all.status)
            // Same captures, same findings, same order.
            #expect(run.stdout == all.stdout, "--jobs \(n)")
            #expect(run.stdout.contains("oversized_and_unchecked_writes.central.btsnoop"))
        }
        #expect(try CLIRunner.run(["lint", "--jobs", "0", bumble]).status == 2)
        #expect(try CLIRunner.run(["lint", "-j", "-3", bumble]).status == 2)
    }

    @Test func linkLayerCapturesInDirectoriesAreLinted() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("blecap-lint-dir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in [
            "pcap-lell256_whad-pairing-gatt-conn-update.pcap", "pcap-nordic272_bsniffhub-encrypted-bad-mic.pcap",
        ] {
            try FileManager.default.copyItem(
                atPath: Fixtures.capture("public/\(name)"), toPath: dir.appendingPathComponent(name).path)
        }
        try FileManager.default.copyItem(atPath: Self.clean, toPath: dir.appendingPathComponent("clean.btsnoop").path)
        try "not a capture".write(to: dir.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        let run = try CLIRunner.run(["lint", dir.path])
        #expect(run.status != 2)
        #expect(!run.stderr.contains("skipped"))
        #expect(run.stdout.contains("clean.btsnoop: 0 findings"))
        #expect(run.stdout.contains("pcap-lell256_whad-pairing-gatt-conn-update.pcap:"))
        #expect(run.stdout.contains("pcap-nordic272_bsniffhub-encrypted-bad-mic.pcap:"))
        #expect(!run.stdout.contains("notes.txt") && !run.stderr.contains("notes.txt"))
    }

    @Test func baselineRoundTripMakesKnownFindingsPass() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blecap-baseline-\(UUID().uuidString).json"
        ).path
        defer { try? FileManager.default.removeItem(atPath: file) }
        // Writing a baseline accepts the findings it lists: exit 0 (docs/exit-codes.md).
        #expect(try CLIRunner.run(["lint", "--write-baseline", file, Self.oversized]).status == 0)
        let run = try CLIRunner.run(["lint", "--baseline", file, Self.oversized])
        #expect(run.status == 0)
        #expect(run.stdout.contains("[baselined]"))
    }

    @Test func sarifGoesToTheOutputFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("blecap-\(UUID().uuidString).sarif")
            .path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let run = try CLIRunner.run(["lint", "--format", "sarif", "--output", file, Self.oversized])
        #expect(run.status == 1 && run.stdout.isEmpty)
        let doc = try #require(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
        #expect(doc["version"] as? String == "2.1.0")
    }

    @Test func rulesAndExplain() throws {
        let rules = try CLIRunner.run(["rules"])
        #expect(rules.status == 0)
        // One line per rule; every rule has exactly one docs page (BLELintTests checks that).
        let pages = try FileManager.default.contentsOfDirectory(
            atPath: Fixtures.repositoryRoot.appendingPathComponent("docs/rules").path
        ).filter { $0.hasSuffix(".md") }
        #expect(
            rules.lines.count == pages.count && pages.count == 16
                && rules.lines[0].hasPrefix("BLE001  error   scan-before-powered-on"))
        let byID = try CLIRunner.run(["explain", "BLE002"])
        let bySlug = try CLIRunner.run(["explain", "oversized-write"])
        #expect(byID.status == 0 && byID.stdout == bySlug.stdout)
        #expect(byID.stdout.contains("maximumWriteValueLength"))
        #expect(try CLIRunner.run(["explain", "BLE999"]).status == 2)
    }
}
