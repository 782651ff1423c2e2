import BLEBytes
import BLEPackets
import Testing

// Event payloads after the H4 type byte: code, parameter length, parameters.

@Suite struct HCIEventTests {
    @Test func errorCodeNames() {
        #expect(HCIError.name(0x00).map { "\($0)" } == "Success")
        #expect(HCIError.name(0x08).map { "\($0)" } == "Connection Timeout")
        #expect(HCIError.name(0x0C).map { "\($0)" } == "Command Disallowed")
        #expect(HCIError.name(0x13).map { "\($0)" } == "Remote User Terminated Connection")
        #expect(HCIError.name(0x16).map { "\($0)" } == "Connection Terminated By Local Host")
        #expect(HCIError.name(0x3E).map { "\($0)" }?.hasPrefix("Connection Failed to be Established") == true)
        #expect(HCIError.name(0x47).map { "\($0)" } == "Too Early")
        // Reserved values have no name.
        for reserved: UInt8 in [0x2B, 0x31, 0x33, 0x48, 0xFF] { #expect(HCIError.name(reserved) == nil) }
        // Everything from 0x00 to 0x47 except the reserved gaps is named.
        let named = (0...0x47).filter { HCIError.name(UInt8($0)) != nil }.count
        #expect(named == 0x48 - 3)
    }

    @Test func commandCompleteWithStatus() {
        // clean_heart_rate.central frame 32: 1 packet, LE Set Extended Scan Enable, success.
        hciBytes("0e 04 01 42 20 00").withByteView { v in
            let e = HCIEventPacket(v)!
            let c = HCICommandComplete(parameters: e.parameters)!
            #expect(c.numPackets == 1 && c.opcode == 0x2042 && c.status == 0x00)
        }
        // scan_before_init.central frame 2: the same answered 0x0C Command Disallowed.
        #expect(
            hciDescribeEvent("0e 04 01 42 20 0c").lines == [
                "event_code=0x0E Command Complete", "parameter_total_length=4", "num_hci_command_packets=1",
                "command_opcode=0x2042 LE Set Extended Scan Enable", "status=0x0C Command Disallowed",
            ])
        // No Operation (opcode 0): only a packet-count update, no status.
        hciBytes("01 00 00").withByteView { v in
            let c = HCICommandComplete(parameters: v)!
            #expect(c.opcode == 0 && c.status == nil)
        }
        hciBytes("01 00").withByteView { #expect(HCICommandComplete(parameters: $0) == nil) }
        // A vendor command's return parameters stay raw after the status.
        let vendor = hciDescribeEvent("0e 06 01 54 fd 00 aa bb")
        #expect(
            vendor.lines.suffix(3) == [
                "command_opcode=0xFD54 Vendor Command", "status=0x00 Success", "return_parameters=aabb",
            ])
    }

    @Test func readBufferSizeReturns() {
        // Frame 18: Read Buffer Size: ACL 27 × 64, SCO 0 × 0.
        hciBytes("0e 0b 01 05 10 00 1b 00 00 40 00 00 00").withByteView { v in
            let c = HCICommandComplete(parameters: HCIEventPacket(v)!.parameters)!
            let r = HCIReadBufferSize(returnParameters: c.returnParameters)!
            #expect(r.status == 0 && r.aclDataPacketLength == 27 && r.totalNumACLDataPackets == 64)
            #expect(r.synchronousDataPacketLength == 0 && r.totalNumSynchronousDataPackets == 0)
        }
        // Frame 20: LE Read Buffer Size [v2]: LE ACL 27 × 64, ISO 960 × 64.
        let v2 = "0e 0a 01 60 20 00 1b 00 40 c0 03 40"
        hciBytes(v2).withByteView { v in
            let c = HCICommandComplete(parameters: HCIEventPacket(v)!.parameters)!
            let r = HCILEReadBufferSize(returnParameters: c.returnParameters, version: 2)!
            #expect(r.leACLDataPacketLength == 27 && r.totalNumLEACLDataPackets == 64)
            #expect(r.isoDataPacketLength == 960 && r.totalNumISODataPackets == 64)
            let r1 = HCILEReadBufferSize(returnParameters: c.returnParameters)!
            #expect(r1.isoDataPacketLength == nil)
        }
        #expect(
            hciDescribeEvent(v2).lines.suffix(4) == [
                "le_acl_data_packet_length=27", "total_num_le_acl_data_packets=64",
                "iso_data_packet_length=960", "total_num_iso_data_packets=64",
            ])
        // v1 return cut after the status.
        hciBytes("00 1b").withByteView { #expect(HCILEReadBufferSize(returnParameters: $0) == nil) }
    }

    @Test func commandStatus() {
        // Frame 42: status 0 (pending), 1 packet, LE Create Connection.
        hciBytes("00 01 0d 20").withByteView { v in
            let s = HCICommandStatus(parameters: v)!
            #expect(s.status == 0 && s.numPackets == 1 && s.opcode == 0x200D)
        }
        #expect(
            hciDescribeEvent("0f 04 00 01 06 04").lines.suffix(3) == [
                "status=0x00 Success", "num_hci_command_packets=1", "command_opcode=0x0406 Disconnect",
            ])
        hciBytes("00 01 0d").withByteView { #expect(HCICommandStatus(parameters: $0) == nil) }
        #expect(hciDescribeEvent("0f 03 00 01 0d").notes == ["!truncated parameters"])
    }

    @Test func disconnectionComplete() {
        // Frame 123: status 0, handle 0x0001, reason 0x16.
        let hex = "05 04 00 01 00 16"
        hciBytes(hex).withByteView { v in
            let d = HCIDisconnectionComplete(parameters: HCIEventPacket(v)!.parameters)!
            #expect(d.status == 0 && d.handle == 1 && d.reason == 0x16)
        }
        #expect(
            hciDescribeEvent(hex).lines == [
                "event_code=0x05 Disconnect Complete", "parameter_total_length=4", "status=0x00 Success",
                "connection_handle=0x0001", "reason=0x16 Connection Terminated By Local Host",
            ])
        hciBytes("00 01 00").withByteView { #expect(HCIDisconnectionComplete(parameters: $0) == nil) }
        let truncated = hciDescribeEvent("05 03 00 01 00")
        #expect(truncated.notes == ["!truncated parameters"])
        #expect(truncated.value("connection_handle") == "0x0001")
    }

    @Test func encryptionChangeV1AndV2() {
        // indications_and_errors.central frame 123: success, handle 1, encryption on.
        hciBytes("00 01 00 01").withByteView { v in
            let e = HCIEncryptionChange(parameters: v)!
            #expect(e.status == 0 && e.handle == 1 && e.encryptionEnabled == 1 && e.keySize == nil)
            #expect(HCIEncryptionChange(parameters: v, version: 2) == nil)
        }
        // v2 (event 0x59) adds key size 16.
        hciBytes("00 01 00 01 10").withByteView { v in
            #expect(HCIEncryptionChange(parameters: v, version: 2)?.keySize == 16)
        }
        let v2 = hciDescribeEvent("59 05 00 01 00 01 10")
        #expect(v2.lines.first == "event_code=0x59 Encryption Change [v2]")
        #expect(v2.value("encryption_key_size") == "16")
        #expect(hciDescribeEvent("30 03 00 01 00").lines.first == "event_code=0x30 Encryption Key Refresh Complete")
    }

    @Test func numberOfCompletedPacketsIteratesPairs() {
        // Frame 45: 1 handle, handle 0x0001 → 1 packet.
        hciBytes("01 01 00 01 00").withByteView { v in
            let n = HCINumberOfCompletedPackets(parameters: v)!
            #expect(n.isComplete)
            #expect(Array(n.entries) == [.init(handle: 1, count: 1)])
        }
        // Two handles: 0x0001 × 2 and 0x0002 × 5.
        let two = "13 09 02 01 00 02 00 02 00 05 00"
        hciBytes(two).withByteView { v in
            let n = HCINumberOfCompletedPackets(parameters: HCIEventPacket(v)!.parameters)!
            #expect(Array(n.entries) == [.init(handle: 1, count: 2), .init(handle: 2, count: 5)])
        }
        #expect(
            hciDescribeEvent(two).lines.suffix(9) == [
                "num_handles=2", "{handle", "connection_handle=0x0001", "num_completed_packets=2", "}",
                "{handle", "connection_handle=0x0002", "num_completed_packets=5", "}",
            ])
        // Claims 3 handles, has 1.5: only the whole pair comes out.
        hciBytes("03 01 00 01 00 02 00").withByteView { v in
            let n = HCINumberOfCompletedPackets(parameters: v)!
            #expect(!n.isComplete && n.declaredCount == 3)
            #expect(Array(n.entries).count == 1)
        }
        let short = hciDescribeEvent("13 07 03 01 00 01 00 02 00")
        #expect(short.notes == ["!fewer handles than num_handles"])
        #expect(short.value("remaining") == "0200")
        // Claims 255 handles in an empty body.
        hciBytes("ff").withByteView { #expect(Array(HCINumberOfCompletedPackets(parameters: $0)!.entries).isEmpty) }
        hciBytes("").withByteView { #expect(HCINumberOfCompletedPackets(parameters: $0) == nil) }
    }

    @Test func smallFixedEvents() {
        #expect(hciDescribeEvent("10 01 42").lines.last == "hardware_code=0x42")
        #expect(hciDescribeEvent("1a 01 01").lines.last == "link_type=0x01 ACL")
        // Read Remote Version Information Complete: success, handle 1, 5.2, company 0x000F.
        let rv = hciDescribeEvent("0c 08 00 01 00 0b 0f 00 34 12")
        #expect(rv.lines.suffix(3) == ["version=0x0B 5.2", "company_identifier=0x000F", "subversion=0x1234"])
    }

    @Test func unknownAndVendorEventsStayRaw() {
        let vendor = hciDescribeEvent("ff 03 01 02 03")
        #expect(vendor.lines == ["event_code=0xFF Vendor-Specific", "parameter_total_length=3", "parameters=010203"])
        let unknown = hciDescribeEvent("fe 01 77")
        #expect(unknown.lines == ["event_code=0xFE", "parameter_total_length=1", "parameters=77"])
        hciBytes("fe 00").withByteView { #expect("\(HCIEventPacket($0)!.name)" == "Unknown") }
        // Unknown LE subevent: named "Unknown", parameters raw.
        let sub = hciDescribeEvent("3e 03 7f aa bb")
        #expect(sub.lines.suffix(2) == ["subevent_code=0x7F", "parameters=aabb"])
        hciBytes("3e 01 7f").withByteView {
            #expect(HCISummary.event(HCIEventPacket($0)!).detail.map { "\($0)" } == "Unknown")
        }
    }
}
