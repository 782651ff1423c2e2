import BLEDiagnose
import Foundation
import TestSupport
import Testing

/// `captures/diagnose-air-expected.json` holds the verdicts of the over-the-air scenarios of
/// `captures/diagnose-air/` (scripts/corpus/make_diagnose_air.py), each checked with tshark;
/// `diagnose` must give exactly those, in order, ended by the frame given and citing the key
/// frames.
@Suite struct DiagnoseAirScenarioTests {
    static let expected = DiagnoseLabels.load("diagnose-air-expected.json")
    static let labelled = DiagnoseLabels.captures(expected, file: "diagnose-air-expected.json")

    static func verdicts(_ name: String) throws -> [Verdict] {
        try DiagnoseScenarioTests.diagnose(Fixtures.existing("diagnose-air/\(name)"))
    }

    @Test func everyScenarioIsExpected() throws {
        let e = try #require(Self.expected)
        #expect(e.version == 1)
        #expect(e.captures.count >= 18)
    }

    @Test(arguments: labelled)
    func verdictsMatchTheLabels(_ capture: String) throws {
        let want = try #require(Self.expected?.captures[capture])
        let verdicts = try DiagnoseScenarioTests.diagnose(Fixtures.existing(capture))
        #expect(verdicts.map(\.signature) == want.map(\.signature))
        #expect(verdicts.map(\.signals) == want.map(\.signals))
        for (v, w) in zip(verdicts, want) {
            #expect(v.endFrame == (try #require(w.endFrame)), "\(capture): \(v.signature)")
            #expect(
                Set(try #require(w.keyFrames)).isSubset(of: v.frames), "\(capture): \(v.signature) cites \(v.frames)")
            #expect(v.frames == Array(Set(v.steps.flatMap(\.frames))).sorted())
        }
    }

    /// A reason the air does not carry is inferred, and the step says what the air shows
    /// instead: which side stopped, after what.
    @Test func reasonsTheAirCannotCarryAreInferred() throws {
        for (name, frame) in [
            ("ll_response_timeout.phy_req.nordic272.pcapng", 9),
            ("instant_passed.nordic272.pcapng", 43),
            ("mic_failure.nordic272.pcapng", 17),
        ] {
            let v = try #require(Self.verdicts(name).first)
            #expect(v.reason == 0x08, "the timeline's reason stays what it inferred from the silence")
            let step = try #require(v.steps.first { $0.what == "air_end" })
            #expect(step.certainty == .inferred)
            #expect(step.frames.first == frame)
            #expect(step.text.contains("without LL_TERMINATE_IND"))
            #expect(step.text.contains("the air carries neither reason"))
        }
        let lr = try #require(Self.verdicts("ll_response_timeout.phy_req.nordic272.pcapng").first)
        #expect(
            try #require(lr.steps.first { $0.what == "air_end" }).text.contains(
                "39.0 s after its unanswered LL_PHY_REQ"))
        let ip = try #require(Self.verdicts("instant_passed.nordic272.pcapng").first)
        #expect(
            try #require(ip.steps.first { $0.what == "air_end" }).text.contains(
                "in connection event 20 with instant 18, 2 events past"))
    }

    /// Over the air the loss is dated when the supervision timeout ran out, not at the record
    /// that found the link silent: the RSSI window of the last 10 s then holds the fall.
    @Test func rssiFallingOverTheAir() throws {
        let v = try #require(Self.verdicts("rssi_falling.supervision_timeout.nordic272.pcapng").first)
        let rssi = try #require(v.steps.first { $0.what == "rssi" })
        #expect(rssi.text.contains("falling"))
        #expect(rssi.frames.contains(28))
    }
}
