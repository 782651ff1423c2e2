import BLEPackets
import BLEReplay
import Foundation
import TestSupport
import Testing

/// Every Bumble capture replays with the identical ATT exchange: opcodes, handles, values,
/// errors and order, PDU for PDU, against server models built from the capture itself.
@Suite struct BumbleReplayTests {
    static let captures = Fixtures.captures(in: "bumble").filter { $0.hasSuffix(".btsnoop") }

    @Test func theCorpusIsThere() {
        #expect(Self.captures.count == 21)
    }

    @Test(arguments: captures)
    func replaysWithTheIdenticalATTExchange(_ path: String) throws {
        let replay = try CaptureReplay(path: path)
        let report = replay.run()
        #expect(!report.connections.isEmpty)
        for c in report.connections {
            let f = c.fidelity
            #expect(f.isIdentical, "connection #\(c.model.number): \(Self.describe(f))")
            #expect(f.captured == c.model.connection.att.count)
            #expect(f.replayed == f.captured)
            // On the virtual clock at realtime every PDU keeps its captured time.
            #expect((f.maximumTimingDelta ?? 0) <= c.model.connection.intervalMicros)
        }
    }

    static func describe(_ f: ReplayFidelity) -> String {
        guard let d = f.divergence else { return "identical" }
        func side(_ s: ReplayFidelity.Side?) -> String {
            guard let s else { return "nothing" }
            return
                "\(s.sentByHost ? "sent" : "rcvd") @\(s.offset) \(s.bytes.map { String(format: "%02x", $0) }.joined())"
                + (s.frame.map { " frame \($0)" } ?? "")
        }
        return
            "at \(d.position) of \(f.captured)/\(f.replayed): captured \(side(d.captured)) / replayed \(side(d.replayed))"
    }
}
