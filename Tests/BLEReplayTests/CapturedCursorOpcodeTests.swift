import Testing

@testable import BLEReplay

/// `CapturedATTPDUs.Cursor.opcode(at:)` reads a PDU's first byte where it lies, without a
/// slice of its block: for every PDU, spooled or in memory, empty or not, at a block's edge or
/// not, it is `bytes(at:).first`, or 0 for an empty PDU.
@Suite struct CapturedCursorOpcodeTests {
    @Test func opcodeIsTheFirstByteOfEveryPDU() {
        var pdus = CapturedATTPDUs()
        var refused = 0
        // About 1.7 MB of bytes: past the arena's 1 MiB in memory, so most are read back from
        // spilled blocks.
        for i in 0..<300_000 {
            let n = i % 7 == 0 ? 0 : i % 11 + 1
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: i &+ $0 &* 31) }
            if !pdus.append(frame: i, time: Int64(i), sentByHost: i % 2 == 0, bytes: bytes) { refused += 1 }
        }
        pdus.seal()
        var cursor = CapturedATTPDUs.Cursor(pdus)
        var differing: [Int] = []
        for i in 0..<pdus.count where cursor.opcode(at: i) != (pdus.bytes(at: i).first ?? 0) {
            differing.append(i)
        }
        #expect(differing.isEmpty, "first differing PDU: \(differing.first ?? -1)")
        #expect(refused == 0 && pdus.count == 300_000)
    }
}
