import BLEBytes
import BLEPackets

/// A service declaration learned from discovery (Core 5.4 Vol 3 Part G 3.1): Read By Group
/// Type (4.4.1 Discover All Primary Services) or Find By Type Value (4.4.2 Discover Primary
/// Service by Service UUID).
public struct GATTService: Sendable, Equatable {
    public var startHandle: UInt16
    public var endHandle: UInt16
    public var uuid: BluetoothUUID
    public var isPrimary: Bool
    /// Connection number that discovered it.
    public var learnedIn: Int
}

/// An include declaration (Vol 3 Part G 3.2), from Read By Type 0x2802 (4.5.1).
public struct GATTInclude: Sendable, Equatable {
    public var handle: UInt16
    public var includedStart: UInt16
    public var includedEnd: UInt16
    /// Present only for 16-bit service UUIDs (128-bit ones need a separate read, 4.5.1).
    public var uuid: BluetoothUUID?
    public var learnedIn: Int
}

/// A characteristic declaration (Vol 3 Part G 3.3.1), from Read By Type 0x2803 (4.6.1, 4.6.2).
public struct GATTCharacteristic: Sendable, Equatable {
    public var declarationHandle: UInt16
    public var valueHandle: UInt16
    /// Characteristic Properties bit field (3.3.1.1).
    public var properties: UInt8
    public var uuid: BluetoothUUID
    public var learnedIn: Int
}

/// A characteristic descriptor (Vol 3 Part G 3.3.3), from Find Information (4.7.1).
public struct GATTDescriptor: Sendable, Equatable {
    public var handle: UInt16
    public var uuid: BluetoothUUID
    public var learnedIn: Int
}

/// What one handle is in a database, for naming it.
public struct AttributeRef: Sendable, Equatable {
    public enum Role: UInt8, Sendable {
        case service, include, characteristicDeclaration, value, descriptor

        /// The attribute's kind as the timeline names it (`attribute_kind`).
        public var name: StaticString {
            switch self {
            case .service: "service_declaration"
            case .include: "include_declaration"
            case .characteristicDeclaration: "characteristic_declaration"
            case .value: "characteristic_value"
            case .descriptor: "descriptor"
            }
        }
    }
    public var role: Role
    public var handle: UInt16
    /// The service UUID (service), the characteristic's UUID (declaration, value) or the
    /// descriptor's type (descriptor).
    public var uuid: BluetoothUUID
    /// For descriptors: the characteristic they belong to.
    public var characteristic: BluetoothUUID?
    /// For values: the characteristic's properties.
    public var properties: UInt8?
    /// Learned on an earlier connection of the same peer, not on this one.
    public var carriedOver: Bool
    /// For descriptors: the value handle and the properties of the characteristic they belong
    /// to, so that a CCCD write can be checked against Notify/Indicate (Vol 3 Part G 3.3.3.3)
    /// and matched with the notifications of that value.
    public var characteristicValueHandle: UInt16? = nil
    public var characteristicProperties: UInt8? = nil

    public static let cccdUUID = BluetoothUUID(uuid16: 0x2902)
    public var isCCCD: Bool { role == .descriptor && uuid == Self.cccdUUID }
}

/// How many attributes a database holds, by kind (`blecap info`, `gatt`, the report and
/// lint read these, never count for themselves).
public struct GATTAttributeCounts: Sendable, Equatable {
    public var services = 0
    public var includes = 0
    public var characteristics = 0
    public var descriptors = 0
    public init() {}
}

/// Characteristic Properties bits (Vol 3 Part G 3.3.1.1), for rendering.
public enum GATTCharacteristicProperties {
    public static let names: [(UInt8, StaticString)] = [
        (0x01, "Broadcast"), (0x02, "Read"), (0x04, "WriteWithoutResponse"), (0x08, "Write"),
        (0x10, "Notify"), (0x20, "Indicate"), (0x40, "AuthenticatedSignedWrites"), (0x80, "ExtendedProperties"),
    ]
}

/// The attribute database of one GATT server as a client learned it from discovery responses.
///
/// Bounded: a server has at most 65 535 attributes, and hostile input cannot make the tables
/// grow past `maximumEntries` each (later entries are dropped and `isFull` set). Entries are
/// upserted by handle, so rediscovery on a later connection replaces rather than duplicates.
public struct GATTDatabase: Sendable {
    public static let maximumEntries = 2048

    public private(set) var services: [GATTService] = []
    public private(set) var includes: [GATTInclude] = []
    public private(set) var characteristics: [GATTCharacteristic] = []
    public private(set) var descriptors: [GATTDescriptor] = []
    public private(set) var isFull = false

    public init() {}

    /// Room reserved in a table at its first entry. A database is built once per connection,
    /// and growing its tables by doubling from nothing was most of the ~7 heap allocations
    /// `info` and `timeline` made per connection; with room for a typical server up front it
    /// is one per table.
    static let initialCapacity = 16

    public var counts: GATTAttributeCounts {
        var c = GATTAttributeCounts()
        c.services = services.count
        c.includes = includes.count
        c.characteristics = characteristics.count
        c.descriptors = descriptors.count
        return c
    }

    public var isEmpty: Bool { services.isEmpty && characteristics.isEmpty && descriptors.isEmpty && includes.isEmpty }

    mutating func add(_ s: GATTService) {
        if let i = services.firstIndex(where: { $0.startHandle == s.startHandle }) {
            services[i] = s
            return
        }
        guard services.count < Self.maximumEntries else {
            isFull = true
            return
        }
        if services.capacity == 0 { services.reserveCapacity(Self.initialCapacity) }
        services.insert(s, at: services.firstIndex(where: { $0.startHandle > s.startHandle }) ?? services.count)
    }

    mutating func add(_ c: GATTCharacteristic) {
        // A Find Information answered before the characteristic was known listed its
        // declaration and value too: they are not descriptors (issue 28: "FFF3 FFF3").
        if !descriptors.isEmpty {
            descriptors.removeAll { $0.handle == c.declarationHandle || $0.handle == c.valueHandle }
        }
        if let i = characteristics.firstIndex(where: { $0.declarationHandle == c.declarationHandle }) {
            characteristics[i] = c
            return
        }
        guard characteristics.count < Self.maximumEntries else {
            isFull = true
            return
        }
        if characteristics.capacity == 0 { characteristics.reserveCapacity(Self.initialCapacity) }
        characteristics.insert(
            c,
            at: characteristics.firstIndex(where: { $0.declarationHandle > c.declarationHandle })
                ?? characteristics.count)
    }

    mutating func add(_ d: GATTDescriptor) {
        // Find Information also lists declarations and values when asked for a wide range;
        // only handles that are neither belong in the descriptor table.
        if characteristics.contains(where: { $0.declarationHandle == d.handle || $0.valueHandle == d.handle })
            || services.contains(where: { $0.startHandle == d.handle })
        {
            return
        }
        if let u = d.uuid.uuid16, GATTAssignedNumbers.declarationName(u) != nil { return }
        if let i = descriptors.firstIndex(where: { $0.handle == d.handle }) {
            descriptors[i] = d
            return
        }
        guard descriptors.count < Self.maximumEntries else {
            isFull = true
            return
        }
        if descriptors.capacity == 0 { descriptors.reserveCapacity(Self.initialCapacity) }
        descriptors.insert(d, at: descriptors.firstIndex(where: { $0.handle > d.handle }) ?? descriptors.count)
    }

    mutating func add(_ inc: GATTInclude) {
        if let i = includes.firstIndex(where: { $0.handle == inc.handle }) {
            includes[i] = inc
            return
        }
        guard includes.count < Self.maximumEntries else {
            isFull = true
            return
        }
        includes.append(inc)
    }

    /// The service whose range holds `handle`.
    public func service(containing handle: UInt16) -> GATTService? {
        services.last { $0.startHandle <= handle && handle <= $0.endHandle }
    }

    /// The characteristic a descriptor at `handle` belongs to: the last declaration before it
    /// inside the same service (Vol 3 Part G 3.3: descriptors follow their value).
    public func characteristic(owning handle: UInt16) -> GATTCharacteristic? {
        guard let c = characteristics.last(where: { $0.valueHandle < handle }) else { return nil }
        if let s = service(containing: handle), c.declarationHandle < s.startHandle { return nil }
        return c
    }

    /// The characteristic with value handle `handle`.
    public func characteristic(valueHandle handle: UInt16) -> GATTCharacteristic? {
        characteristics.first { $0.valueHandle == handle }
    }

    /// Descriptors of the characteristic declared at `declarationHandle`.
    public func descriptors(of c: GATTCharacteristic) -> [GATTDescriptor] {
        let next =
            characteristics.first(where: { $0.declarationHandle > c.declarationHandle })?.declarationHandle ?? .max
        let end = service(containing: c.declarationHandle)?.endHandle ?? .max
        return descriptors.filter { $0.handle > c.valueHandle && $0.handle < next && $0.handle <= end }
    }

    /// What `handle` is, or nil if discovery never named it. `connection` marks entries
    /// learned on another connection as carried over.
    public func attribute(at handle: UInt16, connection: Int) -> AttributeRef? {
        for c in characteristics {
            if c.valueHandle == handle {
                return AttributeRef(
                    role: .value, handle: handle, uuid: c.uuid, characteristic: nil,
                    properties: c.properties, carriedOver: c.learnedIn != connection)
            }
            if c.declarationHandle == handle {
                return AttributeRef(
                    role: .characteristicDeclaration, handle: handle, uuid: c.uuid, characteristic: nil,
                    properties: c.properties, carriedOver: c.learnedIn != connection)
            }
        }
        if let d = descriptors.first(where: { $0.handle == handle }) {
            let owner = characteristic(owning: handle)
            return AttributeRef(
                role: .descriptor, handle: handle, uuid: d.uuid,
                characteristic: owner?.uuid, properties: nil,
                carriedOver: d.learnedIn != connection,
                characteristicValueHandle: owner?.valueHandle, characteristicProperties: owner?.properties)
        }
        if let s = services.first(where: { $0.startHandle == handle }) {
            return AttributeRef(
                role: .service, handle: handle, uuid: s.uuid, characteristic: nil, properties: nil,
                carriedOver: s.learnedIn != connection)
        }
        if let i = includes.first(where: { $0.handle == handle }), let u = i.uuid {
            return AttributeRef(
                role: .include, handle: handle, uuid: u, characteristic: nil, properties: nil,
                carriedOver: i.learnedIn != connection)
        }
        return nil
    }
}

extension AttributeRef {
    /// "Heart Rate Measurement", "Heart Rate Measurement CCCD", "Device Name declaration",
    /// "Heart Rate service"; unknown UUIDs by their UUID string.
    public var displayName: String {
        let kind: GATTAssignedNumbers.AttributeKind =
            switch role {
            case .service, .include: .service
            case .descriptor: .descriptor
            default: .characteristic
            }
        func name(_ u: BluetoothUUID) -> String {
            GATTAssignedNumbers.name(for: u, as: kind).map { $0.description } ?? u.description
        }
        switch role {
        case .value: return name(uuid)
        case .characteristicDeclaration: return name(uuid) + " declaration"
        case .service: return name(uuid) + " service"
        case .include: return "include of " + name(uuid)
        case .descriptor:
            let d = isCCCD ? "CCCD" : name(uuid)
            guard let c = characteristic else { return d }
            return name(c) + " " + d
        }
    }
}
