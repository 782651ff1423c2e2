import BLEDiagnose
import Foundation
import TestSupport
import Testing

/// `captures/diagnose-bumble-expected.json` holds the verdicts of `captures/bumble-failures/`:
/// Bumble host stacks on both sides, each session with one failure provoked through the Bumble
/// API (`captures/bumble/README.md`, "Provoked failures"), every end frame and key frame read with
/// tshark. `diagnose` must give exactly those verdicts, in order, and cite those frames.
@Suite struct DiagnoseBumbleFailureTests {
    struct Entry: Decodable {
        var signature: String
        var signals: [String]
        var endFrame: Int?
        var keyFrames: [Int]?
        enum CodingKeys: String, CodingKey {
            case signature, signals
            case endFrame = "end_frame"
            case keyFrames = "key_frames"
        }
    }

    struct Expected: Decodable {
        var version: Int
        var captures: [String: [Entry]]
    }

    static let expected: Expected? = {
        guard let data = try? Fixtures.bytes("diagnose-bumble-expected.json") else { return nil }
        return try? JSONDecoder().decode(Expected.self, from: Data(data))
    }()

    static let labelled: [String] =
        (expected?.captures.keys.sorted()) ?? ["<captures/diagnose-bumble-expected.json unreadable>"]

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
