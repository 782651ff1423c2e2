import BLEDiagnose
import BLELint
import BLEPass
import CaptureIO
import Foundation
import TestSupport
import Testing

@testable import BLEReport

/// The report's Diagnosis: each connection's verdict (and each failed attempt's) made in the
/// report's one pass, the same as `blecap diagnose` gives, and embedded in the page's data.
@Suite struct ReportDiagnosisTests {
    /// `diagnose`'s verdicts: the Diagnoser alone in a pass of its own.
    static func alone(_ path: String) throws -> [Verdict] {
        let d = Diagnoser()
        CapturePass(reader: try CaptureFile.open(path: path), name: path).run(d)
        return d.finish()
    }

    static func all(_ m: SessionReportModel) -> [Verdict] {
        (m.connections.compactMap(\.diagnosis) + m.verdicts).sorted {
            ($0.startFrame, $0.connection ?? 0) < ($1.startFrame, $1.connection ?? 0)
        }
    }

    /// reconnect_storm.central (captures/bumble/README.md, scenario 4; the labels of
    /// captures/diagnose-expected.json): connection 2 lost at frame 68 with 0x08, its last ACL
    /// from the peer at frame 67; a create-connection at 79 cancelled at 81, completed 0x02 at 83.
    @Test func eachConnectionCarriesItsVerdictAndAttemptsTheirOwnPlace() throws {
        let path = try Fixtures.existing("bumble/reconnect_storm.central.btsnoop")
        let (m, report) = SessionReportBuilder.build(path: path)
        #expect(report.error == nil)
        #expect(m.connections.map(\.number) == [1, 2, 3, 4, 5, 6])
        #expect(m.connections.allSatisfy { $0.diagnosis?.connection == $0.number })
        let v = try #require(m.connections.first { $0.number == 2 }?.diagnosis)
        #expect(v.cause == "supervision_timeout" && v.party == "link" && v.reason == 0x08 && v.endFrame == 68)
        #expect(v.steps.first?.what == "end" && v.steps.first?.frames == [68] && v.steps.first?.certainty == .observed)
        #expect(v.steps.contains { $0.what == "last_from_peer" && $0.frames == [67] })
        #expect(m.verdicts.map(\.signature) == ["create_connection_cancelled wait=short"])
        #expect(m.verdicts.first?.steps.map(\.frames) == [[79], [81], [83], [81]])
        #expect(m.verdictsOmitted == 0)
        // One pass, the same verdicts as diagnose's own.
        #expect(Self.all(m) == (try Self.alone(path)))
    }

    @Test func thePageEmbedsTheVerdictsAsDiagnoseWritesThem() throws {
        let path = try Fixtures.existing("bumble/reconnect_storm.central.btsnoop")
        let (m, _) = SessionReportBuilder.build(path: path)
        let page = HTMLReportRenderer.render([m])
        let open = "<script id=\"blecap-data\" type=\"application/json\">"
        let start = try #require(page.range(of: open)).upperBound
        let end = try #require(page.range(of: "</script>", range: start..<page.endIndex)).lowerBound
        let models = try #require(
            try JSONSerialization.jsonObject(with: Data(page[start..<end].utf8)) as? [[String: Any]])
        let connections = try #require(models.first?["connections"] as? [[String: Any]])
        let d = try #require(connections[1]["diagnosis"] as? [String: Any])
        #expect(d["cause"] as? String == "supervision_timeout")
        #expect(d["end_frame"] as? Int == 68 && d["reason_name"] as? String == "Connection Timeout")
        let steps = try #require(d["steps"] as? [[String: Any]])
        #expect(steps.first?["certainty"] as? String == "observed" && steps.first?["frames"] as? [Int] == [68])
        let attempts = try #require(models.first?["verdicts"] as? [[String: Any]])
        #expect(attempts.map { $0["kind"] as? String } == ["attempt"])
        #expect(attempts.first?["cause"] as? String == "create_connection_cancelled")
        // The page's script draws them: a Diagnosis section and one per connection.
        #expect(page.contains("\"diagnosis\", \"Diagnosis\"") && page.contains("function renderVerdict"))
    }

    /// A capture damaged inside a frame: the report says so of the link that was up there.
    @Test func aDamagedCapturesOpenLinkSaysItsEndIsMissing() throws {
        // clean_heart_rate.central cut inside its last record (frame 123, the Disconnection
        // Complete): the link was up at frame 122.
        let bytes = try Fixtures.bytes("bumble/clean_heart_rate.central.btsnoop")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blecap-report-diag-\(UUID().uuidString).btsnoop"
        ).path
        try Data(bytes.dropLast(2)).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (m, report) = SessionReportBuilder.build(path: path)
        #expect(report.damage?.contains("frame 123") == true)
        let v = try #require(m.connections.first?.diagnosis)
        #expect(v.cause == "still_open" && v.signature.hasSuffix("missing=capture_rest"))
        #expect(v.steps.contains { $0.what == "missing" && $0.text.contains("frame 123") })
    }
}
