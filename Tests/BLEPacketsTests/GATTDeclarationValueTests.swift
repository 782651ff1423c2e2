import BLEBytes
import BLEPackets
import Testing

/// The GATT declaration values and the truncated-request fields that replay reads through
/// BLEPackets: decode(encode(x)) == x, and the short inputs that decode to nothing.
@Suite struct GATTDeclarationValueTests {
    @Test func characteristicDeclarationRoundTrip() throws {
        let bytes: [UInt8] = [0x12, 0x03, 0x00, 0x37, 0x2A]  // read | notify, value 0x0003, 0x2A37
        let d = try #require(bytes.withByteView { GATTCharacteristicDeclarationValue($0)?.encoded() })
        #expect(d == bytes)
        let f = try #require(GATTCharacteristicDeclarationValue.fields(in: bytes))
        #expect(f.properties == 0x12 && f.valueHandle == 3 && f.uuid == BluetoothUUID(uuid16: 0x2A37))
        #expect(GATTCharacteristicDeclarationValue.valueHandle(in: bytes) == 3)
        let long: [UInt8] = [0x02, 0x10, 0x00] + (0..<16).map { UInt8($0) }
        #expect(GATTCharacteristicDeclarationValue.fields(in: long)?.uuid.width == 16)
        // Properties and handle without a UUID: the handle decodes, the fields do not.
        #expect(GATTCharacteristicDeclarationValue.valueHandle(in: [0x02, 0x05, 0x00]) == 5)
        #expect(GATTCharacteristicDeclarationValue.fields(in: [0x02, 0x05, 0x00]) == nil)
        #expect(GATTCharacteristicDeclarationValue.valueHandle(in: [0x02, 0x05]) == nil)
    }

    @Test func includeDeclarationRoundTrip() throws {
        let bytes: [UInt8] = [0x10, 0x00, 0x14, 0x00, 0x0F, 0x18]
        let d = try #require(bytes.withByteView { GATTIncludeDeclarationValue($0)?.encoded() })
        #expect(d == bytes)
        #expect(GATTIncludeDeclarationValue.includedServiceHandle(in: bytes) == 0x0010)
        #expect(GATTIncludeDeclarationValue.includedServiceHandle(in: [0x10]) == nil)
    }

    @Test func clientConfigurationBits() {
        #expect([0x01, 0x00].withByteView(GATTClientConfiguration.bits(of:)) == GATTClientConfiguration.notification)
        #expect(
            [0x02, 0x00, 0xFF].withByteView(GATTClientConfiguration.bits(of:)) == GATTClientConfiguration.indication)
        #expect([0x01].withByteView(GATTClientConfiguration.bits(of:)) == nil)
        // Written to the descriptor: exactly two octets.
        #expect(GATTClientConfiguration.bits(ofWritten: [0x03, 0x00]) == 0x0003)
        #expect(GATTClientConfiguration.bits(ofWritten: [0x01, 0x00, 0x00]) == nil)
        #expect(GATTClientConfiguration.bits(ofWritten: [0x01]) == nil)
    }

    @Test func leadingHandlesOfTruncatedRequests() {
        func lead(_ b: [UInt8]) -> [UInt16?] {
            b.withByteView {
                let l = ATTPDU.leadingHandles(of: $0)
                return [l.first, l.second]
            }
        }
        #expect(lead([0x0C, 0x03, 0x00, 0x01]) == [3, nil])  // Read Blob without its whole offset
        #expect(lead([0x10, 0x01, 0x00, 0xFF, 0xFF]) == [1, 0xFFFF])
        #expect(lead([0x0A, 0x03]) == [nil, nil])
        #expect(lead([]) == [nil, nil])
        // The typed decoder calls these malformed: the fields are for answering them.
        if case .malformed(let op?, _, _) = [0x0C, 0x03, 0x00, 0x01].withByteView(ATTPDU.init) {
            #expect(op == .readBlobRequest)
        } else {
            Issue.record("a Read Blob Request without its offset should be malformed")
        }
    }
}
