import BLEBytes
import CaptureIO
import TestSupport
import Testing

/// btsnoop v1 file header: magic "btsnoop\0", version 1, datalink (all big-endian).
func btsnoopHeader(datalink: UInt32, version: UInt32 = 1) -> [UInt8] {
    Array("btsnoop\0".utf8) + be32(version) + be32(datalink)
}

/// One btsnoop record: original length, included length, flags, cumulative drops, timestamp
/// (µs since 0000-01-01), then the bytes.
func btsnoopRecord(_ body: [UInt8], flags: UInt32, unixMicros: Int64, original: UInt32? = nil) -> [UInt8] {
    let ts = UInt64(bitPattern: unixMicros &+ BTSnoopReader.unixEpochOffset)
    return be32(original ?? UInt32(body.count)) + be32(UInt32(body.count)) + be32(flags) + be32(0) + be64(ts) + body
}

@Suite struct BTSnoopReaderTests {
    // 2024-01-01T00:00:00Z in µs since the Unix epoch.
    static let t0: Int64 = 1_704_067_200_000_000

    @Test func h4RecordsFromAnnotatedBytes() throws {
        var file = btsnoopHeader(datalink: 1002)
        // HCI Reset command: H4 type 0x01, opcode 0x0C03, parameter length 0. Sent (flags 0).
        file += btsnoopRecord([0x01, 0x03, 0x0C, 0x00], flags: 0, unixMicros: Self.t0)
        // Command Complete for Reset: type 0x04, event 0x0E, len 4, 1 credit, opcode, status 0.
        // Received (flags bit 0) and marked command/event (bit 1), as Android writes it.
        file += btsnoopRecord([0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], flags: 3, unixMicros: Self.t0 + 1500)
        // ACL received, handle 0x0001 PB=2, 5 bytes but original was 9 (snapped).
        file += btsnoopRecord([0x02, 0x01, 0x20, 0x05, 0x00], flags: 1, unixMicros: Self.t0 + 2000, original: 9)
        // Zero-length record and an unknown H4 type 0x7F: kept as unknown.
        file += btsnoopRecord([], flags: 0, unixMicros: Self.t0 + 3000)
        file += btsnoopRecord([0x7F, 0xAA], flags: 1, unixMicros: Self.t0 + 4000)

        let r = try readAll(bytes: file)
        #expect(r.format == .btsnoop(datalink: 1002))
        #expect(r.damage == nil)
        try #require(r.records.count == 5)
        let (a, b, c, d, e) = (r.records[0], r.records[1], r.records[2], r.records[3], r.records[4])
        #expect(a.frame == 1 && a.kind == .hciCommand && a.direction == .sent && a.rawType == 1)
        #expect(a.payload == [0x03, 0x0C, 0x00] && a.timestamp == Self.t0)
        #expect(a.fileOffset == 16 && a.recordLength == 28 && a.originalLength == 3)
        #expect(b.kind == .hciEvent && b.direction == .received && b.payload == [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
        #expect(b.timestamp == Self.t0 + 1500 && b.fileOffset == 44)
        #expect(c.kind == .aclData && c.direction == .received && c.payload.count == 4 && c.originalLength == 8)
        #expect(d.kind == .unknown && d.payload.isEmpty && d.recordLength == 24 && d.frame == 4)
        #expect(e.kind == .unknown && e.rawType == 0x7F && e.payload == [0xAA] && e.frame == 5)
    }

    @Test func h1TypeAndDirectionComeFromFlags() throws {
        var file = btsnoopHeader(datalink: 1001)
        // flags 2: sent + command/event bit → command (LE Set Scan Enable 0x200C, 2 params).
        file += btsnoopRecord([0x0C, 0x20, 0x02, 0x01, 0x00], flags: 2, unixMicros: Self.t0)
        // flags 3: received + command/event bit → event (Command Status).
        file += btsnoopRecord([0x0F, 0x04, 0x00, 0x01, 0x0C, 0x20], flags: 3, unixMicros: Self.t0 + 1)
        // flags 0: sent ACL; flags 1: received ACL.
        file += btsnoopRecord([0x40, 0x00, 0x00, 0x00], flags: 0, unixMicros: Self.t0 + 2)
        file += btsnoopRecord([0x40, 0x20, 0x00, 0x00], flags: 1, unixMicros: Self.t0 + 3)
        let r = try readAll(bytes: file)
        #expect(r.format == .btsnoop(datalink: 1001) && r.damage == nil)
        #expect(r.records.map(\.kind) == [.hciCommand, .hciEvent, .aclData, .aclData])
        #expect(r.records.map(\.direction) == [.sent, .received, .sent, .received])
        #expect(r.records[0].payload == [0x0C, 0x20, 0x02, 0x01, 0x00])
        #expect(r.records.map(\.rawType) == [2, 3, 0, 1])
    }

    @Test func monitorOpcodesAndIndexComeFromFlags() throws {
        var file = btsnoopHeader(datalink: 2001)
        // New Index (opcode 0) for hci0: type 0x00 (primary), bus 0x01, BD_ADDR, name "hci0".
        let newIndex: [UInt8] = [0x00, 0x01, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66] + Array("hci0\0\0\0\0".utf8)
        file += btsnoopRecord(newIndex, flags: 0x0000_0000, unixMicros: Self.t0)
        // System Note (opcode 12) on index 0xFFFF (no controller): text.
        file += btsnoopRecord(Array("Linux version".utf8), flags: 0xFFFF_000C, unixMicros: Self.t0 + 1)
        // HCI command (opcode 2) on hci1: Reset.
        file += btsnoopRecord([0x03, 0x0C, 0x00], flags: 0x0001_0002, unixMicros: Self.t0 + 2)
        // Event (opcode 3) on hci1.
        file += btsnoopRecord([0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], flags: 0x0001_0003, unixMicros: Self.t0 + 3)
        // Opcode 0x0042: unknown to this reader, kept.
        file += btsnoopRecord([0xDE, 0xAD], flags: 0x0000_0042, unixMicros: Self.t0 + 4)
        let r = try readAll(bytes: file)
        #expect(r.format == .btsnoop(datalink: 2001) && r.damage == nil)
        #expect(r.records.map(\.kind) == [.indexNew, .systemNote, .hciCommand, .hciEvent, .unknown])
        #expect(r.records.map(\.direction) == [.unknown, .unknown, .sent, .received, .unknown])
        #expect(r.records.map(\.controllerIndex) == [0, 0xFFFF, 1, 1, 0])
        #expect(r.records.map(\.rawType) == [0, 12, 2, 3, 0x42])
        #expect(r.records[1].payload == Array("Linux version".utf8))
        #expect(r.records[2].payload == [0x03, 0x0C, 0x00] && r.records[2].originalLength == 3)
    }

    @Test func hostileTimestampsDoNotTrap() throws {
        var file = btsnoopHeader(datalink: 1002)
        // Raw timestamps 0, all ones and Int64.min (bit pattern 0x8000…): wrap, never trap.
        for raw: UInt64 in [0, .max, 0x8000_0000_0000_0000] {
            file += be32(1) + be32(1) + be32(0) + be32(0) + be64(raw) + [0x04]
        }
        let r = try readAll(bytes: file)
        #expect(r.records.count == 3 && r.damage == nil)
        #expect(r.records[0].timestamp == -BTSnoopReader.unixEpochOffset)
        #expect(r.records[1].timestamp == -1 &- BTSnoopReader.unixEpochOffset)
        #expect(r.records[2].timestamp == Int64.min &- BTSnoopReader.unixEpochOffset)
    }

    @Test func streamsThroughAPipe() throws {
        let bytes = try fileBytes(Fixtures.capture("formats/clean_heart_rate.central.h4.btsnoop"))
        let piped = try readAllThroughPipe(bytes: bytes)
        let direct = try readAll(bytes: bytes)
        #expect(piped.damage == nil && piped.records.count == 123)
        #expect(piped.records == direct.records)
    }

    @Test func headerErrors() throws {
        #expect(throws: CaptureError.unsupportedBtsnoopDatalink(1003)) {
            try readAll(bytes: btsnoopHeader(datalink: 1003))
        }
        #expect(
            CaptureError.unsupportedBtsnoopDatalink(1003).description.hasPrefix("unsupported btsnoop datalink 1003"))
        for link: UInt32 in [1004, 2002, 0, 0xFFFF_FFFF] {
            #expect(throws: CaptureError.unsupportedBtsnoopDatalink(link)) {
                try readAll(bytes: btsnoopHeader(datalink: link))
            }
        }
        #expect(throws: CaptureError.unsupportedBtsnoopVersion(2)) {
            try readAll(bytes: btsnoopHeader(datalink: 1002, version: 2))
        }
        // Magic complete but header cut, and a prefix of the magic.
        #expect(throws: CaptureError.truncatedHeader) {
            try readAll(bytes: Array(btsnoopHeader(datalink: 1002).prefix(12)))
        }
        #expect(throws: CaptureError.truncatedHeader) { try readAll(bytes: Array("btsn".utf8)) }
        #expect(throws: CaptureError.unknownFormat) { try readAll(bytes: []) }
    }

    @Test func headerOnlyFileHasNoRecordsAndNoDamage() throws {
        let r = try readAll(bytes: btsnoopHeader(datalink: 2001))
        #expect(r.records.isEmpty && r.damage == nil)
    }
}
