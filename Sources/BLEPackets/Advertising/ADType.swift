/// The type octet of an AD structure (Assigned Numbers 2.3 "Common Data Types"; meanings in
/// the Core Specification Supplement Part A).
public struct ADType: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let flags = ADType(0x01)
    /// The six Service UUID list types (incomplete/complete × 16/32/128-bit), Supplement Part A 1.1.
    public static let serviceUUIDLists: [ADType] = [
        .incompleteServiceUUIDs16, .completeServiceUUIDs16, .incompleteServiceUUIDs32, .completeServiceUUIDs32,
        .incompleteServiceUUIDs128, .completeServiceUUIDs128,
    ]
    public static let incompleteServiceUUIDs16 = ADType(0x02)
    public static let completeServiceUUIDs16 = ADType(0x03)
    public static let incompleteServiceUUIDs32 = ADType(0x04)
    public static let completeServiceUUIDs32 = ADType(0x05)
    public static let incompleteServiceUUIDs128 = ADType(0x06)
    public static let completeServiceUUIDs128 = ADType(0x07)
    public static let shortenedLocalName = ADType(0x08)
    public static let completeLocalName = ADType(0x09)
    public static let txPowerLevel = ADType(0x0A)
    public static let classOfDevice = ADType(0x0D)
    public static let simplePairingHashC192 = ADType(0x0E)
    public static let simplePairingRandomizerR192 = ADType(0x0F)
    /// Device ID in EIR; Security Manager TK Value in OOB data (the two never meet).
    public static let deviceIDOrTKValue = ADType(0x10)
    public static let securityManagerOOBFlags = ADType(0x11)
    public static let peripheralConnectionIntervalRange = ADType(0x12)
    public static let solicitationUUIDs16 = ADType(0x14)
    public static let solicitationUUIDs128 = ADType(0x15)
    public static let serviceData16 = ADType(0x16)
    public static let publicTargetAddress = ADType(0x17)
    public static let randomTargetAddress = ADType(0x18)
    public static let appearance = ADType(0x19)
    public static let advertisingInterval = ADType(0x1A)
    public static let leBluetoothDeviceAddress = ADType(0x1B)
    public static let leRole = ADType(0x1C)
    public static let simplePairingHashC256 = ADType(0x1D)
    public static let simplePairingRandomizerR256 = ADType(0x1E)
    public static let solicitationUUIDs32 = ADType(0x1F)
    public static let serviceData32 = ADType(0x20)
    public static let serviceData128 = ADType(0x21)
    public static let leSecureConnectionsConfirmationValue = ADType(0x22)
    public static let leSecureConnectionsRandomValue = ADType(0x23)
    public static let uri = ADType(0x24)
    public static let indoorPositioning = ADType(0x25)
    public static let transportDiscoveryData = ADType(0x26)
    public static let leSupportedFeatures = ADType(0x27)
    public static let channelMapUpdateIndication = ADType(0x28)
    public static let pbADV = ADType(0x29)
    public static let meshMessage = ADType(0x2A)
    public static let meshBeacon = ADType(0x2B)
    public static let bigInfo = ADType(0x2C)
    public static let broadcastCode = ADType(0x2D)
    public static let resolvableSetIdentifier = ADType(0x2E)
    public static let advertisingIntervalLong = ADType(0x2F)
    public static let broadcastName = ADType(0x30)
    public static let encryptedAdvertisingData = ADType(0x31)
    public static let periodicAdvertisingResponseTimingInformation = ADType(0x32)
    public static let electronicShelfLabel = ADType(0x34)
    public static let threeDInformationData = ADType(0x3D)
    public static let manufacturerSpecificData = ADType(0xFF)

    /// The SIG's name for the type, nil if unassigned.
    public var name: StaticString? { ADTypeTable.entries[Int(rawValue)].name }

    /// UUID width in octets for the UUID-list types (service lists and solicitation lists).
    public var uuidListWidth: Int? {
        switch rawValue {
        case 0x02, 0x03, 0x14: 2
        case 0x04, 0x05, 0x1F: 4
        case 0x06, 0x07, 0x15: 16
        default: nil
        }
    }

    /// Whether this is one of the six service-UUID list types (0x02–0x07).
    public var isServiceUUIDList: Bool { rawValue >= 0x02 && rawValue <= 0x07 }
    /// Whether this is one of the three solicitation list types (0x14, 0x15, 0x1F).
    public var isSolicitationUUIDList: Bool { rawValue == 0x14 || rawValue == 0x15 || rawValue == 0x1F }
    /// Whether a service-UUID list type says the list is complete (odd codes 0x03/0x05/0x07).
    public var isCompleteUUIDList: Bool { isServiceUUIDList && rawValue & 1 == 1 }

    /// UUID width in octets for the service-data types (0x16, 0x20, 0x21).
    public var serviceDataUUIDWidth: Int? {
        switch rawValue {
        case 0x16: 2
        case 0x20: 4
        case 0x21: 16
        default: nil
        }
    }
}
