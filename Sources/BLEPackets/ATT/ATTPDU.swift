import BLEBytes

// The enum, its decode, encode and opcode are generated from scripts/pdu/att_pdus.py into
// ATTPDU+Generated.swift; what follows reads a PDU's bytes through the opcode table.
extension ATTPDU {
    /// The single attribute handle a PDU names in its own bytes: the Attribute Handle In Error
    /// of an Error Response; the handle of Read, Read Blob, Write and Prepare Write Requests,
    /// Prepare Write Responses, Write and Signed Write Commands, Notifications and
    /// Indications. Nil for the rest (lists, responses that only the request explains), for
    /// unknown opcodes and for PDUs too short to hold the handle.
    ///
    /// tshark's `btatt.handle` agrees on these opcodes; it also fills the field for responses
    /// it pairs with their requests, which needs connection state and is not done here.
    public static func handle(of pdu: ByteView) -> UInt16? {
        guard let op = pdu.u8(0) else { return nil }
        let offset = ATTOpcodeTable.handleOffsetByOpcode[Int(op)]
        return offset >= 0 ? pdu.u16le(Int(offset)) : nil
    }

    /// The first two 16-bit parameters of a PDU (at offsets 1 and 3), each nil where the bytes
    /// end before it, whatever the opcode: the handle (or Starting Handle) and the Value
    /// Offset (or Ending Handle) of the requests that start with them. For answering a request
    /// too short for its opcode (`.malformed`) from what it does hold, as a server that reads
    /// its fields one by one does; decoded PDUs have their typed fields.
    public static func leadingHandles(of pdu: ByteView) -> (first: UInt16?, second: UInt16?) {
        (pdu.u16le(1), pdu.u16le(3))
    }

    /// Whether the bytes are exactly one PDU of a defined opcode: its parameters decode and a
    /// fixed-size PDU has no bytes after its fields. Used where the bytes alone must show that
    /// a channel carries ATT (traffic on a handle no Connection Complete announced).
    public static func isWellFormed(_ pdu: ByteView) -> Bool {
        switch ATTPDU(pdu) {
        case .unknown, .malformed: return false
        default:
            guard let fixed = ATTOpcode(pdu.u8(0) ?? 0).entry?.fixedParameterLength else { return true }
            return pdu.count == 1 + fixed
        }
    }

    /// The opcode, nil only for an empty PDU.
    public static func opcode(of pdu: ByteView) -> ATTOpcode? { pdu.u8(0).map { ATTOpcode($0) } }

    /// Describes the PDU from its bytes, table-driven: opcode, then the parameters through the
    /// opcode's decoder. Unknown opcodes and short PDUs keep their bytes, with a note.
    public static func describe(_ pdu: ByteView, into sink: FieldSink) {
        guard let op = pdu.u8(0) else {
            sink.note("empty ATT PDU")
            return
        }
        let opcode = ATTOpcode(op)
        sink.field("opcode", .code(UInt64(op), digits: 2, name: opcode.name))
        let p = pdu.suffix(from: 1)!
        guard let e = opcode.entry else {
            sink.note("unknown ATT opcode")
            sink.field("parameters", .bytes(p))
            return
        }
        guard e.describe(p, sink) else {
            sink.note("ATT PDU too short for its opcode")
            sink.field("parameters", .bytes(p))
            return
        }
        if let fixed = e.fixedParameterLength, p.count > fixed {
            sink.note("bytes after the PDU's fields")
            sink.field("trailing", .bytes(p.suffix(from: fixed)!))
        }
    }

    /// The raw bytes of a PDU that could not be decoded, nil for decoded ones.
    public var undecodedBytes: ByteView? {
        switch self {
        case .unknown(_, let raw), .malformed(_, let raw, _): raw
        default: nil
        }
    }
}
