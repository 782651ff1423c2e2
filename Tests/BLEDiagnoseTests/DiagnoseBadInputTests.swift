import BLEDiagnose
import BLEPackets
import BLEPass
import CaptureIO
import Foundation
import Testing

/// Captures that lack what a verdict needs, built byte by byte as btsnoop (HCISynthesis's
/// packets, BTSnoopWriter's container) and read through the capture pass as `blecap diagnose`
/// reads them: each verdict says what is missing, none guesses, nothing crashes.
@Suite struct DiagnoseBadInputTests {
    static let peer = BDAddr("C0:00:00:00:00:01")!

    /// A btsnoop capture under construction: packets 10 ms apart.
    struct Capture {
        var writer = BTSnoopWriter()
        var time: Int64 = 1_700_000_000_000_000

        mutating func add(_ packet: [UInt8], received: Bool = true, after gap: Int64 = 10_000) {
            time += gap
            writer.append(packet, received: received, unixMicros: time)
        }

        mutating func connect(handle: UInt16 = 0x40) {
            add(
                HCISynthesis.leConnectionComplete(
                    status: 0, handle: handle, peerType: 0, peer: DiagnoseBadInputTests.peer, interval: 24,
                    latency: 0, timeout: 400))
        }

        /// A Read Request (this host) on `handle`'s link.
        mutating func read(handle: UInt16 = 0x40, attribute: UInt8 = 0x03) {
            for f in HCISynthesis.acl(handle: handle, payload: [0x0A, attribute, 0x00], received: false, fragment: 27) {
                add(f, received: false)
            }
        }

        /// Its Read Response.
        mutating func response(handle: UInt16 = 0x40) {
            for f in HCISynthesis.acl(handle: handle, payload: [0x0B, 0x42], received: true, fragment: 27) { add(f) }
        }

        /// LE Create Connection to the peer, with its Command Status.
        mutating func create() {
            var p: [UInt8] = [0x60, 0x00, 0x30, 0x00, 0x00, 0x00]  // scan 60 ms / 30 ms, no accept list, public
            p += (0..<6).map { UInt8(truncatingIfNeeded: DiagnoseBadInputTests.peer.rawValue >> (8 * $0)) }
            p += [0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01, 0x00, 0x00, 0x00, 0x00]
            add(HCISynthesis.command(HCIOpcode.leCreateConnection, p), received: false)
            add(HCISynthesis.commandStatus(HCIOpcode.leCreateConnection))
        }

        mutating func disconnected(handle: UInt16 = 0x40, reason: UInt8, after gap: Int64 = 10_000) {
            add(HCISynthesis.disconnectionComplete(handle: handle, reason: reason), after: gap)
        }

        mutating func bytes() -> [UInt8] { writer.take() }
    }

    /// The verdicts of `bytes` read as a file through one capture pass; with `live`, as
    /// `watch` gets them (each as soon as it is final), else as `diagnose` does.
    static func diagnose(_ bytes: [UInt8], live: Bool = false) throws -> (verdicts: [Verdict], damage: CaptureDamage?) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blecap-diag-bad-\(UUID().uuidString).btsnoop"
        ).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try CaptureFile.open(path: path)
        var handed: [Verdict] = []
        let d = live ? Diagnoser(onVerdict: { handed.append($0) }) : Diagnoser()
        CapturePass(reader: reader, name: path).run(d)
        if live {
            #expect(d.finish().isEmpty, "the pass's end hands out the rest")
            return (handed, reader.damage)
        }
        return (d.finish(), reader.damage)
    }

    /// Batch and live give the same verdicts (live in the order they became final).
    static func both(_ bytes: [UInt8]) throws -> [Verdict] {
        let batch = try diagnose(bytes).verdicts
        let live = try diagnose(bytes, live: true).verdicts
        #expect(
            live.sorted { ($0.startFrame, $0.connection ?? 0) < ($1.startFrame, $1.connection ?? 0) } == batch)
        return batch
    }

    @Test func aConnectionCutShortByTheCaptureIsStillOpenNotGuessed() throws {
        var c = Capture()
        c.connect()
        c.read()
        c.response()
        c.read(attribute: 0x05)  // never answered: the capture ends first
        let verdicts = try Self.both(c.bytes())
        let v = try #require(verdicts.first)
        #expect(verdicts.count == 1)
        #expect(v.cause == "still_open" && v.party == "unknown" && v.ended == "open")
        #expect(v.endFrame == nil && v.reason == nil && v.reasonName == nil)
        #expect(v.signature == "still_open role=central end=open")
        #expect(v.steps.map(\.what) == ["open"])
    }

    @Test func aCaptureStartingMidConnectionSaysItsStartIsMissing() throws {
        var c = Capture()
        c.read()  // frame 1: ACL on 0x0040, no Connection Complete before it
        c.response()
        c.disconnected(reason: HCIError.connectionTimeout)
        let verdicts = try Self.both(c.bytes())
        let v = try #require(verdicts.first)
        #expect(verdicts.count == 1)
        #expect(v.steps.first?.what == "unknown_start" && v.steps.first?.frames == [1])
        #expect(v.role == nil, "no Connection Complete: the role is not known")
        #expect(v.signature == "supervision_timeout role=unknown end=link_loss reason=0x08 start=unknown")
        #expect(v.startFrame == 1 && v.endFrame == 3)
    }

    @Test func aDisconnectionForAHandleNeverSeenIsCauseUnknown() throws {
        var c = Capture()
        c.disconnected(handle: 0x0041, reason: HCIError.remoteUserTerminatedConnection)
        let verdicts = try Self.both(c.bytes())
        let v = try #require(verdicts.first)
        #expect(verdicts.count == 1)
        #expect(v.cause == "cause_unknown" && v.party == "unknown" && v.connection == nil && v.handle == nil)
        #expect(v.signature == "cause_unknown end=remote reason=0x13 missing=connection_start")
        #expect(v.steps.map(\.what) == ["end", "missing"])
        #expect(v.steps.last?.certainty == .inferred)
    }

    @Test func aSecondDisconnectionRightAfterAnEndIsAContradiction() throws {
        var c = Capture()
        c.connect()  // 1
        c.read()  // 2
        c.response()  // 3
        c.disconnected(reason: HCIError.remoteUserTerminatedConnection)  // 4
        c.disconnected(handle: 0x0041, reason: HCIError.connectionTimeout, after: 1_000)  // 5, 1 ms later
        let verdicts = try Self.both(c.bytes())
        #expect(verdicts.map(\.cause) == ["remote_user_terminated", "cause_unknown"])
        let v = try #require(verdicts.last)
        #expect(v.signature == "cause_unknown end=link_loss reason=0x08 contradiction=second_disconnection")
        #expect(v.steps.contains { $0.what == "contradiction" && $0.frames == [4, 5] && $0.certainty == .inferred })
    }

    @Test func twoConnectionCompletesOnOneHandleLeaveTheFirstEndMissing() throws {
        var c = Capture()
        c.connect()  // 1
        c.read()  // 2, never answered
        c.connect()  // 3: handle 0x0040 again, no Disconnection Complete before it
        c.read()  // 4
        c.response()  // 5
        c.disconnected(reason: HCIError.connectionTerminatedByLocalHost)  // 6
        let verdicts = try Self.both(c.bytes())
        #expect(verdicts.count == 2)
        let first = try #require(verdicts.first)
        #expect(first.cause == "cause_unknown" && first.ended == "lost_track" && first.reason == nil)
        #expect(first.signature == "cause_unknown role=central end=lost_track missing=disconnection")
        #expect(
            first.steps.contains {
                $0.what == "missing" && $0.frames == [3] && $0.text.contains("reused handle 0x0040")
            })
        #expect(verdicts.last?.cause == "local_host_terminated" && verdicts.last?.startFrame == 3)
    }

    @Test func aCaptureStartingMidConnectionAndEndingWithItOpenSaysBoth() throws {
        var c = Capture()
        c.read()  // frame 1: ACL on 0x0040, no Connection Complete before it
        c.response()  // 2; the capture ends with the link up
        let verdicts = try Self.both(c.bytes())
        let v = try #require(verdicts.first)
        #expect(verdicts.count == 1)
        #expect(v.cause == "still_open" && v.role == nil && v.endFrame == nil)
        #expect(v.signature == "still_open role=unknown end=open start=unknown")
        #expect(v.steps.map(\.what) == ["unknown_start", "open"])
    }

    @Test func aResetEndsEveryLinkOfItsControllerAndSaysSo() throws {
        var c = Capture()
        c.connect()  // 1: 0x0040
        c.connect(handle: 0x0041)  // 2
        c.read()  // 3, never answered: the reset ends the link first
        c.add(HCISynthesis.command(HCIOpcode.reset, []), received: false)  // 4
        c.add(HCISynthesis.commandComplete(HCIOpcode.reset))  // 5
        c.connect()  // 6: 0x0040 again, after the reset
        c.disconnected(reason: HCIError.remoteUserTerminatedConnection)  // 7
        let verdicts = try Self.both(c.bytes())
        #expect(verdicts.map(\.cause) == ["controller_reset", "controller_reset", "remote_user_terminated"])
        for v in verdicts.prefix(2) {
            #expect(v.ended == "lost_track" && v.endFrame == 4 && v.reason == nil && v.party == "host")
            #expect(v.signature == "controller_reset role=central end=lost_track")
            #expect(v.steps.first?.what == "reset" && v.steps.first?.frames == [4])
            #expect(v.steps.contains { $0.what == "why" && $0.certainty == .inferred })
            #expect(!v.signals.contains("controller_fault"), "no root inflammation came")
        }
        // The read the reset cut off is outstanding at the end, as for any other end.
        #expect(verdicts.first?.signals == ["request_outstanding_at_end"])
    }

    @Test func aCaptureCutInsideAFrameSaysTheRestIsMissing() throws {
        var c = Capture()
        c.connect()  // 1
        c.read()  // 2
        c.response()  // 3
        c.disconnected(reason: HCIError.remoteUserTerminatedConnection)  // 4: cut inside this record
        let whole = c.bytes()
        let (verdicts, damage) = try Self.diagnose(Array(whole.dropLast(3)))
        let cut = try #require(damage, "the reader reports the cut")
        #expect(cut.frame == 4)
        let v = try #require(verdicts.first)
        #expect(verdicts.count == 1)
        #expect(v.cause == "still_open" && v.endFrame == nil)
        #expect(v.signature == "still_open role=central end=open missing=capture_rest")
        let missing = try #require(v.steps.first { $0.what == "missing" })
        #expect(missing.text.contains("frame 4") && missing.certainty == .observed)
        #expect(v.summary.contains("breaks off"))
        // The whole file ends the link as the peer's choice.
        #expect(try Self.diagnose(whole).verdicts.first?.cause == "remote_user_terminated")
    }

    @Test func anAttemptCutByDamageSaysItsResultIsMissing() throws {
        var c = Capture()
        c.create()  // 1, 2
        c.connect()  // 3: cut inside it
        let (verdicts, damage) = try Self.diagnose(Array(c.bytes().dropLast(5)))
        #expect(damage?.frame == 3)
        let v = try #require(verdicts.first)
        #expect(verdicts.count == 1)
        #expect(v.kind == .attempt && v.cause == "cause_unknown")
        #expect(v.signature == "cause_unknown attempt=capture_ended missing=capture_rest")
        #expect(v.steps.map(\.what) == ["create", "missing", "missing"])
    }

    @Test func everyCutOfABuiltCaptureGivesAVerdictSayingWhatIsMissing() throws {
        var c = Capture()
        c.create()
        c.connect()
        c.read()
        c.response()
        c.read(attribute: 0x05)
        c.response()
        c.disconnected(reason: HCIError.connectionTimeout)
        let whole = c.bytes()
        for cut in 16..<whole.count {
            let (verdicts, damage) = try Self.diagnose(Array(whole[..<cut]))
            for v in verdicts {
                #expect(!v.summary.isEmpty && !v.signature.isEmpty && !v.steps.isEmpty)
                // Whatever the capture does not show to its end is said to be missing or open.
                if v.endFrame == nil {
                    #expect(
                        v.cause == "still_open" || v.cause == "cause_unknown",
                        "cut \(cut): \(v.signature)")
                    if damage != nil { #expect(v.signature.contains("missing="), "cut \(cut): \(v.signature)") }
                }
            }
        }
    }
}
