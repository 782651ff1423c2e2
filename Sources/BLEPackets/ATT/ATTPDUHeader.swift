import BLEBytes

/// What an ATT PDU begins with (Core 5.4 Vol 3 Part F 3.3): its opcode, then, in the PDUs
/// that name an attribute first, a 16-bit handle. Read without decoding the parameters, for
/// the per-frame readers that only count, name or note PDUs (`ATTPDU(_:)` decodes them).
public struct ATTPDUHeader {
    /// The opcode octet (method, command flag, signature flag).
    public let opcode: UInt8
    @usableFromInline let pdu: ByteView

    /// Nil only for an empty PDU.
    @inlinable public init?(_ pdu: ByteView) {
        guard let op = pdu.u8(0) else { return nil }
        (opcode, self.pdu) = (op, pdu)
    }

    /// The two octets after the opcode as a handle, whatever the opcode (the Attribute Handle
    /// of reads, writes, notifications and indications; the Starting Handle of the range
    /// requests), nil when the PDU ends before them. `ATTPDU.handle(of:)` gives the handle
    /// only for the opcodes that carry one there.
    @inlinable public var leadingHandle: UInt16? { pdu.u16le(1) }

    /// The octets after the opcode and a leading handle (a written or notified value), none
    /// when the PDU ends before them.
    @inlinable public var lengthAfterLeadingHandle: Int { max(0, pdu.count - 3) }
}
