import BLEBytes
import BLEReplay
import Foundation
import TestSupport
import Testing

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

/// Real captures recorded by others (captures/public, SOURCES.md): every one with connections,
/// HCI or over the air, replays with zero ATT divergence, or its first divergence is a
/// captured behaviour the report names as unreproducible (a sniffer that lost the request a
/// response answers); nothing traps or hangs on the rest.
/// (`make conformance` replays the ones we may not redistribute, outside the repository.)
@Suite struct PublicCaptureReplayTests {
    static let captures = Fixtures.captures(in: "public")

    @Test func theCorpusIsThere() { #expect(Self.captures.count >= 15) }

    @Test(arguments: captures)
    func replaysWithoutDivergence(_ path: String) throws {
        let replay: CaptureReplay
        do { replay = try CaptureReplay(path: path) } catch {
            // Unknown containers are refused at open, as `blecap replay` exits 2 on them.
            #expect("\(error)".contains("unknown capture format"))
            return
        }
        let report = replay.run()
        for c in report.connections {
            #expect(
                c.fidelity.isIdentical || c.unreproducible != nil,
                "\(URL(fileURLWithPath: path).lastPathComponent) #\(c.model.number): \(BumbleReplayTests.describe(c.fidelity))"
            )
        }
    }

    /// Truncated anywhere, a capture still replays what came before the cut.
    @Test func truncatedCapturesReplayTheirValidPart() throws {
        let path = ReplayFixtures.bumble("indications_and_errors.central")
        let bytes = try Fixtures.bytes(atPath: path)
        var offsets = Array(stride(from: 0, to: bytes.count, by: max(1, bytes.count / 23)))
        offsets.append(bytes.count - 1)
        for cut in offsets {
            let p = ReplayFixtures.temporaryCapture(Array(bytes.prefix(cut)))
            defer { try? FileManager.default.removeItem(atPath: p) }
            guard let replay = try? CaptureReplay(path: p) else { continue }  // header cut: refused at open
            let report = replay.run()
            for c in report.connections { #expect(c.fidelity.isIdentical, "cut at \(cut)") }
            _ = report.btsnoop()
            _ = report.text()
        }
    }
}

/// Captures are untrusted: replay (model, engine, report, export) runs to the end on damaged
/// bytes — seeded byte flips in records, lengths, timestamps and PDUs of real captures — and
/// what it exports reads back undamaged.
@Suite struct ReplayRobustnessTests {
    @Test(arguments: [
        "indications_and_errors.central", "two_peripherals_concurrent.central",
        "cached_reconnect.peripheral",
    ])
    func damagedCapturesReplayToTheEnd(_ name: String) throws {
        let original = try Fixtures.bytes(atPath: ReplayFixtures.bumble(name))
        var rng = SplitMix64(seed: 0xB1EC)
        for round in 0..<40 {
            var bytes = original
            // Flip bytes past the 16-byte file header, where records and PDUs are.
            for _ in 0..<(1 + round % 8) {
                let i = 16 + Int(rng.next() % UInt64(bytes.count - 16))
                bytes[i] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
            }
            let path = ReplayFixtures.temporaryCapture(bytes, name: "\(name)-\(round)")
            defer { try? FileManager.default.removeItem(atPath: path) }
            guard let replay = try? CaptureReplay(path: path) else { continue }
            for faults in [
                ReplayFaults.none,
                ReplayFaults(
                    dropLinkAtMicros: 100_000, serverMTU: 23,
                    notificationDropProbability: 0.5),
            ] {
                let report = replay.run(faults: faults)
                #expect(!report.text().isEmpty)
                #expect(try JSONSerialization.jsonObject(with: Data(report.json().utf8)) is [String: Any])
                // No claim of fidelity here: a flipped byte in a response makes the capture
                // contradict its own database, and the model answers by the database.
                #expect(report.connections.allSatisfy { $0.fidelity.captured == $0.model.connection.att.count })
                let back = try ReplayFixtures.session(of: report, name: "\(name)-\(round)-back")
                #expect(back.damage == nil)
            }
        }
    }
}
