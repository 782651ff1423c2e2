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

extension BluetoothUUID {
    /// The UUID as ATT carries it: 2 octets for 16-bit UUIDs, otherwise 16, little-endian
    /// (Vol 3 Part F 3.2.1; 32-bit UUIDs are sent as 128-bit ones).
    var attBytes: [UInt8] {
        if width == 2, let u = uuid16 { return u.littleEndianBytes }
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: low >> (8 * UInt64(i)))) }
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: high >> (8 * UInt64(i)))) }
        return out
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
