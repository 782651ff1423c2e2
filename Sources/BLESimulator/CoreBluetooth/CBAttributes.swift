import Foundation

/// `CBAttribute`: anything with a UUID in a GATT database.
///
/// Equal and hashed by object identity, as Core Bluetooth's `NSObject` attributes are: two
/// discoveries of the same service on different connections are different objects (the old one
/// is invalid once the link ends), and `Set<CBCharacteristic>` / `firstIndex(of:)` in ported
/// code find exactly the object the app was handed.
public class CBAttribute: Hashable, CustomStringConvertible {
    public let uuid: CBUUID
    /// The ATT handle: the declaration handle of a service, the value handle of a
    /// characteristic, the descriptor's own handle. Not in Core Bluetooth's API; the trace and
    /// the linter use it.
    public let handle: UInt16

    init(uuid: CBUUID, handle: UInt16) {
        self.uuid = uuid
        self.handle = handle
    }

    public var description: String { "<\(Self.self) \(uuid) handle \(handle)>" }

    public static func == (lhs: CBAttribute, rhs: CBAttribute) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// `CBService`: a discovered service. Like Core Bluetooth's, it does not keep its peripheral
/// alive (`peripheral` acts as a weak reference), so an app's reference to a service does not
/// retain the peripheral (the app must, docs/rules/peripheral-not-retained.md).
public class CBService: CBAttribute {
    /// The peripheral object the service was discovered on, while it lives. Found through the
    /// manager's entry (the live object and its generation) instead of a `weak` reference,
    /// which would put the peripheral's reference counts in a side table (see
    /// `PeripheralEntry.object`).
    public var peripheral: CBPeripheral? {
        guard let entry, let p = entry.hot.object, p.generation == generation else { return nil }
        return p
    }
    private let entry: PeripheralEntry?
    private let generation: Int
    public let isPrimary: Bool
    /// Filled by `discoverCharacteristics(_:for:)`; nil until then.
    @exclusivity(unchecked) public internal(set) var characteristics: [CBCharacteristic]?
    /// Filled by `discoverIncludedServices(_:for:)`; nil until then.
    @exclusivity(unchecked) public internal(set) var includedServices: [CBService]?
    /// Last handle of the service's group (Vol 3 Part G 3.1).
    let endHandle: UInt16

    init(uuid: CBUUID, isPrimary: Bool, handle: UInt16, endHandle: UInt16, peripheral: CBPeripheral?) {
        self.isPrimary = isPrimary
        self.endHandle = endHandle
        entry = peripheral?.entry
        generation = peripheral?.generation ?? 0
        super.init(uuid: uuid, handle: handle)
    }
}

/// `CBCharacteristic`: a discovered characteristic.
public class CBCharacteristic: CBAttribute {
    @exclusivity(unchecked) public internal(set) weak var service: CBService?
    public let properties: CBCharacteristicProperties
    /// The last value read or notified; nil until one arrives.
    // `@exclusivity(unchecked)`: hot-path state, see `SimulatedWorld`.
    @exclusivity(unchecked) public internal(set) var value: Data?
    /// Filled by `discoverDescriptors(for:)`; nil until then.
    @exclusivity(unchecked) public internal(set) var descriptors: [CBDescriptor]?
    /// Whether notifications or indications are enabled (set when the CCCD write succeeds).
    @exclusivity(unchecked) public internal(set) var isNotifying: Bool = false

    init(uuid: CBUUID, properties: CBCharacteristicProperties, valueHandle: UInt16, service: CBService?) {
        self.properties = properties
        self.service = service
        super.init(uuid: uuid, handle: valueHandle)
    }
}

/// `CBDescriptor`: a discovered characteristic descriptor.
public class CBDescriptor: CBAttribute {
    @exclusivity(unchecked) public internal(set) weak var characteristic: CBCharacteristic?
    /// The last value read, typed as Core Bluetooth types it (Apple, `CBDescriptor.value` and the
    /// `CBUUID…String` constants): a `String` for Characteristic User Description (0x2901), an
    /// `NSNumber` for Characteristic Extended Properties (0x2900), Client Characteristic
    /// Configuration (0x2902) and Server Characteristic Configuration (0x2903), `Data` for
    /// everything else (Presentation Format 0x2904, Aggregate Format 0x2905, custom UUIDs). A
    /// value that does not fit its type (a description that is not UTF-8, a configuration
    /// shorter than its two bytes, Core Vol 3 Part G 3.3.3) is handed over as `Data`.
    @exclusivity(unchecked) public internal(set) var value: Any?

    init(uuid: CBUUID, handle: UInt16, characteristic: CBCharacteristic?) {
        self.characteristic = characteristic
        super.init(uuid: uuid, handle: handle)
    }

    /// Stores bytes read from the server as `value`, typed.
    func setValue(bytes: [UInt8]) { value = Self.typedValue(uuid, bytes) }

    static func typedValue(_ uuid: CBUUID, _ bytes: [UInt8]) -> Any {
        switch uuid.uuid16 {
        case 0x2901:
            if let text = String(validating: bytes, as: UTF8.self) { return text }
        case 0x2900, 0x2902, 0x2903:
            // Little-endian 16-bit fields (Vol 3 Part G 3.3.3.1, 3.3.3.3, 3.3.3.4).
            if bytes.count == 2 { return NSNumber(value: UInt16(bytes[0]) | UInt16(bytes[1]) << 8) }
        default: break
        }
        return Data(bytes)
    }

    /// The value's bytes on the air (the inverse of `typedValue`), nil for a value Core
    /// Bluetooth would not accept for the descriptor.
    static func bytes(of value: Any?, uuid: CBUUID) -> [UInt8]? {
        switch value {
        case nil: return []
        case let data as Data: return [UInt8](data)
        case let text as String: return Array(text.utf8)
        case let number as NSNumber:
            let v = number.uint16Value
            return [UInt8(v & 0xFF), UInt8(v >> 8)]
        default: return nil
        }
    }
}

/// `CBMutableDescriptor`: a descriptor of a published characteristic
/// (`CBMutableCharacteristic.descriptors`).
///
/// Apple (`CBMutableDescriptor.init(type:value:)`): only Characteristic User Description
/// (0x2901, a `String`) and Characteristic Presentation Format (0x2904, `Data`) are supported;
/// the Extended Properties and Client Characteristic Configuration descriptors are created by
/// the system from the characteristic's properties. Core Bluetooth raises an exception for the
/// others; the simulator's `add(_:)` refuses such a service with `CBError.invalidParameters`
/// and records misuse `unsupported_descriptor`.
public final class CBMutableDescriptor: CBDescriptor {
    public init(type UUID: CBUUID, value: Any?) {
        super.init(uuid: UUID, handle: 0, characteristic: nil)
        self.value = value
    }

    /// What `add(_:)` accepts: a supported type with a value of its kind.
    var publishableBytes: [UInt8]? {
        switch uuid.uuid16 {
        case 0x2901: if value == nil || value is String { return Self.bytes(of: value, uuid: uuid) }
        case 0x2904: if value is Data { return Self.bytes(of: value, uuid: uuid) }
        default: break
        }
        return nil
    }
}
