import BLEBytes
import Foundation
import TestSupport
import Testing

@testable import CaptureIO

/// Pcap tests use the readers' shared record copy (ReaderTestSupport.swift).
typealias PcapSnap = OwnedRecord

extension OwnedRecord {
    /// What must agree across containers: the HCI packet itself.
    var hciContent: String { "\(kind) \(direction) \(timestamp) \(Hex.string(payload))" }
}

enum PcapTestKit {
    typealias Result = ReadResult

    static func drain(_ reader: any CaptureReader) -> Result { CaptureIOTests.drain(reader) }

    static func read(path: String) throws(CaptureError) -> Result {
        drain(try CaptureFile.open(path: path))
    }

    static func read(bytes: [UInt8]) throws(CaptureError) -> Result {
        let path = temporaryFile(bytes)
        defer { unlink(path) }
        return try read(path: path)
    }

    /// Feeds `bytes` through a pipe, as `blecap -` would see standard input.
    static func readThroughPipe(_ bytes: [UInt8]) throws(CaptureError) -> Result {
        signal(SIGPIPE, SIG_IGN)  // if the reader gives up early the writer must not die
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0)
        let writeEnd = fds[1]
        let writer = Thread {
            bytes.withUnsafeBytes { buf in
                var off = 0
                while off < buf.count {
                    let n = write(writeEnd, buf.baseAddress! + off, buf.count - off)
                    if n <= 0 { break }
                    off += n
                }
            }
            close(writeEnd)
        }
        writer.start()
        let source = FileByteSource(fd: fds[0], ownsFD: true)
        return drain(try CaptureFile.open(source: source, path: nil))
    }

    static func temporaryFile(_ bytes: [UInt8]) -> String {
        var template = Array("/tmp/blecap-pcap-test-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        precondition(fd >= 0)
        bytes.withUnsafeBytes { buf in
            var off = 0
            while off < buf.count {
                let n = write(fd, buf.baseAddress! + off, buf.count - off)
                precondition(n > 0)
                off += n
            }
        }
        close(fd)
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    static func bytes(of path: String) throws -> [UInt8] {
        try Fixtures.bytes(atPath: path)
    }

    // MARK: Writing captures

    static func le32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian, Array.init) }
    static func be32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }
    static func le16(_ v: UInt16) -> [UInt8] { withUnsafeBytes(of: v.littleEndian, Array.init) }
    static func be16(_ v: UInt16) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }

    /// Classic pcap global header (pcap spec: magic, version 2.4, thiszone, sigfigs, snaplen,
    /// link type), little-endian unless `bigEndian`.
    static func pcapHeader(linkType: UInt32, nanosecond: Bool = false, bigEndian: Bool = false, snaplen: UInt32 = 65535)
        -> [UInt8]
    {
        let w32 = bigEndian ? be32 : le32
        let w16 = bigEndian ? be16 : le16
        return w32(nanosecond ? 0xA1B2_3C4D : 0xA1B2_C3D4) + w16(2) + w16(4) + w32(0) + w32(0)
            + w32(snaplen) + w32(linkType)
    }

    /// One classic record: ts_sec, ts_frac (µs or ns), caplen, len, data.
    static func pcapRecord(
        sec: UInt32, frac: UInt32, data: [UInt8], caplen: UInt32? = nil, len: UInt32? = nil, bigEndian: Bool = false
    ) -> [UInt8] {
        let w32 = bigEndian ? be32 : le32
        return w32(sec) + w32(frac) + w32(caplen ?? UInt32(data.count)) + w32(len ?? UInt32(data.count)) + data
    }

    /// pcapng: SHB, one IDB (optionally with if_tsresol), one EPB per packet (pcapng spec 4.1,
    /// 4.2, 4.3).
    static func pcapng(linkType: UInt16, tsresol: UInt8? = nil, bigEndian: Bool = false, packets: [(UInt64, [UInt8])])
        -> [UInt8]
    {
        let w32 = bigEndian ? be32 : le32
        let w16 = bigEndian ? be16 : le16
        func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
            let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
            let total = UInt32(12 + padded.count)
            return w32(type) + w32(total) + padded + w32(total)
        }
        // SHB body: byte-order magic, version 1.0, section length -1.
        var out = block(0x0A0D_0D0A, w32(0x1A2B_3C4D) + w16(1) + w16(0) + [UInt8](repeating: 0xFF, count: 8))
        var idb = w16(linkType) + w16(0) + w32(0)
        if let tsresol {
            idb += w16(9) + w16(1) + [tsresol, 0, 0, 0] + w16(0) + w16(0)  // if_tsresol, opt_endofopt
        }
        out += block(1, idb)
        for (ts, data) in packets {
            out += block(
                6,
                w32(0) + w32(UInt32(ts >> 32)) + w32(UInt32(ts & 0xFFFF_FFFF))
                    + w32(UInt32(data.count)) + w32(UInt32(data.count)) + data)
        }
        return out
    }

    /// Offsets and sizes of the records of a little-endian classic pcap, parsed independently
    /// of libpcap.
    static func pcapRecordSpans(_ bytes: [UInt8]) -> [(offset: Int, length: Int)] {
        var spans: [(Int, Int)] = []
        var off = 24
        while off + 16 <= bytes.count {
            let caplen =
                Int(bytes[off + 8]) | Int(bytes[off + 9]) << 8 | Int(bytes[off + 10]) << 16 | Int(bytes[off + 11]) << 24
            guard off + 16 + caplen <= bytes.count else { break }
            spans.append((off, 16 + caplen))
            off += 16 + caplen
        }
        return spans
    }

    /// Offsets and sizes of the Enhanced Packet Blocks of a little-endian pcapng.
    static func pcapngPacketBlocks(_ bytes: [UInt8]) -> [(offset: Int, length: Int)] {
        var spans: [(Int, Int)] = []
        var off = 0
        func u32(_ o: Int) -> Int {
            Int(bytes[o]) | Int(bytes[o + 1]) << 8 | Int(bytes[o + 2]) << 16 | Int(bytes[o + 3]) << 24
        }
        while off + 12 <= bytes.count {
            let type = u32(off)
            let total = u32(off + 4)
            guard total >= 12, off + total <= bytes.count else { break }
            if type == 6 || type == 3 { spans.append((off, total)) }
            off += total
        }
        return spans
    }
}

@Suite("PcapReader: one session in every pcap container")
struct PcapReaderFormatsTests {
    static let base = "formats/clean_heart_rate.central"

    func hci(_ suffix: String) throws -> PcapTestKit.Result {
        try PcapTestKit.read(path: Fixtures.capture("\(Self.base).\(suffix)"))
    }

    @Test func formatsAreDetected() throws {
        #expect(try hci("h4.pcap").format == .pcap(linkType: 187, nanosecond: false))
        #expect(try hci("h4phdr.pcap").format == .pcap(linkType: 201, nanosecond: false))
        #expect(try hci("monitor.pcap").format == .pcap(linkType: 254, nanosecond: false))
        #expect(try hci("h4phdr.pcapng").format == .pcapng(linkType: 201))
    }

    @Test func allContainersGiveTheSameHCIRecords() throws {
        let h4phdr = try hci("h4phdr.pcap")
        let h4 = try hci("h4.pcap")
        let monitor = try hci("monitor.pcap")
        let pcapng = try hci("h4phdr.pcapng")
        for r in [h4phdr, h4, monitor, pcapng] { #expect(r.damage == nil) }

        #expect(h4phdr.records.count == 123)
        // tshark: frame 1 at 1795347036.801343 (HCI Reset, sent), frame 2 at .801681 (event).
        #expect(h4phdr.records[0].timestamp == 1_795_347_036_801_343)
        #expect(h4phdr.records[0].kind == .hciCommand && h4phdr.records[0].direction == .sent)
        #expect(h4phdr.records[0].payload == [0x03, 0x0C, 0x00])  // HCI_Reset, no parameters
        #expect(h4phdr.records[1].timestamp == 1_795_347_036_801_681)
        // tshark counts: 19 commands, 46 events, 19 ACL sent, 39 ACL received.
        let count = { (k: RecordKind, d: Direction) in h4phdr.records.filter { $0.kind == k && $0.direction == d }.count
        }
        #expect(count(.hciCommand, .sent) == 19)
        #expect(count(.hciEvent, .received) == 46)
        #expect(count(.aclData, .sent) == 19)
        #expect(count(.aclData, .received) == 39)

        // The 187 file has no direction: every inferred one must equal the 201 file's.
        #expect(h4.records.map(\.hciContent) == h4phdr.records.map(\.hciContent))
        #expect(pcapng.records.map(\.hciContent) == h4phdr.records.map(\.hciContent))

        // Linux monitor: unlike the monitor *btsnoop* (which btmon starts with New Index, Open
        // Index, System Note), this pcap holds only the HCI traffic (tshark: 123 frames).
        #expect(monitor.records.count == 123)
        #expect(monitor.records.map(\.hciContent) == h4phdr.records.map(\.hciContent))
        #expect(monitor.records.allSatisfy { $0.controllerIndex == 0 })
        // Monitor opcodes: 2 command, 3 event, 4 ACL TX, 5 ACL RX.
        #expect(monitor.records.prefix(2).map(\.rawType) == [2, 3])
        #expect(Set(monitor.records.filter { $0.kind == .aclData }.map(\.rawType)) == [4, 5])
    }

    @Test func originalLengthExcludesPseudoHeaders() throws {
        for suffix in ["h4.pcap", "h4phdr.pcap", "h4phdr.pcapng", "monitor.pcap"] {
            for r in try hci(suffix).records {
                #expect(r.originalLength == r.payload.count, "\(suffix) \(r)")
            }
        }
    }

    @Test func classicPcapFileOffsetsAreExact() throws {
        for suffix in ["h4.pcap", "h4phdr.pcap", "monitor.pcap"] {
            let path = Fixtures.capture("\(Self.base).\(suffix)")
            let spans = PcapTestKit.pcapRecordSpans(try PcapTestKit.bytes(of: path))
            let records = try PcapTestKit.read(path: path).records
            #expect(records.count == spans.count)
            for (r, s) in zip(records, spans) {
                #expect(r.fileOffset == Int64(s.offset) && r.recordLength == s.length, "\(suffix) \(r)")
            }
        }
    }

    @Test func pcapngFileOffsetsPointAtPacketBlocks() throws {
        for path in [
            Fixtures.capture("\(Self.base).h4phdr.pcapng")
        ] {
            let blocks = PcapTestKit.pcapngPacketBlocks(try PcapTestKit.bytes(of: path))
            let records = try PcapTestKit.read(path: path).records
            #expect(records.count == blocks.count)
            for (r, b) in zip(records, blocks) {
                #expect(r.fileOffset == Int64(b.offset) && r.recordLength == b.length, "\(path) \(r)")
            }
        }
    }

    @Test func standardInputGivesTheSameRecordsAsThePath() throws {
        // The monitor pcap is 6 KB; the long stream re-wrapped as pcap (≈ 1.6 MB) is far more
        // than a pipe holds, so the reader must keep up with a writer that blocks.
        let long = PcapTestKit.temporaryFile(
            try PcapReaderPublicCaptureTests.rewrapped(
                "bumble/long_notify_stream.central.btsnoop", nanosecond: true))
        defer { unlink(long) }
        for path in [
            Fixtures.capture("\(Self.base).h4phdr.pcap"),
            Fixtures.capture("\(Self.base).h4.pcap"),
            Fixtures.capture("\(Self.base).h4phdr.pcapng"),
            Fixtures.capture("\(Self.base).monitor.pcap"),
            long,
        ] {
            let fromPath = try PcapTestKit.read(path: path)
            let fromPipe = try PcapTestKit.readThroughPipe(try PcapTestKit.bytes(of: path))
            #expect(fromPipe.format == fromPath.format)
            #expect(fromPipe.damage == nil)
            #expect(fromPipe.records.count == fromPath.records.count)
            // Offsets included: on a pipe the (tell-only) stream still counts bytes.
            #expect(fromPipe.records == fromPath.records, "\(path)")
        }
    }
}

@Suite("PcapReader: pcap and pcapng files against tshark")
struct PcapReaderPublicCaptureTests {
    /// Expected values from `tshark -r F -T fields -e frame.time_epoch` (tshark 4.0.17) and
    /// `-e hci_h4.direction -e hci_h4.type` counted with `sort | uniq -c`, run while writing
    /// this test. Real-world pcap 201 files we may not redistribute (an Android pcap, a
    /// nanosecond pcap, a pcapng from a Galaxy phone) get the same checks in `make conformance`.
    struct Expectation {
        var file: String
        var format: CaptureFormat
        var frames: Int
        var first: Int64
        var last: Int64
        var sentCommands, receivedEvents, sentACL, receivedACL: Int
    }

    static let expectations: [Expectation] = [
        // tshark: 1795347036.801343000 … 1795347056.606160000 (both files)
        Expectation(
            file: "formats/clean_heart_rate.central.h4phdr.pcap", format: .pcap(linkType: 201, nanosecond: false),
            frames: 123, first: 1_795_347_036_801_343, last: 1_795_347_056_606_160,
            sentCommands: 19, receivedEvents: 46, sentACL: 19, receivedACL: 39),
        Expectation(
            file: "formats/clean_heart_rate.central.h4phdr.pcapng", format: .pcapng(linkType: 201),
            frames: 123, first: 1_795_347_036_801_343, last: 1_795_347_056_606_160,
            sentCommands: 19, receivedEvents: 46, sentACL: 19, receivedACL: 39),
    ]

    @Test(arguments: expectations.indices)
    func readsToTheEndAndAgreesWithTshark(_ i: Int) throws {
        let e = Self.expectations[i]
        let r = try PcapTestKit.read(path: try Fixtures.existing(e.file))
        #expect(r.format == e.format)
        #expect(r.damage == nil)
        #expect(r.records.count == e.frames)
        #expect(r.records.first?.timestamp == e.first)
        #expect(r.records.last?.timestamp == e.last)
        #expect(r.records.map(\.frame) == Array(1...e.frames))
        let count = { (k: RecordKind, d: Direction) in r.records.filter { $0.kind == k && $0.direction == d }.count }
        #expect(count(.hciCommand, .sent) == e.sentCommands)
        #expect(count(.hciEvent, .received) == e.receivedEvents)
        #expect(count(.aclData, .sent) == e.sentACL)
        #expect(count(.aclData, .received) == e.receivedACL)
        #expect(e.sentCommands + e.receivedEvents + e.sentACL + e.receivedACL == e.frames)
    }

    /// An H4 btsnoop re-wrapped as pcap link type 201 (the layout `convert_capture.py` writes),
    /// with microsecond or nanosecond time stamps.
    static func rewrapped(_ btsnoop: String, nanosecond: Bool) throws -> [UInt8] {
        let r = try readAll(path: try Fixtures.existing(btsnoop))
        var out = PcapTestKit.pcapHeader(linkType: 201, nanosecond: nanosecond)
        for rec in r.records {
            let sec = rec.timestamp / 1_000_000
            let micros = rec.timestamp % 1_000_000
            let h4: UInt8 = rec.kind == .hciCommand ? 1 : rec.kind == .aclData ? 2 : 4
            let direction: [UInt8] = rec.direction == .received ? [0, 0, 0, 1] : [0, 0, 0, 0]
            out += PcapTestKit.pcapRecord(
                sec: UInt32(sec), frac: UInt32(nanosecond ? micros * 1000 : micros),
                data: direction + [h4] + rec.payload)
        }
        return out
    }

    /// Nanosecond pcap (magic a1 b2 3c 4d): every fraction here is a whole microsecond, so the
    /// reader's ns→µs division loses nothing and the records equal the microsecond file's.
    @Test func nanosecondPcapGivesTheMicrosecondRecords() throws {
        let nano = try PcapTestKit.read(
            bytes: try Self.rewrapped("formats/clean_heart_rate.central.h4.btsnoop", nanosecond: true))
        let micro = try PcapTestKit.read(path: Fixtures.capture("formats/clean_heart_rate.central.h4phdr.pcap"))
        #expect(nano.format == .pcap(linkType: 201, nanosecond: true))
        #expect(nano.damage == nil)
        #expect(nano.records.map(\.timestamp) == micro.records.map(\.timestamp))
        #expect(nano.records.map(\.payload) == micro.records.map(\.payload))
        #expect(nano.records.map(\.direction) == micro.records.map(\.direction))
    }

    @Test(arguments: [
        ("pcap-lell256_ice9-hackrf-adv37.pcap", Int32(256), 101),
        ("pcap-lell256_whad-pairing-gatt-conn-update.pcap", 256, 1604),  // non-zero thiszone
        ("pcap-lell256_bsniffhub-phy-update-2m-coded.pcap", 256, 697),
        ("pcap-lell256_whad-empty-header-only.pcap", 256, 0),  // 24-byte header, no packet
        ("pcapng-lell256_crackle-le-secure-connections.pcapng", 256, 303),
        ("pcapng-lell256_whad-gatt-discovery.pcap", 256, 180),
        ("pcap-nordic272_bsniffhub-encrypted-bad-mic.pcap", 272, 1529),
        ("pcapng-nordic272_opendroneid-coded-phy-ext-adv.pcapng", 272, 274),
        ("pcap-ppi192_crackle-pairing-ltk.pcap", 192, 713),
    ])
    /// Frame counts as capinfos gives them; every record is a Link Layer packet.
    func linkLayerCapturesAreRead(_ file: String, _ linkType: Int32, _ frames: Int) throws {
        let reader = try CaptureFile.open(path: Fixtures.capture("public/\(file)"))
        switch reader.format {
        case .pcap(let l, _), .pcapng(let l): #expect(l == linkType)
        default: Issue.record("\(reader.format)")
        }
        var count = 0
        while let r = reader.next() {
            count += 1
            #expect(r.kind == .linkLayer, "frame \(r.frame)")
            #expect(r.payload.count >= 2, "frame \(r.frame)")
        }
        #expect(count == frames)
        #expect(reader.damage == nil)
    }
}
