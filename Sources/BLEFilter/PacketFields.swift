import BLEBytes
import BLEPackets
import CaptureIO

/// The fields of `packets`: the JSONL contract's names (docs/jsonl.md), dotted for nested
/// objects (`att.opcode` is `{"att":{"opcode":…}}`).
public enum PacketField: Int, CaseIterable, Sendable {
    case frame, direction, kind, controller, connectionHandle, peer, peerType
    case hci, hciOpcode, hciEvent, hciSubevent, hciName, hciSubeventName, hciCommandOpcode, hciCommand, hciStatus
    case l2cap, l2capCID, l2capLength, l2capFragments
    case att, attOpcode, attName, attHandle, attRequestOpcode, attError, attErrorName, attUUID
    case smp, smpCode, smpName
    case signaling, signalingCode, signalingName
    case mgmt, mgmtOpcode, mgmtEvent, mgmtName
    case ll, llAccessAddress, llChannel, llRSSI, llPDUType, llName, llLLID, llControlOpcode, llLength
    case malformed

    var spec: (String, FilterFieldType, String, String) {
        switch self {
        case .frame: ("frame", .integer, "frame.number", "1-based record number")
        case .direction: ("direction", .name, "hci_h4.direction", "sent, received or unknown")
        case .kind: ("kind", .name, "", "record kind: hci_command, hci_event, acl, ll …")
        case .controller: ("controller", .integer, "hci_mon.adapter_id", "controller index (Linux monitor)")
        case .connectionHandle:
            ("connection_handle", .integer, "bthci_acl.chandle", "ACL/SCO/ISO connection handle")
        case .peer:
            (
                "peer", .address, "bthci_acl.src.bd_addr || bthci_acl.dst.bd_addr",
                "the remote address of an L2CAP frame's connection, when the capture showed it open"
            )
        case .peerType: ("peer_type", .name, "", "public or random, with peer")
        case .hci: ("hci", .presence, "bthci_cmd || bthci_evt", "an HCI command or event")
        case .hciOpcode: ("hci.opcode", .integer, "bthci_cmd.opcode", "command opcode")
        case .hciEvent: ("hci.event", .integer, "bthci_evt.code", "event code")
        case .hciSubevent: ("hci.subevent", .integer, "bthci_evt.le_meta_subevent", "LE Meta subevent")
        case .hciName: ("hci.name", .name, "", "command or event name")
        case .hciSubeventName: ("hci.subevent_name", .name, "", "LE Meta subevent name")
        case .hciCommandOpcode:
            ("hci.command_opcode", .integer, "bthci_evt.opcode", "command answered by Command Complete/Status")
        case .hciCommand: ("hci.command", .name, "", "name of the command answered")
        case .hciStatus: ("hci.status", .integer, "bthci_evt.status", "status of Command Complete/Status")
        case .l2cap: ("l2cap", .presence, "btl2cap", "a complete L2CAP PDU")
        case .l2capCID: ("l2cap.cid", .integer, "btl2cap.cid", "channel")
        case .l2capLength: ("l2cap.length", .integer, "btl2cap.length", "PDU length")
        case .l2capFragments: ("l2cap.fragments", .integer, "", "fragments the PDU came in")
        case .att: ("att", .presence, "btatt", "an ATT PDU")
        case .attOpcode: ("att.opcode", .integer, "btatt.opcode", "ATT opcode")
        case .attName: ("att.name", .name, "", "ATT PDU name (Write Request …)")
        case .attHandle: ("att.handle", .integer, "btatt.handle", "the one attribute handle the PDU carries")
        case .attRequestOpcode:
            ("att.request_opcode", .integer, "btatt.req_opcode_in_error", "Error Response: request in error")
        case .attError: ("att.error", .integer, "btatt.error_code", "Error Response: error code")
        case .attErrorName: ("att.error_name", .name, "", "Error Response: error name")
        case .attUUID:
            (
                "att.uuid", .uuid, "btatt.uuid16 || btatt.uuid128",
                "attribute type of a Read By Type, Read By Group Type or Find By Type Value request"
            )
        case .smp: ("smp", .presence, "btsmp", "an SMP PDU")
        case .smpCode: ("smp.code", .integer, "btsmp.opcode", "SMP code")
        case .smpName: ("smp.name", .name, "", "SMP PDU name")
        case .signaling: ("signaling", .presence, "btl2cap.cmd_code", "an LE signalling PDU")
        case .signalingCode: ("signaling.code", .integer, "btl2cap.cmd_code", "signalling code")
        case .signalingName: ("signaling.name", .name, "", "signalling PDU name")
        case .mgmt: ("mgmt", .presence, "", "a BlueZ management record")
        case .mgmtOpcode: ("mgmt.opcode", .integer, "", "management command opcode")
        case .mgmtEvent: ("mgmt.event", .integer, "", "management event code")
        case .mgmtName: ("mgmt.name", .name, "", "management command or event name")
        case .ll: ("ll", .presence, "btle", "a link-layer (sniffer) record")
        case .llAccessAddress: ("ll.access_address", .integer, "btle.access_address", "access address")
        case .llChannel: ("ll.channel", .integer, "btle_rf.channel", "RF channel index 0–39")
        case .llRSSI: ("ll.rssi", .integer, "btle_rf.signal_dbm", "RSSI in dBm")
        case .llPDUType: ("ll.pdu_type", .integer, "btle.advertising_header.pdu_type", "advertising PDU type")
        case .llName: ("ll.name", .name, "", "advertising PDU or LL Control PDU name")
        case .llLLID: ("ll.llid", .integer, "btle.data_header.llid", "data PDU LLID")
        case .llControlOpcode: ("ll.control_opcode", .integer, "btle.control_opcode", "LL Control opcode")
        case .llLength: ("ll.length", .integer, "btle.data_header.length", "data PDU payload length")
        case .malformed: ("malformed", .presence, "_ws.malformed", "some layer could not be decoded")
        }
    }

    /// Every field, and `conn` for `connection_handle`, `uuid` for `att.uuid`.
    public static let table = FilterFieldTable(
        fields: allCases.map { f in
            let (name, type, tshark, help) = f.spec
            return FilterField(name: name, type: type, id: f.rawValue, tshark: tshark, help: help)
        }, aliases: ["conn": "connection_handle", "uuid": "att.uuid"])
}

/// A decoded frame as a filter reads it. The ATT PDU is decoded again only for the fields that
/// need its parameters (`att.error`, `att.uuid`): a filter on opcodes and handles reads bytes.
public struct PacketSubject: FilterSubject {
    public let frame: DecodedFrame
    /// The open connections' peers (`packets` keeps the table): `peer` and `peer_type` read it,
    /// as the JSONL line does; without it they are absent.
    public let peers: ConnectionPeers?
    @inlinable public init(_ frame: DecodedFrame, peers: ConnectionPeers? = nil) {
        self.frame = frame
        self.peers = peers
    }

    public func value(_ id: Int) -> FilterValue? {
        guard let field = PacketField(rawValue: id) else { return nil }
        let r = frame.record
        switch field {
        case .frame: return .int(Int64(r.frame))
        case .direction:
            switch r.direction {
            case .sent: return .name("sent")
            case .received: return .name("received")
            case .unknown: return .name("unknown")
            }
        case .kind: return .name(r.kind.name)
        case .controller: return .int(Int64(r.controllerIndex))
        case .connectionHandle: return frame.connectionHandle.map { .int(Int64($0)) }
        case .peer, .peerType:
            // As the JSONL line: only frames with an L2CAP PDU name their peer.
            guard frame.l2cap != nil, let p = peers?.peer(of: frame) else { return nil }
            if field == .peer { return .address(p.address) }
            return .name(p.isRandom ? "random" : "public")
        case .hci, .hciOpcode, .hciEvent, .hciSubevent, .hciName, .hciSubeventName, .hciCommandOpcode, .hciCommand,
            .hciStatus:
            return hci(field)
        case .l2cap: return frame.l2cap == nil ? nil : .present
        case .l2capCID: return frame.l2cap.map { .int(Int64($0.channel)) }
        case .l2capLength: return frame.l2cap.map { .int(Int64($0.length)) }
        case .l2capFragments: return frame.l2cap.map { .int(Int64($0.fragmentCount)) }
        case .att, .attOpcode, .attName, .attHandle, .attRequestOpcode, .attError, .attErrorName, .attUUID:
            return att(field)
        case .smp, .smpCode, .smpName: return channelCode(L2CAPChannel.smp, field)
        case .signaling, .signalingCode, .signalingName: return channelCode(L2CAPChannel.leSignaling, field)
        case .mgmt, .mgmtOpcode, .mgmtEvent, .mgmtName: return mgmt(field)
        case .ll, .llAccessAddress, .llChannel, .llRSSI, .llPDUType, .llName, .llLLID, .llControlOpcode, .llLength:
            return linkLayer(field)
        case .malformed: return isMalformed ? .present : nil
        }
    }

    var isMalformed: Bool {
        switch frame.layer {
        case .malformed: return true
        case .linkLayer(let ll): if case .truncated = ll.pdu { return true }
        default: break
        }
        if case .malformed? = frame.reassembly { return true }
        if let p = frame.attPayload, case .malformed = ATTPDU(p) { return true }
        return false
    }

    func hci(_ field: PacketField) -> FilterValue? {
        switch frame.layer {
        case .command(let c):
            switch field {
            case .hci: return .present
            case .hciOpcode: return .int(Int64(c.opcode))
            case .hciName: return .name(HCICommands.name(for: c.opcode))
            default: return nil
            }
        case .event(let e):
            switch field {
            case .hci: return .present
            case .hciEvent: return .int(Int64(e.code))
            case .hciName: return .name(HCIEvents.name(for: e.code))
            case .hciSubevent: return e.subeventCode.map { .int(Int64($0)) }
            case .hciSubeventName: return e.subeventCode.map { .name(HCIEvents.leSubeventName(for: $0)) }
            case .hciCommandOpcode, .hciCommand, .hciStatus:
                var answered: (UInt16, UInt8)?
                if e.code == HCICommandComplete.code, let cc = HCICommandComplete(parameters: e.parameters) {
                    answered = (cc.opcode, cc.status ?? 0)
                } else if e.code == HCICommandStatus.code, let cs = HCICommandStatus(parameters: e.parameters) {
                    answered = (cs.opcode, cs.status)
                }
                guard let (op, status) = answered else { return nil }
                if field == .hciCommandOpcode { return .int(Int64(op)) }
                if field == .hciCommand { return .name(HCICommands.name(for: op)) }
                return .int(Int64(status))
            default: return nil
            }
        default: return nil
        }
    }

    func att(_ field: PacketField) -> FilterValue? {
        guard let p = frame.attPayload, let op = ATTPDUHeader(p)?.opcode else { return nil }
        switch field {
        case .att: return .present
        case .attOpcode: return .int(Int64(op))
        case .attName: return .name(ATTOpcode(op).name)
        case .attHandle: return ATTPDU.handle(of: p).map { .int(Int64($0)) }
        case .attRequestOpcode, .attError, .attErrorName:
            guard case .errorResponse(let e) = ATTPDU(p) else { return nil }
            if field == .attRequestOpcode { return .int(Int64(e.requestOpcode.rawValue)) }
            if field == .attError { return .int(Int64(e.errorCode)) }
            return ATTErrorCode.name(e.errorCode).map { .name($0) }
        case .attUUID:
            switch ATTPDU(p) {
            case .readByTypeRequest(let r): return r.attributeType.map { .uuid($0) }
            case .readByGroupTypeRequest(let r): return r.groupType.map { .uuid($0) }
            case .findByTypeValueRequest(let r): return .uuid(BluetoothUUID(uuid16: r.attributeType))
            default: return nil
            }
        default: return nil
        }
    }

    func channelCode(_ channel: UInt16, _ field: PacketField) -> FilterValue? {
        guard let pdu = frame.l2cap, pdu.channel == channel,
            let code = channel == L2CAPChannel.smp
                ? SMPCode.code(of: pdu.payload) : L2CAPSignalingCode.code(of: pdu.payload)
        else { return nil }
        switch field {
        case .smp, .signaling: return .present
        case .smpCode, .signalingCode: return .int(Int64(code))
        case .smpName: return .name(SMPCode.name(code))
        case .signalingName: return .name(L2CAPSignalingCode.name(code))
        default: return nil
        }
    }

    func mgmt(_ field: PacketField) -> FilterValue? {
        if let c = frame.managementCommand {
            switch field {
            case .mgmt: return .present
            case .mgmtOpcode: return .int(Int64(c.opcode))
            case .mgmtName: return .name(c.name)
            default: return nil
            }
        }
        if let e = frame.managementEvent {
            switch field {
            case .mgmt: return .present
            case .mgmtEvent: return .int(Int64(e.code))
            case .mgmtName: return .name(e.name)
            default: return nil
            }
        }
        return nil
    }

    func linkLayer(_ field: PacketField) -> FilterValue? {
        guard let ll = frame.linkLayer else { return nil }
        let radio = frame.record.radio
        switch field {
        case .ll: return .present
        case .llAccessAddress: return .int(Int64(radio.accessAddress))
        case .llChannel: return radio.channel == 0xFF ? nil : .int(Int64(radio.channel))
        case .llRSSI: return radio.flags.contains(.rssiValid) ? .int(Int64(radio.rssi)) : nil
        case .llPDUType: return ll.advertising.map { .int(Int64($0.pduType)) }
        case .llName:
            if let a = ll.advertising { return .name(a.name(secondary: radio.channel < 37)) }
            return ll.control.map { .name($0.name) }
        case .llLLID: return ll.data.map { .int(Int64($0.llid)) }
        case .llControlOpcode: return ll.control.map { .int(Int64($0.opcode)) }
        case .llLength: return ll.data.map { .int(Int64($0.length)) }
        default: return nil
        }
    }
}
