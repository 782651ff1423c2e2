import BLEBytes
import BLEController
import BLEPackets
import CaptureIO
import TestSupport
import Testing

/// Untrusted host input: the captured host's own packets cut short, stretched, with their
/// lengths and types corrupted and interleaved with junk, fed to a connected controller. It
/// must never crash or hang, must drop and count what it cannot use, and must still answer
/// a Reset afterwards (the session goes on).
@Suite struct HostInputFuzzTests {
    static let path = Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")

    /// A controller the captured host has initialised and connected (played up to its first
    /// ACL packet plus the connection's completion).
    static func connected() throws -> (Bench, [[UInt8]]) {
        let host = try HostSide(path)
        let bench = try Bench(path)
        var acl: [[UInt8]] = []
        for p in host.packets {
            if p.bytes.first == H4PacketType.acl {
                acl.append(p.bytes)
                continue
            }
            guard acl.isEmpty else { continue }
            bench.controller.advance(to: p.time)
            bench.controller.receive(p.bytes)
        }
        bench.controller.advance(to: bench.controller.now + 1_000_000)
        #expect(!bench.controller.connectedHandles.isEmpty)
        return (bench, acl + host.packets.filter { $0.bytes.first == H4PacketType.command }.map(\.bytes))
    }

    static func mutate(_ packet: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var p = packet
        switch rng.next() % 7 {
        case 0: p = Array(p.prefix(Int(rng.next() % UInt64(max(1, p.count)))))  // truncated
        case 1: p += (0..<Int(rng.next() % 600)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }  // oversized
        case 2:  // a corrupted length field
            if p.count > 3 { p[3] = UInt8(truncatingIfNeeded: rng.next()) }
            if p.count > 4, p[0] == H4PacketType.acl { p[4] = UInt8(truncatingIfNeeded: rng.next()) }
        case 3: p[0] = UInt8(truncatingIfNeeded: rng.next())  // a wrong packet type
        case 4:  // flipped octets
            for _ in 0..<3 where p.count > 1 { p[1 + Int(rng.next() % UInt64(p.count - 1))] ^= 0xFF }
        case 5: p = (0..<Int(rng.next() % 40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }  // junk
        default: break  // as sent
        }
        return p
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func malformedHostInputIsDroppedNotFatal(seed: UInt64) throws {
        let (bench, packets) = try Self.connected()
        var rng = SplitMix64(seed: seed)
        var stream: [UInt8] = []
        for _ in 0..<3000 {
            stream += Self.mutate(packets[Int(rng.next() % UInt64(packets.count))], &rng)
        }
        // Delivered in random cuts, with time passing between them.
        var i = 0
        while i < stream.count {
            let n = 1 + Int(rng.next() % 300)
            bench.controller.receive(Array(stream[i..<min(stream.count, i + n)]))
            bench.controller.advance(to: bench.controller.now + Int64(rng.next() % 50_000))
            i += n
        }
        #expect(bench.controller.rejectedInput > 0)
        // Whatever the framer still waits for, a long enough run of Resets resynchronises it:
        // the controller answers and is usable again.
        let reset = HCISynthesis.command(HCIOpcode.reset)
        var answered = false
        for _ in 0..<(65540 / reset.count + 2) where !answered {
            answered = bench.send(reset).contains { Event($0)?.commandComplete?.opcode == HCIOpcode.reset }
        }
        #expect(answered)
        #expect(bench.controller.connectedHandles.isEmpty)
        let version = bench.command(HCIOpcode.readLocalVersionInformation).compactMap { Event($0)?.commandComplete }
        #expect(version.first?.returned.first == HCIError.success)
    }
}
