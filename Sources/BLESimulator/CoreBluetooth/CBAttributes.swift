import Foundation

/// `CBAttribute`: anything with a UUID in a GATT database.
public class CBAttribute: CustomStringConvertible {
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
}

/// `CBService`: a discovered service. Like Core Bluetooth's, it does not keep its peripheral
/// alive (`peripheral` acts as a weak reference), so an app's reference to a service does not
/// retain the peripheral (000_*.txt, "DON'T: Lose the peripheral reference").
public class CBService: CBAttribute {
    /// The peripheral object the service was discovered on, while it lives. Found through the
    /// manager's entry (the live object and its generation) instead of a `weak` reference,
    /// which would put the peripheral's reference counts in a side table (see
    /// `PeripheralEntry.object`).
    public var peripheral: CBPeripheral? {
        guard let entry, let p = entry.object, p.generation == generation else { return nil }
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
public final class CBDescriptor: CBAttribute {
    @exclusivity(unchecked) public private(set) weak var characteristic: CBCharacteristic?
    /// The last value read (Core Bluetooth decodes some descriptors; raw bytes here).
    @exclusivity(unchecked) public internal(set) var value: Data?

    init(uuid: CBUUID, handle: UInt16, characteristic: CBCharacteristic) {
        self.characteristic = characteristic
        super.init(uuid: uuid, handle: handle)
    }
}
