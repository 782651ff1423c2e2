import BLEBytes
import CaptureIO
import Foundation
import TestSupport
import Testing

/// The writers beside the readers: a real capture's HCI records written as btsnoop (1002) and
/// as pcapng (link type 201, with per-packet comments) read back through blecap's own readers
/// as the same packets, directions and times.
@Suite struct CaptureWriterTests {
    static let source = "formats/clean_heart_rate.central.h4.btsnoop"

    /// The source's HCI records with their H4 type byte first.
    func packets() throws -> [(h4: [UInt8], received: Bool, time: Int64, kind: RecordKind)] {
        try readAll(path: Fixtures.existing(Self.source)).records.compactMap { r in
            let type: UInt8
            switch r.kind {
            case .hciCommand: type = H4PacketType.command
            case .aclData: type = H4PacketType.acl
            case .hciEvent: type = H4PacketType.event
            default: return nil
            }
            return ([type] + r.payload, r.direction == .received, r.timestamp, r.kind)
        }
    }

    func expectSame(_ read: ReadResult, _ written: [(h4: [UInt8], received: Bool, time: Int64, kind: RecordKind)]) {
        #expect(read.damage == nil)
        #expect(read.records.count == written.count)
        for (r, w) in zip(read.records, written) {
            #expect(
                r.kind == w.kind && r.payload == Array(w.h4.dropFirst()) && r.timestamp == w.time
                    && r.direction == (w.received ? .received : .sent), "frame \(r.frame)")
        }
    }

    @Test func btsnoopWriterReadsBack() throws {
        let written = try packets()
        #expect(written.count > 100)
        var w = BTSnoopWriter()
        for p in written { w.append(p.h4, received: p.received, unixMicros: p.time) }
        let read = try readAll(bytes: w.bytes)
        #expect(read.format == .btsnoop(datalink: 1002))
        expectSame(read, written)
        // Same records, same container: the file is the source byte for byte.
        #expect(w.bytes == (try Fixtures.bytes(Self.source)))
    }

    @Test func pcapngWriterReadsBackWithComments() throws {
        let written = try packets()
        var w = PcapngWriter(application: "blecap tests")
        for (i, p) in written.enumerated() {
            w.append(p.h4, received: p.received, unixMicros: p.time, comment: i % 3 == 0 ? "packet \(i) ✓" : nil)
        }
        let read = try readAll(bytes: w.bytes)
        #expect(read.format == .pcapng(linkType: 201))
        expectSame(read, written)

        // The blocks chain: each Block Total Length is repeated at its end, the file ends on a
        // block boundary, and every third Enhanced Packet Block carries its comment option.
        var offset = 0
        var types: [UInt32] = []
        var comments: [String] = []
        try w.bytes.withByteView { v in
            while offset < v.count {
                let type = try #require(v.u32le(offset))
                let length = try #require(v.u32le(offset + 4))
                #expect(length % 4 == 0 && v.u32le(offset + Int(length) - 4) == length)
                types.append(type)
                if type == 6 {
                    let captured = Int(try #require(v.u32le(offset + 20)))
                    var o = offset + 28 + (captured + 3) / 4 * 4
                    while o < offset + Int(length) - 4, let code = v.u16le(o), let n = v.u16le(o + 2), code != 0 {
                        if code == 1 {
                            comments.append(String(decoding: v.slice(o + 4, Int(n))!.toArray(), as: UTF8.self))
                        }
                        o += 4 + (Int(n) + 3) / 4 * 4
                    }
                }
                offset += Int(length)
            }
        }
        #expect(offset == w.bytes.count)
        #expect(types.prefix(2) == [0x0A0D_0D0A, 1] && types.dropFirst(2).allSatisfy { $0 == 6 })
        #expect(comments.count == (written.count + 2) / 3 && comments.first == "packet 0 ✓")
    }
}
