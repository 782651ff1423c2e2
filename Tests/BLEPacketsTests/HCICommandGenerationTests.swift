import BLEBytes
import BLEPackets
import Foundation
import TestSupport
import Testing

/// The HCIOpcode constants, and the typed commands' layouts, table rows and structs (fields,
/// `init?(parameters:)`, `appendParameters(to:)`) are generated from scripts/pdu/hci_commands.py:
/// the Swift in the repository must be exactly what the generator makes of that table, and every
/// typed row must decode its parameters and encode them back. The check covers the ATT and SMP
/// tables too: one generator, one `--check`.
@Suite struct HCICommandGenerationTests {
    @Test func committedSwiftIsWhatTheGeneratorMakesOfTheTable() throws {
        let check = try GeneratorCheck.run("scripts/pdu/generate.py")
        #expect(check.status == 0, "\(check.message)run python3 scripts/pdu/generate.py")
    }

    /// Distinct octets for every field (the upper nibble clear, so a Connection_Handle keeps its
    /// flag bits clear and a trailer's length octet stays within what follows it).
    static func parameters(_ length: Int) -> [UInt8] { (0..<length).map { UInt8(($0 * 5 + 3) & 0x0F) } }

    /// Every typed row decodes its parameters in full to a value of its opcode that encodes back
    /// to the same bytes, and is described by its table row.
    @Test func everyTypedRowDecodesAndEncodesBack() {
        #expect(HCITypedCommands.fullLengths.count > 20)
        for (opcode, length) in HCITypedCommands.fullLengths {
            // A trailer's length octet is the last of the full length (zero: no data) unless the
            // data is padded; these rows have no trailer, or a zero length octet is what the
            // pattern puts there.
            var bytes = Self.parameters(length)
            if opcode == HCIOpcode.leSetAdvertisingData || opcode == HCIOpcode.leSetScanResponseData {
                bytes = [3] + [1, 2, 3] + [UInt8](repeating: 0, count: length - 4)
            }
            if opcode == HCIOpcode.leSetExtendedAdvertisingData || opcode == HCIOpcode.leSetExtendedScanResponseData {
                bytes[length - 1] = 2
                bytes += [0xAB, 0xCD]
            }
            let name = HCICommands.name(for: opcode)
            bytes.withByteView { p in
                guard let command = HCITypedCommands.decode(opcode: opcode, parameters: p) else {
                    Issue.record("\(name): \(bytes) did not decode")
                    return
                }
                #expect(command.commandOpcode == opcode, "\(name)")
                var w = ByteWriter()
                command.appendParameters(to: &w)
                #expect(w.bytes == bytes, "\(name)")
                #expect(HCICommands.descriptor(for: opcode)?.describeParameters != nil, "\(name)")
            }
        }
    }

    /// One octet short, only the rows whose last field is optional decode, to a value that
    /// encodes back to the fields that fit; and the legacy advertising data, whose padding is
    /// not needed to read the data it announces.
    @Test func aShortCommandDecodesOnlyWhereItsLastFieldIsOptional() {
        var decoded: [UInt16] = []
        for (opcode, length) in HCITypedCommands.fullLengths {
            let short = Self.parameters(length - 1)
            short.withByteView { p in
                guard let command = HCITypedCommands.decode(opcode: opcode, parameters: p) else { return }
                decoded.append(opcode)
                guard opcode != HCIOpcode.leSetAdvertisingData, opcode != HCIOpcode.leSetScanResponseData else {
                    return
                }
                var w = ByteWriter()
                command.appendParameters(to: &w)
                // The fields that fit, whole: a field the short bytes end inside is left out.
                #expect(!w.bytes.isEmpty && short.starts(with: w.bytes), "\(HCICommands.name(for: opcode))")
            }
        }
        #expect(
            decoded == [
                HCIOpcode.leSetAdvertisingParameters, HCIOpcode.leSetAdvertisingData, HCIOpcode.leSetScanResponseData,
                HCIOpcode.leLongTermKeyRequestReply, HCIOpcode.leSetAdvertisingSetRandomAddress,
                HCIOpcode.leSetExtendedAdvertisingParameters,
            ])
    }

    /// The typed rows are in the command table once, and it stays sorted for its binary search.
    @Test func typedRowsAreInTheSortedTable() {
        let opcodes = HCICommands.table.map(\.opcode)
        #expect(opcodes == opcodes.sorted() && Set(opcodes).count == opcodes.count)
        for (opcode, _) in HCITypedCommands.fullLengths {
            #expect(HCICommands.descriptor(for: opcode)?.opcode == opcode)
        }
        #expect(HCICommands.name(for: HCIOpcode.leSetDataLength).description == "LE Set Data Length")
        #expect(HCIOpcode.leSetDataLength == 0x2022 && HCIOpcode.disconnect == 0x0406)
    }
}
