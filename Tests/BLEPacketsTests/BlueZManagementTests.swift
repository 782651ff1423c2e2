import BLEBytes
import BLEPackets
import CaptureIO
import TestSupport
import Testing

@Suite struct BlueZManagementTests {
    @Test func startDiscoveryFromARealBtmonCapture() throws {
        // rgbctf frame 8: cookie 1 (bluetoothd), opcode 0x0023 Start Discovery, address types 0x07.
        try [0x01, 0x00, 0x00, 0x00, 0x23, 0x00, 0x07].withByteView { v in
            let c = try #require(BlueZManagementCommand(v))
            #expect(c.cookie == 1)
            #expect(c.opcode == BlueZManagementOpcode.startDiscovery)
            #expect("\(c.name)" == "Start Discovery")
            #expect(c.parameters.toArray() == [0x07])
        }
    }

    @Test func startServiceDiscoveryCarriesItsUUIDFilter() throws {
        // cookie 2, opcode 0x003A, LE public+random (0x06), RSSI -127 (0x81), 1 UUID: 0x180D as
        // a 128-bit little-endian UUID.
        var bytes: [UInt8] = [0x02, 0, 0, 0, 0x3A, 0x00, 0x06, 0x81, 0x01, 0x00]
        bytes += [0xFB, 0x34, 0x9B, 0x5F, 0x80, 0x00, 0x00, 0x80, 0x00, 0x10, 0x00, 0x00, 0x0D, 0x18, 0x00, 0x00]
        try bytes.withByteView { v in
            let c = try #require(BlueZManagementCommand(v))
            let d = try #require(BlueZStartServiceDiscovery(c.parameters))
            #expect(d.addressTypes == 0x06)
            #expect(d.rssiThreshold == -127)
            #expect(Array(d.uuids) == [BluetoothUUID(uuid16: 0x180D)])
            #expect(d.isComplete)
        }
        // UUID_Count claims 2 but only one is there: the one present is kept, the gap noted.
        bytes[8] = 0x02
        try bytes.withByteView { v in
            let c = try #require(BlueZManagementCommand(v))
            let d = try #require(BlueZStartServiceDiscovery(c.parameters))
            #expect(Array(d.uuids).count == 1)
            #expect(!d.isComplete)
        }
    }

    @Test func commandCompleteNamesTheCommandAndStatus() throws {
        // Command Complete (0x0001) for Start Discovery (0x0023), status 0x0F Not Powered, types 0x06.
        try [0x01, 0, 0, 0, 0x01, 0x00, 0x23, 0x00, 0x0F, 0x06].withByteView { v in
            let e = try #require(BlueZManagementEvent(v))
            #expect("\(e.name)" == "Command Complete")
            let answered = try #require(e.answered)
            #expect(answered.opcode == 0x0023)
            #expect(answered.status == 0x0F)
            #expect(BlueZManagementNames.status(answered.status).map { "\($0)" } == "Not Powered")
        }
        // Too short for a header, and unknown codes, are not trapped on.
        [0x01, 0x00].withByteView { #expect(BlueZManagementEvent($0) == nil) }
        #expect(BlueZManagementNames.command(0) == nil)
        #expect(BlueZManagementNames.command(0xFFFF) == nil)
    }

    /// The rgbctf capture's 27 control-command records (tshark: `hci_mon.opcode == 16`): btmon
    /// 5.66 names the first four before it crashes on ATT; the opcodes of the rest (0x0033 at
    /// frame 197, then 0x0023 with address types 0x07) were read from tshark's hex dump.
    @Test func realCaptureCommandsMatchBtmon() throws {
        let reader = try CaptureFile.open(path: Fixtures.capture("public/btsnoop-btmon_rgbctf2020-magicintheair"))
        let decoder = FrameDecoder()
        var names: [String] = []
        while let record = reader.next() {
            if let c = decoder.decode(record).managementCommand { names.append("\(c.name)") }
        }
        #expect(
            names == ["Start Discovery", "Start Discovery", "Stop Discovery", "Pair Device", "Add Device"]
                + Array(repeating: "Start Discovery", count: 22))
    }
}
