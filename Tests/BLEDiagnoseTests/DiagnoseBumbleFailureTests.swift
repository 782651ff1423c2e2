import BLEDiagnose
import Foundation
import TestSupport
import Testing

/// `captures/diagnose-bumble-expected.json` holds the verdicts of `captures/bumble-failures/`:
/// Bumble host stacks on both sides, each session with one failure provoked through the Bumble
/// API (`captures/bumble/README.md`, "Provoked failures"), every end frame and key frame read with
/// tshark. `diagnose` must give exactly those verdicts, in order, and cite those frames.
@Suite struct DiagnoseBumbleFailureTests {
    static let expected = DiagnoseLabels.load("diagnose-bumble-expected.json")
    static let labelled = DiagnoseLabels.captures(expected, file: "diagnose-bumble-expected.json")

    @Test func everyFailureSessionIsLabelled() throws {
        let e = try #require(Self.expected)
        #expect(e.version == 1)
        let files = Fixtures.captures(in: "bumble-failures").map(Fixtures.relative)
        #expect(Set(e.captures.keys) == Set(files))
    }

    @Test(arguments: labelled)
    func verdictsMatchTheLabels(_ capture: String) throws {
        let want = try #require(Self.expected?.captures[capture])
        let verdicts = try DiagnoseScenarioTests.diagnose(Fixtures.existing(capture))
        #expect(verdicts.map(\.signature) == want.map(\.signature))
        #expect(verdicts.map(\.signals) == want.map(\.signals))
        for (v, k) in zip(verdicts, want) {
            if let end = k.endFrame { #expect(v.endFrame == end, "\(capture): \(v.signature)") }
            if let cited = k.keyFrames {
                #expect(Set(cited).isSubset(of: v.frames), "\(capture): \(v.signature) cites \(v.frames)")
            }
            #expect(!v.steps.isEmpty)
        }
    }
}
