/// H4 (UART) packet-type bytes (Core 5.4 Vol 4 Part A 2), the first byte of btsnoop 1002 and
/// pcap 201 records.
public enum H4PacketType {
    public static let command: UInt8 = 0x01
    public static let acl: UInt8 = 0x02
    public static let sco: UInt8 = 0x03
    public static let event: UInt8 = 0x04
    public static let iso: UInt8 = 0x05
}

/// Mappings from container type codes to `RecordKind`, shared by every reader so that the same
/// packet gets the same kind whatever file it came in.
public enum HCIPacketKinds {
    /// H4 (UART) packet-type byte → kind. Core Vol 4 Part A 2: 0x01 command, 0x02 ACL,
    /// 0x03 SCO, 0x04 event, 0x05 ISO.
    @inlinable public static func kind(h4Type: UInt8) -> RecordKind {
        switch h4Type {
        case H4PacketType.command: .hciCommand
        case H4PacketType.acl: .aclData
        case H4PacketType.sco: .scoData
        case H4PacketType.event: .hciEvent
        case H4PacketType.iso: .isoData
        default: .unknown
        }
    }

    /// Kind → H4 packet-type byte, the inverse of `kind(h4Type:)`: nil for a record that is no
    /// HCI packet (notes, index events, link-layer PDUs).
    @inlinable public static func h4Type(of kind: RecordKind) -> UInt8? {
        switch kind {
        case .hciCommand: H4PacketType.command
        case .aclData: H4PacketType.acl
        case .scoData: H4PacketType.sco
        case .hciEvent: H4PacketType.event
        case .isoData: H4PacketType.iso
        default: nil
        }
    }

    /// Linux monitor opcode (btsnoop 2001 flags low 16 bits, pcap 254 header) → kind and
    /// direction, as BlueZ's `monitor/bt.h` defines them (BTSNOOP_OPCODE_*).
    @inlinable public static func kind(monitorOpcode: UInt16) -> (RecordKind, Direction) {
        switch monitorOpcode {
        case 0: (.indexNew, .unknown)
        case 1: (.indexDelete, .unknown)
        case 2: (.hciCommand, .sent)
        case 3: (.hciEvent, .received)
        case 4: (.aclData, .sent)
        case 5: (.aclData, .received)
        case 6: (.scoData, .sent)
        case 7: (.scoData, .received)
        case 8: (.indexOpen, .unknown)
        case 9: (.indexClose, .unknown)
        case 10: (.indexInfo, .unknown)
        case 11: (.vendorDiagnostic, .received)
        case 12: (.systemNote, .unknown)
        case 13: (.userLogging, .unknown)
        case 14: (.controlOpen, .unknown)
        case 15: (.controlClose, .unknown)
        case 16: (.controlCommand, .sent)
        case 17: (.controlEvent, .received)
        case 18: (.isoData, .sent)
        case 19: (.isoData, .received)
        default: (.unknown, .unknown)
        }
    }
}
