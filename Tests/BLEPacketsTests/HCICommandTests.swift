import BLEBytes
import BLEPackets
import Testing

// Fixtures are command payloads after the H4 type byte, from the Bumble captures (frame
// numbers of clean_heart_rate.*.btsnoop unless said otherwise).

@Suite struct HCICommandTests {
    @Test func tablesAreSortedForBinarySearchAndFindEveryEntry() {
        let ops = HCICommands.table.map(\.opcode)
        #expect(zip(ops, ops.dropFirst()).allSatisfy { $0 < $1 })
        for d in HCICommands.table { #expect(HCICommands.descriptor(for: d.opcode)?.opcode == d.opcode) }
        let codes = HCIEvents.eventTable.map(\.code)
        #expect(zip(codes, codes.dropFirst()).allSatisfy { $0 < $1 })
        let subs = HCIEvents.leSubeventTable.map(\.code)
        #expect(zip(subs, subs.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func namesMatchTsharkInfoColumn() {
        // tshark 4.0.17's Info column for frames 1–41 of clean_heart_rate.central.
        let expected: [(UInt16, String)] = [
            (0x0C03, "Reset"), (0x1002, "Read Local Supported Commands"),
            (0x1001, "Read Local Version Information"), (0x2003, "LE Read Local Supported Features"),
            (0x1003, "Read Local Supported Features"), (0x0C01, "Set Event Mask"),
            (0x0C63, "Set Event Mask Page 2"), (0x2001, "LE Set Event Mask"), (0x1005, "Read Buffer Size"),
            (0x2060, "LE Read Buffer Size [v2]"), (0x2002, "LE Read Buffer Size [v1]"),
            (0x2023, "LE Read Suggested Default Data Length"), (0x2024, "LE Write Suggested Default Data Length"),
            (0x1009, "Read BD ADDR"), (0x2005, "LE Set Random Address"),
            (0x2041, "LE Set Extended Scan Parameters"), (0x2042, "LE Set Extended Scan Enable"),
            (0x200D, "LE Create Connection"), (0x0406, "Disconnect"),
            (0x2036, "LE Set Extended Advertising Parameters"), (0x2035, "LE Set Advertising Set Random Address"),
            (0x2037, "LE Set Extended Advertising Data"), (0x2039, "LE Set Extended Advertising Enable"),
            (0x2019, "LE Start Encryption"), (0x201A, "LE Long Term Key Request Reply"),
            (0x2013, "LE Connection Update"), (0x2085, "LE Extended Create Connection [v2]"),
        ]
        for (op, name) in expected { #expect("\(HCICommands.name(for: op))" == name, "opcode \(op)") }
        // Vendor opcodes blecap does not decode (0xFD54, Android LE Multi Advertising) keep
        // tshark's name; 0xFD53/0xFD57 are decoded (HCIAndroidVendorTests).
        #expect("\(HCICommands.name(for: 0xFD54))" == "Vendor Command")
        #expect("\(HCICommands.name(for: 0x07F0))" == "Unknown")  // OGF 0x01, OCF 0x3F0: unassigned
        #expect(HCICommands.descriptor(for: 0xFD54) == nil)
    }

    @Test func setExtendedScanParametersPerPHY() {
        // Frame 29: own address Random, filter policy 0, PHYs 1M + Coded, each active 60/60 ms.
        let hex = "41 20 0d 01 00 05 01 60 00 60 00 01 60 00 60 00"
        hciBytes(hex).withByteView { v in
            let p = HCICommandPacket(v)!
            let s = HCILESetExtendedScanParameters(parameters: p.parameters)!
            #expect(s.ownAddressType == 1)
            #expect(s.scanningPHYs == 0x05)
            #expect(s.entries.count == 2)
            let entries = s.entries
            #expect(s.entryPHYs == [1, 3])
            #expect(
                entries.allSatisfy {
                    $0.isActive && $0.intervalMicroseconds == 60_000 && $0.windowMicroseconds == 60_000
                })
        }
        #expect(
            hciDescribeCommand(hex).lines == [
                "opcode=0x2041 LE Set Extended Scan Parameters", "ogf=0x08", "ocf=0x0041", "parameter_total_length=13",
                "own_address_type=0x01 Random", "scanning_filter_policy=0x00 Basic unfiltered",
                "scanning_phys=0x05[LE 1M,LE Coded]",
                "{phy", "phy=0x01 LE 1M", "scan_type=0x01 Active", "scan_interval=60000us", "scan_window=60000us", "}",
                "{phy", "phy=0x03 LE Coded", "scan_type=0x01 Active", "scan_interval=60000us", "scan_window=60000us",
                "}",
            ])
        // Coded block cut short: the typed view refuses, the describer keeps the 1M block.
        let cut = "41 20 0a 01 00 05 01 60 00 60 00 01 60"
        hciBytes(cut).withByteView { v in
            #expect(HCILESetExtendedScanParameters(parameters: HCICommandPacket(v)!.parameters) == nil)
        }
        let lines = hciDescribeCommand(cut).lines
        #expect(
            lines.suffix(5) == [
                "phy=0x03 LE Coded", "scan_type=0x01 Active", "!truncated parameters", "remaining=60", "}",
            ])
    }

    @Test func setScanEnableLegacyAndExtended() {
        hciBytes("01 00").withByteView { v in
            let e = HCILESetScanEnable(parameters: v)!
            #expect(e.enable && e.filterDuplicates == 0)
        }
        // Frame 39: scan disabled.
        hciBytes("00 00 00 00 00 00").withByteView { v in
            let e = HCILESetExtendedScanEnable(parameters: v)!
            #expect(!e.enable && e.duration == 0 && e.period == 0)
        }
        hciBytes("00 00 00 00 00").withByteView { #expect(HCILESetExtendedScanEnable(parameters: $0) == nil) }
        // Legacy LE Set Scan Parameters: active, 10 ms / 10 ms, public, basic unfiltered.
        hciBytes("01 10 00 10 00 00 00").withByteView { v in
            let s = HCILESetScanParameters(parameters: v)!
            #expect(s.isActive && s.intervalMicroseconds == 10_000 && s.windowMicroseconds == 10_000)
        }
    }

    @Test func createConnectionToTheHeartRateSensor() {
        // Frame 41: scan 60/60 ms, filter policy 0, peer Random D8:0D:18:00:00:01, own Random,
        // interval 15–30 ms, latency 0, timeout 720 ms, CE length 0–0.
        let hex = "0d 20 19 60 00 60 00 00 01 01 00 00 18 0d d8 01 0c 00 18 00 00 00 48 00 00 00 00 00"
        hciBytes(hex).withByteView { v in
            let c = HCILECreateConnection(parameters: HCICommandPacket(v)!.parameters)!
            #expect(c.scanInterval == 0x60 && c.scanWindow == 0x60)
            #expect(!c.usesFilterAcceptList)
            #expect(c.peerAddressType == 1)
            #expect(c.peerAddress == BDAddr("D8:0D:18:00:00:01"))
            #expect(c.connection.intervalMinMicroseconds == 15_000)
            #expect(c.connection.intervalMaxMicroseconds == 30_000)
            #expect(c.connection.maxLatency == 0)
            #expect(c.connection.supervisionTimeoutMicroseconds == 720_000)
        }
        let sink = hciDescribeCommand(hex)
        #expect(sink.notes.isEmpty)
        #expect(sink.value("peer_address") == "D8:0D:18:00:00:01")
        #expect(sink.value("connection_interval_max") == "30000us")
        #expect(sink.value("supervision_timeout") == "720000us")
        // One byte short.
        hciBytes(String(hex.dropLast(3))).withByteView { v in
            #expect(HCILECreateConnection(parameters: HCICommandPacket(v)!.parameters) == nil)
        }
    }

    @Test func extendedCreateConnectionV1AndV2() {
        // Hand-built v1: filter 0, own Random, peer Random D8:0D:18:00:00:01, PHYs 1M + 2M;
        // 1M: scan 60/60 ms, 15–30 ms, latency 0, 720 ms; 2M: no scan, 7.5–7.5 ms, latency 4, 1 s.
        let body1M = "60 00 60 00 0c 00 18 00 00 00 48 00 00 00 00 00"
        let body2M = "00 00 00 00 06 00 06 00 04 00 64 00 00 00 00 00"
        let v1 = "00 01 01 01 00 00 18 0d d8 03 " + body1M + " " + body2M
        hciBytes(v1).withByteView { v in
            let c = HCILEExtendedCreateConnection(parameters: v)!
            #expect(c.commandOpcode == HCIOpcode.leExtendedCreateConnection)
            #expect(c.peerAddress == BDAddr("D8:0D:18:00:00:01"))
            let e = c.entries
            #expect(c.entryPHYs == [1, 2])
            #expect(e[1].connection.intervalMin == 6 && e[1].connection.maxLatency == 4)
            #expect(e[1].connection.supervisionTimeoutMicroseconds == 1_000_000)
        }
        // v2 prefixes advertising handle 0xFF and subevent 0xFF.
        hciBytes("ff ff " + v1).withByteView { v in
            let c = HCILEExtendedCreateConnectionV2(parameters: v)!
            #expect(c.advertisingHandle == 0xFF && c.subevent == 0xFF)
            #expect(c.entries.count == 2)
        }
        let sink = hciDescribeCommand("85 20 2c ff ff " + v1)
        #expect(sink.notes.isEmpty)
        #expect(sink.lines.filter { $0 == "{phy" }.count == 2)
        #expect(sink.value("initiating_phys") == "0x03[LE 1M,LE 2M]")
        // Declares two PHYs but holds only one block.
        hciBytes("00 01 01 01 00 00 18 0d d8 03 " + body1M).withByteView {
            #expect(HCILEExtendedCreateConnection(parameters: $0) == nil)
        }
    }

    @Test func disconnectAndConnectionUpdate() {
        // Frame 121: Disconnect handle 0x0001 reason 0x13.
        let sink = hciDescribeCommand("06 04 03 01 00 13")
        #expect(sink.lines.suffix(2) == ["connection_handle=0x0001", "reason=0x13 Remote User Terminated Connection"])
        hciBytes("01 00 13").withByteView { v in
            let d = HCIDisconnect(parameters: v)!
            #expect(d.handle == 1 && d.reason == 0x13)
        }
        hciBytes("01 00").withByteView { #expect(HCIDisconnect(parameters: $0) == nil) }
        // long_notify_stream.central frame 37: LE Connection Update handle 1, 7.5–11.25 ms,
        // latency 0, timeout 4 s.
        hciBytes("01 00 06 00 09 00 00 00 90 01 00 00 00 00").withByteView { v in
            let u = HCILEConnectionUpdate(parameters: v)!
            #expect(u.handle == 1)
            #expect(u.connection.intervalMinMicroseconds == 7_500 && u.connection.intervalMaxMicroseconds == 11_250)
            #expect(u.connection.supervisionTimeoutMicroseconds == 4_000_000)
        }
    }

    @Test func extendedAdvertisingCommands() {
        // clean_heart_rate.peripheral frame 29: handle 0, properties 0x0013 (legacy ADV_IND),
        // 100–100 ms, channels 37–39, own Random, tx power 127 (no preference), 1M/1M.
        let params = hciDescribeCommand(
            "36 20 19 00 13 00 a0 00 00 a0 00 00 07 01 00 00 00 00 00 00 00 00 7f 01 00 01 00 00")
        #expect(params.notes.isEmpty)
        #expect(params.value("advertising_event_properties") == "0x0013[Connectable,Scannable,Legacy]")
        #expect(params.value("primary_advertising_interval_min") == "100000us")
        #expect(params.value("primary_advertising_channel_map") == "0x07[Channel 37,Channel 38,Channel 39]")
        #expect(params.value("advertising_tx_power") == "127dBm")
        // Frame 33: data for handle 0, operation 3 (complete), 29 bytes of AD.
        let data = hciDescribeCommand(
            "37 20 21 00 03 01 1d 02 01 06 07 03 0d 18 0f 18 0a 18 03 19 41 03 0d 09 50 75 6c 73 65 42 65 6c 74 20 48 52"
        )
        #expect(data.notes.isEmpty)
        #expect(data.value("operation") == "0x03 Complete data")
        #expect(data.value("data_length") == "29")
        let ad = hciAdvertisingLines(
            "02 01 06 07 03 0d 18 0f 18 0a 18 03 19 41 03 0d 09 50 75 6c 73 65 42 65 6c 74 20 48 52")
        #expect(Array(data.lines.drop { $0 != "data_length=29" }.dropFirst()) == ad)
        // Frame 35: enable, 1 set: handle 0, duration 0, max events 0.
        let enable = hciDescribeCommand("39 20 06 01 01 00 00 00 00")
        #expect(
            enable.lines.suffix(5) == [
                "{set", "advertising_handle=0x00", "duration=0us", "max_extended_advertising_events=0", "}",
            ])
        // num_sets claims 2, only one present.
        let short = hciDescribeCommand("39 20 06 01 02 00 00 00 00")
        #expect(short.notes == ["!truncated parameters"])
        // Data length byte claims more than present; the two AD bytes that are there ("02 01":
        // a Flags structure whose value is missing) are still decoded, and flagged.
        let overlong = hciDescribeCommand("37 20 06 00 03 01 09 02 01")
        #expect(
            overlong.notes == ["!data length exceeds parameters", "!AD structure length runs past the end of the data"])
    }

    @Test func returnParametersOfPowerOnCommands() {
        // Frame 6: Read Local Version: HCI 5.0 rev 0, LMP 5.0, manufacturer 0xFFFF.
        let version = hciDescribeEvent("0e 0c 01 01 10 00 09 00 00 09 ff ff 00 00")
        #expect(
            version.lines.suffix(7) == [
                "command_opcode=0x1001 Read Local Version Information", "status=0x00 Success",
                "hci_version=0x09 5.0", "hci_subversion=0x0000", "lmp_version=0x09 5.0",
                "company_identifier=0xFFFF", "lmp_subversion=0x0000",
            ])
        // Frame 26: Read BD ADDR 00:1B:DC:00:00:01.
        #expect(hciDescribeEvent("0e 0a 01 09 10 00 01 00 00 dc 1b 00").value("bd_addr") == "00:1B:DC:00:00:01")
        // Frame 22: suggested default data length 27 / 328 µs.
        let dl = hciDescribeEvent("0e 08 01 23 20 00 1b 00 48 01")
        #expect(dl.value("suggested_max_tx_octets") == "27" && dl.value("suggested_max_tx_time") == "328us")
        // An error status with no further return parameters is not "truncated".
        let failed = hciDescribeEvent("0e 04 01 09 10 0c")
        #expect(failed.notes.isEmpty && failed.value("status") == "0x0C Command Disallowed")
        // Success but cut short is.
        #expect(hciDescribeEvent("0e 07 01 09 10 00 01 00 00").notes == ["!truncated parameters"])
    }

    @Test func vendorAndUnknownCommandsStayRaw() {
        // Android vendor command 0xFD54 (LE Multi Advertising, not decoded) with 2 parameter bytes.
        let vendor = hciDescribeCommand("54 fd 02 aa bb")
        #expect(
            vendor.lines == [
                "opcode=0xFD54 Vendor Command", "ogf=0x3F", "ocf=0x0154", "parameter_total_length=2", "parameters=aabb",
            ])
        let unknown = hciDescribeCommand("f0 07 01 42")
        #expect(unknown.lines.first == "opcode=0x07F0")
        #expect(unknown.lines.last == "parameters=42")
        // A no-parameter command carrying one is noted, the byte kept.
        let reset = hciDescribeCommand("03 0c 01 00")
        #expect(reset.notes == ["!unexpected trailing bytes"])
        #expect(reset.lines.last == "trailing=00")
        // Zero-length: nothing but the header.
        #expect(hciDescribeCommand("03 0c 00").lines.count == 4)
    }
}
