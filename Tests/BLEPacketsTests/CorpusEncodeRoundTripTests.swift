import BLEBytes
import BLEPackets
import CaptureIO
import TestSupport
import Testing

/// encode(decode(bytes)) == bytes for every HCI packet, typed HCI command and event, ACL packet,
/// L2CAP basic frame, ATT PDU and SMP command of the corpus (HCI and link-layer captures): the
/// generic packet types byte for byte, and the typed PDUs whenever the bytes are exactly the
/// fields the type decodes.
///
/// What a type cannot give back is counted, not hidden: bytes after a fixed-size PDU's fields
/// (decoders ignore them, `describe` notes them), packets whose declared length disagrees with
/// their bytes, fragment sizes that no single buffer size produces.
@Suite struct CorpusEncodeRoundTripTests {
    struct Tally {
        var exact: [String: Int] = [:]
        var skipped: [String: Int] = [:]
        var failures: [String] = []

        /// `encoded` must equal `original`; when `exactFields` is false (the bytes carry more
        /// or less than the type's fields) a difference is counted under `reason` instead.
        mutating func check(
            _ kind: String, _ encoded: [UInt8], _ original: [UInt8], where place: String,
            exactFields: Bool = true, reason: String = ""
        ) {
            if encoded == original {
                exact[kind, default: 0] += 1
            } else if !exactFields {
                skipped["\(kind): \(reason)", default: 0] += 1
            } else if failures.count < 20 {
                failures.append(
                    "\(kind) at \(place): \(Hex.string(original.prefix(40))) re-encoded as \(Hex.string(encoded.prefix(40)))"
                )
            } else {
                failures.append("…")
            }
        }
    }

    /// Fragments of the L2CAP PDU being reassembled on one stream.
    struct Stream {
        var first: HCIACLPacket.BoundaryFlag
        var packets: [[UInt8]]
        var data: [UInt8]
    }

    @Test func everyPDUInTheCorpusEncodesBackToItsBytes() throws {
        var t = Tally()
        var files = 0
        for folder in ["bumble", "formats", "public"] {
            for path in Fixtures.captures(in: folder) {
                let reader = try CaptureFile.open(path: path)
                files += 1
                walk(reader, Fixtures.relative(path), &t)
            }
        }
        let summary =
            (t.exact.sorted { $0.key < $1.key }.map { "  \($0.key): \($0.value)" }
            + ["not comparable:"] + t.skipped.sorted { $0.key < $1.key }.map { "  \($0.key): \($0.value)" })
            .joined(separator: "\n")
        print(
            "encode(decode(bytes)) == bytes over \(files) captures:\n\(summary)"
        )
        #expect(t.failures.isEmpty, "\(t.failures.joined(separator: "\n"))")
        #expect(files >= 30)
        // Every kind the corpus carries was exercised.
        for kind in [
            "HCI command packet", "HCI event packet", "ACL data packet", "L2CAP basic frame",
            "HCI Command Complete", "HCI Command Status", "HCI Number Of Completed Packets",
            "HCI LE Advertising Report",
            // The typed events of scripts/pdu/hci_events.py the corpus holds, by the names
            // `packets` gives them.
            "HCI Disconnect Complete", "HCI Encryption Change", "HCI Encryption Change [v2]",
            "HCI Read Remote Version Information Complete", "HCI LE Connection Complete",
            "HCI LE Enhanced Connection Complete", "HCI LE Connection Update Complete",
            "HCI LE Read Remote Features Complete", "HCI LE Long Term Key Request", "HCI LE Data Length Change",
            "HCI LE PHY Update Complete", "HCI LE Advertising Set Terminated",
            "HCI Disconnect", "HCI LE Create Connection", "HCI LE Set Scan Parameters", "HCI LE Set Scan Enable",
            "HCI LE Set Extended Advertising Enable", "HCI LE Set Extended Scan Parameters",
            "ACL fragmentation of a multi-fragment PDU",
            "ATT Read Request", "ATT Read Response", "ATT Write Request", "ATT Write Response",
            "ATT Handle Value Notification", "ATT Error Response", "ATT Exchange MTU Request",
            "ATT Read By Group Type Response", "ATT Read By Type Response", "ATT Find Information Response",
            "LL advertising PDU", "LL CONNECT_IND LLData", "LL data PDU", "LL Control PDU",
            // The SMP commands these folders hold (Pairing Failed, Security Request and Keypress
            // Notification only SMPPDUGenerationTests' bytes).
            "SMP Pairing Request", "SMP Pairing Response", "SMP Pairing Confirm", "SMP Pairing Random",
            "SMP Encryption Information", "SMP Central Identification", "SMP Identity Information",
            "SMP Identity Address Information", "SMP Signing Information", "SMP Pairing Public Key",
            "SMP Pairing DHKey Check",
        ] {
            #expect((t.exact[kind] ?? 0) > 0, "no \(kind) round-tripped")
        }
    }

    func walk(_ reader: any CaptureReader, _ file: String, _ t: inout Tally) {
        let decoder = FrameDecoder()
        var streams: [String: Stream] = [:]
        while let r = reader.next() {
            let frame = decoder.decode(r)
            let place = "\(file)#\(r.frame)"
            let original = r.payload.toArray()
            switch frame.layer {
            case .command(let c):
                t.check("HCI command packet", c.encoded(), original, where: place)
                if !c.lengthMismatch { typedCommand(c, original, place, &t) }
            case .event(let e):
                t.check("HCI event packet", e.encoded(), original, where: place)
                if !e.lengthMismatch { typedEvent(e, original, place, &t) }
            case .acl(let acl):
                t.check("ACL data packet", acl.encoded(), original, where: place)
                let key = "\(r.controllerIndex)/\(acl.handle)/\(r.direction)"
                if acl.boundary.isStart {
                    streams[key] = Stream(first: acl.boundary, packets: [acl.h4Encoded()], data: acl.data.toArray())
                } else {
                    streams[key]?.packets.append(acl.h4Encoded())
                    streams[key]?.data += acl.data.toArray()
                }
                guard case .complete(let pdu)? = frame.reassembly else { continue }
                let basic = L2CAPBasicFrame(channel: pdu.channel, payload: pdu.payload)
                if let s = streams[key], s.packets.count == pdu.fragmentCount {
                    t.check("L2CAP basic frame", basic.encoded(), s.data, where: place)
                    if pdu.fragmentCount > 1 {
                        let size = s.packets[0].count - 5
                        let uniform = s.packets.dropLast().allSatisfy { $0.count - 5 == size }
                        t.check(
                            "ACL fragmentation of a multi-fragment PDU",
                            basic.aclPackets(handle: acl.handle, first: s.first, bufferSize: size).flatMap { $0 },
                            s.packets.flatMap { $0 }, where: place, exactFields: uniform,
                            reason: "fragments of different sizes")
                    }
                }
                streams[key] = nil
                if pdu.channel == L2CAPChannel.att { att(pdu.payload, place, &t) }
                if pdu.channel == L2CAPChannel.smp { smp(pdu.payload, place, &t) }
            case .linkLayer(let ll):
                switch ll.pdu {
                case .advertising(let a) where a.isComplete:
                    t.check("LL advertising PDU", a.encoded(), ll.bytes.toArray(), where: place)
                    if let c = a.connectIndication {
                        t.check("LL CONNECT_IND LLData", c.encoded(), Array(a.payload.toArray()[12..<34]), where: place)
                    }
                case .data(let d) where d.isComplete:
                    t.check("LL data PDU", d.encoded(), ll.bytes.toArray(), where: place)
                    if let c = ll.control { t.check("LL Control PDU", c.encoded(), d.payload.toArray(), where: place) }
                default: break
                }
                if let pdu = frame.l2cap, pdu.channel == L2CAPChannel.att { att(pdu.payload, place, &t) }
                if let pdu = frame.l2cap, pdu.channel == L2CAPChannel.smp { smp(pdu.payload, place, &t) }
            case .other, .malformed:
                break
            }
        }
    }

    func att(_ bytes: ByteView, _ place: String, _ t: inout Tally) {
        let pdu = ATTPDU(bytes)
        guard pdu.undecodedBytes == nil, let op = ATTPDU.opcode(of: bytes) else {
            t.skipped["ATT: unknown opcode or too short for its opcode (kept raw)", default: 0] += 1
            return
        }
        let fixed = op.entry?.fixedParameterLength
        let extra = fixed.map { bytes.count > 1 + $0 } ?? false
        t.check(
            "ATT \(op.name)", pdu.encoded(), bytes.toArray(), where: place, exactFields: !extra,
            reason: "bytes after the fixed fields (the decoder ignores them)")
    }

    /// The SMP commands, generated from scripts/pdu/smp_pdus.py: every one encodes back.
    func smp(_ bytes: ByteView, _ place: String, _ t: inout Tally) {
        guard let command = SMPPDU(bytes).command, let code = SMPCode.code(of: bytes), let e = SMPCode.entry(code)
        else {
            t.skipped["SMP: unknown code or too short for its code (kept raw)", default: 0] += 1
            return
        }
        t.check(
            "SMP \(e.name)", command.encoded(), bytes.toArray(), where: place,
            exactFields: bytes.count == 1 + e.parameterLength,
            reason: "bytes after the fixed fields (the decoder ignores them)")
    }

    func typedCommand(_ c: HCICommandPacket, _ original: [UInt8], _ place: String, _ t: inout Tally) {
        let p = c.parameters
        func check(_ name: String, _ e: (any HCICommandEncodable)?, handleAt: Int? = nil) {
            guard let e else { return }
            let encoded = e.encoded()
            if let h = handleAt.flatMap({ original.u16le($0) }), h & ~HCIConnectionHandle.mask != 0 {
                t.check(
                    "HCI \(name)", encoded, original, where: place, exactFields: false,
                    reason: "Connection_Handle with reserved bits set (decoded as 12 bits)")
                return
            }
            t.check(
                "HCI \(name)", encoded, original, where: place, exactFields: encoded.count == original.count,
                reason: "parameters longer than the command's fields")
        }
        switch c.opcode {
        case HCIOpcode.disconnect: check("Disconnect", HCIDisconnect(parameters: p), handleAt: 3)
        case HCIOpcode.leSetScanParameters: check("LE Set Scan Parameters", HCILESetScanParameters(parameters: p))
        case HCIOpcode.leSetScanEnable: check("LE Set Scan Enable", HCILESetScanEnable(parameters: p))
        case HCIOpcode.leSetExtendedScanParameters:
            check("LE Set Extended Scan Parameters", HCILESetExtendedScanParameters(parameters: p))
        case HCIOpcode.leSetExtendedScanEnable:
            check("LE Set Extended Scan Enable", HCILESetExtendedScanEnable(parameters: p))
        case HCIOpcode.leCreateConnection: check("LE Create Connection", HCILECreateConnection(parameters: p))
        // Every other typed command, those with repeated blocks included, generated from
        // scripts/pdu/hci_commands.py.
        default:
            check("\(HCICommands.name(for: c.opcode))", HCITypedCommands.decode(opcode: c.opcode, parameters: p))
        }
    }

    func typedEvent(_ e: HCIEventPacket, _ original: [UInt8], _ place: String, _ t: inout Tally) {
        let p = e.parameters
        /// `handleAt`: where a Connection_Handle sits in the bytes; the decoders keep its 12
        /// bits (7.7), so a controller's 0xFFFF in a failed connection's event cannot come back.
        func check(_ name: String, _ typed: (any HCIEventEncodable)?, handleAt: Int? = nil) {
            guard let typed else { return }
            let encoded = typed.encoded()
            if let h = handleAt.flatMap({ original.u16le($0) }), h & ~HCIConnectionHandle.mask != 0 {
                t.check(
                    "HCI \(name)", encoded, original, where: place, exactFields: false,
                    reason: "Connection_Handle with reserved bits set (decoded as 12 bits)")
                return
            }
            t.check(
                "HCI \(name)", encoded, original, where: place, exactFields: encoded.count == original.count,
                reason: "parameters longer than the event's fields")
        }
        switch e.code {
        case HCIEventCode.commandComplete: check("Command Complete", HCICommandComplete(parameters: p))
        case HCIEventCode.commandStatus: check("Command Status", HCICommandStatus(parameters: p))
        case HCIEventCode.numberOfCompletedPackets:
            let n = HCINumberOfCompletedPackets(parameters: p)
            check("Number Of Completed Packets", n?.isComplete == true ? n : nil)
        case HCIEventCode.leMeta:
            let s = e.subeventParameters
            switch e.subeventCode {
            case HCILESubeventCode.advertisingReport:
                check("LE Advertising Report", HCILEAdvertisingReport(parameters: s))
            case HCILESubeventCode.extendedAdvertisingReport:
                check("LE Extended Advertising Report", HCILEExtendedAdvertisingReport(parameters: s))
            // Every typed subevent, generated from scripts/pdu/hci_events.py.
            case let sub?:
                let row = HCITypedEvents.leFullLengths.first { $0.subevent == sub }
                check(
                    "\(HCIEvents.leSubeventName(for: sub))", HCITypedEvents.decodeLE(subevent: sub, parameters: s),
                    handleAt: row?.handleOffset.map { $0 + 3 })
            default: break
            }
        // Every typed event, generated from scripts/pdu/hci_events.py.
        default:
            let row = HCITypedEvents.fullLengths.first { $0.code == e.code }
            check(
                "\(HCIEvents.name(for: e.code))", HCITypedEvents.decode(code: e.code, parameters: p),
                handleAt: row?.handleOffset.map { $0 + 2 })
        }
    }
}
