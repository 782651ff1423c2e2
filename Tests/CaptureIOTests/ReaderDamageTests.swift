import BLEBytes
import CaptureIO
import Foundation
import TestSupport
import Testing

/// Damaged captures: every valid record before the damage is delivered, then the reader stops
/// with the exact offset and frame of the first bad record. Nothing traps.
@Suite struct ReaderDamageTests {
    /// What reading the first `length` bytes of a capture must give, derived from the records
    /// of the intact file: the records that fit, and damage at the first one that does not
    /// (none when the cut falls on a record boundary).
    static func expectation(for length: Int, records: [OwnedRecord]) -> (
        records: [OwnedRecord], damage: (offset: Int64, frame: Int)?
    ) {
        let kept = records.filter { $0.fileOffset + Int64($0.recordLength) <= Int64(length) }
        if let cut = records.first(where: { $0.fileOffset + Int64($0.recordLength) > Int64(length) }),
            Int64(length) > cut.fileOffset
        {
            return (kept, (cut.fileOffset, cut.frame))
        }
        return (kept, nil)
    }

    /// Truncates `path` at every record boundary, at every byte of the first 80 bytes (where
    /// detection looks), and inside every record: one byte in, at the end of its header, one
    /// byte into its body, in the middle and one byte short of its end. Each prefix must give
    /// what `expectation` says.
    func truncateEverywhere(
        _ path: String, recordHeaderLength: Int, minimumDetectable: Int, shortFileError: (Int) -> CaptureError
    ) throws {
        let bytes = try fileBytes(path)
        let full = try readAll(path: path)
        #expect(full.damage == nil)
        var cuts = Set(0...min(80, bytes.count))
        for r in full.records {
            let start = Int(r.fileOffset)
            for inside in [
                0, 1, recordHeaderLength - 1, recordHeaderLength, recordHeaderLength + 1, r.recordLength / 2,
                r.recordLength - 1, r.recordLength,
            ] {
                cuts.insert(min(start + inside, bytes.count))
            }
        }
        let url = try writeTemp([])
        defer { try? FileManager.default.removeItem(at: url) }
        var damaged = 0
        for length in cuts.sorted() {
            try Data(bytes[0..<length]).write(to: url)
            if length < minimumDetectable {
                #expect(throws: shortFileError(length), "cut at \(length)") { try readAll(path: url.path) }
                continue
            }
            let r = try readAll(path: url.path)
            let want = Self.expectation(for: length, records: full.records)
            guard r.records == want.records else {
                Issue.record("cut at \(length): \(r.records.count) records, expected \(want.records.count)")
                return
            }
            if let d = want.damage {
                guard let got = r.damage, got.offset == d.offset, got.frame == d.frame, got.reason.contains("truncated")
                else {
                    Issue.record("cut at \(length): damage \(String(describing: r.damage)), expected \(d)")
                    return
                }
                damaged += 1
            } else if let got = r.damage {
                Issue.record("cut at \(length) (a record boundary): unexpected damage \(got)")
                return
            }
        }
        // Most cuts fall inside a record.
        #expect(damaged > 4 * full.records.count)
    }

    @Test func btsnoopTruncatedEverywhere() throws {
        try truncateEverywhere(
            Fixtures.capture("formats/clean_heart_rate.central.h4.btsnoop"),
            recordHeaderLength: 24, minimumDetectable: 16,
            shortFileError: { $0 == 0 ? .unknownFormat : .truncatedHeader })
    }

    @Test func monitorBTSnoopTruncatedEverywhere() throws {
        try truncateEverywhere(
            Fixtures.capture("formats/clean_heart_rate.central.monitor.btsnoop"),
            recordHeaderLength: 24, minimumDetectable: 16,
            shortFileError: { $0 == 0 ? .unknownFormat : .truncatedHeader })
    }

    /// PacketLogger has no magic: fewer than 13 bytes (header + type) cannot be recognised.
    @Test func packetLoggerTruncatedEverywhere() throws {
        for name in ["le", "be"] {
            try truncateEverywhere(
                Fixtures.capture("formats/clean_heart_rate.central.\(name).pklg"),
                recordHeaderLength: 12, minimumDetectable: 13, shortFileError: { _ in .unknownFormat })
        }
    }

    @Test func truncatedStreamThroughAPipe() throws {
        let bytes = try fileBytes(Fixtures.capture("formats/clean_heart_rate.central.h4.btsnoop"))
        let full = try readAll(bytes: bytes)
        // Cut 5 bytes into the body of frame 60.
        let cut = full.records[59]
        let r = try readAllThroughPipe(bytes: Array(bytes[0..<Int(cut.fileOffset) + 24 + 5]), chunk: 13)
        #expect(r.records == Array(full.records.prefix(59)))
        #expect(
            r.damage
                == CaptureDamage(
                    offset: cut.fileOffset, frame: 60,
                    reason: "truncated record: 29 of \(cut.recordLength) bytes before end of file"))
    }

    /// A reader that stops at damage in a stream leaves the rest unread and does not hang.
    @Test func damageMidStreamThroughAPipe() throws {
        var file = btsnoopHeader(datalink: 1002)
        file += btsnoopRecord([0x01, 0x03, 0x0C, 0x00], flags: 0, unixMicros: 0)  // 16..<44
        file += be32(0xFFFF_FFFF) + be32(0xFFFF_FFFF) + be32(0) + be32(0) + be64(0)  // 44: impossible
        file += [UInt8](repeating: 0x5A, count: 300_000)
        let r = try readAllThroughPipe(bytes: file, chunk: 4096)
        #expect(r.records.count == 1)
        #expect(r.damage?.offset == 44 && r.damage?.frame == 2)
    }

    // MARK: btsnoop

    @Test func btsnoopImpossibleIncludedLength() throws {
        for included: UInt32 in [0xFFFF_FFFF, UInt32(maximumRecordLength) + 1, 0x8000_0000] {
            var file = btsnoopHeader(datalink: 1002)
            file += btsnoopRecord([0x01, 0x03, 0x0C, 0x00], flags: 0, unixMicros: 0)  // 16..<44
            // Record 2 claims `included` bytes and has 4.
            file += be32(included) + be32(included) + be32(0) + be32(0) + be64(0) + [0x02, 0, 0, 0]
            let r = try readAll(bytes: file)
            #expect(r.records.count == 1)
            let d = try #require(r.damage)
            #expect(d.offset == 44 && d.frame == 2)
            #expect(d.reason.contains("impossible included length \(included)"))
        }
    }

    /// Large records are legal: up to `maximumRecordLength` bytes.
    @Test func btsnoopLargeRecordsAreLegal() throws {
        var file = btsnoopHeader(datalink: 1002)
        let big = [0x02] + [UInt8](repeating: 0x5A, count: 5000)
        file += btsnoopRecord(big, flags: 1, unixMicros: 1)
        let huge = [0x05] + [UInt8](repeating: 0xA5, count: maximumRecordLength - 1)
        file += btsnoopRecord(huge, flags: 0, unixMicros: 2)
        file += btsnoopRecord([0x04, 0x0E, 0x00], flags: 1, unixMicros: 3)
        let r = try readAll(bytes: file)
        #expect(r.damage == nil)
        #expect(r.records.map(\.kind) == [.aclData, .isoData, .hciEvent])
        #expect(r.records[0].payload.count == 5000 && r.records[1].payload.count == maximumRecordLength - 1)
        #expect(r.records[1].payload.allSatisfy { $0 == 0xA5 })
        #expect(r.records[2].fileOffset == Int64(16 + 24 + 5001 + 24 + maximumRecordLength))
    }

    @Test func btsnoopGarbageAfterValidData() throws {
        let path = Fixtures.capture("formats/clean_heart_rate.central.h4.btsnoop")
        let bytes = try fileBytes(path)
        let end = Int64(bytes.count)
        // 0xFF garbage: the would-be included length is impossible.
        var r = try readAll(bytes: bytes + [UInt8](repeating: 0xFF, count: 40))
        #expect(r.records.count == 123)
        #expect(r.damage?.offset == end && r.damage?.frame == 124)
        #expect(r.damage?.reason.contains("impossible") == true)
        // Short text garbage: a truncated record header.
        r = try readAll(bytes: bytes + Array("junk\n".utf8))
        #expect(r.records.count == 123)
        #expect(
            r.damage
                == CaptureDamage(
                    offset: end, frame: 124, reason: "truncated record header: 5 of 24 bytes before end of file"))
        // Zeros are indistinguishable from empty records (all-zero headers are valid): two
        // 24-byte empty records come out, then the 2 leftover bytes are a truncated header.
        r = try readAll(bytes: bytes + [UInt8](repeating: 0, count: 50))
        #expect(r.records.count == 125)
        #expect(r.records.suffix(2).allSatisfy { $0.kind == .unknown && $0.payload.isEmpty })
        #expect(r.damage?.offset == end + 48 && r.damage?.frame == 126)
    }

    // MARK: PacketLogger

    @Test func packetLoggerBadLengths() throws {
        // Detection checks every record inside the first 64 bytes (like Wireshark, it would
        // call a file with a bad second record "not PacketLogger"), so the damaged record
        // comes after a 64-byte note: 0..<77.
        let first = pklgRecord(0xFC, [UInt8](repeating: 0x2E, count: 64), seconds: 1, micros: 0, bigEndian: true)
        // Length 7: shorter than the timestamp.
        var r = try readAll(bytes: first + be32(7) + be32(1) + be32(0) + [0xFC])
        #expect(r.records.count == 1)
        #expect(r.damage == CaptureDamage(offset: 77, frame: 2, reason: "record length 7 is too small (at least 8)"))
        // Length beyond the limit.
        r = try readAll(bytes: first + be32(0xF000_0000) + be32(1) + be32(0) + [0xFC])
        #expect(r.records.count == 1)
        #expect(r.damage?.offset == 77 && r.damage?.frame == 2)
        #expect(r.damage?.reason.contains("impossible record length 4026531840") == true)
        // Length past the end of the file.
        r = try readAll(bytes: first + be32(100) + be32(1) + be32(0) + [0xFC, 0x41])
        #expect(
            r.damage
                == CaptureDamage(offset: 77, frame: 2, reason: "truncated record: 14 of 104 bytes before end of file"))
    }

    @Test func packetLoggerGarbageAfterValidData() throws {
        let bytes = try fileBytes(Fixtures.capture("formats/clean_heart_rate.central.le.pklg"))
        for garbage: [UInt8] in [
            [UInt8](repeating: 0xFF, count: 30), [0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [0x41, 0x42],
        ] {
            let r = try readAll(bytes: bytes + garbage)
            #expect(r.records.count == 123)
            #expect(r.damage?.offset == Int64(bytes.count) && r.damage?.frame == 124)
        }
    }

    /// Hostile bytes behind a valid header never trap and never loop: a fixed pseudo-random
    /// body after each container's header reads to damage or to the end.
    @Test func randomBodiesNeverTrap() throws {
        var state: UInt64 = 0x0123_4567_89AB_CDEF
        func nextByte() -> UInt8 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
        let headers: [[UInt8]] = [
            btsnoopHeader(datalink: 1001), btsnoopHeader(datalink: 1002), btsnoopHeader(datalink: 2001),
            // PacketLogger: a note longer than the 64 bytes detection looks at.
            pklgRecord(0xFC, [UInt8](repeating: 0x2E, count: 64), seconds: 1, micros: 0, bigEndian: true),
            pklgRecord(0xFC, [UInt8](repeating: 0x2E, count: 64), seconds: 1, micros: 0, bigEndian: false),
        ]
        for header in headers {
            for round in 0..<20 {
                // Small lengths so that random records are sometimes complete.
                var body: [UInt8] = []
                for _ in 0..<(50 + round * 10) {
                    let b = nextByte()
                    body.append(b < 0xC0 ? b & 0x0F : b)
                }
                let r = try readAll(bytes: header + body)
                let total = Int64(header.count + body.count)
                if let d = r.damage {
                    #expect(d.offset < total && d.frame == r.records.count + 1)
                } else {
                    #expect((r.records.last.map { $0.fileOffset + Int64($0.recordLength) } ?? 16) == total)
                    #expect(r.records.count >= 1 || header.count == 16)
                }
            }
        }
    }
}
