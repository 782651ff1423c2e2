import BLEReplay
import Foundation
import Testing
import TestSupport

/// The replayed session's btsnoop export, read back through blecap's own reader and decoder,
/// carries the captured ATT exchange byte for byte (tshark's view of the same files is checked
/// by the conformance suite).
@Suite struct ReplayRoundTripTests {
    @Test(arguments: BumbleReplayTests.captures)
    func exportCarriesTheCapturedExchange(_ path: String) throws {
        let report = try CaptureReplay(path: path).run()
        let back = try ReplayFixtures.session(of: report, name: URL(fileURLWithPath: path).lastPathComponent)
        #expect(back.damage == nil)
        #expect(back.connections.count == report.connections.count)
        for (original, replayed) in zip(report.connections, back.connections) {
            let a = original.model.connection.att.map { [$0.sentByHost ? 1 : 0] + $0.bytes }
            let b = replayed.att.map { [$0.sentByHost ? 1 : 0] + $0.bytes }
            #expect(a == b, "connection #\(original.model.number)")
            // Same offsets from the connection's start, µs for µs.
            let ta = original.model.connection.att.map { $0.time - original.model.connection.summary.startTime }
            let tb = replayed.att.map { $0.time - replayed.summary.startTime }
            #expect(ta == tb)
            #expect(replayed.summary.endReason == original.model.connection.summary.endReason)
            #expect(replayed.summary.role == (original.model.connection.hostIsCentral ? 0 : 1))
        }
    }
}

/// Real captures recorded by others (../shared/captures/public, SOURCES.md): every HCI one with
/// connections replays with zero ATT divergence, and nothing traps or hangs on the rest.
@Suite struct PublicCaptureReplayTests {
    static let captures = SharedFixtures.sharedFiles(in: "captures/public")

    @Test func theCorpusIsThere() { #expect(Self.captures.count >= 20) }

    @Test(arguments: captures)
    func replaysWithoutDivergence(_ path: String) throws {
        let replay: CaptureReplay
        do { replay = try CaptureReplay(path: path) } catch {
            // Link-layer and unknown containers are not HCI captures: refused at open, as
            // `blecap replay` exits 2 on them.
            #expect("\(error)".contains("not supported") || "\(error)".contains("unknown capture format"))
            return
        }
        let report = replay.run()
        for c in report.connections {
            #expect(c.fidelity.isIdentical, "\(URL(fileURLWithPath: path).lastPathComponent) #\(c.model.number): \(BumbleReplayTests.describe(c.fidelity))")
        }
    }

    /// Truncated anywhere, a capture still replays what came before the cut.
    @Test func truncatedCapturesReplayTheirValidPart() throws {
        let path = ReplayFixtures.bumble("indications_and_errors.central")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var offsets = Array(stride(from: 0, to: bytes.count, by: max(1, bytes.count / 23)))
        offsets.append(bytes.count - 1)
        for cut in offsets {
            let p = ReplayFixtures.temporaryCapture(Array(bytes.prefix(cut)))
            defer { try? FileManager.default.removeItem(atPath: p) }
            guard let replay = try? CaptureReplay(path: p) else { continue } // header cut: refused at open
            let report = replay.run()
            for c in report.connections { #expect(c.fidelity.isIdentical, "cut at \(cut)") }
            _ = report.btsnoop()
            _ = report.text()
        }
    }
}
