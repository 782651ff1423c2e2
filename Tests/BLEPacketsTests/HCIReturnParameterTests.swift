import BLEBytes
import BLEPackets
import Testing

// The typed values the timeline and lint read instead of offsets: each decodes real bytes, a
// cut list decodes as far as it reaches (nil after), and the encoders write the bytes back.

/// The return parameters of the Command Complete event in `hex` (code, length, parameters).
private func returnParameters<R>(_ hex: String, _ body: (ByteView) -> R) -> R {
    hciBytes(hex).withByteView { v in
        body(HCICommandComplete(parameters: HCIEventPacket(v)!.parameters)!.returnParameters)
    }
}

private func encoded(_ append: (inout ByteWriter) -> Void) -> [UInt8] {
    var w = ByteWriter()
    append(&w)
    return w.bytes
}

@Suite struct HCIReturnParameterTests {
    @Test func readLocalVersionInformationFromAnAndroidCapture() {
        // btsnoop-android_domyos-treadmill-ftms frame 8: HCI and LMP 4.1 (0x07), Qualcomm
        // (0x001D), LMP subversion 2003 (0x07D3); tshark reads the same.
        let hex = "0e 0c 01 01 10 00 07 00 00 07 1d 00 d3 07"
        returnParameters(hex) { rp in
            let v = HCIReadLocalVersionInformation(returnParameters: rp)
            #expect(v.status == 0 && v.hciVersion == 0x07 && v.hciSubversion == 0 && v.lmpVersion == 0x07)
            #expect(v.companyIdentifier == 0x001D && v.lmpSubversion == 2003)
            #expect(encoded(v.appendReturnParameters) == rp.toArray())
        }
        // Cut after the Company_Identifier's first octet: what is there, nil after.
        returnParameters("0e 09 01 01 10 00 07 00 00 07 1d") { rp in
            let v = HCIReadLocalVersionInformation(returnParameters: rp)
            #expect(v.hciVersion == 0x07 && v.lmpVersion == 0x07)
            #expect(v.companyIdentifier == nil && v.lmpSubversion == nil)
            #expect(encoded(v.appendReturnParameters) == rp.toArray().dropLast(1))
        }
        #expect(HCIReadLocalVersionInformation(returnParameters: .empty).status == nil)
    }

    @Test func leReadLocalSupportedFeaturesFromAnAndroidCapture() {
        // The same capture's frame 35: LE Encryption, Connection Parameters Request,
        // Extended Reject Indication, Peripheral-initiated Features Exchange (0x0F).
        returnParameters("0e 0c 01 03 20 00 0f 00 00 00 00 00 00 00") { rp in
            let f = HCILEReadLocalSupportedFeatures(returnParameters: rp)
            #expect(f.status == 0 && f.leFeatures == 0x0F)
            #expect(encoded(f.appendReturnParameters) == rp.toArray())
        }
        // Seven of the eight feature octets: the features are unknown, not a smaller number.
        returnParameters("0e 0b 01 03 20 00 0f 00 00 00 00 00 00") { rp in
            let f = HCILEReadLocalSupportedFeatures(returnParameters: rp)
            #expect(f.status == 0 && f.leFeatures == nil)
        }
    }

    @Test func readRSSIFromAnIOSCapture() {
        // pklg-be_ios-sysdiagnose-bafang-ebike frame 46364: handle 0x0402, -59 dBm.
        returnParameters("0e 07 01 05 14 00 02 04 c5") { rp in
            let r = HCIReadRSSI(returnParameters: rp)
            #expect(r.status == 0 && r.handle == 0x0402 && r.rssi == -59)
            #expect(encoded(r.appendReturnParameters) == rp.toArray())
        }
        // Flag bits above the 12-bit handle are not part of it; a cut RSSI is unknown.
        returnParameters("0e 06 01 05 14 00 02 34") { rp in
            let r = HCIReadRSSI(returnParameters: rp)
            #expect(r.handle == 0x0402 && r.rssi == nil)
        }
    }

    @Test func bufferSizesAsFarAsTheyReach() {
        // Read Buffer Size cut after Total_Num_ACL_Data_Packets' first octet: the ACL length is
        // known, the packet count is not, and the whole-list decoder says nothing.
        returnParameters("0e 08 01 05 10 00 1b 00 00 40") { rp in
            let f = HCIReadBufferSize.Fields(returnParameters: rp)
            #expect(f.status == 0 && f.aclDataPacketLength == 27 && f.synchronousDataPacketLength == 0)
            #expect(f.totalNumACLDataPackets == nil && f.totalNumSynchronousDataPackets == nil)
            #expect(HCIReadBufferSize(returnParameters: rp) == nil)
        }
        // LE Read Buffer Size [v2] with its ISO fields cut: LE ACL known, ISO not; the same
        // bytes read as [v1] have no ISO fields at all.
        returnParameters("0e 08 01 60 20 00 1b 00 40 c0") { rp in
            let v2 = HCILEReadBufferSize.Fields(returnParameters: rp, version: 2)
            #expect(v2.leACLDataPacketLength == 27 && v2.totalNumLEACLDataPackets == 64)
            #expect(v2.isoDataPacketLength == nil && v2.totalNumISODataPackets == nil)
            #expect(HCILEReadBufferSize(returnParameters: rp, version: 2) == nil)
            let v1 = HCILEReadBufferSize.Fields(returnParameters: rp)
            #expect(v1.totalNumLEACLDataPackets == 64 && v1.isoDataPacketLength == nil)
            #expect(HCILEReadBufferSize(returnParameters: rp)?.totalNumLEACLDataPackets == 64)
        }
    }

    @Test func suggestedDefaultDataLengthAsFarAsItReaches() {
        // LE Write Suggested Default Data Length 251 octets, 2120 µs; then cut after the octets.
        hciBytes("fb 00 48 08").withByteView { p in
            let f = HCILEWriteSuggestedDefaultDataLength.Fields(parameters: p)
            #expect(f.maxTxOctets == 251 && f.maxTxTime == 2120)
        }
        hciBytes("fb 00 48").withByteView { p in
            let f = HCILEWriteSuggestedDefaultDataLength.Fields(parameters: p)
            #expect(f.maxTxOctets == 251 && f.maxTxTime == nil)
            #expect(HCILEWriteSuggestedDefaultDataLength(parameters: p) == nil)
        }
    }

    @Test func scanEnableOctet() {
        // rgbctf frame 13's LE Set Scan Enable (enable, filter duplicates) and one cut to its
        // first octet, which the summary still reads.
        hciBytes("01 00").withByteView { #expect(HCILESetScanEnable.enableValue(of: $0) == 1) }
        hciBytes("00").withByteView { #expect(HCILESetScanEnable.enableValue(of: $0) == 0) }
        #expect(HCILESetScanEnable.enableValue(of: .empty) == nil)
    }
}

@Suite struct HCIConnectionEventTests {
    @Test func brEdrConnectionCompleteRoundTrip() {
        // Connection Complete (Vol 4 Part E 7.7.3): success, handle 0x000B (flag bits set
        // above it), BD_ADDR 00:1A:7D:DA:71:13, ACL link, encryption off.
        let bytes = hciBytes("00 0b 20 13 71 da 7d 1a 00 01 00")
        bytes.withByteView { p in
            let c = HCIConnectionComplete(parameters: p)!
            #expect(c.status == 0 && c.handle == 0x000B && c.linkType == HCIConnectionComplete.aclLink)
            #expect(c.peerAddress == BDAddr(littleEndian: p, at: 3) && c.encryptionEnabled == 0)
            #expect(Array(c.h4Encoded().dropFirst(3)) == [0x00, 0x0B, 0x00] + bytes[3...])
        }
        // Cut inside BD_ADDR: status and handle known, the rest not.
        hciBytes("00 0b 00 13 71").withByteView { p in
            let c = HCIConnectionComplete(parameters: p)!
            #expect(c.handle == 0x000B && c.peerAddress == nil && c.linkType == nil)
            #expect(Array(c.h4Encoded()) == [H4PacketType.event, HCIConnectionComplete.code, 3, 0x00, 0x0B, 0x00])
        }
        #expect(HCIConnectionComplete(parameters: .empty) == nil)
    }

    @Test func statusAndConnectionHandle() {
        // The start of an LE Connection Complete: success, handle 0x0040, then the rest.
        hciBytes("00 40 00 00 00 11 22 33 44 55 66").withByteView { p in
            #expect(
                HCIStatusAndConnectionHandle(parameters: p) == HCIStatusAndConnectionHandle(parameters: p.prefix(3)))
            #expect(HCIStatusAndConnectionHandle(parameters: p)?.handle == 0x0040)
            #expect(HCIStatusAndConnectionHandle(parameters: p.prefix(2))?.handle == nil)
            #expect(HCIStatusAndConnectionHandle(parameters: p.prefix(1))?.status == 0)
            #expect(HCIStatusAndConnectionHandle(parameters: .empty) == nil)
        }
    }

    @Test func hardwareErrorRoundTrip() {
        hciBytes("10 01 2a").withByteView { v in
            let e = HCIEventPacket(v)!
            let h = HCIHardwareError(parameters: e.parameters)!
            #expect(e.code == HCIHardwareError.code && h.hardwareCode == 0x2A)
            #expect(Array(h.h4Encoded().dropFirst()) == v.toArray())
        }
        #expect(HCIHardwareError(parameters: .empty) == nil)
    }
}

@Suite struct PDUHeaderTests {
    @Test func attHeaderReadsOpcodeAndLeadingHandle() {
        // A Write Command to handle 0x002A with two value octets; a bare Exchange MTU opcode.
        hciBytes("52 2a 00 01 00").withByteView { p in
            let h = ATTPDUHeader(p)!
            #expect(h.opcode == ATTOpcode.writeCommand.rawValue && h.leadingHandle == 0x002A)
            #expect(h.lengthAfterLeadingHandle == 2)
        }
        hciBytes("02 17").withByteView { p in
            let h = ATTPDUHeader(p)!
            #expect(h.opcode == 0x02 && h.leadingHandle == nil && h.lengthAfterLeadingHandle == 0)
        }
        #expect(ATTPDUHeader(.empty) == nil)
    }

    @Test func signalingAndSMPCodes() {
        // Connection Parameter Update Request (0x12), cut after its code; SMP Pairing Request.
        hciBytes("12").withByteView { #expect(L2CAPSignalingCode.code(of: $0) == 0x12) }
        hciBytes("01 03 00 01 10 07 07").withByteView { #expect(SMPCode.code(of: $0) == 0x01) }
        #expect(L2CAPSignalingCode.code(of: .empty) == nil)
    }

    @Test func includeDeclarationFields() {
        // Included service 0x0010–0x0015, Battery Service (0x180F); then a 128-bit service's
        // include (no UUID in the value) and one cut before its End Group Handle.
        hciBytes("10 00 15 00 0f 18").withByteView { v in
            let d = GATTIncludeDeclarationValue(v)!
            #expect(d.includedServiceHandle == 0x0010 && d.endGroupHandle == 0x0015 && d.serviceUUID16 == 0x180F)
        }
        hciBytes("10 00 15 00").withByteView { v in
            let d = GATTIncludeDeclarationValue(v)!
            #expect(d.endGroupHandle == 0x0015 && d.serviceUUID16 == nil)
        }
        hciBytes("10 00 15").withByteView { #expect(GATTIncludeDeclarationValue($0)!.endGroupHandle == nil) }
    }
}

@Suite struct BlueZManagementValueTests {
    @Test func discoveringFromARealBtmonCapture() {
        // rgbctf frame 18: cookie 2, Discovering (0x0013), address types 0x07, discovering.
        hciBytes("02 00 00 00 13 00 07 01").withByteView { v in
            let e = BlueZManagementEvent(v)!
            #expect(e.code == BlueZDiscovering.code)
            let d = BlueZDiscovering(e.parameters)!
            #expect(d.addressTypes == 0x07 && d.discovering)
            #expect(BlueZDiscovering(e.parameters.prefix(1)) == nil)
        }
        // rgbctf frame 8: Start Discovery, address types 0x07.
        hciBytes("01 00 00 00 23 00 07").withByteView { v in
            let c = BlueZManagementCommand(v)!
            #expect(BlueZDiscoveryAddressTypes(c.parameters)?.addressTypes == 0x07)
        }
    }

    @Test func setPoweredAndNewSettings() {
        // Set Powered on and off; New Settings: powered, connectable, LE, Secure Connections
        // (Current_Settings bits 0, 1, 9, 11), then one octet short.
        hciBytes("01").withByteView { #expect(BlueZSetPowered($0)?.powered == true) }
        hciBytes("00").withByteView { #expect(BlueZSetPowered($0)?.powered == false) }
        #expect(BlueZSetPowered(.empty) == nil)
        hciBytes("03 0a 00 00").withByteView { #expect(BlueZNewSettings($0)?.currentSettings == 0x0A03) }
        hciBytes("03 0a 00").withByteView { #expect(BlueZNewSettings($0) == nil) }
    }
}
