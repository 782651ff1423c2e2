import Foundation

/// A characteristic descriptor on a simulated peripheral's GATT server.
public final class SimulatedDescriptor {
    public let uuid: CBUUID
    public var value: [UInt8]

    public init(uuid: CBUUID, value: [UInt8] = []) {
        self.uuid = uuid
        self.value = value
    }
}

/// A characteristic on a simulated GATT server: declaration properties, server-side
/// permissions, a stored value and optional handlers.
///
/// The properties are what the client sees (and what Core Bluetooth checks client-side); the
/// permissions are what the server enforces. A CCCD (0x2902, Vol 3 Part G 3.3.3.3) is added
/// automatically when the properties include notify or indicate.
public final class SimulatedCharacteristic {
    public let uuid: CBUUID
    public var properties: CBCharacteristicProperties
    public var permissions: CBAttributePermissions
    /// The stored value, returned by reads when `onRead` is nil and replaced by accepted writes
    /// when `onWrite` is nil.
    public var value: [UInt8]
    public var descriptors: [SimulatedDescriptor]
    /// Answers a read: a value or an ATT error.
    public var onRead: (() -> Result<[UInt8], CBATTError>)?
    /// Receives an accepted write (request or command); return an ATT error to refuse a request.
    public var onWrite: (([UInt8]) -> CBATTError?)?

    /// Permissions default to what the properties imply (readable if readable, writeable if
    /// writable), which is what a well-formed peripheral does.
    public init(uuid: CBUUID, properties: CBCharacteristicProperties, permissions: CBAttributePermissions? = nil,
                value: [UInt8] = [], descriptors: [SimulatedDescriptor] = []) {
        self.uuid = uuid
        self.properties = properties
        var implied: CBAttributePermissions = []
        if properties.contains(.read) { implied.insert(.readable) }
        if !properties.isDisjoint(with: [.write, .writeWithoutResponse]) { implied.insert(.writeable) }
        self.permissions = permissions ?? implied
        self.value = value
        self.descriptors = descriptors
    }
}

/// A service on a simulated GATT server.
public final class SimulatedService {
    public let uuid: CBUUID
    public var isPrimary: Bool
    public var characteristics: [SimulatedCharacteristic]
    /// Services of the same peripheral this one includes (Vol 3 Part G 3.2), by UUID.
    public var includedServices: [CBUUID]

    public init(uuid: CBUUID, isPrimary: Bool = true, characteristics: [SimulatedCharacteristic] = [],
                includedServices: [CBUUID] = []) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.characteristics = characteristics
        self.includedServices = includedServices
    }
}

/// The attribute table a simulated peripheral serves, with handles assigned in declaration
/// order as a real server lays them out (Vol 3 Part G 3.1–3.3): service declaration, include
/// declarations, then per characteristic its declaration, value and descriptors.
///
/// Handle 1–4 are the Generic Attribute service (0x1801) with Service Changed (0x2A05,
/// indicate) and its CCCD: the world indicates it when services change (Vol 3 Part G 7.1).
/// Core Bluetooth consumes that service itself, so discovery does not report it.
struct GATTServerDatabase {
    struct Service {
        let definition: SimulatedService?
        let uuid: CBUUID
        let isPrimary: Bool
        let start: UInt16
        var end: UInt16
        var includes: [(handle: UInt16, serviceIndex: Int)] = []
        var characteristics: [Int] = []
        /// Hidden from Core Bluetooth discovery (the Generic Attribute service).
        let isHidden: Bool
    }

    struct Characteristic {
        let definition: SimulatedCharacteristic?
        let uuid: CBUUID
        let properties: CBCharacteristicProperties
        let declarationHandle: UInt16
        let valueHandle: UInt16
        var cccdHandle: UInt16?
        var descriptors: [(handle: UInt16, uuid: CBUUID, definition: SimulatedDescriptor?)] = []
        let serviceIndex: Int
        var endHandle: UInt16
    }

    static let cccdUUID = CBUUID(string: "2902")
    static let genericAttributeUUID = CBUUID(string: "1801")
    static let serviceChangedUUID = CBUUID(string: "2A05")

    private(set) var services: [Service] = []
    private(set) var characteristics: [Characteristic] = []
    /// value handle → characteristic index.
    private var byValueHandle: [UInt16: Int] = [:]
    /// CCCD handle → characteristic index.
    private var byCCCDHandle: [UInt16: Int] = [:]
    private var byDescriptorHandle: [UInt16: (characteristic: Int, descriptor: Int)] = [:]

    init(services defs: [SimulatedService]) {
        var h: UInt16 = 1
        // Generic Attribute service with Service Changed.
        services.append(Service(definition: nil, uuid: Self.genericAttributeUUID, isPrimary: true, start: 1, end: 4,
                                isHidden: true))
        characteristics.append(Characteristic(definition: nil, uuid: Self.serviceChangedUUID, properties: [.indicate],
                                              declarationHandle: 2, valueHandle: 3, cccdHandle: 4, serviceIndex: 0,
                                              endHandle: 4))
        services[0].characteristics = [0]
        h = 5
        var pendingIncludes: [(service: Int, handle: UInt16, uuid: CBUUID)] = []
        for def in defs {
            let si = services.count
            let start = h
            h &+= 1
            services.append(Service(definition: def, uuid: def.uuid, isPrimary: def.isPrimary, start: start, end: start,
                                    isHidden: false))
            for inc in def.includedServices {
                pendingIncludes.append((si, h, inc))
                h &+= 1
            }
            for c in def.characteristics {
                let ci = characteristics.count
                let decl = h
                let value = h &+ 1
                h &+= 2
                var ch = Characteristic(definition: c, uuid: c.uuid, properties: c.properties, declarationHandle: decl,
                                        valueHandle: value, serviceIndex: si, endHandle: value)
                let wantsCCCD = !c.properties.isDisjoint(with: [.notify, .indicate])
                if wantsCCCD, !c.descriptors.contains(where: { $0.uuid == Self.cccdUUID }) {
                    ch.cccdHandle = h
                    ch.descriptors.append((h, Self.cccdUUID, nil))
                    h &+= 1
                }
                for d in c.descriptors {
                    if d.uuid == Self.cccdUUID { ch.cccdHandle = h }
                    ch.descriptors.append((h, d.uuid, d))
                    h &+= 1
                }
                ch.endHandle = h &- 1
                characteristics.append(ch)
                services[si].characteristics.append(ci)
            }
            services[si].end = h &- 1
        }
        for inc in pendingIncludes {
            if let target = services.firstIndex(where: { !$0.isHidden && $0.uuid == inc.uuid }) {
                services[inc.service].includes.append((inc.handle, target))
            }
        }
        for (i, c) in characteristics.enumerated() {
            byValueHandle[c.valueHandle] = i
            if let cccd = c.cccdHandle { byCCCDHandle[cccd] = i }
            for (j, d) in c.descriptors.enumerated() { byDescriptorHandle[d.handle] = (i, j) }
        }
    }

    func characteristic(valueHandle: UInt16) -> Characteristic? { byValueHandle[valueHandle].map { characteristics[$0] } }
    func characteristic(cccdHandle: UInt16) -> Characteristic? { byCCCDHandle[cccdHandle].map { characteristics[$0] } }
    func descriptor(handle: UInt16) -> (characteristic: Characteristic, index: Int)? {
        byDescriptorHandle[handle].map { (characteristics[$0.characteristic], $0.descriptor) }
    }

    /// The first characteristic with this UUID, for notification sources and world scripts.
    func characteristic(uuid: CBUUID) -> Characteristic? { characteristics.first { $0.uuid == uuid && $0.definition != nil } }

    var serviceChangedHandle: UInt16 { 3 }
}
