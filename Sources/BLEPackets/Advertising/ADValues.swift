import BLEBytes

/// The Flags AD type (Supplement Part A 1.3).
public struct ADFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let leLimitedDiscoverable = ADFlags(rawValue: 1 << 0)
    public static let leGeneralDiscoverable = ADFlags(rawValue: 1 << 1)
    public static let brEDRNotSupported = ADFlags(rawValue: 1 << 2)
    public static let simultaneousLEAndBREDRController = ADFlags(rawValue: 1 << 3)
    /// Formerly "Simultaneous LE and BR/EDR to Same Device Capable (Host)"; the Supplement now
    /// lists the bit as previously used.
    public static let simultaneousLEAndBREDRHost = ADFlags(rawValue: 1 << 4)

    /// Bit names for `FieldValue.flags`, least significant bit first.
    public static let names = FlagNames([
        "LE Limited Discoverable Mode",
        "LE General Discoverable Mode",
        "BR/EDR Not Supported",
        "Simultaneous LE and BR/EDR to Same Device Capable (Controller)",
        "Simultaneous LE and BR/EDR to Same Device Capable (Host)",
    ])
}

/// Security Manager Out of Band Flags (Supplement Part A 1.7).
public enum SecurityManagerOOBFlags {
    public static let names = FlagNames([
        "OOB Data Present",
        "LE Supported (Host)",
        "Simultaneous LE and BR/EDR to Same Device Capable (Host)",
        "Random Address",
    ])
}

/// A packed list of little-endian UUIDs of one width, iterated without copying.
public struct UUIDList: Sequence, @unchecked Sendable {
    public let bytes: ByteView
    /// 2, 4 or 16.
    public let width: Int

    public init(_ bytes: ByteView, width: Int) {
        self.bytes = bytes
        self.width = width
    }

    /// Number of whole UUIDs in the list.
    public var count: Int { bytes.count / width }
    /// Octets left over after the last whole UUID: a malformed list if not empty.
    public var remainder: ByteView { bytes.suffix(from: count * width) ?? .empty }

    public struct Iterator: IteratorProtocol {
        let list: UUIDList
        var offset = 0
        public mutating func next() -> BluetoothUUID? {
            guard let raw = list.bytes.slice(offset, list.width) else { return nil }
            offset += list.width
            return BluetoothUUID(littleEndian: raw)
        }
    }

    public func makeIterator() -> Iterator { Iterator(list: self) }
}

/// A packed list of 6-octet little-endian device addresses (target address AD types).
public struct AddressList: Sequence, @unchecked Sendable {
    public let bytes: ByteView
    public init(_ bytes: ByteView) { self.bytes = bytes }

    public var count: Int { bytes.count / 6 }
    public var remainder: ByteView { bytes.suffix(from: count * 6) ?? .empty }

    public struct Iterator: IteratorProtocol {
        let bytes: ByteView
        var offset = 0
        public mutating func next() -> BDAddr? {
            guard let a = BDAddr(littleEndian: bytes, at: offset) else { return nil }
            offset += 6
            return a
        }
    }

    public func makeIterator() -> Iterator { Iterator(bytes: bytes) }
}

/// Manufacturer Specific Data: a company identifier (Assigned Numbers 7.1) and its payload.
public struct ManufacturerSpecificData: @unchecked Sendable {
    public let companyID: UInt16
    public let data: ByteView
    /// The company's name from libbluetooth, if known.
    public var companyName: UnsafePointer<CChar>? { CompanyIdentifiers.name(companyID) }
}

/// Service Data: the service's UUID and data the service defines.
public struct ServiceData: @unchecked Sendable {
    public let uuid: BluetoothUUID
    public let data: ByteView
}

/// Peripheral Connection Interval Range, in units of 1.25 ms (Supplement Part A 1.9).
public struct ConnectionIntervalRange: Hashable, Sendable {
    /// 0xFFFF means "no specific minimum" / "no specific maximum".
    public static let unspecified: UInt16 = 0xFFFF

    public let minimum: UInt16
    public let maximum: UInt16

    /// The minimum in microseconds, nil when unspecified.
    public var minimumMicroseconds: Int64? { minimum == Self.unspecified ? nil : Int64(minimum) * 1250 }
    public var maximumMicroseconds: Int64? { maximum == Self.unspecified ? nil : Int64(maximum) * 1250 }
}

/// LE Role (Supplement Part A 1.17).
public struct LERole: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let peripheralOnly = LERole(rawValue: 0x00)
    public static let centralOnly = LERole(rawValue: 0x01)
    public static let bothPeripheralPreferred = LERole(rawValue: 0x02)
    public static let bothCentralPreferred = LERole(rawValue: 0x03)

    public var name: StaticString? {
        switch rawValue {
        case 0x00: "Only Peripheral Role supported"
        case 0x01: "Only Central Role supported"
        case 0x02: "Peripheral and Central Role supported, Peripheral Role preferred"
        case 0x03: "Peripheral and Central Role supported, Central Role preferred"
        default: nil
        }
    }
}
