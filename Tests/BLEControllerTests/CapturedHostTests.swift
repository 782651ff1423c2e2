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

    /// Plays the captured host's packets at their captured times, except that, as a real host
    /// does, it sends ACL data on a connection only once the controller reported it: until then
    /// and while it has no free LE ACL buffer, its clock waits, and the rest of its packets
    /// come that much later.
    static func play(_ path: String, speed: ReplaySpeed = .realtime) throws -> (Bench, ServeReport) {
        let host = try HostSide(path)
        // The buffers the captured controller gave the host (it paced its ACL to them).
        let bench = try Bench(path) {
            $0.speed = speed
            if let n = host.leACLPackets { $0.aclPackets = n }
        }
        var shift: Int64 = 0
        for p in host.packets {
            bench.controller.advance(to: max(bench.controller.now, p.time + shift))
            if p.bytes.first == H4PacketType.acl, p.bytes.count >= 3 {
                let handle = (UInt16(p.bytes[1]) | UInt16(p.bytes[2]) << 8) & HCIConnectionHandle.mask
                var waited: Int64 = 0
                while !bench.controller.connectedHandles.contains(handle) || bench.controller.freeACLBuffers == 0,
                    waited < 10_000_000
                {
                    bench.controller.advance(to: bench.controller.now + 1_000)
                    waited += 1_000
                }
                shift += waited
            }
            bench.controller.receive(p.bytes)
        }
        bench.controller.advance(to: (host.packets.last?.time ?? 0) + shift + 5_000_000)
        return (bench, bench.controller.report())
    }

    @Test(arguments: centrals)
    func theCapturedHostMeetsTheCapturedPeripheralAgain(_ path: String) throws {
        let (bench, report) = try Self.play(path)
        let replay = try CaptureReplay(path: path)
        let centralConnections = replay.models.filter { $0.connection.hostIsCentral && !$0.connection.att.isEmpty }
        #expect(report.replay.connections.count >= centralConnections.count)
        #expect(report.notServed.isEmpty, "never connected: \(report.notServed)")
        for c in report.replay.connections {
            let f = c.fidelity
            #expect(f.isIdentical, "#\(c.model.number): \(Self.describe(f))")
            #expect(f.replayed == f.captured)
        }
        #expect(report.differences == 0, "\(report.text())")
        #expect(bench.controller.rejectedInput == 0, "\(bench.logs.prefix(8))")
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
