import BLELint
import Foundation
import TestSupport
import Testing

/// The labelled real-capture corpus (`captures/public/expected.json`, issue 17): on each listed
/// capture blecap lint reports exactly the findings a reviewer confirmed against tshark's decode
/// — none missing (recall) and none more (precision) — and the rules listed as not firing are
/// evaluated and silent.
@Suite struct ExpectedFindingsTests {
    struct Expected: Decodable {
        struct Finding: Decodable {
            var rule: String
            var frame: Int
            /// Whose behaviour (issue 27): every label gives it.
            var party: String
            var why: String
        }
        struct Silent: Decodable {
            var rule: String
            var why: String
        }
        struct Capture: Decodable {
            var host: String
            var findings: [Finding]
            var must_not_fire: [Silent]
        }
        var captures: [String: Capture]
    }

    static func expected() throws -> Expected {
        try JSONDecoder().decode(Expected.self, from: Data(Fixtures.bytes("public/expected.json")))
    }

    static var names: [String] { ((try? expected())?.captures.keys.sorted()) ?? ["public/expected.json unreadable"] }

    @Test(arguments: names)
    func findingsAreExactlyTheConfirmedOnes(_ name: String) throws {
        let capture = try #require(try Self.expected().captures[name], "\(name)")
        let r = lint("public/\(name)")
        #expect(r.damage == nil)
        let got = r.findings.map { "\($0.ruleID)@\($0.firstFrame)" }.sorted()
        let want = capture.findings.map { "\($0.rule)@\($0.frame)" }.sorted()
        #expect(
            got == want,
            "\(name): unconfirmed findings \(Set(got).subtracting(want)), missing \(Set(want).subtracting(got))")
        for f in capture.findings {
            #expect(!f.why.isEmpty)
            let found = r.findings.first { $0.ruleID == f.rule && $0.firstFrame == f.frame }
            #expect(found?.party.rawValue == f.party, "\(name): \(f.rule)@\(f.frame) party")
        }
        for s in capture.must_not_fire {
            #expect(!r.findings.contains { $0.ruleID == s.rule }, "\(name): \(s.rule) fired")
            #expect(
                !r.notEvaluated.contains { $0.ruleID == s.rule && $0.whole }, "\(name): \(s.rule) was not evaluated")
        }
    }

    /// Over the air, BLE010 states what the capture proved, the same text in every run (attempts,
    /// not a duration): crackle's test capture gives the LTK crackle's own test expects.
    @Test func overTheAirPairingFindingNamesTheRecoveredKeys() throws {
        let r = lint("public/pcap-ppi192_crackle-pairing-ltk.pcap")
        let f = try #require(r.findings.first { $0.ruleID == "BLE010" })
        #expect(
            f.message.hasSuffix(
                "Shown by this capture: blecap recovered the TK (Just Works, TK 0) after 1 attempt and decrypted the link "
                    + "with the STK 59d4b35ece0df548c10efe17e9da1f4c, reading the LTK the peer distributed: "
                    + "7f62c053f104a5bbe68b1d896a2ed49c (frame 589): every later link encrypted with this bond can be read"
            ),
            "\(f.message)")
        #expect(lint("public/pcap-ppi192_crackle-pairing-ltk.pcap").findings == r.findings)
    }

    @Test func everyCaptureInTheFolderIsLabelled() throws {
        // Every capture shipped in captures/public (HCI and over the air) must say what lint has
        // to report on it.
        let listed = Set(try Self.expected().captures.keys)
        let shipped = Fixtures.captures(in: "public").map { URL(fileURLWithPath: $0).lastPathComponent }
        #expect(!shipped.isEmpty)
        #expect(Set(shipped).subtracting(listed).isEmpty, "unlabelled: \(Set(shipped).subtracting(listed).sorted())")
    }

    @Test func precisionCountInTheUsageReferenceIsTheLabelledOne() throws {
        // docs/usage.md (the reference the README points to) states how many findings the
        // labelled corpus holds; keep it true.
        let total = try Self.expected().captures.values.reduce(0) { $0 + $1.findings.count }
        let usage = try String(
            decoding: Fixtures.bytes(
                atPath: Fixtures.repositoryRoot.appendingPathComponent("docs/usage.md").path),
            as: UTF8.self)
        #expect(
            usage.contains("\(total) of \(total) findings"), "docs/usage.md should say \(total) of \(total) findings")
    }
}
