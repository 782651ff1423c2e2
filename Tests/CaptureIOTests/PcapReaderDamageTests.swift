import BLEBytes
import Foundation
import TestSupport
import Testing

@testable import CaptureIO

@Suite("PcapReader: damaged and crafted files")
struct PcapReaderDamageTests {
    typealias K = PcapTestKit
    static let session = Fixtures.capture("formats/clean_heart_rate.central.h4phdr.pcap")

    /// Cutting the file at a record boundary is a clean end; cutting inside a record header or
    /// its data is damage at that record's start, with every earlier record delivered intact.
    @Test func truncatedAtEveryRecordBoundaryAndInsideRecords() throws {
        let bytes = try K.bytes(of: Self.session)
        let spans = K.pcapRecordSpans(bytes)
        #expect(spans.count == 123)
        let full = try K.read(bytes: bytes).records
        for (k, span) in spans.enumerated() {
            // Clean cut before record k+1: k records, no damage.
            let clean = try K.read(bytes: Array(bytes[..<span.offset]))
            #expect(clean.records == Array(full.prefix(k)))
            #expect(clean.damage == nil)
            // Inside the 16-byte record header, and inside the record's data.
            for cut in [span.offset + 1, span.offset + 15, span.offset + span.length - 1] {
                let r = try K.read(bytes: Array(bytes[..<cut]))
                #expect(r.records == Array(full.prefix(k)), "cut at \(cut)")
                let d = try #require(r.damage, "cut at \(cut)")
                #expect(d.offset == Int64(span.offset))
                #expect(d.frame == k + 1)
                #expect(d.reason.contains("truncated"), "\(d.reason)")
            }
        }
    }

    @Test func truncatedOnAPipeReportsTheSameDamage() throws {
        let bytes = try K.bytes(of: Self.session)
        let spans = K.pcapRecordSpans(bytes)
        let cut = spans[60].offset + 20
        let r = try K.readThroughPipe(Array(bytes[..<cut]))
        #expect(r.records.count == 60)
        #expect(r.damage?.offset == Int64(spans[60].offset))
        #expect(r.damage?.frame == 61)
    }

    @Test func garbageAppendedIsDamageAfterTheLastGoodRecord() throws {
        let bytes = try K.bytes(of: Self.session)
        // 0xFF… read as a record header gives caplen 0xFFFFFFFF: libpcap refuses it (it caps
        // record lengths at 256 KiB) rather than allocating.
        let r = try K.read(bytes: bytes + [UInt8](repeating: 0xFF, count: 40))
        #expect(r.records.count == 123)
        #expect(r.damage?.offset == Int64(bytes.count))
        #expect(r.damage?.frame == 124)
        // Fewer bytes than a record header.
        let short = try K.read(bytes: bytes + [1, 2, 3, 4, 5])
        #expect(short.records.count == 123)
        #expect(short.damage?.offset == Int64(bytes.count))
    }

    @Test(arguments: [UInt32(0xFFFF_FFF0), 0x8000_0000, 300_000])
    func hugeCaptureLengthIsDamageNotAnAllocation(_ caplen: UInt32) throws {
        let good = K.pcapRecord(sec: 1, frac: 0, data: [0, 0, 0, 0, 0x01, 0x03, 0x0C, 0x00])  // sent HCI_Reset
        let bad = K.pcapRecord(sec: 2, frac: 0, data: [0, 0, 0, 1, 0x04], caplen: caplen, len: caplen)
        let file = K.pcapHeader(linkType: 201) + good + bad
        let r = try K.read(bytes: file)
        #expect(r.records.count == 1)
        #expect(r.records.first?.payload == [0x03, 0x0C, 0x00])
        #expect(r.damage == CaptureDamage(offset: 24 + 24, frame: 2, reason: r.damage?.reason ?? ""))
        #expect(r.damage?.reason.isEmpty == false)
    }

    /// caplen larger than the file's snaplen but within libpcap's cap: libpcap keeps snaplen
    /// bytes and skips the rest; the record is delivered, cut.
    @Test func captureLengthAboveSnaplenIsCutToSnaplen() throws {
        let data: [UInt8] = [0, 0, 0, 1, 0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]  // Command Complete (Reset)
        let file = K.pcapHeader(linkType: 201, snaplen: 8) + K.pcapRecord(sec: 1, frac: 0, data: data)
        let r = try K.read(bytes: file)
        #expect(r.damage == nil)
        #expect(r.records.count == 1)
        #expect(r.records.first?.payload == [0x0E, 0x04, 0x01])
        #expect(r.records.first?.originalLength == data.count - 5)  // the wire length still says 6
        #expect(r.records.first?.recordLength == 16 + data.count)
    }

    @Test func recordsTooShortForTheirPseudoHeaderAreKeptAsUnknown() throws {
        let file =
            K.pcapHeader(linkType: 201)
            + K.pcapRecord(sec: 1, frac: 0, data: [])  // nothing at all
            + K.pcapRecord(sec: 1, frac: 1, data: [0, 0])  // half a direction word
            + K.pcapRecord(sec: 1, frac: 2, data: [0, 0, 0, 1])  // direction, no H4 type
            + K.pcapRecord(sec: 1, frac: 3, data: [0, 0, 0, 1, 0x04])  // event type, empty event
            + K.pcapRecord(sec: 1, frac: 4, data: [0, 0, 0, 0, 0x7F, 0xAA])  // unknown H4 type 0x7F
        let r = try K.read(bytes: file)
        #expect(r.damage == nil)
        #expect(r.records.map(\.kind) == [.unknown, .unknown, .unknown, .hciEvent, .unknown])
        #expect(r.records.map(\.direction) == [.unknown, .unknown, .received, .received, .sent])
        #expect(r.records[1].payload == [0, 0])  // raw bytes kept
        #expect(r.records[3].payload == [])
        #expect(r.records[4].rawType == 0x7F && r.records[4].payload == [0xAA])

        let monitor =
            K.pcapHeader(linkType: 254)
            + K.pcapRecord(sec: 1, frac: 0, data: [0, 1, 0, 0] + [UInt8](repeating: 0, count: 16))  // New Index, hci1
            + K.pcapRecord(sec: 1, frac: 0, data: [0, 1, 0, 8])  // Open Index, hci1
            + K.pcapRecord(sec: 1, frac: 0, data: [0xFF, 0xFF, 0, 12] + Array("note\0".utf8))  // System Note
            + K.pcapRecord(sec: 1, frac: 0, data: [0, 1, 0])  // 3 of the 4 header bytes
            + K.pcapRecord(sec: 1, frac: 0, data: [0, 1, 0, 3, 0x0E, 0x00])  // hci1 event
            + K.pcapRecord(sec: 1, frac: 0, data: [0, 0, 0xFF, 0xFF])  // unknown opcode
        let m = try K.read(bytes: monitor)
        #expect(m.records.map(\.kind) == [.indexNew, .indexOpen, .systemNote, .unknown, .hciEvent, .unknown])
        #expect(m.records.map(\.controllerIndex) == [1, 1, 0xFFFF, 0, 1, 0])
        #expect(m.records[0].payload.count == 16 && m.records[0].originalLength == 16)
        #expect(m.records[2].payload == Array("note\0".utf8))
        #expect(m.records[3].payload == [0, 1, 0])  // too short: raw bytes kept
        #expect(m.records[4].direction == .received && m.records[4].payload == [0x0E, 0x00])
        #expect(m.records[5].rawType == 0xFFFF)

        let h4 =
            K.pcapHeader(linkType: 187) + K.pcapRecord(sec: 1, frac: 0, data: [])
            + K.pcapRecord(sec: 1, frac: 0, data: [0x02])  // ACL type byte, no header
        let h = try K.read(bytes: h4)
        #expect(h.records.map(\.kind) == [.unknown, .aclData])
        #expect(h.records.map(\.direction) == [.unknown, .unknown])
    }

    @Test func nanosecondPcapIsTruncatedToMicroseconds() throws {
        let file =
            K.pcapHeader(linkType: 201, nanosecond: true)
            + K.pcapRecord(sec: 1_729_019_745, frac: 608_852_999, data: [0, 0, 0, 0, 0x01, 0x03, 0x0C, 0x00])
            + K.pcapRecord(sec: 0, frac: 999, data: [0, 0, 0, 0, 0x01, 0x03, 0x0C, 0x00])
        let r = try K.read(bytes: file)
        #expect(r.format == .pcap(linkType: 201, nanosecond: true))
        // tshark shows 1729019745.608852999; libpcap's µs is the floor (it divides by 1000).
        #expect(r.records.map(\.timestamp) == [1_729_019_745_608_852, 0])
    }

    @Test func bigEndianPcapIsRead() throws {
        let file =
            K.pcapHeader(linkType: 201, bigEndian: true)
            + K.pcapRecord(sec: 10, frac: 5, data: [0, 0, 0, 1, 0x04, 0x0E, 0x00], bigEndian: true)
        let r = try K.read(bytes: file)
        #expect(r.format == .pcap(linkType: 201, nanosecond: false))
        #expect(r.records.first?.timestamp == 10_000_005)
        #expect(r.records.first?.direction == .received)
        #expect(r.records.first?.fileOffset == 24 && r.records.first?.recordLength == 23)
    }

    @Test(arguments: [false, true])
    func pcapngNanosecondResolution(bigEndian: Bool) throws {
        // if_tsresol = 9: timestamps count nanoseconds.
        let file = K.pcapng(
            linkType: 201, tsresol: 9, bigEndian: bigEndian,
            packets: [
                (1_729_019_745_608_852_999, [0, 0, 0, 0, 0x01, 0x03, 0x0C, 0x00]),
                (1_000, [0, 0, 0, 1, 0x04, 0x0E, 0x00]),
            ])
        let r = try K.read(bytes: file)
        #expect(r.format == .pcapng(linkType: 201))
        #expect(r.damage == nil)
        #expect(r.records.map(\.timestamp) == [1_729_019_745_608_852, 1])
        #expect(r.records.map(\.direction) == [.sent, .received])
        // SHB 28 + IDB 32 (with if_tsresol) = 60: the first EPB.
        #expect(r.records.first?.fileOffset == 60 && r.records.first?.recordLength == 40)
        // The same through a pipe.
        #expect(try K.readThroughPipe(file).records == r.records)
    }

    @Test func hostileTimestampsDoNotTrap() throws {
        // 2^64-1 µs ticks is beyond Int64 µs once libpcap splits it into seconds: saturates.
        let file = K.pcapng(linkType: 201, packets: [(UInt64.max, [0, 0, 0, 0, 0x01, 0x03, 0x0C, 0x00])])
        let r = try K.read(bytes: file)
        #expect(r.records.count == 1)
        let (v, overflowed) = PcapReader.microseconds(timeval(tv_sec: Int.max, tv_usec: 999_999))
        #expect(overflowed && v == Int64.max)
        #expect(PcapReader.microseconds(timeval(tv_sec: -2, tv_usec: 5)) == (-1_999_995, false))
    }

    @Test func truncatedPcapngIsDamageAtTheBlock() throws {
        let file = K.pcapng(
            linkType: 201,
            packets: [(1, [0, 0, 0, 0, 0x01, 0x03, 0x0C, 0x00]), (2, [0, 0, 0, 1, 0x04, 0x0E, 0x00])])
        // SHB 28 + IDB 20 + EPB 40, then the second EPB: cut inside it.
        let r = try K.read(bytes: Array(file[..<(88 + 10)]))
        #expect(r.records.count == 1)
        #expect(r.damage?.offset == 88)
        #expect(r.damage?.frame == 2)
    }

    /// libpcap caps pcapng block sizes (16 MiB in 1.10) and checks the packet length against
    /// its block: hostile lengths are damage, not allocations.
    @Test func hostilePcapngBlockLengthsAreDamage() throws {
        let file = K.pcapng(
            linkType: 201,
            packets: [(1, [0, 0, 0, 0, 0x01, 0x03, 0x0C, 0x00]), (2, [0, 0, 0, 1, 0x04, 0x0E, 0x00])])
        // Second EPB at 88: block total length 0x7FFFFFF0.
        var huge = file
        huge.replaceSubrange(92..<96, with: K.le32(0x7FFF_FFF0))
        let h = try K.read(bytes: huge)
        #expect(h.records.count == 1)
        #expect(h.damage?.offset == 88 && h.damage?.frame == 2)
        // Second EPB's captured length (at block offset 20) larger than its block.
        var lying = file
        lying.replaceSubrange(108..<112, with: K.le32(0x00FF_FFFF))
        let l = try K.read(bytes: lying)
        #expect(l.records.count == 1)
        #expect(l.damage?.offset == 88 && l.damage?.frame == 2)
        #expect(l.damage?.reason.isEmpty == false)
    }

    @Test func otherLinkTypesAreUnsupported() {
        #expect(throws: CaptureError.unsupportedLinkType(1)) {
            _ = try K.read(bytes: K.pcapHeader(linkType: 1))  // Ethernet
        }
        #expect(throws: CaptureError.unsupportedLinkType(1)) {
            _ = try K.readThroughPipe(K.pcapHeader(linkType: 1))
        }
        #expect(throws: CaptureError.unsupportedLinkType(147)) {  // USER0 without PPI: no meaning
            _ = try K.read(bytes: K.pcapng(linkType: 147, packets: []))
        }
    }

    @Test func brokenHeadersAreOpenErrors() {
        // Good magic, header cut short.
        #expect(throws: CaptureError.truncatedHeader) {
            _ = try K.read(bytes: Array(K.pcapHeader(linkType: 201).prefix(10)))
        }
        #expect(throws: CaptureError.truncatedHeader) {
            _ = try K.readThroughPipe(Array(K.pcapHeader(linkType: 201).prefix(10)))
        }
        // pcapng section header whose length field is absurd.
        var shb = K.pcapng(linkType: 201, packets: [])
        shb[4] = 0xFF
        shb[5] = 0xFF
        shb[6] = 0xFF
        shb[7] = 0x7F
        #expect {
            _ = try K.read(bytes: shb)
        } throws: { e in
            guard case .pcap(let m) = e as? CaptureError else { return false }
            return !m.isEmpty
        }
        // Major version 1 pcap: libpcap refuses it.
        var old = K.pcapHeader(linkType: 201)
        old[4] = 1
        #expect {
            _ = try K.read(bytes: old)
        } throws: { e in
            guard case .pcap = e as? CaptureError else { return false }
            return true
        }
    }

    @Test func emptyPcapHasNoRecordsAndNoDamage() throws {
        let r = try K.read(bytes: K.pcapHeader(linkType: 187))
        #expect(r.records.isEmpty && r.damage == nil)
        let p = try K.readThroughPipe(K.pcapHeader(linkType: 254))
        #expect(p.records.isEmpty && p.damage == nil)
    }
}
