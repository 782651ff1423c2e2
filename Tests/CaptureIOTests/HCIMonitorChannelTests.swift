import BLEBytes
import CaptureIO
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `blecap watch hci-monitor` reads the kernel's monitor channel, which this machine may not have.
/// What can be checked everywhere is the part that is blecap's: datagrams in the monitor
/// channel's format (`{le16 opcode, le16 index, le16 length}` + payload), sent through a datagram
/// socket pair exactly as the kernel delivers them one per recvmsg, read back as the same records
/// `btmon -w` saved for them.
@Suite struct HCIMonitorChannelTests {
    /// The monitor datagram for a record of a btsnoop 2001 file (what the kernel sent btmon).
    static func datagram(_ r: OwnedRecord, declaredLength: Int? = nil) -> [UInt8] {
        let length = UInt16(declaredLength ?? r.payload.count)
        let opcode = UInt16(r.rawType)
        return [
            UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(r.controllerIndex & 0xFF), UInt8(r.controllerIndex >> 8),
            UInt8(length & 0xFF), UInt8(length >> 8),
        ] + r.payload
    }

    /// Sends `datagrams` on one end of an AF_UNIX SOCK_SEQPACKET pair from another thread, closes
    /// it, and reads the other end as a monitor source.
    static func readBack(_ datagrams: [[UInt8]], index: UInt16? = nil) throws -> [OwnedRecord] {
        var fds: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
        var on: Int32 = 1
        _ = setsockopt(fds[0], SOL_SOCKET, SO_TIMESTAMP, &on, socklen_t(MemoryLayout<Int32>.size))
        let sender = fds[1]
        let thread = Thread {
            for d in datagrams { _ = d.withUnsafeBytes { send(sender, $0.baseAddress, $0.count, 0) } }
            close(sender)
        }
        thread.start()
        let source = FileByteSource(monitorDatagramsFrom: fds[0], ownsFD: true, index: index)
        let reader = try CaptureFile.open(source: source, path: nil)
        var records: [OwnedRecord] = []
        while let r = reader.next() { records.append(OwnedRecord(r)) }
        #expect(reader.damage == nil, "\(String(describing: reader.damage))")
        return records
    }

    /// Every record but where it sits in a file and when it was received.
    static func sameContent(_ a: OwnedRecord, _ b: OwnedRecord) -> Bool {
        a.frame == b.frame && a.kind == b.kind && a.direction == b.direction && a.rawType == b.rawType
            && a.controllerIndex == b.controllerIndex && a.payload == b.payload && a.originalLength == b.originalLength
    }

    @Test(arguments: [
        "formats/clean_heart_rate.central.monitor.btsnoop", "synthetic/monitor-metadata-only.btsnoop",
        "public/btsnoop-btmon_rgbctf2020-magicintheair",
    ])
    func datagramsReadAsTheRecordsBtmonSaved(_ relative: String) throws {
        let file = try CaptureFile.open(path: Fixtures.existing(relative))
        var saved: [OwnedRecord] = []
        while let r = file.next() { saved.append(OwnedRecord(r)) }
        try #require(saved.count >= 3)
        let before = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let live = try Self.readBack(saved.map { Self.datagram($0) })
        let after = Int64(Date().timeIntervalSince1970 * 1_000_000)
        #expect(live.count == saved.count)
        for (l, s) in zip(live, saved) where !Self.sameContent(l, s) {
            Issue.record("frame \(s.frame): \(l) instead of \(s)")
            break
        }
        // Stamped when received (the kernel's SO_TIMESTAMP), in order.
        #expect(live.allSatisfy { $0.timestamp >= before - 1_000_000 && $0.timestamp <= after + 1_000_000 })
        #expect(zip(live, live.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })
    }

    /// `hci-monitor:hci1` keeps controller 1's packets and the kernel's index-less notes (0xFFFF);
    /// a datagram shorter than the monitor header is dropped, as btmon drops it; a datagram that
    /// says it is longer than what arrived keeps its declared length as the original length.
    @Test func indexFilterRuntsAndShortDatagrams() throws {
        let command: [UInt8] = [0x03, 0x0C, 0x00]  // HCI Reset
        func packet(opcode: UInt16, index: UInt16, _ payload: [UInt8], declared: Int? = nil) -> [UInt8] {
            let n = UInt16(declared ?? payload.count)
            return [UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(index & 0xFF), UInt8(index >> 8)]
                + [UInt8(n & 0xFF), UInt8(n >> 8)] + payload
        }
        let datagrams = [
            packet(opcode: 2, index: 0, command),  // hci0: filtered out
            [0x02, 0x00, 0x01],  // runt
            packet(opcode: 2, index: 1, command),  // hci1: kept
            packet(opcode: 13, index: 0xFFFF, [0x07, 0x02, 0x61, 0x00, 0x62]),  // kernel note: kept
            packet(opcode: 2, index: 1, command, declared: 40),
        ]
        let live = try Self.readBack(datagrams, index: 1)
        #expect(live.map(\.controllerIndex) == [1, 0xFFFF, 1])
        #expect(live.map(\.kind) == [.hciCommand, .userLogging, .hciCommand])
        #expect(live[0].payload == command)
        #expect(live[2].payload == command && live[2].originalLength == 40)
        let all = try Self.readBack(datagrams)
        #expect(all.map(\.controllerIndex) == [0, 1, 0xFFFF, 1])
    }

    @Test func sourceNames() {
        #expect(LiveSource.parse("hci-monitor", follow: false) == .hciMonitor(index: nil))
        #expect(LiveSource.parse("hci-monitor:hci2", follow: false) == .hciMonitor(index: 2))
        #expect(LiveSource.parse("hci-monitor:3", follow: false) == .hciMonitor(index: 3))
        #expect(LiveSource.parse("hci-monitor:hciX", follow: false) == nil)
        #expect(LiveSource.hciMonitor(index: 2).name == "hci-monitor:hci2")
    }

    /// On this machine the channel either opens or fails with one of the two reasons a user can
    /// act on — never a bare errno.
    @Test func openingTheChannelSaysWhatIsMissing() {
        do {
            let fd = try HCIMonitorChannel.open()
            close(fd)
        } catch {
            guard case .cannotOpen(let path, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(path == "hci-monitor")
            #expect(reason.contains("no Bluetooth support") || reason.contains("CAP_NET_RAW"), "\(reason)")
        }
    }
}
