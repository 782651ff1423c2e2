import BLEBytes
import CaptureIO

/// An HCI ACL data packet (Core 5.4 Vol 4 Part E 5.4.2), as carried after the H4 type byte.
///
/// Header: Handle (12 bits) | PB flag (2 bits) | BC flag (2 bits) as one little-endian u16,
/// then Data Total Length (u16 LE), then the data. The declared length is kept next to the
/// bytes actually present because captures cut by a snap length, or written by buggy
/// stacks, disagree with it; `data` is what can be trusted: at most the declared length.
public struct HCIACLPacket: @unchecked Sendable {
    /// Packet_Boundary_Flag (Vol 4 Part E 5.4.2). For LE, hosts send `firstNonFlushable` and
    /// controllers deliver `firstFlushable`; `complete` only appears on BR/EDR-AMP era stacks.
    public enum BoundaryFlag: UInt8, Sendable {
        case firstNonFlushable = 0b00
        case continuing = 0b01
        case firstFlushable = 0b10
        case complete = 0b11

        /// Whether this fragment opens a new L2CAP PDU.
        @inlinable public var isStart: Bool { self != .continuing }

        public var name: StaticString {
            switch self {
            case .firstNonFlushable: "First Non-Automatically-Flushable"
            case .continuing: "Continuing Fragment"
            case .firstFlushable: "First Automatically Flushable"
            case .complete: "Complete L2CAP PDU"
            }
        }
    }

    /// Connection handle, 0x000–0xEFF valid (0xF00–0xFFF reserved, kept as sent).
    public let handle: UInt16
    public let boundary: BoundaryFlag
    /// Broadcast_Flag: always 0b00 on LE; other values are kept for reporting.
    public let broadcast: UInt8
    /// Data_Total_Length as written in the header.
    public let declaredLength: UInt16
    /// The data bytes: the declared length, or fewer when the record was cut short.
    public let data: ByteView
    /// Bytes after the declared length (a stack or capture bug); normally empty.
    public let trailing: ByteView

    /// Parses `payload` (the record payload without its H4 type byte). Fails only when the
    /// 4-byte header itself is missing.
    public init?(_ payload: ByteView) {
        guard let hf = payload.u16le(0), let length = payload.u16le(2) else { return nil }
        handle = hf & 0x0FFF
        boundary = BoundaryFlag(rawValue: UInt8(truncatingIfNeeded: hf >> 12) & 0b11)!
        broadcast = UInt8(truncatingIfNeeded: hf >> 14)
        declaredLength = length
        let body = payload.suffix(from: 4) ?? .empty
        data = body.prefix(Int(length))
        trailing = body.suffix(from: data.count) ?? .empty
    }

    /// A well-formed packet: Data_Total_Length is the data's count, nothing trails. The handle
    /// keeps its low 12 bits, `broadcast` its low 2.
    public init(handle: UInt16, boundary: BoundaryFlag, broadcast: UInt8 = 0, data: ByteView) {
        self.handle = handle & 0x0FFF
        self.boundary = boundary
        self.broadcast = broadcast & 0b11
        declaredLength = UInt16(truncatingIfNeeded: data.count)
        self.data = data
        trailing = .empty
    }

    /// Whether the declared length disagrees with the bytes present.
    @inlinable public var lengthMismatch: Bool { data.count != Int(declaredLength) || !trailing.isEmpty }

    /// Header fields and the mismatch note; the data is left to the L2CAP layer.
    public func describe(into sink: FieldSink) {
        sink.field("handle", .hex(UInt64(handle), digits: 4))
        sink.field("packet_boundary_flag", .code(UInt64(boundary.rawValue), digits: 1, name: boundary.name))
        sink.field("broadcast_flag", .uint(UInt64(broadcast)))
        sink.field("data_total_length", .uint(UInt64(declaredLength)))
        if data.count < Int(declaredLength) { sink.note("ACL data shorter than its declared length") }
        if !trailing.isEmpty {
            sink.note("ACL data longer than its declared length")
            sink.field("trailing", .bytes(trailing))
        }
    }
}

extension HCIACLPacket: HCIPacketEncodable {
    public var h4Type: UInt8 { H4PacketType.acl }
    /// Writes the header (handle, PB and BC flags; Data_Total_Length as declared), the data and
    /// any trailing bytes: a decoded packet comes back byte for byte.
    public func append(to w: inout ByteWriter) {
        w.appendUInt16LE(handle & 0x0FFF | UInt16(boundary.rawValue) << 12 | UInt16(broadcast & 0b11) << 14)
        w.appendUInt16LE(declaredLength)
        w.appendBytes(data)
        w.appendBytes(trailing)
    }
}
