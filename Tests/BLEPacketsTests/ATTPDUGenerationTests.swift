import BLEBytes
import BLEPackets
import Foundation
import TestSupport
import Testing

/// The ATT opcode constants, the ATTPDU enum with its decode and encode, the opcode table and
/// the request → response pairing are generated from scripts/pdu/att_pdus.py: the Swift in
/// the repository must be exactly what the generator makes of that table, so a hand edit of a
/// generated file, or a new row without regenerating, fails here.
@Suite struct ATTPDUGenerationTests {
    @Test func committedSwiftIsWhatTheGeneratorMakesOfTheTable() throws {
        let check = try GeneratorCheck.run("scripts/pdu/generate.py")
        #expect(check.status == 0, "\(check.message)run python3 scripts/pdu/generate.py")
    }

    /// Every row of the table decodes to its own case (from the shortest parameters its type
    /// accepts), names its opcode, and encodes back to the same bytes; a request's response is
    /// a response row.
    @Test func everyRowDecodesToItsCaseAndBack() {
        for entry in ATTOpcodeTable.entries {
            let opcode = ATTOpcode(entry.opcode)
            // The exact length of a fixed-size PDU; 16 zero bytes cover the fixed fields of
            // every variable one (Signed Write Command: handle and 12-byte signature).
            let bytes = [entry.opcode] + [UInt8](repeating: 0, count: entry.fixedParameterLength ?? 16)
            bytes.withByteView { view in
                let pdu = ATTPDU(view)
                #expect(pdu.opcode == opcode, "\(entry.name)")
                #expect(pdu.undecodedBytes == nil, "\(entry.name) did not decode")
                #expect(pdu.encoded() == bytes, "\(entry.name)")
            }
            #expect(opcode.isClientToServer == [.request, .command, .confirmation].contains(entry.method))
            if entry.method == .request {
                #expect(opcode.responseOpcode?.method == .response, "\(entry.name)")
            } else {
                #expect(opcode.responseOpcode == nil, "\(entry.name)")
            }
        }
        #expect(ATTOpcode.readMultipleVariableRequest.responseOpcode == .readMultipleVariableResponse)
        Hex.bytes("15 0102")!.withByteView { #expect(ATTPDU($0).opcode == ATTOpcode(0x15)) }
        [UInt8]().withByteView { #expect(ATTPDU($0).opcode == nil) }
    }
}
