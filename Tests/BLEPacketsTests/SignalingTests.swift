import BLEBytes
import BLEPackets
import Testing

func describeSignaling(_ hex: String, le: Bool = true) -> [String] {
    let sink = RecordingSink()
    Hex.bytes(hex)!.withByteView { L2CAPSignalingCommands($0, le: le).describe(into: sink) }
    return sink.lines
}

func describeL2CAP(_ aclPayloadHex: String) -> [String] {
    let sink = RecordingSink()
    let r = L2CAPReassembler()
    Hex.bytes(aclPayloadHex)!.withByteView { v in
        if case .complete(let pdu) = r.feed(HCIACLPacket(v)!, frame: 1, direction: .received) {
            L2CAPPayload.describe(pdu, into: sink)
        }
    }
    return sink.lines
}

@Suite struct SignalingTests {
    // long_notify_stream.central frame 35 (ACL payload after the H4 byte): CID 0x0005,
    // Connection Parameter Update Request id 1, interval 6–9 (7.5–11.25 ms), latency 0,
    // timeout 400 (4 s).
    @Test func bumbleConnectionParameterUpdate() {
        #expect(
            describeL2CAP("0120 1000 0c00 0500 12 01 0800 0600 0900 0000 9001") == [
                "length=12", "cid=0x0005 LE L2CAP Signaling", "{signaling", "{command",
                "code=0x12 Connection Parameter Update Request", "identifier=1", "length=8",
                "interval_min=7500us", "interval_max=11250us", "latency=0", "timeout=4000000us", "}", "}",
            ])
        Hex.bytes("12 01 0800 0600 0900 0000 9001")!.withByteView { v in
            guard let c = L2CAPSignalingCommands(v, le: true).first,
                let u = L2CAPConnectionParameterUpdateRequest(data: c.data)
            else {
                Issue.record("no command")
                return
            }
            #expect(c.code == 0x12 && c.identifier == 1 && !c.isTruncated)
            #expect(u.intervalMin == 6 && u.intervalMax == 9 && u.latency == 0 && u.timeout == 400)
        }
        // Frame 36: the response, result 0x0000 Accepted.
        #expect(
            describeSignaling("13 01 0200 0000") == [
                "{command", "code=0x13 Connection Parameter Update Response", "identifier=1", "length=2",
                "result=0x0000 Accepted", "}",
            ])
        #expect(describeSignaling("13 01 0200 0100").contains("result=0x0001 Rejected"))
    }

    @Test func truncatedAndShortCommands() {
        // Length says 8, only 6 bytes: decoded fields missing -> raw + notes.
        #expect(
            describeSignaling("12 01 0800 0600 0900 0000") == [
                "{command", "code=0x12 Connection Parameter Update Request", "identifier=1", "length=8",
                "!signaling command shorter than its length", "!signaling command too short", "data=060009000000",
                "}",
            ])
        // Fewer than 4 bytes: no command, everything trailing.
        #expect(describeSignaling("12 01 08") == ["!signaling bytes after the last command", "trailing=120108"])
        #expect(
            describeSignaling("ee 02 0100 ff") == [
                "{command", "code=0xEE Unknown", "identifier=2", "length=1", "data=ff", "}",
            ])
    }

    @Test func commandReject() {
        #expect(
            describeSignaling("01 05 0200 0000") == [
                "{command", "code=0x01 Command Reject", "identifier=5", "length=2",
                "reason=0x0000 Command not understood", "}",
            ])
        #expect(describeSignaling("01 05 0400 0100 1700").contains("actual_mtu=23"))
        let cid = describeSignaling("01 05 0600 0200 4000 4100")
        #expect(cid.contains("local_cid=0x0040") && cid.contains("remote_cid=0x0041"))
    }

    @Test func disconnection() {
        #expect(
            describeSignaling("06 07 0400 4000 4100").suffix(3) == ["destination_cid=0x0040", "source_cid=0x0041", "}"])
        #expect(describeSignaling("07 07 0400 4000 4100").contains("code=0x07 Disconnection Response"))
        #expect(describeSignaling("06 07 0200 4000").contains("!signaling command too short"))
    }

    @Test func leCreditBased() {
        // SPSM 0x0080, SCID 0x0040, MTU 512, MPS 247, 10 credits.
        #expect(
            describeSignaling("14 02 0a00 8000 4000 0002 f700 0a00") == [
                "{command", "code=0x14 LE Credit Based Connection Request", "identifier=2", "length=10",
                "spsm=0x0080", "source_cid=0x0040", "mtu=512", "mps=247", "initial_credits=10", "}",
            ])
        #expect(
            describeSignaling("15 02 0a00 4100 0002 f700 0a00 0000").contains("result=0x0000 Connection successful"))
        #expect(
            describeSignaling("15 02 0a00 0000 0000 0000 0000 0500").contains(
                "result=0x0005 Insufficient authentication"))
        #expect(describeSignaling("15 02 0800 4100 0002 f700 0a00").contains("!signaling command too short"))
        #expect(describeSignaling("16 03 0400 4000 0500").suffix(3) == ["cid=0x0040", "credits=5", "}"])
    }

    @Test func enhancedCreditBased() {
        let req = describeSignaling("17 04 0c00 8000 0002 f700 0a00 4000 4100")
        #expect(req.contains("code=0x17 Credit Based Connection Request"))
        #expect(req.filter { $0.hasPrefix("source_cid=") } == ["source_cid=0x0040", "source_cid=0x0041"])
        let rsp = describeSignaling("18 04 0c00 0002 f700 0a00 0d00 4200 4300")
        #expect(rsp.contains("result=0x000D Pending, no further information"))
        #expect(
            rsp.filter { $0.hasPrefix("destination_cid=") } == ["destination_cid=0x0042", "destination_cid=0x0043"])
        #expect(describeSignaling("17 04 0b00 8000 0002 f700 0a00 4000 41").contains("!CID list has an odd length"))
        let reconf = describeSignaling("19 05 0600 0002 f700 4200")
        #expect(
            reconf.contains("code=0x19 Credit Based Reconfigure Request") && reconf.contains("destination_cid=0x0042"))
        #expect(describeSignaling("1a 05 0200 0100").contains("result=0x0001 Reduction in size of MTU not allowed"))
    }

    @Test func brEdrFramesMayHoldSeveralCommands() {
        let lines = describeSignaling("0a 01 0200 0200 0a 02 0200 0300", le: false)
        #expect(lines.filter { $0 == "code=0x0A Information Request" }.count == 2)
    }

    @Test func channelNamesAndDispatch() {
        #expect("\(L2CAPChannel.name(0x0004))" == "Attribute Protocol")
        #expect("\(L2CAPChannel.name(0x0005))" == "LE L2CAP Signaling")
        #expect("\(L2CAPChannel.name(0x0006))" == "Security Manager Protocol")
        #expect("\(L2CAPChannel.name(0x0001))" == "L2CAP Signaling")
        #expect("\(L2CAPChannel.name(0x0040))" == "Dynamic")
        #expect("\(L2CAPChannel.name(0xFFFF))" == "Dynamic")
        #expect("\(L2CAPChannel.name(0x0010))" == "Reserved")
        Hex.bytes("1b 1000 16466d03")!.withByteView { v in
            guard case .att(.handleValueNotification(let n)) = L2CAPPayload(channel: 4, payload: v) else {
                Issue.record("not ATT")
                return
            }
            #expect(n.handle == 0x0010)
            guard case .other(let cid, let p) = L2CAPPayload(channel: 0x0041, payload: v) else {
                Issue.record("not other")
                return
            }
            #expect(cid == 0x0041 && p.count == 7)
        }
        Hex.bytes("0b 00")!.withByteView { v in
            guard case .smp(.securityRequest) = L2CAPPayload(channel: 6, payload: v) else {
                Issue.record("not SMP")
                return
            }
        }
        Hex.bytes("13 01 0200 0000")!.withByteView { v in
            guard case .signaling(let s) = L2CAPPayload(channel: 5, payload: v) else {
                Issue.record("not sig")
                return
            }
            #expect(s.isLE && s.first?.code == 0x13)
        }
        // Fragmented ATT described through the dispatcher: header, fragments, ATT fields.
        #expect(
            describeL2CAP("0120 0700 0300 0400 0a 1300") == [
                "length=3", "cid=0x0004 Attribute Protocol", "{att", "opcode=0x0A Read Request", "handle=0x0013", "}",
            ])
        #expect(describeL2CAP("0120 0600 0200 4000 aabb") == ["length=2", "cid=0x0040 Dynamic", "payload=aabb"])
    }
}
