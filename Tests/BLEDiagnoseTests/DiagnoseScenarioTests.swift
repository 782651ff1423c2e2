import BLEDiagnose
import BLEPackets
import BLETimeline
import CaptureIO
import Foundation
import TestSupport
import Testing

/// `captures/diagnose-expected.json` holds the verdict signatures of shipped captures, each
/// checked against tshark; `diagnose` must give exactly those, in order.
@Suite struct DiagnoseScenarioTests {
    struct Expected: Decodable {
        var version: Int
        var captures: [String: [Label]]
    }

    struct Label: Decodable, Equatable {
        var signature: String
        var signals: [String]
    }

    /// A corpus entry may also name the frame that ended it and frames its verdict must cite
    /// (the key frames found with tshark).
    struct Keys: Decodable {
        var endFrame: Int?
        var keyFrames: [Int]?
        enum CodingKeys: String, CodingKey {
            case endFrame = "end_frame"
            case keyFrames = "key_frames"
        }
    }

    struct KeyedExpected: Decodable {
        var captures: [String: [Keys]]
    }

    static let keys: KeyedExpected? = {
        guard let data = try? Fixtures.bytes("diagnose-expected.json") else { return nil }
        return try? JSONDecoder().decode(KeyedExpected.self, from: Data(data))
    }()

    static let expected: Expected? = {
        guard let data = try? Fixtures.bytes("diagnose-expected.json") else { return nil }
        return try? JSONDecoder().decode(Expected.self, from: Data(data))
    }()

    static let labelled: [String] =
        (expected?.captures.keys.sorted()) ?? ["<captures/diagnose-expected.json unreadable>"]

    static func diagnose(_ path: String) throws -> [Verdict] {
        let reader = try CaptureFile.open(path: path)
        let diagnoser = Diagnoser()
        let builder = TimelineBuilder(
            emit: { diagnoser.observe($0) }, connectionEnded: { diagnoser.connectionEnded($0) })
        let decoder = FrameDecoder()
        while let r = reader.next() { builder.feed(decoder.decode(r)) }
        builder.finish()
        return diagnoser.finish()
    }

    @Test func expectationsAreVersioned() throws {
        let e = try #require(Self.expected)
        #expect(e.version == 1)
        #expect(e.captures.count >= 10)
    }

    @Test(arguments: labelled)
    func signaturesMatchTheLabels(_ capture: String) throws {
        let want = try #require(Self.expected?.captures[capture])
        let verdicts = try Self.diagnose(Fixtures.existing(capture))
        #expect(verdicts.map { Label(signature: $0.signature, signals: $0.signals) } == want)
        let keys = try #require(Self.keys?.captures[capture])
        for (v, k) in zip(verdicts, keys) {
            if let end = k.endFrame { #expect(v.endFrame == end, "\(capture): \(v.signature)") }
            if let cited = k.keyFrames {
                #expect(Set(cited).isSubset(of: v.frames), "\(capture): \(v.signature) cites \(v.frames)")
            }
        }
        for v in verdicts {
            #expect(!v.steps.isEmpty)
            // Every frame a verdict cites is a frame of some step, and steps cite real frames.
            #expect(v.frames == Array(Set(v.steps.flatMap(\.frames))).sorted())
            #expect(v.frames.allSatisfy { $0 >= 1 })
            #expect(!v.signature.contains(":"), "no addresses in a signature: \(v.signature)")
        }
    }

    @Test func deterministic() throws {
        let path = try Fixtures.existing("bumble/reconnect_storm.central.btsnoop")
        #expect(try Self.diagnose(path) == Self.diagnose(path))
    }

    @Test func supervisionTimeoutCitesTheLastPDUOfEachSide() throws {
        // captures/bumble/README.md, scenario 4: connection 2 ends at frame 68 with 0x08; its
        // last ACL is frame 67.
        let verdicts = try Self.diagnose(Fixtures.existing("bumble/reconnect_storm.central.btsnoop"))
        let v = try #require(verdicts.first { $0.connection == 2 })
        #expect(v.cause == "supervision_timeout" && v.reason == 0x08 && v.endFrame == 68)
        #expect(v.steps.contains { $0.what == "end" && $0.frames == [68] && $0.certainty == .observed })
        let last = try #require(v.steps.first { $0.what == "last_from_peer" })
        #expect(last.frames.first ?? 0 <= 67)
    }

    // MARK: bad input

    @Test func captureStartingMidConnectionSaysWhatIsMissing() throws {
        // clean_heart_rate.central without its first 43 frames (the reset, the scan and the
        // LE Connection Complete of frame 43).
        let path = try Fixtures.derivedBTSnoop("bumble/clean_heart_rate.central.btsnoop", drop: Set(1...43))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let verdicts = try Self.diagnose(path)
        #expect(verdicts.count == 1)
        let v = try #require(verdicts.first)
        #expect(v.steps.first?.what == "unknown_start")
        #expect(v.signature.contains("start=unknown"))
        #expect(v.reason == 0x16)
    }

    @Test func disconnectionForAnUnknownHandleIsCauseUnknown() throws {
        // Everything from the LE Create Connection (frame 41) to the last read is dropped: the
        // Disconnection Complete of frame 123 names a handle the capture never saw in use.
        let path = try Fixtures.derivedBTSnoop("bumble/clean_heart_rate.central.btsnoop", drop: Set(41...122))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let verdicts = try Self.diagnose(path)
        let v = try #require(verdicts.last)
        #expect(v.cause == "cause_unknown" && v.connection == nil)
        #expect(v.signature.contains("missing=connection_start"))
    }

    @Test func twoConnectionCompletesOnOneHandleLeaveTheFirstEndUnknown() throws {
        // reconnect_storm.central without the Disconnection Complete of frame 58: connection 2's
        // LE Connection Complete (frame 61) reuses handle 0x0001.
        let path = try Fixtures.derivedBTSnoop("bumble/reconnect_storm.central.btsnoop", drop: [58])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let verdicts = try Self.diagnose(path)
        let v = try #require(verdicts.first { $0.connection == 1 })
        #expect(v.cause == "cause_unknown" && v.ended == "lost_track")
        #expect(v.signature.contains("missing=disconnection"))
        #expect(v.steps.contains { $0.what == "missing" && $0.frames == [60] })
    }

    @Test func truncatedCapturesNeverCrash() throws {
        let bytes = try Fixtures.bytes("bumble/indications_and_errors.central.btsnoop")
        for cut in stride(from: 16, to: bytes.count, by: 97) {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("blecap-diag-cut-\(cut).btsnoop")
                .path
            try Data(bytes[0..<cut]).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let verdicts = try Self.diagnose(path)
            #expect(verdicts.allSatisfy { !$0.signature.isEmpty && !$0.summary.isEmpty })
        }
    }
}
