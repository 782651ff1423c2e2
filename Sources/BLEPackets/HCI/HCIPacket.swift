import BLEBytes
import CaptureIO

/// An HCI command packet, without its H4 type byte (Core 5.4 Vol 4 Part E 5.4.1).
///
/// Layout: `HCI_Command_Opcode` (u16 LE: OCF in bits 0–9, OGF in bits 10–15),
/// `Parameter_Total_Length` (u8), parameters. The declared length is kept next to what is
/// actually present: a capture may cut a packet short (snap length) or a buggy host may pad it,
/// and either must be visible rather than silently "fixed".
public struct HCICommandPacket: Sendable {
    public let opcode: UInt16
    /// `Parameter_Total_Length` as written in the packet.
    public let declaredLength: Int
    /// The parameters: the declared length's worth, or fewer when the packet is truncated.
    public let parameters: ByteView
    /// Bytes after the declared parameters (empty in a well-formed packet).
    public let trailing: ByteView

    /// Nil only when the 3-byte header itself is incomplete.
    public init?(_ payload: ByteView) {
        guard let opcode = payload.u16le(0), let length = payload.u8(2) else { return nil }
        self.opcode = opcode
        self.declaredLength = Int(length)
        let body = payload.suffix(from: 3) ?? .empty
        self.parameters = body.prefix(Int(length))
        self.trailing = body.suffix(from: parameters.count) ?? .empty
    }

    /// Opcode Group Field (0x01 link control … 0x08 LE, 0x3F vendor).
    @inlinable public var ogf: UInt8 { UInt8(truncatingIfNeeded: opcode >> 10) }
    /// Opcode Command Field.
    @inlinable public var ocf: UInt16 { opcode & 0x03FF }
    /// True when the bytes present do not match `Parameter_Total_Length`.
    @inlinable public var lengthMismatch: Bool { parameters.count != declaredLength || !trailing.isEmpty }
    public var isVendorSpecific: Bool { ogf == 0x3F }

    /// A well-formed packet: the length is the parameters' count, nothing trails.
    public init(opcode: UInt16, parameters: ByteView) {
        self.opcode = opcode
        declaredLength = parameters.count
        self.parameters = parameters
        trailing = .empty
    }
}

extension HCICommandPacket: HCIPacketEncodable {
    public var h4Type: UInt8 { H4PacketType.command }
    /// Writes the packet as it was: the declared length as declared, then the parameters and
    /// any trailing bytes (a decoded packet comes back byte for byte).
    public func append(to w: inout ByteWriter) {
        w.appendUInt16LE(opcode)
        w.appendUInt8(UInt8(truncatingIfNeeded: declaredLength))
        w.appendBytes(parameters)
        w.appendBytes(trailing)
    }

    /// A command with its parameters kept as an array, H4 type first.
    public static func h4Encoded(opcode: UInt16, parameters: [UInt8] = []) -> [UInt8] {
        parameters.withByteView { HCICommandPacket(opcode: opcode, parameters: $0).h4Encoded() }
    }
}

/// An HCI event packet, without its H4 type byte (Core 5.4 Vol 4 Part E 5.4.4).
///
/// Layout: `Event_Code` (u8), `Parameter_Total_Length` (u8), parameters. For LE Meta (0x3E)
/// the first parameter is the subevent code (Vol 4 Part E 7.7.65).
public struct HCIEventPacket: Sendable {
    public static let leMetaCode: UInt8 = HCIEventCode.leMeta

    public let code: UInt8
    public let declaredLength: Int
    public let parameters: ByteView
    public let trailing: ByteView

    public init?(_ payload: ByteView) {
        guard let code = payload.u8(0), let length = payload.u8(1) else { return nil }
        self.code = code
        self.declaredLength = Int(length)
        let body = payload.suffix(from: 2) ?? .empty
        self.parameters = body.prefix(Int(length))
        self.trailing = body.suffix(from: parameters.count) ?? .empty
    }

    @inlinable public var lengthMismatch: Bool { parameters.count != declaredLength || !trailing.isEmpty }

    /// LE Meta subevent code; nil for other events or an LE Meta event with no parameters.
    public var subeventCode: UInt8? { code == Self.leMetaCode ? parameters.u8(0) : nil }

    /// The LE Meta subevent's parameters (after the subevent code); empty otherwise.
    public var subeventParameters: ByteView {
        guard code == Self.leMetaCode else { return .empty }
        return parameters.suffix(from: 1) ?? .empty
    }

    /// A well-formed packet: the length is the parameters' count, nothing trails.
    public init(code: UInt8, parameters: ByteView) {
        self.code = code
        declaredLength = parameters.count
        self.parameters = parameters
        trailing = .empty
    }
}

extension HCIEventPacket: HCIPacketEncodable {
    public var h4Type: UInt8 { H4PacketType.event }
    /// Writes the packet as it was (declared length as declared, trailing bytes kept).
    public func append(to w: inout ByteWriter) {
        w.appendUInt8(code)
        w.appendUInt8(UInt8(truncatingIfNeeded: declaredLength))
        w.appendBytes(parameters)
        w.appendBytes(trailing)
    }
}
