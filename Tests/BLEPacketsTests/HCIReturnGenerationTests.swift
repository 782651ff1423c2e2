import BLEBytes
import BLEPackets
import CaptureIO
import TestSupport
import Testing

/// The typed return values generated from scripts/pdu/hci_commands.py's RETURNS (fields,
/// `init(returnParameters:)`, `appendReturnParameters(to:)`; the generator check in
/// HCICommandGenerationTests keeps them in step with the table): each decodes the return
/// parameters of a real Command Complete from a shipped capture and encodes them back to the
/// same bytes, and every shorter length decodes to exactly the fields that fit whole.
@Suite struct HCIReturnGenerationTests {
    /// One generated return value: its opcode, where each field ends (Status first), and the
    /// decode-then-encode round trip of some return parameters.
    struct Case {
        let name: String
        let opcode: UInt16
        let ends: [Int]
        let roundTrip: (ByteView) -> (encoded: [UInt8], sameAsDecoded: (ByteView) -> Bool)
    }

    static func generated<T: Equatable>(
        _ name: String, _ opcode: UInt16, ends: [Int], _ decode: @escaping (ByteView) -> T,
        _ encode: @escaping (T) -> (inout ByteWriter) -> Void
    ) -> Case {
        Case(name: name, opcode: opcode, ends: ends) { p in
            let value = decode(p)
            var w = ByteWriter()
            encode(value)(&w)
            return (w.bytes, { decode($0) == value })
        }
    }

    static var cases: [Case] {
        [
            generated(
                "Read Local Version Information", HCIReadLocalVersionInformation.opcode, ends: [1, 2, 4, 5, 7, 9],
                HCIReadLocalVersionInformation.init(returnParameters:),
                HCIReadLocalVersionInformation.appendReturnParameters),
            generated(
                "Read Buffer Size", HCIOpcode.readBufferSize, ends: [1, 3, 4, 6, 8],
                HCIReadBufferSize.Fields.init(returnParameters:), HCIReadBufferSize.Fields.appendReturnParameters),
            generated(
                "Read RSSI", HCIReadRSSI.opcode, ends: [1, 3, 4], HCIReadRSSI.init(returnParameters:),
                HCIReadRSSI.appendReturnParameters),
            generated(
                "LE Read Local Supported Features", HCILEReadLocalSupportedFeatures.opcode, ends: [1, 9],
                HCILEReadLocalSupportedFeatures.init(returnParameters:),
                HCILEReadLocalSupportedFeatures.appendReturnParameters),
        ]
    }

    /// The return parameters of every Command Complete for `opcodes` in a shipped capture.
    static func returnParameters(in capture: String, opcodes: Set<UInt16>) throws -> [(UInt16, [UInt8])] {
        let reader = try CaptureFile.open(path: Fixtures.capture(capture))
        let decoder = FrameDecoder()
        var found: [(UInt16, [UInt8])] = []
        while let record = reader.next() {
            guard case .event(let e) = decoder.decode(record).layer, e.code == HCICommandComplete.code,
                let c = HCICommandComplete(parameters: e.parameters), opcodes.contains(c.opcode)
            else { continue }
            found.append((c.opcode, c.returnParameters.toArray()))
        }
        return found
    }

    @Test func realReturnParametersRoundTripAndEveryShorterLengthKeepsTheFieldsThatFit() throws {
        let opcodes = Set(Self.cases.map(\.opcode))
        // The Android capture initialises its controller (Read Local Version Information, Read
        // Buffer Size, LE Read Local Supported Features); the iOS one reads RSSI.
        let found =
            try Self.returnParameters(in: "public/btsnoop-android_domyos-treadmill-ftms.log", opcodes: opcodes)
            + Self.returnParameters(in: "public/pklg-be_ios-sysdiagnose-bafang-ebike.pklg", opcodes: opcodes)
        for c in Self.cases {
            let mine = found.filter { $0.0 == c.opcode }.map(\.1)
            #expect(!mine.isEmpty, "\(c.name): no Command Complete in the captures")
            for bytes in mine {
                #expect(bytes.count == c.ends.last!, "\(c.name): \(bytes)")
                bytes.withByteView { p in
                    #expect(c.roundTrip(p).encoded == bytes, "\(c.name)")
                    for length in 0..<bytes.count {
                        // The fields that end within `length` octets, and none after.
                        let fit = c.ends.last { $0 <= length } ?? 0
                        let (encoded, same) = c.roundTrip(p.prefix(length))
                        #expect(encoded == Array(bytes.prefix(fit)), "\(c.name) cut to \(length)")
                        #expect(same(p.prefix(fit)), "\(c.name) cut to \(length)")
                    }
                }
            }
        }
    }
}
