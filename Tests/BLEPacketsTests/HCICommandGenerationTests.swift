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

    /// The rows with repeated blocks (7.8.56, 7.8.64, 7.8.66) decode the blocks their count or PHY
    /// mask announces, encode back to the same bytes and are described block by block.
    @Test func repeatedBlocksDecodeAndEncodeBack() throws {
        let connection = HCIConnectionParameters(
            intervalMin: 24, intervalMax: 40, maxLatency: 0, supervisionTimeout: 72, minCELength: 0, maxCELength: 0)
        let v1 = HCILEExtendedCreateConnection(
            initiatorFilterPolicy: 0, ownAddressType: 1, peerAddressType: 1,
            peerAddress: BDAddr("C0:11:22:33:44:55")!, initiatingPHYs: 0b101,
            entries: [
                .init(scanInterval: 96, scanWindow: 48, connection: connection),
                .init(scanInterval: 288, scanWindow: 144, connection: connection),
            ])
        let v2 = HCILEExtendedCreateConnectionV2(
            advertisingHandle: 0xFF, subevent: 0xFF, initiatorFilterPolicy: v1.initiatorFilterPolicy,
            ownAddressType: v1.ownAddressType, peerAddressType: v1.peerAddressType, peerAddress: v1.peerAddress,
            initiatingPHYs: v1.initiatingPHYs, entries: v1.entries)
        let scan = HCILESetExtendedScanParameters(
            ownAddressType: 0, filterPolicy: 0, scanningPHYs: 0b101,
            entries: [.init(scanType: 1, interval: 96, window: 48), .init(scanType: 0, interval: 160, window: 80)])
        let enable = HCILESetExtendedAdvertisingEnable(
            enable: 1,
            sets: [
                .init(advertisingHandle: 0, duration: 0, maxExtendedAdvertisingEvents: 0),
                .init(advertisingHandle: 1, duration: 500, maxExtendedAdvertisingEvents: 3),
            ])
        let lengths: [UInt16: Int] = [
            HCIOpcode.leExtendedCreateConnection: 10 + 2 * 16, HCIOpcode.leExtendedCreateConnectionV2: 12 + 2 * 16,
            HCIOpcode.leSetExtendedScanParameters: 3 + 2 * 5, HCIOpcode.leSetExtendedAdvertisingEnable: 2 + 2 * 4,
        ]
        let commands: [any HCICommandEncodable] = [v1, v2, scan, enable]
        #expect(Set(commands.map(\.commandOpcode)) == Set(HCITypedCommands.repeatedOpcodes))
        for command in commands {
            var w = ByteWriter()
            command.appendParameters(to: &w)
            let name = HCICommands.name(for: command.commandOpcode)
            #expect(w.bytes.count == lengths[command.commandOpcode], "\(name)")
            try w.bytes.withByteView { p in
                let decoded = try #require(HCITypedCommands.decode(opcode: command.commandOpcode, parameters: p))
                var again = ByteWriter()
                decoded.appendParameters(to: &again)
                #expect(again.bytes == w.bytes, "\(name)")
                // Described block by block: two groups, no note.
                let sink = HCIRecordingSink()
                HCICommands.descriptor(for: command.commandOpcode)?.describeParameters?(p, sink)
                #expect(sink.lines.filter { $0.hasPrefix("{") }.count == 2 && sink.notes.isEmpty, "\(name)")
            }
        }
        // [v2] read as [v1]: the same connection.
        let asV1 = try #require(
            Array(v2.h4Encoded().dropFirst(4)).withByteView {
                HCILEExtendedCreateConnection(opcode: HCIOpcode.leExtendedCreateConnectionV2, parameters: $0)
            })
        #expect(asV1.entries == v1.entries && asV1.peerAddress == v1.peerAddress)
    }

    /// A count or PHY mask announcing more blocks than the parameters hold decodes to nothing
    /// (the count is checked against the bytes left before a block is read).
    @Test func hostileCountsDecodeToNothing() {
        let announced: [(UInt16, [UInt8])] = [
            (HCIOpcode.leSetExtendedAdvertisingEnable, [0x01, 0xFF, 0x00, 0x00, 0x00, 0x00]),
            (HCIOpcode.leSetExtendedScanParameters, [0x00, 0x00, 0b101, 0x01, 0x60, 0x00, 0x30, 0x00]),
            // Three PHYs, 47 of their 48 octets.
            (
                HCIOpcode.leExtendedCreateConnection,
                [0, 0, 0, 1, 2, 3, 4, 5, 6, 0b111] + [UInt8](repeating: 0, count: 47)
            ),
            (HCIOpcode.leExtendedCreateConnectionV2, [0xFF, 0xFF, 0, 0, 0, 1, 2, 3, 4, 5, 6, 0b001]),
        ]
        for (opcode, bytes) in announced {
            #expect(
                bytes.withByteView { HCITypedCommands.decode(opcode: opcode, parameters: $0) } == nil,
                "\(HCICommands.name(for: opcode))")
        }
        // A reserved PHY bit carries no block: scanning on LE 2M (bit 1) reads none.
        let reserved = [0x00, 0x00, 0b010].withByteView(HCILESetExtendedScanParameters.init(parameters:))
        #expect(reserved?.entries == [])
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
