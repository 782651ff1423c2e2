import BLEBytes
import BLEPackets
import TestSupport
import Testing

/// The HCIEventCode and HCILESubeventCode constants, the event layouts, HCIEvents' two tables and
/// the typed events' structs (fields, `init?(parameters:)`, encoder) are generated from
/// scripts/pdu/hci_events.py: the Swift in the repository must be exactly what the generator makes
/// of that table, and every typed row must decode its parameters, encode them back and be
/// described by its table row as far as its fields go.
@Suite struct HCIEventGenerationTests {
    @Test func committedSwiftIsWhatTheGeneratorMakesOfTheTable() throws {
        let check = try GeneratorCheck.run("scripts/pdu/generate.py")
        #expect(check.status == 0, "\(check.message)run python3 scripts/pdu/generate.py")
    }

    /// Distinct octets for every field, the upper nibble clear (a Connection_Handle keeps its flag
    /// bits clear).
    static func parameters(_ length: Int) -> [UInt8] { (0..<length).map { UInt8(($0 * 7 + 1) & 0x0F) } }

    /// The lines `packets` gives an event's parameters (after the event header).
    static func described(_ packet: [UInt8]) -> [String] {
        let sink = HCIRecordingSink()
        packet.withByteView { HCIEventPacket($0)?.describe(into: sink) }
        return Array(sink.lines.dropFirst(2))
    }

    @Test func everyTypedEventDecodesEncodesBackAndIsDescribed() {
        #expect(HCITypedEvents.fullLengths.count == 8)
        for (code, length, _) in HCITypedEvents.fullLengths {
            let name = "\(HCIEvents.name(for: code))"
            let bytes = Self.parameters(length)
            bytes.withByteView { p in
                guard let event = HCITypedEvents.decode(code: code, parameters: p) else {
                    Issue.record("\(name): \(bytes) did not decode")
                    return
                }
                #expect(event.eventCode == code, "\(name)")
                var w = ByteWriter()
                event.appendParameters(to: &w)
                #expect(w.bytes == bytes, "\(name)")
                // Its table row describes every field (Connect Complete is shown raw, as tshark's
                // name line only).
                let lines = Self.described(event.h4Encoded().dropFirst().map { $0 })
                if code == HCIEventCode.connectionComplete {
                    #expect(HCIEvents.descriptor(for: code)?.describe == nil)
                } else {
                    #expect(!lines.isEmpty && !lines.contains { $0.hasPrefix("!") }, "\(name): \(lines)")
                }
            }
        }
    }

    @Test func everyTypedLESubeventDecodesEncodesBackAndIsDescribed() {
        #expect(HCITypedEvents.leFullLengths.count == 10)
        for (subevent, length, _) in HCITypedEvents.leFullLengths {
            let name = "\(HCIEvents.leSubeventName(for: subevent))"
            let bytes = Self.parameters(length)
            bytes.withByteView { p in
                guard let event = HCITypedEvents.decodeLE(subevent: subevent, parameters: p) else {
                    Issue.record("\(name): \(bytes) did not decode")
                    return
                }
                #expect(event.subeventCode == subevent && event.eventCode == HCIEventCode.leMeta, "\(name)")
                var w = ByteWriter()
                event.appendSubeventParameters(to: &w)
                #expect(w.bytes == bytes, "\(name)")
                let lines = Self.described(event.h4Encoded().dropFirst().map { $0 })
                #expect(lines.first?.hasSuffix(name) == true, "\(name): \(lines)")
                #expect(lines.count > 1 && !lines.contains { $0.hasPrefix("!") }, "\(name): \(lines)")
            }
        }
    }

    /// One octet short, only Connect Complete (its fields after Status are optional) decodes, to the
    /// fields that fit; a [v2] row's bytes at the [v1] length do not decode as [v2].
    @Test func aShortEventDecodesOnlyWhereItsLastFieldIsOptional() {
        var decoded: [UInt8] = []
        for (code, length, _) in HCITypedEvents.fullLengths {
            let short = Self.parameters(length - 1)
            short.withByteView { p in
                guard let event = HCITypedEvents.decode(code: code, parameters: p) else { return }
                decoded.append(code)
                var w = ByteWriter()
                event.appendParameters(to: &w)
                #expect(!w.bytes.isEmpty && short.starts(with: w.bytes))
            }
        }
        #expect(decoded == [HCIEventCode.connectionComplete])
        // Every shorter length, down to none: nothing decodes (and nothing is read past the end).
        for (subevent, length, _) in HCITypedEvents.leFullLengths {
            for short in 0..<length {
                Self.parameters(short).withByteView { p in
                    #expect(HCITypedEvents.decodeLE(subevent: subevent, parameters: p) == nil)
                }
            }
        }
        for (code, length, _) in HCITypedEvents.fullLengths where code != HCIEventCode.connectionComplete {
            for short in 0..<length {
                Self.parameters(short).withByteView { p in
                    #expect(HCITypedEvents.decode(code: code, parameters: p) == nil)
                }
            }
        }
        Self.parameters(4).withByteView { #expect(HCIEncryptionChange(parameters: $0, version: 2) == nil) }
        Self.parameters(30).withByteView { #expect(HCILEEnhancedConnectionComplete(parameters: $0, version: 2) == nil) }
    }

    /// The two versioned types: the memberwise init is [v2] exactly when every [v2] field is given,
    /// and the version picks the code.
    @Test func aVersionedTypeEncodesAsTheVersionItsFieldsSay() {
        let v1 = HCIEncryptionChange(status: 0, handle: 0x0040, encryptionEnabled: 1)
        let v2 = HCIEncryptionChange(status: 0, handle: 0x0040, encryptionEnabled: 1, keySize: 16)
        #expect(v1.version == 1 && v1.eventCode == HCIEventCode.encryptionChange && v1.keySize == nil)
        #expect(v2.version == 2 && v2.eventCode == HCIEventCode.encryptionChangeV2)
        #expect(Array(v1.h4Encoded()) == [0x04, 0x08, 4, 0x00, 0x40, 0x00, 0x01])
        #expect(Array(v2.h4Encoded()) == [0x04, 0x59, 5, 0x00, 0x40, 0x00, 0x01, 16])
        let a = BDAddr("C0:FF:EE:00:00:01")!
        let half = HCILEEnhancedConnectionComplete(
            status: 0, handle: 1, role: 0, peerAddressType: 0, peerAddress: a, localResolvablePrivateAddress: a,
            peerResolvablePrivateAddress: a, interval: 24, latency: 0, supervisionTimeout: 72, centralClockAccuracy: 0,
            advertisingHandle: 1)
        #expect(half.version == 1 && half.advertisingHandle == nil && half.subeventCode == 0x0A)
    }

    /// Both tables are sorted by code, one row per code, and every code constant names its row.
    @Test func theTablesAreSortedAndTheConstantsNameTheirRows() {
        for table in [HCIEvents.eventTable, HCIEvents.leSubeventTable] {
            let codes = table.map(\.code)
            #expect(codes == codes.sorted() && Set(codes).count == codes.count)
        }
        #expect("\(HCIEvents.name(for: HCIEventCode.dataBufferOverflow))" == "Data Buffer Overflow")
        let algorithm = HCIEvents.leSubeventName(for: HCILESubeventCode.channelSelectionAlgorithm)
        #expect("\(algorithm)" == "LE Channel Selection Algorithm")
    }
}
