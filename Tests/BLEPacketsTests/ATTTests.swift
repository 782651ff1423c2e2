import BLEBytes
import BLEPackets
import Testing

func describeATT(_ hex: String) -> [String] {
    let sink = RecordingSink()
    Hex.bytes(hex)!.withByteView { ATTPDU.describe($0, into: sink) }
    return sink.lines
}

func decodeATT<R>(_ hex: String, _ body: (ATTPDU) -> R) -> R {
    Hex.bytes(hex)!.withByteView { body(ATTPDU($0)) }
}

func attHandle(_ hex: String) -> UInt16? { Hex.bytes(hex)!.withByteView { ATTPDU.handle(of: $0) } }

@Suite struct ATTOpcodeTableTests {
    @Test func namesFollowTshark() {
        #expect("\(ATTOpcode(0x10).name)" == "Read By Group Type Request")
        #expect("\(ATTOpcode(0x1B).name)" == "Handle Value Notification")
        #expect("\(ATTOpcode(0x52).name)" == "Write Command")
        #expect("\(ATTOpcode(0xD2).name)" == "Signed Write Command")
        #expect("\(ATTOpcode(0x23).name)" == "Multiple Handle Value Notification")
        #expect("\(ATTOpcode(0x15).name)" == "Unknown")
        #expect("\(ATTOpcode(0x14).name)" == "Unknown")
    }

    @Test func everyOpcodeHasAMethodAndTheRightSingleHandleFlag() {
        let single: Set<UInt8> = [0x01, 0x0A, 0x0C, 0x12, 0x16, 0x17, 0x1B, 0x1D, 0x52, 0xD2]
        let defined: [UInt8] = [
            0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11,
            0x12, 0x13, 0x16, 0x17, 0x18, 0x19, 0x1B, 0x1D, 0x1E, 0x20, 0x21, 0x23, 0x52, 0xD2,
        ]
        #expect(ATTOpcodeTable.entries.count == defined.count)
        for op in 0...255 {
            let o = ATTOpcode(UInt8(op))
            #expect((o.method != nil) == defined.contains(UInt8(op)), "opcode \(op)")
            #expect(o.carriesSingleHandle == single.contains(UInt8(op)), "opcode \(op)")
        }
        #expect(ATTOpcode.writeCommand.method == .command && ATTOpcode.writeCommand.isCommand)
        #expect(ATTOpcode.signedWriteCommand.hasSignature && !ATTOpcode.writeCommand.hasSignature)
        #expect(ATTOpcode.handleValueIndication.method == .indication)
        #expect(ATTOpcode.handleValueConfirmation.method == .confirmation)
        #expect(ATTOpcode.multipleHandleValueNotification.method == .notification)
        #expect(ATTOpcode.readMultipleVariableRequest.method == .request)
    }

    /// `ATTPDU.handle(of:)` reads the offsets from a table of their own: for every opcode byte
    /// it names the handle where the opcode's row says, and none when the PDU ends before it.
    @Test func handleOfEveryOpcodeIsAtItsRowsOffset() {
        for op in 0...255 {
            let pdu: [UInt8] = [UInt8(op), 0x34, 0x12, 0x78, 0x56]
            let expected: UInt16? = ATTOpcodeTable.byOpcode[op].flatMap { e in
                e.handleOffset >= 0 ? UInt16(pdu[e.handleOffset]) | UInt16(pdu[e.handleOffset + 1]) << 8 : nil
            }
            #expect(pdu.withByteView { ATTPDU.handle(of: $0) } == expected, "opcode \(op)")
            #expect([UInt8(op), 0x34].withByteView { ATTPDU.handle(of: $0) } == nil, "opcode \(op)")
        }
        #expect(attHandle("1B2A00FF") == 0x002A)
        #expect(attHandle("010A2A000A") == 0x002A)
    }

    @Test func errorCodeNames() {
        #expect(ATTErrorCode.name(0x01).map { "\($0)" } == "Invalid Handle")
        #expect(ATTErrorCode.name(0x0A).map { "\($0)" } == "Attribute Not Found")
        #expect(ATTErrorCode.name(0x11).map { "\($0)" } == "Insufficient Resources")
        #expect(ATTErrorCode.name(0x12).map { "\($0)" } == "Database Out Of Sync")
        #expect(ATTErrorCode.name(0x13).map { "\($0)" } == "Value Not Allowed")
        #expect(ATTErrorCode.name(0x85).map { "\($0)" } == "Application Error")
        #expect(ATTErrorCode.name(0xFC).map { "\($0)" } == "Write Request Rejected")
        #expect(ATTErrorCode.name(0xFF).map { "\($0)" } == "Out of Range")
        #expect(ATTErrorCode.name(0x14) == nil)
        #expect(ATTErrorCode.name(0xA0) == nil)
    }
}

@Suite struct ATTPDUTests {
    // Error Response from indications_and_errors.central frame 101: request 0x0A (Read),
    // handle 0x0013, 0x05 Insufficient Authentication.
    @Test func errorResponse() {
        let hex = "01 0a 1300 05"
        #expect(
            describeATT(hex) == [
                "opcode=0x01 Error Response", "request_opcode=0x0A Read Request", "handle=0x0013",
                "error_code=0x05 Insufficient Authentication",
            ])
        #expect(attHandle(hex) == 0x0013)
        decodeATT(hex) {
            guard case .errorResponse(let e) = $0 else {
                Issue.record("\($0)")
                return
            }
            #expect(e.requestOpcode == .readRequest && e.handle == 0x13 && e.errorCode == 5)
        }
        // Truncated: no error code.
        #expect(
            describeATT("01 0a 1300") == [
                "opcode=0x01 Error Response", "!ATT PDU too short for its opcode", "parameters=0a1300",
            ])
        decodeATT("01 0a 1300") {
            guard case .malformed(let op, let raw, _) = $0 else {
                Issue.record("\($0)")
                return
            }
            #expect(op == .errorResponse && raw.count == 4)
        }
        // Handle present even though the error code is missing: still the handle in error.
        #expect(attHandle("01 0a 1300") == 0x0013)
        #expect(attHandle("01 0a 13") == nil)
    }

    // clean_heart_rate.central frames 44/46: Client Rx MTU 247, Server Rx MTU 517.
    @Test func exchangeMTU() {
        #expect(describeATT("02 f700") == ["opcode=0x02 Exchange MTU Request", "client_rx_mtu=247"])
        #expect(describeATT("03 0502") == ["opcode=0x03 Exchange MTU Response", "server_rx_mtu=517"])
        #expect(describeATT("03 1600").contains("!MTU below the minimum of 23"))
        #expect(describeATT("02 f7").contains("!ATT PDU too short for its opcode"))
        // Extra bytes after a fixed-size PDU are kept and flagged.
        #expect(describeATT("02 f700 99").suffix(2) == ["!bytes after the PDU's fields", "trailing=99"])
        #expect(attHandle("02 f700") == nil)
    }

    @Test func findInformation() {
        #expect(
            describeATT("04 1100 1100") == [
                "opcode=0x04 Find Information Request", "starting_handle=0x0011", "ending_handle=0x0011",
            ])
        #expect(describeATT("04 1200 1100").contains("!invalid handle range"))
        #expect(describeATT("04 1100").contains("!ATT PDU too short for its opcode"))
        // Format 1: (0x0011, CCCD 0x2902), (0x0012, 0x2901).
        #expect(
            describeATT("05 01 1100 0229 1200 0129") == [
                "opcode=0x05 Find Information Response", "format=0x01 16-bit UUIDs",
                "{information", "handle=0x0011", "uuid=2902", "}", "{information", "handle=0x0012", "uuid=2901", "}",
            ])
        // Format 2: one 128-bit UUID F0A3C001-6C1E-4D5B-9A57-2B8E1A6B3C00 (little-endian on the wire).
        decodeATT("05 02 0e00 003c6b1a8e2b579a5b4d1e6c01c0a3f0") {
            guard case .findInformationResponse(let r) = $0 else {
                Issue.record("\($0)")
                return
            }
            let all = Array(r.information)
            #expect(all.count == 1 && all[0].handle == 0x000E)
            #expect(all[0].uuid == BluetoothUUID("F0A3C001-6C1E-4D5B-9A57-2B8E1A6B3C00"))
        }
        // Format 1 with a half entry left over; unknown format 3.
        #expect(
            describeATT("05 01 1100 0229 12").suffix(2) == [
                "!information data is not a whole number of entries", "trailing=12",
            ])
        #expect(describeATT("05 03 1100 0229").contains("!unknown format"))
        #expect(describeATT("05").contains("!ATT PDU too short for its opcode"))
    }

    // clean_heart_rate.central frame 47/49: Find By Type Value for Heart Rate 0x180D -> 0x000E-0x0013.
    @Test func findByTypeValue() {
        #expect(
            describeATT("06 0100 ffff 0028 0d18") == [
                "opcode=0x06 Find By Type Value Request", "starting_handle=0x0001", "ending_handle=0xFFFF",
                "attribute_type=2800", "value=0d18",
            ])
        #expect(describeATT("06 0100 ffff 00").contains("!ATT PDU too short for its opcode"))
        decodeATT("07 0e00 1300 1400 1700") {
            guard case .findByTypeValueResponse(let r) = $0 else {
                Issue.record("\($0)")
                return
            }
            #expect(r.handlesInformation.map(\.handle) == [0x000E, 0x0014])
            #expect(r.handlesInformation.map(\.endGroupHandle) == [0x0013, 0x0017])
        }
        #expect(
            describeATT("07 0e00 1300") == [
                "opcode=0x07 Find By Type Value Response", "{handles_information", "found_handle=0x000E",
                "group_end_handle=0x0013", "}",
            ])
        #expect(describeATT("07").contains("!handles information list is empty or not a whole number of entries"))
        #expect(describeATT("07 0e00 13").last == "trailing=0e0013")
    }

    @Test func readByType() {
        #expect(
            describeATT("08 0100 ffff 0328") == [
                "opcode=0x08 Read By Type Request", "starting_handle=0x0001", "ending_handle=0xFFFF",
                "attribute_type=2803",
            ])
        decodeATT("08 0100 ffff 003c6b1a8e2b579a5b4d1e6c01c0a3f0") {
            guard case .readByTypeRequest(let r) = $0 else {
                Issue.record("\($0)")
                return
            }
            #expect(r.attributeType == BluetoothUUID("F0A3C001-6C1E-4D5B-9A57-2B8E1A6B3C00"))
        }
        #expect(describeATT("08 0100 ffff 0328 00").contains("!attribute type is neither 16 nor 128 bits"))
        #expect(describeATT("08 0100 ffff").contains("!ATT PDU too short for its opcode"))
        // Two characteristic declarations, 7 bytes each: handle, properties, value handle, UUID.
        let rsp = "09 07 0f00 10 1000 372a 1200 02 1300 382a"
        #expect(
            describeATT(rsp) == [
                "opcode=0x09 Read By Type Response", "length=7",
                "{attribute_data", "handle=0x000F", "value=101000372a", "}",
                "{attribute_data", "handle=0x0012", "value=021300382a", "}",
            ])
        decodeATT(rsp) {
            guard case .readByTypeResponse(let r) = $0 else {
                Issue.record("\($0)")
                return
            }
            #expect(r.attributeData.count == 2 && r.attributeData.isWellFormed)
            #expect(r.attributeData.map(\.handle) == [0x000F, 0x0012])
        }
        // Length 1 cannot hold a handle; length 7 with 3 extra bytes.
        #expect(describeATT("09 01 0f00").contains("!attribute data list does not match its length"))
        #expect(describeATT("09 07 0f00 10 1000 372a 1200 02").last == "trailing=120002")
        #expect(describeATT("09").contains("!ATT PDU too short for its opcode"))
    }

    @Test func readAndReadBlob() {
        #expect(describeATT("0a 1a00") == ["opcode=0x0A Read Request", "handle=0x001A"])
        #expect(attHandle("0a 1a00") == 0x001A)
        #expect(describeATT("0a 1a").contains("!ATT PDU too short for its opcode"))
        #expect(attHandle("0a 1a") == nil)
        // "HRM-200"
        #expect(describeATT("0b 48524d2d323030") == ["opcode=0x0B Read Response", "value=48524d2d323030"])
        #expect(describeATT("0b") == ["opcode=0x0B Read Response", "value="])
        #expect(attHandle("0b 48524d") == nil)
        #expect(describeATT("0c 1200 1600") == ["opcode=0x0C Read Blob Request", "handle=0x0012", "offset=22"])
        #expect(attHandle("0c 1200 1600") == 0x0012)
        #expect(describeATT("0c 1200 16").contains("!ATT PDU too short for its opcode"))
        #expect(describeATT("0d 4142") == ["opcode=0x0D Read Blob Response", "value=4142"])
    }

    @Test func readMultiple() {
        #expect(
            describeATT("0e 0300 0500") == [
                "opcode=0x0E Read Multiple Request", "handle=0x0003", "handle=0x0005",
            ])
        #expect(describeATT("0e 0300").contains("!fewer than two handles"))
        #expect(describeATT("0e 0300 05").suffix(2) == ["!handle list has an odd length", "trailing=05"])
        #expect(describeATT("0f 0102 0304") == ["opcode=0x0F Read Multiple Response", "values=01020304"])
        #expect(attHandle("0e 0300 0500") == nil)
        #expect(
            describeATT("20 0300 0500") == [
                "opcode=0x20 Read Multiple Variable Request", "handle=0x0003", "handle=0x0005",
            ])
        // Two tuples; the second announces 5 bytes but ATT_MTU cut it to 2 (allowed).
        let rsp = "21 0200 4142 0500 4344"
        #expect(
            describeATT(rsp) == [
                "opcode=0x21 Read Multiple Variable Response",
                "{tuple", "length=2", "value=4142", "}",
                "{tuple", "length=5", "value=4344", "!value truncated", "}",
            ])
        decodeATT(rsp) {
            guard case .readMultipleVariableResponse(let r) = $0 else {
                Issue.record("\($0)")
                return
            }
            #expect(r.tuples.map(\.isTruncated) == [false, true])
        }
        #expect(
            describeATT("21 0200 4142 05").suffix(2) == ["!a lone byte where a length was expected", "trailing=05"])
    }

    // nil_scan_all_services: Read By Group Type (0x2800, 0x0001-0xFFFF) and its response.
    @Test func readByGroupType() {
        #expect(
            describeATT("10 0100 ffff 0028") == [
                "opcode=0x10 Read By Group Type Request", "starting_handle=0x0001", "ending_handle=0xFFFF",
                "group_type=2800",
            ])
        #expect(describeATT("10 0100 ffff").contains("!ATT PDU too short for its opcode"))
        let rsp = "11 06 0100 0500 0018 0600 0d00 0118"
        #expect(
            describeATT(rsp) == [
                "opcode=0x11 Read By Group Type Response", "length=6",
                "{attribute_data", "handle=0x0001", "end_group_handle=0x0005", "uuid=1800", "}",
                "{attribute_data", "handle=0x0006", "end_group_handle=0x000D", "uuid=1801", "}",
            ])
        decodeATT(rsp) {
            guard case .readByGroupTypeResponse(let r) = $0 else {
                Issue.record("\($0)")
                return
            }
            #expect(r.attributeData.map(\.endGroupHandle) == [0x0005, 0x000D])
        }
        #expect(describeATT("11 03 0100 05").contains("!attribute data list does not match its length"))
    }

    // clean_heart_rate.central frame 92: Write Request 0x0011 = 01 00.
    @Test func writes() {
        #expect(describeATT("12 1100 0100") == ["opcode=0x12 Write Request", "handle=0x0011", "value=0100"])
        #expect(attHandle("12 1100 0100") == 0x0011)
        #expect(describeATT("12 11").contains("!ATT PDU too short for its opcode"))
        #expect(describeATT("13") == ["opcode=0x13 Write Response"])
        #expect(describeATT("13 00").suffix(2) == ["!bytes after the PDU's fields", "trailing=00"])
        #expect(attHandle("13") == nil)
        // oversized_and_unchecked_writes frame 76: Write Command to 0x0012 = 42 42 42 42.
        #expect(describeATT("52 1200 42424242") == ["opcode=0x52 Write Command", "handle=0x0012", "value=42424242"])
        #expect(attHandle("52 1200 42424242") == 0x0012)
        // Signed: value 01 02, counter 7, 8-byte MAC.
        let signed = "d2 1400 0102 07000000 1122334455667788"
        #expect(
            describeATT(signed) == [
                "opcode=0xD2 Signed Write Command", "handle=0x0014", "value=0102", "sign_counter=7",
                "mac=1122334455667788",
            ])
        #expect(attHandle(signed) == 0x0014)
        #expect(describeATT("d2 1400 07000000 11223344556677").contains("!ATT PDU too short for its opcode"))
    }

    // oversized_and_unchecked_writes frames 61-72: Prepare Write 0x0012 at offsets 0/18/36; Execute 0x01.
    @Test func queuedWrites() {
        #expect(
            describeATT("16 1200 1200 cafe") == [
                "opcode=0x16 Prepare Write Request", "handle=0x0012", "offset=18", "value=cafe",
            ])
        #expect(attHandle("16 1200 1200 cafe") == 0x0012)
        #expect(
            describeATT("17 1200 2400 cafe") == [
                "opcode=0x17 Prepare Write Response", "handle=0x0012", "offset=36", "value=cafe",
            ])
        #expect(attHandle("17 1200 2400") == 0x0012)
        #expect(describeATT("16 1200 12").contains("!ATT PDU too short for its opcode"))
        #expect(
            describeATT("18 01") == [
                "opcode=0x18 Execute Write Request", "flags=0x01 Immediately write all pending prepared values",
            ])
        #expect(describeATT("18 00") == ["opcode=0x18 Execute Write Request", "flags=0x00 Cancel all prepared writes"])
        #expect(describeATT("18").contains("!ATT PDU too short for its opcode"))
        #expect(describeATT("19") == ["opcode=0x19 Execute Write Response"])
    }

    // clean_heart_rate.central frame 95: notification 0x0010 = 16 46 6d 03 (70 bpm, RR 877);
    // indications_and_errors frame 75: Service Changed indication 0x0008 = 01 00 ff ff.
    @Test func serverInitiated() {
        #expect(
            describeATT("1b 1000 16466d03") == [
                "opcode=0x1B Handle Value Notification", "handle=0x0010", "value=16466d03",
            ])
        #expect(attHandle("1b 1000 16466d03") == 0x0010)
        #expect(describeATT("1b 10").contains("!ATT PDU too short for its opcode"))
        #expect(
            describeATT("1d 0800 0100ffff") == [
                "opcode=0x1D Handle Value Indication", "handle=0x0008", "value=0100ffff",
            ])
        #expect(attHandle("1d 0800 0100ffff") == 0x0008)
        #expect(describeATT("1e") == ["opcode=0x1E Handle Value Confirmation"])
        #expect(attHandle("1e") == nil)
        let multi = "23 1000 0200 aabb 1600 0100 57"
        #expect(
            describeATT(multi) == [
                "opcode=0x23 Multiple Handle Value Notification",
                "{tuple", "handle=0x0010", "length=2", "value=aabb", "}",
                "{tuple", "handle=0x0016", "length=1", "value=57", "}",
            ])
        #expect(attHandle(multi) == nil)
        #expect(describeATT("23 1000 0500 aabb").contains("!value shorter than its length"))
        #expect(describeATT("23 1000 0200 aabb 16").suffix(2) == ["!bytes after the last tuple", "trailing=16"])
    }

    @Test func unknownAndEmpty() {
        #expect(describeATT("15 0102") == ["opcode=0x15 Unknown", "!unknown ATT opcode", "parameters=0102"])
        decodeATT("15 0102") {
            guard case .unknown(let op, let raw) = $0 else {
                Issue.record("\($0)")
                return
            }
            #expect(op.rawValue == 0x15 && raw.count == 3)
        }
        #expect(attHandle("15 0102") == nil)
        #expect(describeATT("") == ["!empty ATT PDU"])
        decodeATT("") {
            guard case .malformed(let op, _, _) = $0 else {
                Issue.record("\($0)")
                return
            }
            #expect(op == nil)
        }
        #expect(attHandle("") == nil)
    }
}
