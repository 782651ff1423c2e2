import BLEBytes
import BLEPackets
import CaptureIO
import Testing

/// Deterministic pseudo-random bytes (64-bit LCG), so a failure reproduces.
struct LCG {
    var state: UInt64
    mutating func next() -> UInt8 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: state >> 33)
    }
    mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in next() } }
}

@Suite struct L2CAPRobustnessTests {
    /// Hostile bytes through every decoder: no trap, groups balanced, and every PDU shorter
    /// than its opcode's fixed fields is reported as such.
    @Test func randomPayloadsThroughEveryDecoder() {
        var rng = LCG(state: 0x5EED)
        for i in 0..<20_000 {
            var bytes = rng.bytes(Int(rng.next()) % 40)
            // Bias towards defined opcodes/codes so the decoders, not the unknown path, run.
            if !bytes.isEmpty, i % 2 == 0 {
                let ops: [UInt8] = [
                    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 22, 23, 24,
                    25, 27, 29, 30, 32, 33, 35, 0x52, 0xD2,
                ]
                bytes[0] = ops[Int(rng.next()) % ops.count]
            }
            for channel: UInt16 in [0x0004, 0x0005, 0x0006, 0x0001] {
                let sink = RecordingSink()
                bytes.withByteView { v in
                    L2CAPPayload.describe(channel: channel, payload: v, into: sink)
                    _ = L2CAPPayload(channel: channel, payload: v)
                    _ = ATTPDU.handle(of: v)
                }
                let opens = sink.lines.filter { $0.hasPrefix("{") }.count
                #expect(opens == sink.lines.filter { $0 == "}" }.count)
            }
        }
    }

    /// Random ACL fragments on a few handles: the reassembler never holds more streams than
    /// its cap and never returns a PDU longer than its L2CAP length allows.
    @Test func randomFragmentsStayBounded() {
        var rng = LCG(state: 42)
        let r = L2CAPReassembler(maximumStreams: 4)
        var completes = 0
        for frame in 1...30_000 {
            let handle = UInt16(rng.next() % 6)
            let pb = rng.next() % 4
            let len = Int(rng.next() % 32)
            var data = rng.bytes(len)
            // Mostly small L2CAP lengths so PDUs do complete.
            if pb != 1, data.count >= 2 {
                data[0] = rng.next() % 48
                data[1] = rng.next() % 8 == 0 ? rng.next() : 0
            }
            let hf = handle | UInt16(pb) << 12
            let acl = [UInt8(hf & 0xFF), UInt8(hf >> 8), UInt8(len), 0] + data
            acl.withByteView { v in
                let dir: Direction = rng.next() % 2 == 0 ? .sent : .received
                switch r.feed(HCIACLPacket(v)!, frame: frame, direction: dir) {
                case .complete(let p):
                    completes += 1
                    #expect(p.payload.count == Int(p.length) && p.lastFrame == frame && p.firstFrame <= frame)
                case .malformed(_, _, let s?):
                    #expect(s.payload.count == Int(s.length))
                default: break
                }
            }
            #expect(r.pendingCount <= 4)
        }
        #expect(completes > 200, "\(completes)")
    }
}
