import BLEAir
import Foundation

/// A characteristic descriptor on a simulated peripheral's GATT server.
public final class SimulatedDescriptor {
    public let uuid: CBUUID
    public var value: [UInt8]
    /// The descriptor's ATT handle, when it must be this one (a captured database replayed);
    /// nil: the next free handle. See `GATTServerDatabase` for what happens to a handle that is
    /// taken or out of order.
    public var handle: UInt16?

    public init(uuid: CBUUID, value: [UInt8] = [], handle: UInt16? = nil) {
        self.uuid = uuid
        self.value = value
        self.handle = handle
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
    /// The characteristic declaration's handle and the value's (Vol 3 Part G 3.3.1, 3.3.2),
    /// when they must be these (a captured database replayed); nil: the next free handles. A
    /// value handle alone puts the declaration just before it when that handle is free.
    public var declarationHandle: UInt16?
    public var valueHandle: UInt16?

    /// Permissions default to what the properties imply (readable if readable, writeable if
    /// writable), which is what a well-formed peripheral does.
    public init(
        uuid: CBUUID, properties: CBCharacteristicProperties, permissions: CBAttributePermissions? = nil,
        value: [UInt8] = [], descriptors: [SimulatedDescriptor] = [], declarationHandle: UInt16? = nil,
        valueHandle: UInt16? = nil
    ) {
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
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
    /// The service declaration's handle and the last handle of its group (Vol 3 Part G 3.1),
    /// when they must be these (a captured database replayed); nil: the next free handle, and
    /// the group ends at its last attribute. An end handle leaves room after the last
    /// attribute, as a real server's table may.
    public var handle: UInt16?
    public var endHandle: UInt16?

    public init(
        uuid: CBUUID, isPrimary: Bool = true, characteristics: [SimulatedCharacteristic] = [],
        includedServices: [CBUUID] = [], handle: UInt16? = nil, endHandle: UInt16? = nil
    ) {
        self.handle = handle
        self.endHandle = endHandle
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.characteristics = characteristics
        self.includedServices = includedServices
    }
}

/// The attribute table a simulated peripheral serves, laid out in declaration order as a real
/// server lays it out (Vol 3 Part G 3.1–3.3): service declaration, include declarations, then
/// per characteristic its declaration, value and descriptors.
///
/// By default handles 1–4 are the Generic Attribute service (0x1801) with Service Changed
/// (0x2A05, indicate) and its CCCD: the world indicates it when services change (Vol 3 Part G
/// 7.1). Core Bluetooth consumes that service itself, so discovery does not report it. A
/// peripheral with `providesGenericAttributeService` false has no such hidden service (a
/// captured database brings its own; a 0x1801 service among the definitions is then an
/// ordinary one, and its 0x2A05 characteristic carries Service Changed).
///
/// Handles: a definition may name its handles (`SimulatedService.handle`/`endHandle`,
/// `SimulatedCharacteristic.declarationHandle`/`valueHandle`, `SimulatedDescriptor.handle`);
/// every other attribute gets the next handle after the last one used. Handles increase
/// through a server's table in layout order (a service's attributes follow its declaration up
/// to its end handle, Vol 3 Part G 3.1; the value follows its declaration, 3.3.1), so an
/// explicit handle is taken only when it is above every handle used before it. That one
/// rule also excludes duplicates and overlapping groups: **the earlier declaration wins**. A
/// handle that breaks it (a duplicate, an overlap, one out of order, the reserved 0x0000, Vol
/// 3 Part F 3.2.2) is ignored, listed in `ignoredHandles`, and the attribute gets the next
/// free handle instead. An end handle below the service's last attribute is ignored the same
/// way. Once 0xFFFF is used, the attributes still to come are left out (`omittedAttributes`)
/// rather than wrapped to low handles. Nothing traps, whatever the definitions say.
///
/// A CCCD (0x2902) is added to a notify/indicate characteristic that defines none: right
/// after the value when no descriptor of it names a handle (where servers put it), else after
/// its last descriptor (the named handles are kept).
struct GATTServerDatabase {
    struct Service {
        let definition: SimulatedService?
        let uuid: CBUUID
        let isPrimary: Bool
        let start: UInt16
        var end: UInt16
        var includes: [(handle: UInt16, serviceIndex: Int)] = []
        var characteristics: [Int] = []
        /// Hidden from Core Bluetooth discovery (the generated Generic Attribute service).
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
        /// The last handle of the characteristic definition: before the next characteristic's
        /// declaration, or the service's end (the range descriptor discovery searches, Vol 3
        /// Part G 4.7.1).
        var endHandle: UInt16
    }

    static let cccdUUID = CBUUID(string: "2902")
    static let genericAttributeUUID = CBUUID(string: "1801")
    static let serviceChangedUUID = CBUUID(string: "2A05")

    private(set) var services: [Service] = []
    private(set) var characteristics: [Characteristic] = []
    /// Explicit handles the layout could not honour (see the type's documentation).
    private(set) var ignoredHandles: [UInt16] = []
    /// Attributes left out because no handle was left.
    private(set) var omittedAttributes = 0
    /// The Service Changed characteristic's value handle, if the server has one.
    private(set) var serviceChangedHandle: UInt16?
    /// value handle → characteristic index.
    private var byValueHandle: [UInt16: Int] = [:]
    /// CCCD handle → characteristic index.
    private var byCCCDHandle: [UInt16: Int] = [:]
    private var byDescriptorHandle: [UInt16: (characteristic: Int, descriptor: Int)] = [:]

    /// The handle allocator: every handle is above the last one used.
    private struct Allocator {
        var last: UInt16 = 0
        var ignored: [UInt16] = []

        /// `explicit` if it is above every handle used so far, else the next free handle; nil
        /// when none is left.
        mutating func take(_ explicit: UInt16?) -> UInt16? {
            if let e = explicit {
                if e > last {
                    last = e
                    return e
                }
                ignored.append(e)
            }
            guard last < 0xFFFF else { return nil }
            last += 1
            return last
        }
    }

    init(services defs: [SimulatedService], genericAttributeService: Bool = true) {
        var alloc = Allocator()
        let characteristicCount = defs.reduce(0) { $0 + $1.characteristics.count } + 1
        services.reserveCapacity(defs.count + 1)
        characteristics.reserveCapacity(characteristicCount)
        byValueHandle.reserveCapacity(characteristicCount)
        byCCCDHandle.reserveCapacity(characteristicCount)
        byDescriptorHandle.reserveCapacity(characteristicCount)
        if genericAttributeService {
            services.append(
                Service(
                    definition: nil, uuid: Self.genericAttributeUUID, isPrimary: true, start: 1, end: 4,
                    isHidden: true))
            characteristics.append(
                Characteristic(
                    definition: nil, uuid: Self.serviceChangedUUID, properties: [.indicate],
                    declarationHandle: 2, valueHandle: 3, cccdHandle: 4,
                    descriptors: [(4, Self.cccdUUID, nil)], serviceIndex: 0, endHandle: 4))
            services[0].characteristics = [0]
            alloc.last = 4
        }
        var pendingIncludes: [(service: Int, handle: UInt16, uuid: CBUUID)] = []
        for def in defs {
            guard let start = alloc.take(def.handle) else {
                omittedAttributes +=
                    1 + def.includedServices.count
                    + def.characteristics.reduce(0) { $0 + 2 + $1.descriptors.count }
                continue
            }
            let si = services.count
            services.append(
                Service(
                    definition: def, uuid: def.uuid, isPrimary: def.isPrimary, start: start, end: start,
                    isHidden: false))
            for inc in def.includedServices {
                guard let h = alloc.take(nil) else {
                    omittedAttributes += 1
                    continue
                }
                pendingIncludes.append((si, h, inc))
            }
            for c in def.characteristics {
                var declared = c.declarationHandle
                if declared == nil, let v = c.valueHandle, v > 1, v &- 1 > alloc.last { declared = v &- 1 }
                guard let decl = alloc.take(declared), let value = alloc.take(c.valueHandle) else {
                    omittedAttributes += 2 + c.descriptors.count
                    continue
                }
                let ci = characteristics.count
                var ch = Characteristic(
                    definition: c, uuid: c.uuid, properties: c.properties, declarationHandle: decl,
                    valueHandle: value, serviceIndex: si, endHandle: value)
                let wantsCCCD =
                    !c.properties.isDisjoint(with: [.notify, .indicate])
                    && !c.descriptors.contains(where: { $0.uuid == Self.cccdUUID })
                let cccdFirst = wantsCCCD && !c.descriptors.contains(where: { $0.handle != nil })
                func addCCCD() {
                    guard let h = alloc.take(nil) else {
                        omittedAttributes += 1
                        return
                    }
                    ch.cccdHandle = h
                    ch.descriptors.append((h, Self.cccdUUID, nil))
                }
                if cccdFirst { addCCCD() }
                for d in c.descriptors {
                    guard let h = alloc.take(d.handle) else {
                        omittedAttributes += 1
                        continue
                    }
                    if d.uuid == Self.cccdUUID, ch.cccdHandle == nil { ch.cccdHandle = h }
                    ch.descriptors.append((h, d.uuid, d))
                }
                if wantsCCCD, !cccdFirst { addCCCD() }
                characteristics.append(ch)
                services[si].characteristics.append(ci)
            }
            // The group ends at its last attribute, or later when the definition says so.
            if let end = def.endHandle {
                if end >= alloc.last { alloc.last = end } else { alloc.ignored.append(end) }
            }
            services[si].end = alloc.last
        }
        ignoredHandles = alloc.ignored
        for inc in pendingIncludes {
            if let target = services.firstIndex(where: { !$0.isHidden && $0.uuid == inc.uuid }) {
                services[inc.service].includes.append((inc.handle, target))
            }
        }
        for s in services {
            for (k, ci) in s.characteristics.enumerated() {
                let next =
                    k + 1 < s.characteristics.count ? characteristics[s.characteristics[k + 1]].declarationHandle : nil
                characteristics[ci].endHandle = next.map { $0 &- 1 } ?? s.end
            }
        }
        for (i, c) in characteristics.enumerated() {
            byValueHandle[c.valueHandle] = i
            if let cccd = c.cccdHandle { byCCCDHandle[cccd] = i }
            for (j, d) in c.descriptors.enumerated() { byDescriptorHandle[d.handle] = (i, j) }
        }
        // Service Changed lives in the Generic Attribute service (Vol 3 Part G 7); a 0x2A05
        // elsewhere is taken only when there is none there.
        let candidates = characteristics.filter { $0.uuid == Self.serviceChangedUUID }
        serviceChangedHandle =
            (candidates.first { services[$0.serviceIndex].uuid == Self.genericAttributeUUID }
            ?? candidates.first)?.valueHandle
    }

    func characteristic(valueHandle: UInt16) -> Characteristic? {
        byValueHandle[valueHandle].map { characteristics[$0] }
    }
    func characteristic(cccdHandle: UInt16) -> Characteristic? { byCCCDHandle[cccdHandle].map { characteristics[$0] } }
    func descriptor(handle: UInt16) -> (characteristic: Characteristic, index: Int)? {
        byDescriptorHandle[handle].map { (characteristics[$0.characteristic], $0.descriptor) }
    }

    /// The first defined characteristic with this UUID (and this value handle, when given),
    /// for notification sources and world scripts.
    func characteristic(uuid: CBUUID, valueHandle: UInt16? = nil) -> Characteristic? {
        if let valueHandle {
            guard let c = characteristic(valueHandle: valueHandle), c.uuid == uuid, c.definition != nil else {
                return nil
            }
            return c
        }
        return characteristics.first { $0.uuid == uuid && $0.definition != nil }
    }
}

/// The declared backing: a definition's `onRead`/`onWrite`, else its stored value (a write
/// replaces it). The link has checked the handle, properties and permissions.
extension GATTServerDatabase: GATTValueBacking {
    func readValue(_ handle: UInt16) -> GATTAnswer {
        guard let def = characteristic(valueHandle: handle)?.definition else { return .value([]) }
        if let onRead = def.onRead {
            switch onRead() {
            case .success(let v): return .value(v)
            case .failure(let e): return .error(e.code.byte)
            }
        }
        return .value(def.value)
    }

    func writeValue(_ handle: UInt16, _ value: [UInt8], kind: GATTWriteKind) -> UInt8? {
        guard let def = characteristic(valueHandle: handle)?.definition else { return nil }
        if let onWrite = def.onWrite { return onWrite(value)?.code.byte }
        def.value = value
        return nil
    }
}
