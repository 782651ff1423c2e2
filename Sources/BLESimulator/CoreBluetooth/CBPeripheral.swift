import Foundation

/// `CBPeripheral`: the app's handle on a remote device, created by the central manager and
/// retained only by the app (docs/rules/peripheral-not-retained.md).
///
/// Every command needs the manager `.poweredOn` and the peripheral `.connected`; otherwise it
/// does nothing but log "API MISUSE" (docs/rules/gatt-before-connected.md: discover in
/// `didConnect`). Requests go out one at a time per connection, in call order (one
/// outstanding ATT request per bearer, Core Vol 3 Part F 3.3.2).
public final class CBPeripheral: CBPeer, CustomStringConvertible {
    /// Not in `hot`: a weak reference makes `HotState` address-only, and `deinit` then
    /// destroys it through its value witness (docs/performance.md). Unchecked for the reason
    /// `hot` is.
    @exclusivity(unchecked) public weak var delegate: (any CBPeripheralDelegate)?
    /// The manager that made this object; nil once it is gone (cleared by the manager's
    /// `deinit`: unretained rather than `weak`, see `PeripheralEntry.object`).
    public internal(set) var manager: CBCentralManager? {
        get { hot.manager }
        set { hot.manager = newValue }
    }
    let entry: PeripheralEntry
    /// `entry.objectGeneration` when this object was made.
    let generation: Int
    /// Discovered services: nil until discovered, and nil again once the connection ends (the
    /// old `CBService`s and their characteristics and descriptors are invalid from then on;
    /// commands naming them are refused as `foreign_attribute`).
    public internal(set) var services: [CBService]? {
        get { hot.services }
        set { hot.services = newValue }
    }
    /// value handle → discovered characteristic, for notifications. Not in `hot`: its
    /// observer bumps `attributeVersion`, and as a forwarding property every in-place update
    /// (`characteristicsByHandle[h] = c`) would copy the dictionary. Unchecked for the reason
    /// `hot` is.
    @exclusivity(unchecked) var characteristicsByHandle: [UInt16: CBCharacteristic] = [:] {
        didSet { hot.attributeVersion &+= 1 }
    }
    /// Bumped whenever `characteristicsByHandle` changes (caches of it check this).
    var attributeVersion: Int { hot.attributeVersion }

    /// The object's mutable state under one exclusivity exemption, unchecked for the reason
    /// `SimulatedWorld.hot` states: the object belongs to its world's thread, and no access
    /// to `hot` spans a call (delegate methods run between accesses, never inside one).
    @exclusivity(unchecked) private var hot = HotState()
    private struct HotState {
        unowned(unsafe) var manager: CBCentralManager?
        var services: [CBService]?
        var attributeVersion = 0
    }

    init(manager: CBCentralManager, entry: PeripheralEntry) {
        hot.manager = manager
        self.entry = entry
        entry.hot.objectGeneration += 1
        generation = entry.hot.objectGeneration
        super.init(identifier: entry.identifier)
    }

    /// The app let go: the manager notices at the end of the run-loop turn, or at once outside
    /// one (`SimulatedWorld.peripheralReleased`).
    deinit {
        if entry.hot.object === self { entry.hot.object = nil }
        manager?.world.peripheralReleased()
    }

    /// The GAP name once known, else the advertised local name.
    public var name: String? { entry.device.name ?? entry.device.localName }
    public var state: CBPeripheralState { entry.hot.state }
    public var description: String { "<CBPeripheral \(identifier.uuidString) \(name ?? "")>" }

    // MARK: - Write flow control

    /// Whether a `.withoutResponse` write would be sent now: false while the controller's
    /// buffers are all in flight, and whenever not connected. Reading it is recorded, so a rule
    /// can tell whether the app checked before writing (docs/rules/write-without-response-flow.md).
    public var canSendWriteWithoutResponse: Bool {
        let v = canSendNow
        manager?.record(.canSendWriteWithoutResponse(peripheral: identifier, result: v), entry: entry, .performed)
        return v
    }

    var canSendNow: Bool { entry.hot.link?.canSendWriteWithoutResponse ?? false }

    /// ATT_MTU − 3 for `.withoutResponse` (one Write Command PDU, Vol 3 Part F 3.4.5.3; 20 until
    /// the MTU exchange completes), 512 for `.withResponse` (the longest attribute value, Vol 3
    /// Part F 3.2.9; Core Bluetooth uses a long write beyond one PDU).
    public func maximumWriteValueLength(for type: CBCharacteristicWriteType) -> Int {
        let v = maximumLength(type)
        manager?.record(
            .maximumWriteValueLength(peripheral: identifier, type: type, result: v), entry: entry, .performed)
        return v
    }

    func maximumLength(_ type: CBCharacteristicWriteType) -> Int {
        type == .withResponse ? 512 : Int(entry.hot.link?.mtu ?? 23) - 3
    }

    // MARK: - Discovery

    public func discoverServices(_ serviceUUIDs: [CBUUID]?) {
        let call = APICall.discoverServices(
            peripheral: identifier, services: serviceUUIDs, delegateSet: delegate != nil)
        guard let link = connectedLink(call) else { return }
        manager?.record(call, entry: entry, .performed)
        link.enqueue(.discoverServices(Self.allIfEmpty(serviceUUIDs)))
    }

    public func discoverIncludedServices(_ includedServiceUUIDs: [CBUUID]?, for service: CBService) {
        let call = APICall.discoverIncludedServices(
            peripheral: identifier, services: includedServiceUUIDs,
            service: service.uuid)
        guard let link = connectedLink(call), owns(service, call) else { return }
        manager?.record(call, entry: entry, .performed)
        link.enqueue(.discoverIncludedServices(Self.allIfEmpty(includedServiceUUIDs), service))
    }

    public func discoverCharacteristics(_ characteristicUUIDs: [CBUUID]?, for service: CBService) {
        let call = APICall.discoverCharacteristics(
            peripheral: identifier, characteristics: characteristicUUIDs,
            service: service.uuid)
        guard let link = connectedLink(call), owns(service, call) else { return }
        manager?.record(call, entry: entry, .performed)
        link.enqueue(.discoverCharacteristics(Self.allIfEmpty(characteristicUUIDs), service))
    }

    public func discoverDescriptors(for characteristic: CBCharacteristic) {
        let call = APICall.discoverDescriptors(peripheral: identifier, characteristic: characteristic.uuid)
        guard let link = connectedLink(call), owns(characteristic.service, call) else { return }
        manager?.record(call, entry: entry, .performed)
        link.enqueue(.discoverDescriptors(characteristic))
    }

    // MARK: - Reading and writing

    /// Sends a Read Request; the server enforces its permissions (a characteristic without the
    /// read property answers Read Not Permitted, reported as `CBATTError.readNotPermitted`).
    public func readValue(for characteristic: CBCharacteristic) {
        let call = APICall.readValue(
            peripheral: identifier, characteristic: characteristic.uuid,
            properties: characteristic.properties)
        guard let link = connectedLink(call), owns(characteristic.service, call) else { return }
        manager?.record(call, entry: entry, .performed)
        link.enqueue(.read(characteristic))
    }

    public func readValue(for descriptor: CBDescriptor) {
        let call = APICall.readDescriptor(peripheral: identifier, descriptor: descriptor.uuid)
        guard let link = connectedLink(call), owns(descriptor.characteristic?.service, call) else { return }
        manager?.record(call, entry: entry, .performed)
        link.enqueue(.readDescriptor(descriptor))
    }

    /// Writes as Core Bluetooth does (docs/rules/unchecked-write.md, oversized-write.md,
    /// write-without-response-flow.md):
    /// - `.withResponse`: a Write Request, queued with the other requests; beyond ATT_MTU − 3 a
    ///   long write (Prepare Write + Execute Write). The server refuses a characteristic without
    ///   the write property (`CBATTError.writeNotPermitted` in `didWriteValueFor`) and values
    ///   over 512 bytes (`.invalidAttributeValueLength`).
    /// - `.withoutResponse`: a Write Command, sent at once. Dropped — nothing on the air, no
    ///   callback — when the characteristic lacks Write Without Response (Core Bluetooth logs a
    ///   warning), when `canSendWriteWithoutResponse` is false (Core Bluetooth discards it;
    ///   CoreBluetoothMock delivers it, the simulator does not), and when longer than
    ///   `maximumWriteValueLength(for: .withoutResponse)`. Each drop is recorded.
    public func writeValue(_ data: Data, for characteristic: CBCharacteristic, type: CBCharacteristicWriteType) {
        let call = APICall.writeValue(
            peripheral: identifier, characteristic: characteristic.uuid,
            handle: characteristic.handle, properties: characteristic.properties, type: type, length: data.count,
            maximumLength: maximumLength(type), canSend: canSendNow)
        guard let link = connectedLink(call), owns(characteristic.service, call) else { return }
        let bytes = [UInt8](data)
        guard type == .withoutResponse else {
            manager?.record(call, entry: entry, .performed)
            link.enqueue(.write(characteristic, bytes))
            return
        }
        if !characteristic.properties.contains(.writeWithoutResponse) {
            manager?.record(call, entry: entry, .dropped(.writeTypeNotSupported))
            manager?.world.log(
                "[CoreBluetooth] WARNING: \(characteristic) does not specify the \"Write Without "
                    + "Response\" property - ignoring response-less write")
        } else if !link.canSendWriteWithoutResponse {
            manager?.record(call, entry: entry, .dropped(.cannotSendWriteWithoutResponse))
        } else if bytes.count > maximumLength(.withoutResponse) {
            manager?.record(call, entry: entry, .dropped(.exceedsMaximumLength))
        } else {
            manager?.record(call, entry: entry, .performed)
            link.sendWriteCommand(characteristic, bytes)
        }
    }

    /// Writes a descriptor. Not the Client Characteristic Configuration descriptor: Apple's
    /// documentation of `writeValue(_:for:)` says it can't write a client configuration
    /// descriptor and that `setNotifyValue(_:for:)` is the way (Core Bluetooth raises an
    /// exception); the simulator refuses the call as misuse `cccd_write`, nothing on the air.
    public func writeValue(_ data: Data, for descriptor: CBDescriptor) {
        let call = APICall.writeDescriptor(peripheral: identifier, descriptor: descriptor.uuid, length: data.count)
        guard let link = connectedLink(call), owns(descriptor.characteristic?.service, call) else { return }
        guard descriptor.uuid != GATTServerDatabase.cccdUUID else {
            manager?.misuse(call, entry, .cccdWrite)
            return
        }
        manager?.record(call, entry: entry, .performed)
        link.enqueue(.writeDescriptor(descriptor, [UInt8](data)))
    }

    /// Writes the characteristic's CCCD (Vol 3 Part G 3.3.3.3): notifications if the
    /// characteristic notifies, else indications. A characteristic with neither has no CCCD and
    /// fails with `CBATTError.requestNotSupported` without anything on the air. Asking for the
    /// state the characteristic is already in (`setNotifyValue(true)` twice) writes nothing
    /// again: Core Bluetooth keeps the subscription state per characteristic and writes the
    /// CCCD only when it changes; the delegate still hears `didUpdateNotificationStateFor`.
    public func setNotifyValue(_ enabled: Bool, for characteristic: CBCharacteristic) {
        let call = APICall.setNotifyValue(
            peripheral: identifier, enabled: enabled, characteristic: characteristic.snapshot)
        guard let link = connectedLink(call), owns(characteristic.service, call) else { return }
        manager?.record(call, entry: entry, .performed)
        link.enqueue(.setNotify(characteristic, enabled))
    }

    /// HCI Read RSSI; the answer comes one connection interval later.
    public func readRSSI() {
        let call = APICall.readRSSI(peripheral: identifier)
        guard let link = connectedLink(call) else { return }
        manager?.record(call, entry: entry, .performed)
        link.readRSSI()
    }

    // MARK: - Internals

    private func connectedLink(_ call: APICall) -> SimulatedLink? {
        guard let m = manager else { return nil }
        guard m.state == .poweredOn else {
            m.misuse(call, entry, .notPoweredOn)
            return nil
        }
        // An object invalidated by the manager going below `.poweredOff`.
        guard entry.hot.object === self else {
            m.misuse(call, entry, .foreignAttribute)
            return nil
        }
        guard entry.hot.state == .connected, let link = entry.hot.link else {
            m.misuse(call, entry, .notConnected)
            return nil
        }
        return link
    }

    private func owns(_ service: CBService?, _ call: APICall) -> Bool {
        guard let service, service.peripheral === self, services?.contains(where: { $0 === service }) == true else {
            manager?.misuse(call, entry, .foreignAttribute)
            return false
        }
        return true
    }

    /// The connection ended: subscriptions are gone and so are the discovered attributes.
    /// Apple's `CBPeripheral.services` is nil until discovered, and the GATT client's
    /// attribute cache belongs to the connection: the app rediscovers on the next one, and the
    /// old `CBService`/`CBCharacteristic`/`CBDescriptor` objects are refused (`owns`).
    func connectionEnded() {
        for c in characteristicsByHandle.values { c.isNotifying = false }
        if services != nil { services = nil }
        if !characteristicsByHandle.isEmpty { characteristicsByHandle.removeAll() }
    }

    /// State restoration: this new object takes over the attribute tree discovered by the
    /// terminated process's object for the same connection, as copies that belong to it (the
    /// old objects stay the old process's). Values, descriptors and `isNotifying` carry over.
    func adoptRestoredAttributes(_ old: [CBService]) {
        var byHandle: [UInt16: CBCharacteristic] = [:]
        var servicesByHandle: [UInt16: CBService] = [:]
        let copies = old.map { o -> CBService in
            let s = CBService(
                uuid: o.uuid, isPrimary: o.isPrimary, handle: o.handle, endHandle: o.endHandle, peripheral: self)
            servicesByHandle[s.handle] = s
            s.characteristics = o.characteristics?.map { oc in
                let c = CBCharacteristic(uuid: oc.uuid, properties: oc.properties, valueHandle: oc.handle, service: s)
                c.value = oc.value
                c.isNotifying = oc.isNotifying
                c.descriptors = oc.descriptors?.map { od in
                    let d = CBDescriptor(uuid: od.uuid, handle: od.handle, characteristic: c)
                    d.value = od.value
                    return d
                }
                byHandle[c.handle] = c
                return c
            }
            return s
        }
        for (o, s) in zip(old, copies) {
            s.includedServices = o.includedServices?.map { i in
                servicesByHandle[i.handle]
                    ?? CBService(
                        uuid: i.uuid, isPrimary: i.isPrimary, handle: i.handle, endHandle: i.endHandle, peripheral: self
                    )
            }
        }
        services = copies
        characteristicsByHandle = byHandle
    }

    /// Core Bluetooth treats an empty UUID list like nil: discover everything.
    static func allIfEmpty(_ uuids: [CBUUID]?) -> [CBUUID]? {
        guard let uuids, !uuids.isEmpty else { return nil }
        return uuids
    }

    /// Records a peripheral-delegate callback and calls it if a delegate is set.
    func deliver(_ callback: DelegateCallback, _ body: (any CBPeripheralDelegate) -> Void) {
        guard let m = manager else { return }
        deliver(callback, manager: m, body)
    }

    /// The same when the caller already holds the manager (a link belongs to the manager that
    /// made this object): saves a weak load per notification.
    func deliver(_ callback: DelegateCallback, manager m: CBCentralManager, _ body: (any CBPeripheralDelegate) -> Void)
    {
        let d = delegate
        m.world.record(.callback(CallbackRecord(central: m.traceID, callback: callback, delivered: d != nil)))
        guard let d else { return }
        let saved = m.currentCallback
        m.currentCallback = callback.name
        body(d)
        m.currentCallback = saved
    }
}
