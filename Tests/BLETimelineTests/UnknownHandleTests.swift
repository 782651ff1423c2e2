import BLEBytes
import BLETimeline
import Foundation
import TestSupport
import Testing

/// What a connection is when no Connection Complete announces it (issue 17, item 6). Field
/// captures carry vendor debug records as ACL on handles such as 0x0EDC (bk300, dsd6, the
/// Samsung .cfa and infocar captures `make conformance` reads) and stale Disconnection Completes
/// for links that began before the capture; neither is a connection. The cases are derived from
/// `bumble/clean_heart_rate.central` (Reset at frame 1, Connection Complete at 43, Read Request
/// at 83, Disconnection Complete at 123) with the smallest edit that makes each.
@Suite struct UnknownHandleTests {
    static let source = "bumble/clean_heart_rate.central.btsnoop"

    /// The capture's records as (btsnoop record header, packet) pairs, frames from 1.
    static func records() throws -> [(header: [UInt8], packet: [UInt8])] {
        let data = try Fixtures.bytes(Self.source)
        var out: [(header: [UInt8], packet: [UInt8])] = []
        var i = 16
        func u32be(_ o: Int) -> Int { Int(data[o..<o + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) }
        while i + 24 <= data.count {
            let incl = u32be(i + 4)
            guard i + 24 + incl <= data.count else { break }
            out.append((Array(data[i..<i + 24]), Array(data[(i + 24)..<(i + 24 + incl)])))
            i += 24 + incl
        }
        return out
    }

    /// Writes records as a btsnoop file (the original file header), fixing each record's lengths.
    static func write(_ records: [(header: [UInt8], packet: [UInt8])]) throws -> String {
        var out = Array(try Fixtures.bytes(Self.source)[0..<16])
        for (h, p) in records {
            var h = h
            let n = UInt32(p.count)
            for o in [0, 4] { for k in 0..<4 { h[o + k] = UInt8(truncatingIfNeeded: n >> (24 - 8 * k)) } }
            out += h + p
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blecap-unknown-handle-\(UUID().uuidString).btsnoop"
        ).path
        try Data(out).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func timeline(_ records: [(header: [UInt8], packet: [UInt8])]) throws -> Timeline {
        let path = try write(records)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try Timeline(path)
    }

    /// An H4 ACL packet on `handle` (PB flag 00, first non-flushable, as Bumble sends) carrying one
    /// L2CAP PDU on `channel`.
    static func acl(handle: UInt16, channel: UInt16, _ pdu: [UInt8]) -> [UInt8] {
        let l2 = UInt16(pdu.count)
        let acl = l2 + 4
        return [
            0x02, UInt8(handle & 0xFF), UInt8(handle >> 8), UInt8(acl & 0xFF), UInt8(acl >> 8),
            UInt8(l2 & 0xFF), UInt8(l2 >> 8), UInt8(channel & 0xFF), UInt8(channel >> 8),
        ] + pdu
    }

    /// The Read Request of frame 83 (handle 0x001A) as it was sent, on another connection handle.
    static func readRequest(on handle: UInt16, padding: Int = 0) -> [UInt8] {
        acl(handle: handle, channel: 0x0004, [0x0A, 0x1A, 0x00] + [UInt8](repeating: 0x24, count: padding))
    }

    @Test func afterAResetOnlyAConnectionCompleteMakesAConnection() throws {
        var r = try Self.records()
        #expect(r[82].packet == Self.readRequest(on: 0x0001), "frame 83 is the Read Request on handle 0x0001")
        // A well-formed Read Request on 0x0EDC, after the Reset of frame 1: still no link.
        r.insert((r[82].header, Self.readRequest(on: 0x0EDC)), at: 83)
        let t = try Self.timeline(r)
        #expect(t.connections.map(\.number) == [1])
        #expect(t.events.filter { $0.frame == 84 }.allSatisfy { $0.connection == nil })
        #expect(t.at(83, "gatt.read")?.connection == 1)
    }

    @Test func withoutAResetWellFormedATTShowsALinkFromBeforeTheCapture() throws {
        // From frame 44 on: the capture starts after the Connection Complete (and the Reset).
        let r = Array(try Self.records().dropFirst(43))
        let t = try Self.timeline(r)
        #expect(t.connections.count == 1)
        #expect(t.connections.first?.unknownStart == true)
        #expect(t.of("gatt.read").count == 4)
    }

    @Test func withoutAResetVendorBytesOnAnUnknownHandleAreNoLink() throws {
        var r = Array(try Self.records().dropFirst(43))
        let header = r[0].header
        // infocar frame 757's shape: a "Read Request" with 478 bytes after its handle, and an
        // LE signalling channel PDU whose code (0x0A, Information Request) LE does not use.
        r.insert((header, Self.readRequest(on: 0x0EDC, padding: 478)), at: 1)
        r.insert((header, Self.acl(handle: 0x0EDC, channel: 0x0005, [0x0A, 0x01, 0x02, 0x00, 0x02, 0x00])), at: 2)
        // An SMP PDU one byte short of a Pairing Request.
        r.insert((header, Self.acl(handle: 0x0EDD, channel: 0x0006, [0x01, 0x03, 0x00, 0x01, 0x10, 0x07])), at: 3)
        let t = try Self.timeline(r)
        #expect(t.connections.count == 1, "only handle 0x0001's traffic is a link")
        #expect(t.events.filter { (2...4).contains($0.frame) }.allSatisfy { $0.connection == nil })
    }

    @Test func aStaleDisconnectionCompleteIsNoConnection() throws {
        // From frame 121 on: only the end of the link is in the capture (two ACL records of the
        // last read's response and Number Of Completed Packets dropped to leave nothing else).
        let r = Array(try Self.records().dropFirst(120)).filter { $0.packet.first == 0x04 }
        let t = try Self.timeline(r)
        #expect(t.connections.isEmpty)
        let d = t.of("connection.disconnect")
        #expect(d.count == 1)
        #expect(d.first?.connection == nil)
    }
}
