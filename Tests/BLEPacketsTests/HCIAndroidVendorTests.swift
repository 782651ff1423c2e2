import BLEBytes
import BLEPackets
import CaptureIO
import TestSupport
import Testing

// Android vendor commands: APCF (HCI_BLE_ADV_FILTER, 0xFD57) and LE Get Vendor Capabilities
// (0xFD53). Fixtures are command/event payloads after the H4 type byte. Where the shipped
// capture captures/public/btsnoop-android_domyos-treadmill-ftms.log (GPL-3.0) has the
// sub-command, the bytes are copied from it (frame numbers = tshark's); the others are built
// from the AOSP layouts (btm_ble_adv_filter.cc, hci_packets.pdl) and say so.

@Suite struct HCIAndroidVendorTests {
    static let domyos = "public/btsnoop-android_domyos-treadmill-ftms.log"

    @Test func namesAndSummaries() {
        #expect("\(HCICommands.name(for: 0xFD57))" == "LE Advertising Packet Content Filter")
        #expect("\(HCICommands.name(for: 0xFD53))" == "LE Get Vendor Capabilities")
        hciBytes("01 01 04").withByteView { p in
            #expect(
                HCICommands.subcommandName(for: 0xFD57, parameters: p).map { "\($0)" } == "Set Filtering Parameters")
        }
        hciBytes("00 07 00 1f").withByteView { rp in
            #expect(HCICommands.subcommandName(for: 0xFD57, returnParameters: rp).map { "\($0)" } == "Service Data")
        }
    }

    @Test func enableAndItsCompleteFromDomyos() {
        // Frame 165: APCF Enable, enable = 1. Frame 166: status 0, sub-command 0, enable 1.
        let c = hciDescribeCommand("57 fd 02 00 01")
        #expect(c.lines.suffix(2) == ["apcf_opcode=0x00 Enable", "apcf_enable=0x01 Enabled"])
        #expect(c.notes.isEmpty)
        let e = hciDescribeEvent("0e 06 01 57 fd 00 00 01")
        #expect(e.lines.suffix(3) == ["status=0x00 Success", "apcf_opcode=0x00 Enable", "apcf_enable=0x01 Enabled"])
        hciBytes("00 01").withByteView { #expect(HCILEAdvFilter(parameters: $0)?.enable == true) }
    }

    @Test func serviceUUIDFromDomyos() {
        // Frame 167: Service UUID add, index 3, UUID 0xFE2C, mask FFFF. Frame 168: status 0,
        // sub-command 3, action add, 0x1F entries still free.
        let c = hciDescribeCommand("57 fd 07 03 00 03 2c fe ff ff")
        #expect(
            c.lines.suffix(5) == [
                "apcf_opcode=0x03 Service UUID", "apcf_action=0x00 Add", "apcf_filter_index=3",
                "apcf_uuid=FE2C", "apcf_uuid_mask=ffff",
            ])
        #expect(c.notes.isEmpty)
        let e = hciDescribeEvent("0e 07 01 57 fd 00 03 00 1f")
        #expect(
            e.lines.suffix(4) == [
                "status=0x00 Success", "apcf_opcode=0x03 Service UUID", "apcf_action=0x00 Add",
                "apcf_available_spaces=31",
            ])
        hciBytes("03 00 03 2c fe ff ff").withByteView { p in
            let f = HCILEAdvFilter(parameters: p)
            #expect(f?.subcommand == .serviceUUID && f?.action == .add && f?.filterIndex == 3)
            guard case .uuid(let u, _, let solicitation)? = f?.condition else {
                Issue.record("no UUID condition")
                return
            }
            #expect(u == BluetoothUUID(uuid16: 0xFE2C) && !solicitation)
        }
    }

    @Test func filteringParametersFromDomyos() {
        // Frame 169: Set Filtering Parameters add, index 3, features 0x0004 (Service UUID),
        // list logic 0x1111, filter logic 0x01, RSSI high -128, delivery immediate, then the
        // on-found/on-lost block as zeros (13 bytes after the index: no tracking entries).
        let c = hciDescribeCommand("57 fd 10 01 00 03 04 00 11 11 01 80 00 00 00 00 00 00 00")
        #expect(c.notes.isEmpty)
        #expect(c.value("apcf_feature_selection") == "0x0004[Service UUID]")
        #expect(c.value("rssi_high_thresh") == "-128dBm")
        #expect(c.value("delivery_mode") == "0x00 Immediate")
        #expect(c.value("onlost_timeout") == "0us")
        #expect(c.value("num_of_tracking_entries") == nil)
        hciBytes("01 00 03 04 00 11 11 01 80 00 00 00 00 00 00 00").withByteView { p in
            let f = HCILEAdvFilter(parameters: p)?.filteringParameters
            #expect(f?.featureSelection == 0x0004 && f?.isAllPass == false && f?.numberOfTrackingEntries == nil)
        }
        // Frame 239: index 1 with no feature selected: AOSP's all-pass filter.
        hciBytes("01 00 01 00 00 11 11 01 80 00 00 00 00 00 00 00").withByteView { p in
            let f = HCILEAdvFilter(parameters: p)
            #expect(f?.filterIndex == 1 && f?.filteringParameters?.isAllPass == true)
        }
        // Frame 211: delete index 4; frame 212 answers action delete, 10 free.
        let d = hciDescribeCommand("57 fd 03 01 01 04")
        #expect(
            d.lines.suffix(3) == [
                "apcf_opcode=0x01 Set Filtering Parameters", "apcf_action=0x01 Delete", "apcf_filter_index=4",
            ])
        let e = hciDescribeEvent("0e 07 01 57 fd 00 01 01 0a")
        #expect(e.lines.suffix(2) == ["apcf_action=0x01 Delete", "apcf_available_spaces=10"])
    }

    @Test func filteringParametersWithTrackingEntriesAndClear() {
        // Built per AOSP BTM_BleAdvFilterParamSetup for controllers past the L release: 15
        // bytes after the index, the last two num_of_tracking_entries (here 5), delivery on
        // found with 1000 ms timeouts.
        let c = hciDescribeCommand("57 fd 12 01 00 04 24 00 11 11 01 c4 01 e8 03 02 b0 e8 03 05 00")
        #expect(c.notes.isEmpty)
        #expect(c.value("apcf_feature_selection") == "0x0024[Service UUID,Manufacturer Data]")
        #expect(c.value("delivery_mode") == "0x01 On Found")
        #expect(c.value("onfound_timeout") == "1000000us")
        #expect(c.value("num_of_tracking_entries") == "5")
        // Clear of all filters: sub-command and action only (AOSP, action clear).
        let clear = hciDescribeCommand("57 fd 02 01 02")
        #expect(clear.lines.suffix(2) == ["apcf_opcode=0x01 Set Filtering Parameters", "apcf_action=0x02 Clear"])
        #expect(clear.notes.isEmpty)
    }

    @Test func manufacturerDataFromDomyos() {
        // Frame 191: index 5, company 0x00E0 + data 000000, company mask FFFF + mask 0000FF.
        let c = hciDescribeCommand("57 fd 0d 06 00 05 e0 00 00 00 00 ff ff 00 00 ff")
        #expect(
            c.lines.suffix(7) == [
                "apcf_opcode=0x06 Manufacturer Data", "apcf_action=0x00 Add", "apcf_filter_index=5",
                "apcf_company_id=0x00E0", "apcf_data=000000", "apcf_company_id_mask=0xFFFF", "apcf_data_mask=0000ff",
            ])
        // Frame 199: index 7, Apple (0x004C) iBeacon prefix 0215.
        let apple = hciDescribeCommand("57 fd 0b 06 00 07 4c 00 02 15 ff ff ff ff")
        #expect(apple.value("apcf_company_id") == "0x004C" && apple.value("apcf_data") == "0215")
        #expect(apple.notes.isEmpty)
    }

    @Test func serviceDataFromDomyos() {
        // Frame 173: index 4, pattern 2CFE00 (Fast Pair service data), mask 2CFE00.
        let c = hciDescribeCommand("57 fd 09 07 00 04 2c fe 00 2c fe 00")
        #expect(
            c.lines.suffix(5) == [
                "apcf_opcode=0x07 Service Data", "apcf_action=0x00 Add", "apcf_filter_index=4",
                "apcf_service_data=2cfe00", "apcf_mask=2cfe00",
            ])
    }

    @Test func conditionsNotInDomyosBuiltPerAOSP() {
        // Broadcaster address (BTM_LE_PF_addr_filter): index 12, address little-endian, type 0.
        let a = hciDescribeCommand("57 fd 0a 02 00 0c fb e8 9c 85 1b ce 00")
        #expect(a.value("apcf_broadcaster_address") == "CE:1B:85:9C:E8:FB")
        #expect(a.value("apcf_application_address_type") == "0x00 Public")
        // Solicitation UUID, 128-bit, with mask (BTM_LE_PF_uuid_filter, sub-command 0x04).
        let s = hciDescribeCommand(
            "57 fd 23 04 00 02 fb 34 9b 5f 80 00 00 80 00 10 00 00 0d 18 00 00"
                + " ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff")
        #expect(s.value("apcf_opcode") == "0x04 Service Solicitation UUID")
        #expect(s.value("apcf_uuid") == "180D")
        // Local name (BTM_LE_PF_local_name): index 2, "HRM".
        let n = hciDescribeCommand("57 fd 06 05 00 02 48 52 4d")
        #expect(n.value("apcf_local_name") == "HRM")
        // Clear of an index's UUID conditions: action and index only.
        let clear = hciDescribeCommand("57 fd 03 03 02 06")
        #expect(
            clear.lines.suffix(3) == ["apcf_opcode=0x03 Service UUID", "apcf_action=0x02 Clear", "apcf_filter_index=6"])
        for sink in [a, s, n, clear] { #expect(sink.notes.isEmpty) }
    }

    @Test func laterAndUnknownSubcommandsStayRawNeverAnError() {
        // Read Extended Features (pdl LeAdvFilterReadExtendedFeatures test vectors): command
        // 0xFF alone; answer status 0, 0xFF, features 0x0003.
        let c = hciDescribeCommand("57 fd 01 ff")
        #expect(c.lines.last == "apcf_opcode=0xFF Read Extended Features")
        let e = hciDescribeEvent("0e 07 01 57 fd 00 ff 03 00")
        #expect(e.value("apcf_extended_features") == "0x0003[Transport Discovery Data Filter,AD Type Filter]")
        // A controller without it answers with the status alone (0x01 Unknown HCI Command).
        let refused = hciDescribeEvent("0e 04 01 57 fd 01")
        #expect(refused.lines.last == "status=0x01 Unknown HCI Command" && refused.notes.isEmpty)
        // Transport discovery data: named bytes; an unknown sub-command 0x42: raw parameters.
        let tds = hciDescribeCommand("57 fd 06 08 00 03 01 02 03")
        #expect(tds.value("apcf_transport_discovery_data") == "010203" && tds.notes.isEmpty)
        let unknown = hciDescribeCommand("57 fd 03 42 aa bb")
        #expect(unknown.lines.suffix(2) == ["apcf_opcode=0x42", "parameters=aabb"] && unknown.notes.isEmpty)
        let unknownAnswer = hciDescribeEvent("0e 07 01 57 fd 00 42 aa bb")
        #expect(unknownAnswer.lines.last == "return_parameters=aabb" && unknownAnswer.notes.isEmpty)
    }

    @Test func vendorCapabilitiesFromDomyos() {
        // Frames 23/24: LE Get Vendor Capabilities, no parameters; an L-release answer: 10
        // advertising instances, RPA offload, 0x2800 bytes of scan results, 32 IRKs,
        // filtering supported with 16 filters, energy info.
        let c = hciDescribeCommand("53 fd 00")
        #expect(c.lines.last == "parameter_total_length=0" && c.notes.isEmpty)
        let e = hciDescribeEvent("0e 0c 01 53 fd 00 0a 01 00 28 20 01 10 01")
        #expect(e.notes.isEmpty)
        #expect(e.value("filtering_support") == "1" && e.value("max_filter") == "16")
        #expect(e.value("total_scan_results_storage") == "10240" && e.value("version_supported") == nil)
        hciBytes("00 0a 01 00 28 20 01 10 01").withByteView { rp in
            let v = HCILEGetVendorCapabilities(returnParameters: rp)
            #expect(v?.filteringSupported == true && v?.maxFilter == 16 && v?.versionSupported == nil)
        }
        // Built per hci_packets.pdl 0.98: version 0x0062, 16 tracked, extended scan, debug
        // logging, LE address generation 0, A2DP offload mask 0x1F, BQR 1.
        let v98 = hciDescribeEvent("0e 18 01 53 fd 00 10 01 00 14 20 01 10 01 62 00 10 00 01 01 00 1f 00 00 00 01")
        #expect(v98.notes.isEmpty)
        #expect(
            v98.value("version_supported") == "0x0062"
                && v98.value("a2dp_source_offload_capability_mask") == "0x0000001F")
        // Four bytes after debug_logging_supported fit no pdl version: kept, not an error.
        let odd = hciDescribeEvent("0e 16 01 53 fd 00 10 01 00 14 20 01 10 01 62 00 10 00 01 01 1f 00 00 00")
        #expect(odd.notes.isEmpty && odd.value("later_capabilities") == "1f000000")
        // Filtering unsupported.
        hciBytes("00 05 00 00 00 00 00 00 00").withByteView { rp in
            #expect(HCILEGetVendorCapabilities(returnParameters: rp)?.filteringSupported == false)
        }
    }

    @Test func everyAPCFCommandOfDomyosDecodesWithoutNotes() throws {
        // The whole shipped capture: every 0xFD57/0xFD53 command and Command Complete decodes
        // by name, with no note (truncation, length mismatch, raw fallback).
        let reader = try CaptureFile.open(path: Fixtures.capture(Self.domyos))
        let decoder = FrameDecoder()
        var commands = 0
        var answers = 0
        while let record = reader.next() {
            let frame = decoder.decode(record)
            let r = record
            do {
                if case .command(let c) = frame.layer, c.opcode == 0xFD57 || c.opcode == 0xFD53 {
                    commands += 1
                    let s = HCIRecordingSink()
                    c.describe(into: s)
                    #expect(s.notes.isEmpty, "frame \(r.frame): \(s.lines)")
                    #expect(!s.lines.contains { $0.hasPrefix("parameters=") }, "frame \(r.frame)")
                } else if case .event(let e) = frame.layer, e.code == 0x0E,
                    let op = e.parameters.u16le(1), op == 0xFD57 || op == 0xFD53
                {
                    answers += 1
                    let s = HCIRecordingSink()
                    e.describe(into: s)
                    #expect(s.notes.isEmpty, "frame \(r.frame): \(s.lines)")
                    #expect(!s.lines.contains { $0.hasPrefix("return_parameters=") }, "frame \(r.frame)")
                }
            }
        }
        // tshark: 31 APCF and 2 capability commands, each answered.
        #expect(commands == 33 && answers == 33)
    }

    /// AOSP's LE vendor commands are named in the command table, the one place opcodes are
    /// named; `packets` keeps tshark's "Vendor Command" for those it does not decode.
    @Test func androidVendorCommandsAreNamedInTheCommandTable() {
        #expect(HCICommands.androidVendorName(for: 0xFD56).map { "\($0)" } == "LE Batch Scan")
        #expect(HCICommands.androidVendorName(for: 0xFD5E).map { "\($0)" } == "Bluetooth Quality Report")
        #expect(
            HCICommands.androidVendorName(for: 0xFD57).map { "\($0)" } == "\(HCICommands.name(for: 0xFD57))")
        #expect(HCICommands.androidVendorName(for: 0xFD5B) == nil && HCICommands.androidVendorName(for: 0xFC57) == nil)
        #expect(HCICommands.androidVendorName(for: 0x2011) == nil)
        #expect("\(HCICommands.name(for: 0xFD56))" == "Vendor Command")
    }
}
