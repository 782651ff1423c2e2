import BLEBytes

/// One AD structure: `Length (1) | AD Type (1) | AD Data (Length − 1)` (Core 5.4 Vol 3 Part C
/// 11, Figure 11.1).
///
/// The typed accessors return nil when the type does not match or the data has a length the
/// Supplement does not allow, so a caller can never read past the structure.
public struct ADStructure: @unchecked Sendable {
    /// Offset of the length octet within the advertising data.
    public let offset: Int
    public let type: ADType
    /// The AD data, without the length and type octets.
    public let data: ByteView

    public init(offset: Int, type: ADType, data: ByteView) {
        self.offset = offset
        self.type = type
        self.data = data
    }

    /// The value of the length octet (type octet + data).
    public var length: Int { data.count + 1 }

    /// Flags (Supplement Part A 1.3): the first octet; later octets are reserved.
    public var flags: ADFlags? {
        guard type == .flags else { return nil }
        return ADFlags(rawValue: data.u8(0) ?? 0)
    }

    /// The UUIDs of a service or solicitation list (Supplement Part A 1.1, 1.10).
    public var uuidList: UUIDList? {
        guard let width = type.uuidListWidth else { return nil }
        return UUIDList(data, width: width)
    }

    /// Shortened or complete local name as UTF-8 bytes (Supplement Part A 1.2).
    public var localName: ByteView? {
        type == .completeLocalName || type == .shortenedLocalName ? data : nil
    }

    /// TX Power Level in dBm (Supplement Part A 1.5): exactly one signed octet.
    public var txPowerLevel: Int8? {
        guard type == .txPowerLevel, data.count == 1 else { return nil }
        return data.i8(0)
    }

    /// Appearance (Supplement Part A 1.12): one little-endian u16.
    public var appearance: UInt16? {
        guard type == .appearance, data.count == 2 else { return nil }
        return data.u16le(0)
    }

    /// Manufacturer Specific Data (Supplement Part A 1.4): company identifier, then data.
    public var manufacturerData: ManufacturerSpecificData? {
        guard type == .manufacturerSpecificData, let id = data.u16le(0) else { return nil }
        return ManufacturerSpecificData(companyID: id, data: data.suffix(from: 2) ?? .empty)
    }

    /// Service Data for a 16-, 32- or 128-bit UUID (Supplement Part A 1.11).
    public var serviceData: ServiceData? {
        guard let width = type.serviceDataUUIDWidth, let raw = data.slice(0, width),
            let uuid = BluetoothUUID(littleEndian: raw)
        else { return nil }
        return ServiceData(uuid: uuid, data: data.suffix(from: width) ?? .empty)
    }

    /// Peripheral Connection Interval Range (Supplement Part A 1.9): two u16 in 1.25 ms units.
    public var peripheralConnectionIntervalRange: ConnectionIntervalRange? {
        guard type == .peripheralConnectionIntervalRange, data.count == 4 else { return nil }
        return ConnectionIntervalRange(minimum: data.u16le(0)!, maximum: data.u16le(2)!)
    }

    /// Public or Random Target Address list (Supplement Part A 1.13, 1.14).
    public var targetAddresses: AddressList? {
        guard type == .publicTargetAddress || type == .randomTargetAddress else { return nil }
        return AddressList(data)
    }

    /// Advertising Interval in units of 0.625 ms (Supplement Part A 1.15): two octets for
    /// type 0x1A, three or four for "Advertising Interval - long" (0x2F).
    public var advertisingInterval: UInt32? {
        switch (type, data.count) {
        case (.advertisingInterval, 2): return data.u16le(0).map(UInt32.init)
        case (.advertisingIntervalLong, 3): return data.u24le(0)
        case (.advertisingIntervalLong, 4): return data.u32le(0)
        default: return nil
        }
    }

    /// LE Role (Supplement Part A 1.17): one octet.
    public var leRole: LERole? {
        guard type == .leRole, data.count == 1 else { return nil }
        return LERole(rawValue: data.u8(0)!)
    }

    /// URI (Supplement Part A 1.18): UTF-8, starting with a scheme code point.
    public var uri: ByteView? { type == .uri ? data : nil }

    /// LE Supported Features (Supplement Part A 1.19): the Link Layer feature bit mask,
    /// least significant octet first; trailing zero octets may be omitted.
    public var leSupportedFeatures: ByteView? { type == .leSupportedFeatures ? data : nil }

    /// Class of Device (Supplement Part A 1.6): three octets.
    public var classOfDevice: UInt32? {
        guard type == .classOfDevice, data.count == 3 else { return nil }
        return data.u24le(0)
    }

    /// LE Bluetooth Device Address (Supplement Part A 1.16): address, then bit 0 of the
    /// seventh octet is 0 for public and 1 for random.
    public var leBluetoothDeviceAddress: (address: BDAddr, isRandom: Bool)? {
        guard type == .leBluetoothDeviceAddress, data.count == 7, let a = BDAddr(littleEndian: data) else {
            return nil
        }
        return (a, data.u8(6)! & 1 == 1)
    }

    /// Broadcast_Name (Supplement Part A 1.22): UTF-8, 4 to 32 octets.
    public var broadcastName: ByteView? { type == .broadcastName ? data : nil }
}
