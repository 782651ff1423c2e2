import BLEBytes
import BLEPackets

/// Which side of an ATT bearer sends a PDU (Core 5.4 Vol 3 Part F 3.3): requests, commands
/// and confirmations come from the client; responses, notifications and indications from the
/// server. Replay scripts the client side and answers from a model of the server side.
enum ATTRole {
    static func isFromClient(_ opcode: UInt8) -> Bool {
        switch ATTOpcode(opcode).method {
        case .request?, .command?, .confirmation?: true
        case .response?, .notification?, .indication?: false
        // Undefined opcodes: an odd method number is a response in every defined pair
        // (3.4.8), so treat unknown odd ones as server PDUs, even ones as client PDUs.
        case nil: opcode & 0x01 == 0  // method number's low bit
        }
    }

    static func isRequest(_ opcode: UInt8) -> Bool { ATTOpcode(opcode).method == .request }
    static func isResponse(_ opcode: UInt8) -> Bool { ATTOpcode(opcode).method == .response }
    static func isServerInitiated(_ opcode: UInt8) -> Bool {
        let m = ATTOpcode(opcode).method
        return m == .notification || m == .indication
    }
}

extension ReplayAnswer {
    /// A captured response as an answer: an Error Response's code (0 when the PDU is cut
    /// short of it), otherwise the bytes after the opcode.
    package init(response r: [UInt8]) { self.init(response: r[...]) }

    /// The same for a captured response read in place (`ReplayAnswers`).
    package init(response r: ArraySlice<UInt8>) {
        self =
            r.first == ATTOpcode.errorResponse.rawValue
            ? .error(Self.errorCode(in: Array(r))) : .value(Array(r.dropFirst()))
    }

    /// The Error Code of an Error Response (3.4.1.1), 0 when the PDU is too short for it.
    package static func errorCode(in r: [UInt8]) -> UInt8 {
        r.withByteView(ATTErrorResponse.init(pdu:))?.errorCode ?? 0
    }
}

/// What the replay scripts read of a client PDU, decoded by BLEPackets: the handle it names
/// (0 when none), the value offset of a Read Blob or Prepare Write (0 when none) and the value
/// a write, write command or prepared write carries (empty when none). A PDU too short for
/// its opcode keeps the handle and offset it holds.
package struct ATTClientFields {
    package var handle: UInt16 = 0
    package var offset: UInt16 = 0
    package var value: [UInt8] = []

    package init(_ bytes: [UInt8]) {
        bytes.withByteView { b in
            switch ATTPDU(b) {
            case .readRequest(let r): handle = r.handle
            case .readBlobRequest(let r): (handle, offset) = (r.handle, r.offset)
            case .writeRequest(let r): (handle, value) = (r.handle, r.value.toArray())
            case .writeCommand(let r): (handle, value) = (r.handle, r.value.toArray())
            case .prepareWriteRequest(let r): (handle, offset, value) = (r.handle, r.offset, r.partValue.toArray())
            default:
                let (a, o) = ATTPDU.leadingHandles(of: b)
                (handle, offset) = (a ?? 0, o ?? 0)
            }
        }
    }
}
