import BLEBytes
import CaptureIO
import Foundation
import TestSupport
import Testing

/// One PacketLogger record: length (counts timestamp + type + data), seconds, microseconds,
/// type, data; the integers in the file's byte order.
func pklgRecord(_ type: UInt8, _ data: [UInt8], seconds: UInt32, micros: UInt32, bigEndian: Bool) -> [UInt8] {
    let u32 = bigEndian ? be32 : le32
    return u32(UInt32(9 + data.count)) + u32(seconds) + u32(micros) + [type] + data
}

@Suite struct PacketLoggerReaderTests {
    static let seconds: UInt32 = 1_704_067_200  // 2024-01-01T00:00:00Z

    /// A small session: a note, HCI Reset, its Command Complete, an ACL packet each way,
    /// an SCO packet, a power record and a type PacketLogger files carry but nobody documents.
    static func session(bigEndian: Bool) -> [UInt8] {
        let s = seconds
        var f: [UInt8] = []
        // 0xFC note "hello" with BTstack's NUL terminator.
        f += pklgRecord(0xFC, Array("hello\0".utf8), seconds: s, micros: 1, bigEndian: bigEndian)
        // 0x00 HCI command: Reset (opcode 0x0C03, no parameters). No H4 byte in PacketLogger.
        f += pklgRecord(0x00, [0x03, 0x0C, 0x00], seconds: s, micros: 2, bigEndian: bigEndian)
        // 0x01 HCI event: Command Complete (0x0E), 4 params: 1 credit, opcode 0x0C03, status 0.
        f += pklgRecord(0x01, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], seconds: s, micros: 999_999, bigEndian: bigEndian)
        // 0x02 ACL sent / 0x03 ACL received on handle 0x0040: L2CAP length 1, CID 4, ATT byte.
        f += pklgRecord(
            0x02, [0x40, 0x00, 0x05, 0x00, 0x01, 0x00, 0x04, 0x00, 0x0A], seconds: s + 1, micros: 0,
            bigEndian: bigEndian)
        f += pklgRecord(
            0x03, [0x40, 0x20, 0x05, 0x00, 0x01, 0x00, 0x04, 0x00, 0x0B], seconds: s + 1, micros: 5,
            bigEndian: bigEndian)
        // 0x09 SCO received, handle 0x0001, 2 bytes.
        f += pklgRecord(0x09, [0x01, 0x00, 0x02, 0xAA, 0xBB], seconds: s + 1, micros: 6, bigEndian: bigEndian)
        // 0xFB power "AP Sleep" (no terminator, as iOS writes it).
        f += pklgRecord(0xFB, Array("AP Sleep".utf8), seconds: s + 2, micros: 0, bigEndian: bigEndian)
        // 0x21: seen in iOS sysdiagnose files with one data byte; kept as unknown.
        f += pklgRecord(0x21, [0x01], seconds: s + 2, micros: 1, bigEndian: bigEndian)
        return f
    }

    @Test(arguments: [true, false])
    func readsAnnotatedSession(bigEndian: Bool) throws {
        let file = Self.session(bigEndian: bigEndian)
        #expect(file.withByteView { PacketLoggerReader.sniff($0.prefix(64)) } == bigEndian)
        let r = try readAll(bytes: file)
        #expect(r.format == .packetLogger(bigEndian: bigEndian))
        #expect(r.damage == nil)
        #expect(
            r.records.map(\.kind) == [.note, .hciCommand, .hciEvent, .aclData, .aclData, .scoData, .power, .unknown])
        #expect(
            r.records.map(\.direction) == [.unknown, .sent, .received, .sent, .received, .received, .unknown, .unknown])
        #expect(r.records.map(\.rawType) == [0xFC, 0x00, 0x01, 0x02, 0x03, 0x09, 0xFB, 0x21])
        let t0 = Int64(Self.seconds) * 1_000_000
        #expect(
            r.records.map(\.timestamp) == [
                t0 + 1, t0 + 2, t0 + 999_999, t0 + 1_000_000, t0 + 1_000_005, t0 + 1_000_006, t0 + 2_000_000,
                t0 + 2_000_001,
            ])
        #expect(r.records[0].payload == Array("hello".utf8))
        #expect(r.records[1].payload == [0x03, 0x0C, 0x00])
        #expect(r.records[6].payload == Array("AP Sleep".utf8))
        #expect(r.records[7].payload == [0x01])
        #expect(r.records.map(\.frame) == Array(1...8))
        // The note record: 4 + 9 + 6 bytes at offset 0; the command follows it.
        #expect(r.records[0].fileOffset == 0 && r.records[0].recordLength == 19)
        #expect(r.records[1].fileOffset == 19 && r.records[1].recordLength == 16)
        checkContiguous(r.records, fileSize: file.count, headerLength: 0)
    }

    @Test func streamsThroughAPipe() throws {
        let bytes = try fileBytes(Fixtures.capture("formats/clean_heart_rate.central.le.pklg"))
        let piped = try readAllThroughPipe(bytes: bytes, chunk: 5)
        #expect(piped.format == .packetLogger(bigEndian: false))
        #expect(piped.damage == nil && piped.records.count == 123)
        #expect(piped.records == (try readAll(bytes: bytes)).records)
    }

    @Test func recordWithoutTypeByteIsKept() throws {
        // Length 8: timestamp only (Wireshark accepts it as an empty packet). It follows a
        // valid first record because detection needs a type byte.
        var file = pklgRecord(0xFC, Array("x".utf8), seconds: Self.seconds, micros: 0, bigEndian: true)
        file += be32(8) + be32(Self.seconds) + be32(1)
        let r = try readAll(bytes: file)
        #expect(r.damage == nil && r.records.count == 2)
        #expect(r.records[1].kind == .unknown && r.records[1].payload.isEmpty && r.records[1].recordLength == 12)
    }

    // MARK: Detection

    @Test func rejectsImplausibleFirstRecords() {
        func sniff(_ b: [UInt8]) -> Bool? { b.withByteView { PacketLoggerReader.sniff($0) } }
        let good = pklgRecord(0x00, [0x03, 0x0C, 0x00], seconds: Self.seconds, micros: 0, bigEndian: true)
        #expect(sniff(good) == true)
        // Type 0x42 is not a PacketLogger type.
        #expect(sniff(pklgRecord(0x42, [0x00], seconds: Self.seconds, micros: 0, bigEndian: true)) == nil)
        // Microseconds out of range.
        #expect(
            sniff(pklgRecord(0x00, [0x03, 0x0C, 0x00], seconds: Self.seconds, micros: 1_000_000, bigEndian: true))
                == nil)
        // A command whose parameter length (2) disagrees with the record (0 bytes follow).
        #expect(sniff(pklgRecord(0x00, [0x03, 0x0C, 0x02], seconds: Self.seconds, micros: 0, bigEndian: true)) == nil)
        // An event whose parameter length disagrees.
        #expect(sniff(pklgRecord(0x01, [0x0E, 0x09, 0x01], seconds: Self.seconds, micros: 0, bigEndian: false)) == nil)
        // Length 8 (no type) as the first record.
        #expect(sniff(be32(8) + be32(Self.seconds) + be32(0) + [0x00]) == nil)
        // 0x01000100 is 16 777 472 big-endian and 65 537 little-endian: too long either way.
        #expect(sniff(be32(0x0100_0100) + be32(Self.seconds) + be32(0) + [0x00]) == nil)
        // A plausible first record followed by an implausible second one.
        #expect(sniff(good + be32(3) + be32(Self.seconds) + be32(0) + [0x00]) == nil)
        // Too short to judge.
        #expect(sniff(Array(good.prefix(12))) == nil)
        #expect(sniff([]) == nil)
    }

    /// A file with no container at all — a raw H4 byte stream as a UART logger writes it
    /// (HCI Reset, its Command Complete, an LE Set Scan Enable) — is not PacketLogger and
    /// opens as "unknown format". (`make conformance` also opens a BTstack `.cfa` log, an
    /// unknown record format whose licence keeps it out of the repository.)
    @Test func rawH4StreamIsNotPacketLogger() throws {
        let bytes: [UInt8] =
            [0x01, 0x03, 0x0C, 0x00] + [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
            + [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00] + [0x04, 0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00]
        #expect(bytes.withByteView { PacketLoggerReader.sniff($0) } == nil)
        let path = PcapTestKit.temporaryFile(bytes)
        defer { unlink(path) }
        #expect(throws: CaptureError.unknownFormat) { try CaptureFile.open(path: path) }
    }

    @Test func randomBytesAreNotPacketLogger() {
        // A fixed xorshift stream: 2000 random 64-byte prefixes, none detected as anything.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var detected = 0
        var bytes = [UInt8](repeating: 0, count: 64)
        for _ in 0..<2000 {
            for i in 0..<64 {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                bytes[i] = UInt8(truncatingIfNeeded: state)
            }
            if bytes.withByteView({ PacketLoggerReader.sniff($0) }) != nil { detected += 1 }
        }
        #expect(detected == 0)
    }
}
