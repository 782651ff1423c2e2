import BLEBytes
import CaptureIO
import TestSupport
import Testing

@Suite struct MonitorRecordsTests {
    @Test func userLogging() {
        // priority 7 (debug), ident length 11, "bluetoothd\0", message without a NUL.
        let bytes: [UInt8] = [0x07, 0x0B] + Array("bluetoothd\0".utf8) + Array("src/adapter.c: hello".utf8)
        bytes.withByteView { v in
            let u = MonitorUserLogging(v)
            #expect(u?.priority == 7)
            #expect(u?.ident.elementsEqual("bluetoothd".utf8) == true)
            #expect(u?.message.elementsEqual("src/adapter.c: hello".utf8) == true)
        }
        // Ident length past the end: not a user-logging record.
        [UInt8]([0x07, 0x20, 0x41]).withByteView { #expect(MonitorUserLogging($0) == nil) }
        [UInt8]([0x07]).withByteView { #expect(MonitorUserLogging($0) == nil) }
    }

    @Test func newIndexAndIndexInfo() {
        // type 0 (primary), bus 1 (USB), BD_ADDR 66:55:44:33:22:11 little-endian, "hci0".
        let newIndex: [UInt8] = [0x00, 0x01, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66] + Array("hci0\0\0\0\0".utf8)
        newIndex.withByteView { v in
            let n = MonitorNewIndex(v)
            #expect(n?.bus == 1 && n?.address == BDAddr("66:55:44:33:22:11"))
            #expect(n?.name.elementsEqual("hci0".utf8) == true)
            #expect(MonitorNewIndex(v.prefix(15)) == nil)
        }
        // BD_ADDR then manufacturer 0x0002 (Intel).
        [UInt8]([0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x02, 0x00]).withByteView { v in
            #expect(MonitorIndexInfo(v)?.manufacturer == 2)
            #expect(MonitorIndexInfo(v.prefix(7)) == nil)
        }
    }

    /// The rgbCTF btmon capture from a Kali laptop: its metadata records decode as tshark's
    /// hci_mon dissector shows them (New Index A0:AF:BD:F3:5E:D9 USB hci0, Index Info
    /// manufacturer 2 = Intel, two Control Open records — bluetoothd and btmon, version 1.14 —
    /// one bluetoothd log line). The same checks on a btmon scan capture we may not
    /// redistribute run in `make conformance`.
    @Test func realMonitorMetadata() throws {
        let reader = try CaptureFile.open(path: try Fixtures.existing("public/btsnoop-btmon_rgbctf2020-magicintheair"))
        var notes: [String] = []
        var idents: [String] = []
        var logs = 0
        var firstLog: (UInt8, String, String)? = nil
        var kinds: [RecordKind: Int] = [:]
        while let r = reader.next() {
            kinds[r.kind, default: 0] += 1
            switch r.kind {
            case .systemNote:
                notes.append(String(decoding: MonitorSystemNote(r.payload).text.toArray(), as: UTF8.self))
            case .controlOpen:
                let c = try #require(MonitorControlOpen(r.payload))
                #expect(c.format == 2 && c.version == 1 && c.revision == 14)
                idents.append(String(decoding: c.ident.toArray(), as: UTF8.self))
            case .userLogging:
                let u = try #require(MonitorUserLogging(r.payload))
                logs += 1
                if firstLog == nil {
                    firstLog = (
                        u.priority, String(decoding: u.ident.toArray(), as: UTF8.self),
                        String(decoding: u.message.toArray(), as: UTF8.self)
                    )
                }
            case .indexNew:
                let n = try #require(MonitorNewIndex(r.payload))
                #expect(String(decoding: n.name.toArray(), as: UTF8.self) == "hci0")
                #expect(n.type == 0 && n.bus == 1 && n.address == BDAddr("A0:AF:BD:F3:5E:D9"))
            case .indexInfo:
                let i = try #require(MonitorIndexInfo(r.payload))
                #expect(i.manufacturer == 2 && i.address == BDAddr("A0:AF:BD:F3:5E:D9"))
            default: break
            }
        }
        #expect(reader.damage == nil)
        #expect(notes == ["Linux version 5.5.0-kali2-amd64 (x86_64)", "Bluetooth subsystem version 2.22"])
        #expect(idents == ["bluetoothd", "btmon"])
        #expect(logs == 1)
        #expect(firstLog?.0 == 4 && firstLog?.1 == "bluetoothd")
        // btmon writes the message with its terminating NUL.
        #expect(firstLog.map { $0.2.trimmingCharacters(in: ["\0"]) } == "No cache for F6:3C:91:42:32:28")
        #expect(kinds[.indexNew] == 1 && kinds[.indexInfo] == 1 && kinds[.controlOpen] == 2 && kinds[.systemNote] == 2)
    }

    /// rgbCTF 2020: opcode counts from tshark's hci_mon.opcode (1795 records).
    @Test func rgbctfMonitorKinds() throws {
        let r = try readAll(path: Fixtures.capture("public/btsnoop-btmon_rgbctf2020-magicintheair"))
        var kinds: [RecordKind: Int] = [:]
        var directions: [Direction: Int] = [:]
        for rec in r.records {
            kinds[rec.kind, default: 0] += 1
            directions[rec.direction, default: 0] += 1
        }
        #expect(
            kinds == [
                .aclData: 1190 + 68, .hciEvent: 232, .controlEvent: 140, .hciCommand: 130, .controlCommand: 27,
                .controlOpen: 2, .systemNote: 2, .indexOpen: 1, .userLogging: 1, .indexInfo: 1, .indexNew: 1,
            ])
        #expect(directions[.received] == 1190 + 232 + 140 && directions[.sent] == 130 + 68 + 27)
        #expect(r.records.filter { $0.controllerIndex == 0xFFFF }.count == 5)
    }
}
