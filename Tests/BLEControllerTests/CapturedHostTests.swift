import BLEBytes
import BLEController
import BLEPackets
import BLEReplay
import CaptureIO
import TestSupport
import Testing

/// The captured host itself against the virtual controller: every packet the capture's host
/// sent, at its captured time. The controller must connect it to the captured peripheral and
/// serve it so that the ATT exchange is the captured one, PDU for PDU, in order (zero
/// divergence), with every operation of the captured central's script matched.
@Suite struct CapturedHostTests {
    static let centrals = Fixtures.captures(in: "bumble").filter { $0.hasSuffix(".central.btsnoop") }

    static func play(_ path: String, speed: ReplaySpeed = .realtime) throws -> (Bench, ServeReport) {
        let host = try HostSide(path)
        // The buffers the captured controller gave the host (it paced its ACL to them).
        let bench = try Bench(path) {
            $0.speed = speed
            if let n = host.leACLPackets { $0.aclPackets = n }
        }
        bench.play(host)
        return (bench, bench.controller.report())
    }

    @Test(arguments: centrals)
    func theCapturedHostMeetsTheCapturedPeripheralAgain(_ path: String) throws {
        let (bench, report) = try Self.play(path)
        let replay = try CaptureReplay(path: path)
        let centralConnections = replay.models.filter { $0.connection.hostIsCentral && !$0.connection.att.isEmpty }
        #expect(report.replay.connections.count >= centralConnections.count)
        #expect(report.notServed.isEmpty, "never connected: \(report.notServed)")
        // Connections open at the same time each set up at their own pace here, so the
        // scripted host (one clock, captured order across both) can interleave them
        // differently: for those, the same PDUs each way, in any order.
        let concurrent = Self.overlapping(replay)
        for c in report.replay.connections {
            let f = c.fidelity
            #expect(f.replayed == f.captured)
            if concurrent.contains(c.model.number) {
                let captured = c.model.connection.att.map { "\($0.sentByHost) \($0.bytes)" }.sorted()
                let served = c.replayed.pdus.map { "\($0.sentByHost) \($0.bytes)" }.sorted()
                #expect(captured == served, "#\(c.model.number)")
            } else {
                #expect(f.isIdentical, "#\(c.model.number): \(Self.describe(f))")
            }
        }
        if concurrent.isEmpty { #expect(report.differences == 0, "\(report.text())") }
        #expect(bench.controller.rejectedInput == 0, "\(bench.logs.prefix(8))")
    }

    /// Numbers of connections that overlap another in time.
    static func overlapping(_ replay: CaptureReplay) -> Set<Int> {
        let spans = replay.models.map {
            ($0.number, $0.connection.summary.startTime, $0.connection.disconnection?.time ?? .max)
        }
        var out: Set<Int> = []
        for a in spans {
            for b in spans where a.0 != b.0 && a.1 < b.2 && b.1 < a.2 { out.insert(a.0) }
        }
        return out
    }

    static func describe(_ f: ReplayFidelity) -> String {
        guard let d = f.divergence else { return "identical" }
        func side(_ s: ReplayFidelity.Side?) -> String {
            guard let s else { return "nothing" }
            return "\(s.sentByHost ? "sent" : "rcvd") @\(s.offset) \(s.bytes.hex)"
                + (s.frame.map { " frame \($0)" } ?? "")
        }
        return
            "at \(d.position) of \(f.captured)/\(f.replayed): captured \(side(d.captured)) / served \(side(d.replayed))"
    }
}

/// The other direction (`--role central`): the captured peripheral's host — its advertising
/// commands and every ATT answer and notification it sent, at their captured times — meets the
/// controller playing the captured central, and the ATT exchange is the captured one.
@Suite struct CapturedPeripheralHostTests {
    static let peripherals = Fixtures.captures(in: "bumble").filter { $0.contains(".peripheral") }

    @Test(arguments: peripherals)
    func theCapturedPeripheralMeetsTheCapturedCentralAgain(_ path: String) throws {
        let host = try HostSide(path)
        let bench = try Bench(path) {
            $0.role = .central
            if let n = host.leACLPackets { $0.aclPackets = n }
        }
        bench.play(host)
        let report = bench.controller.report()
        #expect(report.notServed.isEmpty, "never connected: \(report.notServed)")
        #expect(!report.replay.connections.isEmpty)
        for c in report.replay.connections {
            #expect(c.fidelity.isIdentical, "#\(c.model.number): \(CapturedHostTests.describe(c.fidelity))")
        }
        #expect(report.differences == 0, "\(report.text())")
    }
}
