import BLEBytes
import Foundation
import TestSupport
import Testing

@testable import CaptureIO

@Suite("PcapReader: direction inference for link type 187")
struct PcapReaderDirectionTests {
    typealias K = PcapTestKit

    // MARK: Crafted packets (payloads without the H4 type byte)

    /// LE Connection Complete (LE Meta 0x3E, subevent 0x01): status 0, handle 0x0040, role.
    static func leConnectionComplete(handle: UInt16 = 0x40, role: UInt8, subevent: UInt8 = 0x01) -> [UInt8] {
        [0x3E, 0x13, subevent, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), role]
            + [UInt8](repeating: 0, count: 15)
    }

    /// ACL with Packet_Boundary_Flag `pb` carrying one L2CAP PDU on `cid` that starts with `code`.
    static func acl(handle: UInt16 = 0x40, pb: UInt16, cid: UInt16, code: UInt8, rest: [UInt8] = []) -> [UInt8] {
        let hf = handle | pb << 12
        let l2capLength = UInt16(1 + rest.count)
        return K.le16(hf) + K.le16(l2capLength + 4) + K.le16(l2capLength) + K.le16(cid) + [code] + rest
    }

    static func directions(_ packets: [(RecordKind, [UInt8])]) -> [Direction] {
        var inference = H4DirectionInference()
        return packets.map { kind, bytes in
            bytes.withByteView { inference.direction(kind: kind, payload: $0) }
        }
    }

    @Test func commandsAreSentEventsReceived() {
        #expect(
            Self.directions([(.hciCommand, [0x03, 0x0C, 0x00]), (.hciEvent, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])]) == [
                .sent, .received,
            ])
        #expect(
            Self.directions([(.scoData, [0x01, 0x00, 0x00]), (.isoData, []), (.unknown, [1])]) == [
                .unknown, .unknown, .unknown,
            ])
    }

    @Test func nonFlushableStartIsAlwaysSent() {
        // No connection event seen at all: PB 0b00 is host → controller by definition.
        #expect(Self.directions([(.aclData, Self.acl(pb: 0b00, cid: 4, code: 0x1B))]) == [.sent])
    }

    @Test func withoutARoleOrFlagsNothingTells() {
        // PB 0b10 on a handle never seen: could be BR/EDR host → controller.
        #expect(Self.directions([(.aclData, Self.acl(pb: 0b10, cid: 4, code: 0x0A, rest: [3, 0]))]) == [.unknown])
    }

    @Test func linkRoleContentDecidesAndUnmasksANonConformingHost() {
        var inference = H4DirectionInference()
        func d(_ kind: RecordKind, _ bytes: [UInt8]) -> Direction {
            bytes.withByteView { inference.direction(kind: kind, payload: $0) }
        }
        #expect(d(.hciEvent, Self.leConnectionComplete(role: 0x00)) == .received)
        // Security Request comes from the peripheral: the peer, received. Says nothing about
        // the host, which is still assumed to follow the LE-U flag rule.
        #expect(d(.aclData, Self.acl(pb: 0b10, cid: 6, code: 0x0B, rest: [1])) == .received)
        #expect(!inference.hostSendsFlushableOnLE)
        #expect(d(.aclData, Self.acl(pb: 0b10, cid: 5, code: 0x12, rest: [1, 8, 0])) == .received)  // CPU Request
        // A Pairing Request from our central with 0b10: a host that ignores the LE-U rule (as
        // BTstack does).
        #expect(d(.aclData, Self.acl(pb: 0b10, cid: 6, code: 0x01, rest: [3, 0, 1, 0, 16, 0, 0])) == .sent)
        #expect(inference.hostSendsFlushableOnLE)
        #expect(d(.aclData, Self.acl(pb: 0b10, cid: 5, code: 0x13, rest: [1, 2, 0, 0, 0])) == .sent)  // CPU Response
        // From now on 0b10 proves nothing; ATT content decides with central = GATT client.
        #expect(d(.aclData, Self.acl(pb: 0b10, cid: 4, code: 0x0A, rest: [3, 0])) == .sent)  // Read Request
        #expect(d(.aclData, Self.acl(pb: 0b10, cid: 4, code: 0x0B, rest: [0x42])) == .received)  // Read Response
        #expect(d(.aclData, Self.acl(pb: 0b10, cid: 4, code: 0x52, rest: [3, 0, 1])) == .sent)  // Write Command
        #expect(d(.aclData, Self.acl(pb: 0b10, cid: 4, code: 0xD2, rest: [3, 0, 1])) == .sent)  // Signed Write
        #expect(d(.aclData, Self.acl(pb: 0b10, cid: 4, code: 0x1D, rest: [3, 0])) == .received)  // Indication
        #expect(d(.aclData, Self.acl(pb: 0b10, cid: 4, code: 0x1E)) == .sent)  // Confirmation
        // Error Rsp
        #expect(d(.aclData, Self.acl(pb: 0b10, cid: 4, code: 0x01, rest: [0x0A, 3, 0, 0x0A])) == .received)
        // Nothing tells: SMP Pairing Random goes both ways; unknown ATT opcode 0x7F.
        #expect(d(.aclData, Self.acl(pb: 0b10, cid: 6, code: 0x04)) == .unknown)
        #expect(d(.aclData, Self.acl(pb: 0b10, cid: 4, code: 0x7F)) == .unknown)
        // 0b00 still means sent.
        #expect(d(.aclData, Self.acl(pb: 0b00, cid: 4, code: 0x1B, rest: [3, 0])) == .sent)
    }

    @Test func localPeripheralIsTakenAsGATTServerOnANonConformingHost() {
        // LE Enhanced Connection Complete (subevent 0x0A), role 0x01 peripheral.
        let d = Self.directions([
            (.hciEvent, Self.leConnectionComplete(role: 0x01, subevent: 0x0A)),
            (.aclData, Self.acl(pb: 0b10, cid: 6, code: 0x0B, rest: [1])),  // our Security Request
            // Read By Group Type Req
            (.aclData, Self.acl(pb: 0b10, cid: 4, code: 0x10, rest: [1, 0, 0xFF, 0xFF, 0, 0x28])),
            (.aclData, Self.acl(pb: 0b10, cid: 4, code: 0x1B, rest: [3, 0, 0x42])),  // Notification
            (.aclData, Self.acl(pb: 0b10, cid: 6, code: 0x01, rest: [3, 0, 1, 0, 16, 0, 0])),  // Pairing Request
            (.aclData, Self.acl(pb: 0b10, cid: 6, code: 0x02, rest: [3, 0, 1, 0, 16, 0, 0])),  // Pairing Response
            (.aclData, Self.acl(pb: 0b10, cid: 5, code: 0x12, rest: [1, 8, 0])),  // Conn Param Update Req
        ])
        #expect(d == [.received, .sent, .received, .sent, .received, .sent, .sent])
        var inference = H4DirectionInference()
        Self.leConnectionComplete(handle: 0x0ABC, role: 0x01, subevent: 0x29).withByteView {
            _ = inference.direction(kind: .hciEvent, payload: $0)
        }
        #expect(inference.localRole(handle: 0x0ABC) == 1)
        #expect(inference.localRole(handle: 0x0ABD) == nil)
    }

    @Test func flagsOutrankTheGATTAssumption() {
        // Reverse GATT (as in the airbily capture, frame 213): the peer, a peripheral, reads
        // the local central's own GATT server. By content alone the Read Request would look
        // like ours; by the LE-U flag rule it is the controller's.
        let d = Self.directions([
            (.hciEvent, Self.leConnectionComplete(role: 0x00)),
            // peer's Find By Type Value Req
            (.aclData, Self.acl(pb: 0b10, cid: 4, code: 0x06, rest: [1, 0, 0xFF, 0xFF, 0, 0x28])),
            (.aclData, Self.acl(pb: 0b00, cid: 4, code: 0x07, rest: [1, 0, 5, 0])),  // our response
            (.aclData, Self.acl(pb: 0b10, cid: 4, code: 0x0A, rest: [3, 0])),  // peer's Read Request
        ])
        #expect(d == [.received, .received, .sent, .received])
    }

    @Test func continuationFollowsItsStartFragment() {
        let d = Self.directions([
            (.hciEvent, Self.leConnectionComplete(role: 0x00)),
            (.aclData, Self.acl(pb: 0b01, cid: 0, code: 0)),  // continuation with no start: unknown
            (.aclData, Self.acl(pb: 0b10, cid: 4, code: 0x1B, rest: [3, 0])),  // Notification start
            (.aclData, K.le16(0x40 | 0b01 << 12) + K.le16(2) + [1, 2]),  // its continuation
            (.aclData, Self.acl(pb: 0b00, cid: 4, code: 0x52, rest: [3, 0])),  // Write Command
            (.aclData, K.le16(0x40 | 0b01 << 12) + K.le16(2) + [3, 4]),
        ])
        #expect(d == [.received, .unknown, .received, .received, .sent, .sent])
    }

    @Test func disconnectionForgetsTheRoleAndBREDRIsNotLE() {
        let d = Self.directions([
            (.hciEvent, Self.leConnectionComplete(role: 0x00)),
            (.hciEvent, [0x05, 0x04, 0x00, 0x40, 0x00, 0x13]),  // Disconnection Complete, handle 0x40
            (.aclData, Self.acl(pb: 0b10, cid: 4, code: 0x0A, rest: [3, 0])),  // role gone: unknown
            // BR/EDR Connection Complete on 0x41: status 0, handle, BD_ADDR, link type ACL, no enc.
            (.hciEvent, [0x03, 0x0B, 0x00, 0x41, 0x00, 1, 2, 3, 4, 5, 6, 0x01, 0x00]),
            (.aclData, Self.acl(handle: 0x41, pb: 0b00, cid: 1, code: 0x02)),  // host → controller
            // On BR/EDR the host may also start with 0b10: nothing tells.
            (.aclData, Self.acl(handle: 0x41, pb: 0b10, cid: 1, code: 0x03)),
        ])
        #expect(d == [.received, .received, .unknown, .received, .sent, .unknown])
    }

    @Test func failedOrTruncatedEventsAndPacketsDoNotConfuseIt() {
        var failed = Self.leConnectionComplete(role: 0x00)
        failed[3] = 0x3E  // status: Connection Failed to be Established
        let d = Self.directions([
            (.hciEvent, failed),
            (.hciEvent, [0x3E]),  // LE Meta cut after its code
            (.hciEvent, [0x3E, 0x13, 0x01, 0x00, 0x40]),  // cut before the role
            (.hciEvent, [0x05, 0x04, 0x00]),  // Disconnection Complete cut
            (.hciEvent, []),
            (.aclData, [0x40]),  // half a handle
            (.aclData, K.le16(0x40 | 0b10 << 12)),  // header only
            (.aclData, Self.acl(pb: 0b10, cid: 4, code: 0x0A)),
        ])
        #expect(d == [.received, .received, .received, .received, .received, .unknown, .unknown, .unknown])
    }

    // MARK: Real sessions re-wrapped as link type 187

    /// The records of an H4 btsnoop (datalink 1002) as (unix µs, received, H4 bytes): btsnoop
    /// header 16 bytes, records of original length, included length, flags (bit 0 received),
    /// drops, timestamp (µs since 0000-01-01, big-endian), data.
    static func btsnoopRecords(_ bytes: [UInt8]) -> [(Int64, Bool, [UInt8])] {
        func be32(_ o: Int) -> Int {
            Int(bytes[o]) << 24 | Int(bytes[o + 1]) << 16 | Int(bytes[o + 2]) << 8 | Int(bytes[o + 3])
        }
        var out: [(Int64, Bool, [UInt8])] = []
        var off = 16
        while off + 24 <= bytes.count {
            let included = be32(off + 4)
            let flags = be32(off + 8)
            let ts = Int64(be32(off + 16)) << 32 | Int64(be32(off + 20))
            guard off + 24 + included <= bytes.count else { break }
            out.append((ts - 0x00DC_DDB3_0F2F_8000, flags & 1 != 0, Array(bytes[(off + 24)..<(off + 24 + included)])))
            off += 24 + included
        }
        return out
    }

    static func pcap187(_ records: [(Int64, Bool, [UInt8])]) -> [UInt8] {
        records.reduce(into: K.pcapHeader(linkType: 187)) { file, r in
            file += K.pcapRecord(sec: UInt32(r.0 / 1_000_000), frac: UInt32(r.0 % 1_000_000), data: r.2)
        }
    }

    /// Every Bumble session, central and peripheral side: the inferred direction of every
    /// record equals the direction the btsnoop recorded.
    @Test(arguments: Fixtures.captures(in: "bumble"))
    func inferenceMatchesRecordedDirections(_ path: String) throws {
        let truth = Self.btsnoopRecords(try K.bytes(of: path))
        #expect(truth.count > 10)
        let r = try K.read(bytes: Self.pcap187(truth))
        #expect(r.damage == nil)
        #expect(r.records.count == truth.count)
        var wrong = 0
        for (rec, t) in zip(r.records, truth) where rec.direction != (t.1 ? .received : .sent) {
            wrong += 1
            Issue.record("\(path) frame \(rec.frame): inferred \(rec.direction) for \(rec.kind)")
            if wrong > 5 { break }
        }
        #expect(r.records.map(\.timestamp) == truth.map(\.0))
    }

    /// Real captures (an Android btsnoop, a btmon monitor file, an iOS PacketLogger file, an
    /// Android log filtered down to ACL) re-wrapped as pcap 187 with the direction dropped:
    /// the inference recovers every direction it claims. It leaves unknown only the iOS
    /// capture's nine notifications on handle 0x0401 (frames 1205–1223) that arrive with a
    /// 0b10 start before the host has sent anything on that handle: a 0b10 start is what
    /// either side may send, so nothing tells their direction yet.
    @Test(arguments: [
        ("public/btsnoop-android_domyos-treadmill-ftms.log", 0),
        ("public/btsnoop-btmon_rgbctf2020-magicintheair", 0),
        ("public/pklg-be_ios-sysdiagnose-bafang-ebike.pklg", 9),
        ("public/btsnoop-android_revcar-acl-only.log", 0),
    ])
    func inferenceOnRealCapturesIsNeverWrong(_ file: String, _ expectedUnknown: Int) throws {
        let original = try K.read(path: try Fixtures.existing(file)).records.filter(\.kind.isHCI)
        let stripped = original.map { r in
            let h4: UInt8 =
                [RecordKind.hciCommand: 1, .aclData: 2, .scoData: 3, .hciEvent: 4, .isoData: 5][r.kind] ?? 0
            return (r.timestamp, r.direction == .received, [h4] + r.payload)
        }
        let inferred = try K.read(bytes: Self.pcap187(stripped)).records
        #expect(inferred.count == original.count)
        var unknown = 0
        for (i, o) in zip(inferred, original) {
            #expect(i.kind == o.kind && i.payload == o.payload)
            if i.direction == .unknown { unknown += 1 } else { #expect(i.direction == o.direction, "frame \(i.frame)") }
        }
        #expect(unknown == expectedUnknown)
    }
}
