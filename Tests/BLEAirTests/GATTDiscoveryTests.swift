import BLEAir
import BLEBytes
import BLECodes
import BLEPackets
import Testing

/// `GATTDiscovery`, the one discovery implementation of replay's server and the simulator's
/// exports, over a small table: a Heart Rate service with a 16-bit and a 128-bit characteristic,
/// then a 128-bit service.
@Suite struct GATTDiscoveryTests {
    static let custom = BluetoothUUID(high: 0x1234_5678_9ABC_DEF0, low: 0x0FED_CBA9_8765_4321)
    static let primary = BluetoothUUID(uuid16: GATTDeclaration.primaryService)
    static let characteristic = BluetoothUUID(uuid16: GATTDeclaration.characteristic)

    static let table: [GATTAttribute] = [
        GATTAttribute(handle: 1, type: primary, value: [0x0D, 0x18], groupEnd: 6),
        GATTAttribute(handle: 2, type: characteristic, value: [0x12, 0x03, 0x00, 0x37, 0x2A]),
        GATTAttribute(handle: 3, type: BluetoothUUID(uuid16: 0x2A37)),
        GATTAttribute(handle: 4, type: BluetoothUUID(uuid16: GATTDescriptorType.clientCharacteristicConfiguration)),
        GATTAttribute(handle: 5, type: characteristic, value: [0x02, 0x06, 0x00] + custom.attBytes),
        GATTAttribute(handle: 6, type: custom),
        GATTAttribute(handle: 7, type: primary, value: custom.attBytes, groupEnd: 7),
    ]

    /// Find Information's handle–type pairs.
    static func pairs(_ p: [(UInt16, [UInt8])]) -> [(handle: UInt16, uuid: [UInt8])] {
        p.map { (handle: $0.0, uuid: $0.1) }
    }

    @Test func servicesOfTheFirstOnesLengthWithTheirGroupEnds() {
        // The 128-bit service has another entry length: it waits for the next request.
        #expect(
            GATTDiscovery.readByGroupType(Self.table, in: 1...0xFFFF, type: Self.primary, mtu: 23)
                == ATTReadByGroupTypeResponse.encoded([[0x01, 0x00, 0x06, 0x00, 0x0D, 0x18]], mtu: 23))
        #expect(
            GATTDiscovery.readByGroupType(Self.table, in: 2...0xFFFF, type: Self.primary, mtu: 23)
                == ATTReadByGroupTypeResponse.encoded([[0x07, 0x00, 0x07, 0x00] + Self.custom.attBytes], mtu: 23))
        #expect(
            GATTDiscovery.findByTypeValue(
                Self.table, in: 1...0xFFFF, type: GATTDeclaration.primaryService, value: [0x0D, 0x18], mtu: 23)
                == ATTFindByTypeValueResponse.encoded([(handle: 1, groupEnd: 6)], mtu: 23))
        #expect(GATTDiscovery.readByGroupType(Self.table, in: 8...0xFFFF, type: Self.primary, mtu: 23) == nil)
    }

    @Test func characteristicsAndDescriptorsAsManyAsFitAndTheLimitAllows() {
        let first = [0x02, 0x00, 0x12, 0x03, 0x00, 0x37, 0x2A] as [UInt8]
        #expect(
            GATTDiscovery.readByType(Self.table, in: 1...6, type: Self.characteristic, mtu: 23)
                == ATTReadByTypeResponse.encoded([first], mtu: 23))
        let second = [0x05, 0x00, 0x02, 0x06, 0x00] + Self.custom.attBytes
        #expect(
            GATTDiscovery.readByType(Self.table, in: 3...6, type: Self.characteristic, mtu: 23)
                == ATTReadByTypeResponse.encoded([second], mtu: 23))
        // Find Information: the 16-bit types up to the first 128-bit one.
        let info = GATTDiscovery.findInformation(Self.table, in: 3...6, mtu: 23)
        #expect(
            info
                == ATTFindInformationResponse.encoded(
                    Self.pairs([(3, [0x37, 0x2A]), (4, [0x02, 0x29]), (5, [0x03, 0x28])]), mtu: 23))
        // A captured server's habit of fewer entries per response.
        #expect(
            GATTDiscovery.findInformation(Self.table, in: 3...6, mtu: 23) { op, size in
                op == .findInformationResponse && size == 4 ? 2 : .max
            } == ATTFindInformationResponse.encoded(Self.pairs([(3, [0x37, 0x2A]), (4, [0x02, 0x29])]), mtu: 23))
        #expect(GATTDiscovery.findInformation(Self.table, in: 8...9, mtu: 23) == nil)
    }
}
