import BLEBytes

/// A decoded ATT PDU (Core 5.4 Vol 3 Part F 3.4): one case per opcode, plus unknown opcodes
/// and PDUs too short for their opcode, which keep their raw bytes.
public enum ATTPDU: @unchecked Sendable {
    case errorResponse(ATTErrorResponse)
    case exchangeMTURequest(ATTExchangeMTURequest)
    case exchangeMTUResponse(ATTExchangeMTUResponse)
    case findInformationRequest(ATTFindInformationRequest)
    case findInformationResponse(ATTFindInformationResponse)
    case findByTypeValueRequest(ATTFindByTypeValueRequest)
    case findByTypeValueResponse(ATTFindByTypeValueResponse)
    case readByTypeRequest(ATTReadByTypeRequest)
    case readByTypeResponse(ATTReadByTypeResponse)
    case readRequest(ATTReadRequest)
    case readResponse(ATTReadResponse)
    case readBlobRequest(ATTReadBlobRequest)
    case readBlobResponse(ATTReadBlobResponse)
    case readMultipleRequest(ATTReadMultipleRequest)
    case readMultipleResponse(ATTReadMultipleResponse)
    case readByGroupTypeRequest(ATTReadByGroupTypeRequest)
    case readByGroupTypeResponse(ATTReadByGroupTypeResponse)
    case writeRequest(ATTWriteRequest)
    case writeResponse(ATTWriteResponse)
    case writeCommand(ATTWriteCommand)
    case signedWriteCommand(ATTSignedWriteCommand)
    case prepareWriteRequest(ATTPrepareWriteRequest)
    case prepareWriteResponse(ATTPrepareWriteResponse)
    case executeWriteRequest(ATTExecuteWriteRequest)
    case executeWriteResponse(ATTExecuteWriteResponse)
    case handleValueNotification(ATTHandleValueNotification)
    case handleValueIndication(ATTHandleValueIndication)
    case handleValueConfirmation(ATTHandleValueConfirmation)
    case readMultipleVariableRequest(ATTReadMultipleVariableRequest)
    case readMultipleVariableResponse(ATTReadMultipleVariableResponse)
    case multipleHandleValueNotification(ATTMultipleHandleValueNotification)
    /// An opcode the spec does not define; `raw` is the whole PDU.
    case unknown(opcode: ATTOpcode, raw: ByteView)
    /// Too short for its opcode (or empty: opcode nil); `raw` is the whole PDU.
    case malformed(opcode: ATTOpcode?, raw: ByteView, note: StaticString)

    public init(_ pdu: ByteView) {
        guard let op = pdu.u8(0) else {
            self = .malformed(opcode: nil, raw: pdu, note: "empty ATT PDU")
            return
        }
        let opcode = ATTOpcode(op)
        let p = pdu.suffix(from: 1)!
        func m<T>(_ v: T?, _ wrap: (T) -> ATTPDU) -> ATTPDU {
            v.map(wrap) ?? .malformed(opcode: opcode, raw: pdu, note: "ATT PDU too short for its opcode")
        }
        switch op {
        case 0x01: self = m(ATTErrorResponse(parameters: p), ATTPDU.errorResponse)
        case 0x02: self = m(ATTExchangeMTURequest(parameters: p), ATTPDU.exchangeMTURequest)
        case 0x03: self = m(ATTExchangeMTUResponse(parameters: p), ATTPDU.exchangeMTUResponse)
        case 0x04: self = m(ATTFindInformationRequest(parameters: p), ATTPDU.findInformationRequest)
        case 0x05: self = m(ATTFindInformationResponse(parameters: p), ATTPDU.findInformationResponse)
        case 0x06: self = m(ATTFindByTypeValueRequest(parameters: p), ATTPDU.findByTypeValueRequest)
        case 0x07: self = m(ATTFindByTypeValueResponse(parameters: p), ATTPDU.findByTypeValueResponse)
        case 0x08: self = m(ATTReadByTypeRequest(parameters: p), ATTPDU.readByTypeRequest)
        case 0x09: self = m(ATTReadByTypeResponse(parameters: p), ATTPDU.readByTypeResponse)
        case 0x0A: self = m(ATTReadRequest(parameters: p), ATTPDU.readRequest)
        case 0x0B: self = m(ATTReadResponse(parameters: p), ATTPDU.readResponse)
        case 0x0C: self = m(ATTReadBlobRequest(parameters: p), ATTPDU.readBlobRequest)
        case 0x0D: self = m(ATTReadBlobResponse(parameters: p), ATTPDU.readBlobResponse)
        case 0x0E: self = m(ATTReadMultipleRequest(parameters: p), ATTPDU.readMultipleRequest)
        case 0x0F: self = m(ATTReadMultipleResponse(parameters: p), ATTPDU.readMultipleResponse)
        case 0x10: self = m(ATTReadByGroupTypeRequest(parameters: p), ATTPDU.readByGroupTypeRequest)
        case 0x11: self = m(ATTReadByGroupTypeResponse(parameters: p), ATTPDU.readByGroupTypeResponse)
        case 0x12: self = m(ATTWriteRequest(parameters: p), ATTPDU.writeRequest)
        case 0x13: self = m(ATTWriteResponse(parameters: p), ATTPDU.writeResponse)
        case 0x16: self = m(ATTPrepareWriteRequest(parameters: p), ATTPDU.prepareWriteRequest)
        case 0x17: self = m(ATTPrepareWriteResponse(parameters: p), ATTPDU.prepareWriteResponse)
        case 0x18: self = m(ATTExecuteWriteRequest(parameters: p), ATTPDU.executeWriteRequest)
        case 0x19: self = m(ATTExecuteWriteResponse(parameters: p), ATTPDU.executeWriteResponse)
        case 0x1B: self = m(ATTHandleValueNotification(parameters: p), ATTPDU.handleValueNotification)
        case 0x1D: self = m(ATTHandleValueIndication(parameters: p), ATTPDU.handleValueIndication)
        case 0x1E: self = m(ATTHandleValueConfirmation(parameters: p), ATTPDU.handleValueConfirmation)
        case 0x20: self = m(ATTReadMultipleVariableRequest(parameters: p), ATTPDU.readMultipleVariableRequest)
        case 0x21: self = m(ATTReadMultipleVariableResponse(parameters: p), ATTPDU.readMultipleVariableResponse)
        case 0x23:
            self = m(ATTMultipleHandleValueNotification(parameters: p), ATTPDU.multipleHandleValueNotification)
        case 0x52: self = m(ATTWriteCommand(parameters: p), ATTPDU.writeCommand)
        case 0xD2: self = m(ATTSignedWriteCommand(parameters: p), ATTPDU.signedWriteCommand)
        default: self = .unknown(opcode: opcode, raw: pdu)
        }
    }

    /// The single attribute handle a PDU names in its own bytes: the Attribute Handle In Error
    /// of an Error Response; the handle of Read, Read Blob, Write and Prepare Write Requests,
    /// Prepare Write Responses, Write and Signed Write Commands, Notifications and
    /// Indications. Nil for the rest (lists, responses that only the request explains), for
    /// unknown opcodes and for PDUs too short to hold the handle.
    ///
    /// tshark's `btatt.handle` agrees on these opcodes; it also fills the field for responses
    /// it pairs with their requests, which needs connection state and is not done here.
    public static func handle(of pdu: ByteView) -> UInt16? {
        guard let op = pdu.u8(0), let e = ATTOpcodeTable.byOpcode[Int(op)], e.handleOffset >= 0 else { return nil }
        return pdu.u16le(e.handleOffset)
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

extension ATTPDU: ByteEncodable {
    /// Writes the PDU through its type's encoder; unknown and malformed PDUs as their raw bytes.
    public func append(to w: inout ByteWriter) {
        switch self {
        case .errorResponse(let p): p.append(to: &w)
        case .exchangeMTURequest(let p): p.append(to: &w)
        case .exchangeMTUResponse(let p): p.append(to: &w)
        case .findInformationRequest(let p): p.append(to: &w)
        case .findInformationResponse(let p): p.append(to: &w)
        case .findByTypeValueRequest(let p): p.append(to: &w)
        case .findByTypeValueResponse(let p): p.append(to: &w)
        case .readByTypeRequest(let p): p.append(to: &w)
        case .readByTypeResponse(let p): p.append(to: &w)
        case .readRequest(let p): p.append(to: &w)
        case .readResponse(let p): p.append(to: &w)
        case .readBlobRequest(let p): p.append(to: &w)
        case .readBlobResponse(let p): p.append(to: &w)
        case .readMultipleRequest(let p): p.append(to: &w)
        case .readMultipleResponse(let p): p.append(to: &w)
        case .readByGroupTypeRequest(let p): p.append(to: &w)
        case .readByGroupTypeResponse(let p): p.append(to: &w)
        case .writeRequest(let p): p.append(to: &w)
        case .writeResponse(let p): p.append(to: &w)
        case .writeCommand(let p): p.append(to: &w)
        case .signedWriteCommand(let p): p.append(to: &w)
        case .prepareWriteRequest(let p): p.append(to: &w)
        case .prepareWriteResponse(let p): p.append(to: &w)
        case .executeWriteRequest(let p): p.append(to: &w)
        case .executeWriteResponse(let p): p.append(to: &w)
        case .handleValueNotification(let p): p.append(to: &w)
        case .handleValueIndication(let p): p.append(to: &w)
        case .handleValueConfirmation(let p): p.append(to: &w)
        case .readMultipleVariableRequest(let p): p.append(to: &w)
        case .readMultipleVariableResponse(let p): p.append(to: &w)
        case .multipleHandleValueNotification(let p): p.append(to: &w)
        case .unknown(_, let raw), .malformed(_, let raw, _): w.appendBytes(raw)
        }
    }
}
