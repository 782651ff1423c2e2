import BLEBytes
import Dispatch
import Foundation

/// `CBPeripheralManager` over a `SimulatedWorld`: the app publishes a GATT server and
/// advertises it, and every `CBCentralManager` in the same world can discover it, connect to
/// it and use it. The world bridges the two roles: a central's ATT requests become
/// `didReceiveRead` / `didReceiveWrite`, the app's `respond(to:withResult:)` is the response on
/// the air, and `updateValue` sends notifications to the centrals that subscribed.
///
/// The manager is another device in the world (as an app that runs its peripheral on a second
/// phone would have it): it has its own adapter, powered on unless
/// `SimulatedWorld.setAdapterState(_:of:)`
/// says otherwise, and its own address. Its over-the-air side is `device`, a
/// `SimulatedPeripheral` the manager adds to the world; its MTU and connection parameters can be
/// tuned there.
///
/// Core Bluetooth semantics kept (documented where enforced):
/// - every call before `.poweredOn` does nothing but log "API MISUSE" (every operation waits
///   for the state update);
/// - each read request, and each write-request array (through its first request), is answered
///   exactly once; a second answer is API misuse and changes nothing on the air;
/// - notifications go only to centrals that enabled them in the CCCD
///   (docs/rules/notify-without-subscription.md), cut to each central's `maximumUpdateValueLength`;
/// - `updateValue` returns false while the transmit queue is full, and
///   `peripheralManagerIsReady(toUpdateSubscribers:)` follows once there is room.
///
/// Delegate methods run inside the world's `run`, never synchronously from an API call.
public class CBPeripheralManager: CBManager {
    /// Simulation settings of the manager's device (not part of Core Bluetooth's API).
    public struct Simulation {
        /// The device's address; nil: a static random address numbered after the manager.
        public var address: BDAddr?
        /// Notifications (one per central) the transmit queue holds before `updateValue`
        /// returns false. Each connection event of the device sends up to the world's
        /// `packetsPerConnectionEvent` of them.
        public var transmitQueueCapacity = 8
        /// The device adapter's state when the manager is created.
        public var adapterState: CBManagerState = .poweredOn

        public init() {}
    }

    public weak var delegate: (any CBPeripheralManagerDelegate)?
    public private(set) var isAdvertising = false
    /// The device centrals see: its advertisement, connection parameters and GATT server.
    public let device: SimulatedPeripheral
    /// This manager's number in the world's trace (1, 2, …).
    public let traceID: Int
    public let simulation: Simulation
    /// `CBPeripheralManagerOptionRestoreIdentifierKey`: the manager's published services,
    /// advertising and subscribed centrals outlive the app's process (`deinit`).
    public let restoreIdentifier: String?
    /// State taken over from the previous launch, delivered before the first state update.
    private var restored: PreservedPeripheralManagerState?

    private var adapterState: CBManagerState
    private var services: [CBMutableService] = []
    /// Published definition → the app's characteristic.
    private var byDefinition: [ObjectIdentifier: CBMutableCharacteristic] = [:]
    /// One `CBCentral` per connection (by link).
    private var centrals: [ObjectIdentifier: CBCentral] = [:]
    /// Subscribed (central, characteristic) pairs with the link they came over, in order.
    private var subscriptions: [PeripheralManagerSubscription] = []
    /// Requests the app still has to answer, by request object.
    private var awaiting: [ObjectIdentifier: Awaiting] = [:]
    private var inFlight = 0
    private var drainScheduled = false
    private var readyPending = false
    private var advertisingGeneration = 0
    private var currentCallback: String?
    /// L2CAP channels published and not unpublished (`publishL2CAPChannel(withEncryption:)`).
    var publishedPSMs: [CBL2CAPPSM] = []
    var unpublishedPSMCount = 0

    private struct Awaiting {
        let request: CBATTRequest
        let link: ObjectIdentifier
        let isRead: Bool
        let answer: (UInt8?, [UInt8]?) -> Void
    }

    /// How long Core Bluetooth takes to report `didAdd` and `didStartAdvertising`.
    static let callbackDelayMicros: Int64 = 1_000

    /// Joins `SimulatedWorld.current` if one is bound (`SimulatedWorld.withCurrent`), else a new
    /// world of its own (reachable as `world`). The queue is accepted for source compatibility.
    public convenience init(
        delegate: (any CBPeripheralManagerDelegate)?, queue: DispatchQueue?,
        options: [String: Any]? = nil
    ) {
        self.init(delegate: delegate, queue: queue, options: options, world: SimulatedWorld.current ?? SimulatedWorld())
    }

    public convenience init() { self.init(delegate: nil, queue: nil, options: nil) }

    public init(
        delegate: (any CBPeripheralManagerDelegate)?, queue: DispatchQueue?, options: [String: Any]? = nil,
        world: SimulatedWorld, simulation: Simulation = Simulation()
    ) {
        self.delegate = delegate
        self.simulation = simulation
        adapterState = simulation.adapterState
        let identifier = options?[CBPeripheralManagerOptionRestoreIdentifierKey] as? String
        restoreIdentifier = identifier
        let kept = identifier.flatMap { world.takePreservedPeripheralManager($0) }
        let number = world.peripherals.count(where: \.hostsPeripheralManager) + 1
        traceID = number
        let device: SimulatedPeripheral
        if let kept {
            // The system kept the old launch's device (its database, advertising and links).
            device = kept.device
        } else {
            // Static random (two top bits set, Core Vol 6 Part B 1.3.2.1), unique per manager.
            let address = simulation.address ?? BDAddr(rawValue: 0xC0_5E_9B_00_00_00 | UInt64(number & 0xFFFF))
            device = SimulatedPeripheral(address: address, addressType: 1, name: nil, services: [])
            device.isAdvertising = false
            device.hostsPeripheralManager = true
        }
        self.device = device
        super.init(world: world)
        device.localServer = self
        if let kept { adopt(kept) } else { world.add(device) }
        record(
            .initialize(
                restoreIdentifier: identifier,
                showPowerAlert: boolOption(options, CBPeripheralManagerOptionShowPowerAlertKey)), .performed)
        world.schedule(after: world.configuration.stateUpdateDelay) { [weak self] in
            guard let self else { return }
            if let r = self.restored {
                self.restored = nil
                self.deliverRestoration(r)
            }
            self.adapterChanged()
        }
    }

    /// The app let the manager go (its process ended). Without a restore identifier the device
    /// stops advertising and its links go silent. With one, Core Bluetooth keeps the published
    /// services, the advertisement and the connected, subscribed centrals for the next launch's
    /// manager of the same identifier (Apple,
    /// `CBPeripheralManagerOptionRestoreIdentifierKey`); requests the app had not answered are
    /// void (a central waiting on one meets its ATT timeout).
    deinit {
        if let id = restoreIdentifier, state == .poweredOn {
            let kept = PreservedPeripheralManagerState(
                device: device, services: services, centrals: centrals, subscriptions: subscriptions,
                isAdvertising: isAdvertising)
            world.preservePeripheralManager(kept, for: id)
            world.record(
                .world(
                    .peripheralManagerStatePreserved(
                        restoreIdentifier: id, services: services.map(\.uuid), isAdvertising: isAdvertising)))
            return
        }
        device.isAdvertising = false
        if world.isConnected(device) { world.loseLink(device) }
    }

    /// Takes over what the system kept for this manager's restore identifier.
    private func adopt(_ kept: PreservedPeripheralManagerState) {
        services = kept.services
        for s in services {
            for case let m as CBMutableCharacteristic in s.characteristics ?? [] {
                if let def = m.published { byDefinition[ObjectIdentifier(def)] = m }
            }
        }
        centrals = kept.centrals
        subscriptions = kept.subscriptions
        isAdvertising = kept.isAdvertising
        restored = kept
    }

    /// `peripheralManager(_:willRestoreState:)` with Core Bluetooth's keys: the published
    /// services (`CBPeripheralManagerRestoredStateServicesKey`, the `CBMutableService` objects
    /// that stay published) and, while advertising, the advertisement
    /// (`CBPeripheralManagerRestoredStateAdvertisementDataKey`). It comes before the first
    /// state update, as the central's does.
    private func deliverRestoration(_ r: PreservedPeripheralManagerState) {
        var dict: [String: Any] = [:]
        if !r.services.isEmpty { dict[CBPeripheralManagerRestoredStateServicesKey] = r.services }
        if r.isAdvertising {
            var advertisement: [String: Any] = [CBAdvertisementDataServiceUUIDsKey: device.advertisedServiceUUIDs]
            if let name = device.localName { advertisement[CBAdvertisementDataLocalNameKey] = name }
            dict[CBPeripheralManagerRestoredStateAdvertisementDataKey] = advertisement
        }
        deliver(.willRestoreState(services: r.services.map(\.uuid), isAdvertising: r.isAdvertising)) {
            $0.peripheralManager(self, willRestoreState: dict)
        }
    }

    // MARK: - Services

    /// Publishes a service. Core Bluetooth answers with `didAdd` (asynchronously). A
    /// characteristic created with a cached value must be read-only; Core Bluetooth raises an
    /// exception, the simulator refuses the service with an error and logs the misuse.
    public func add(_ service: CBMutableService) {
        let chars = service.characteristics ?? []
        let call = PeripheralManagerCall.addService(service: service.uuid, characteristics: chars.map(\.uuid))
        guard requirePoweredOn(call) else { return }
        let invalid = chars.contains {
            guard let m = $0 as? CBMutableCharacteristic, m.isStatic else { return false }
            return !m.properties.subtracting([.read]).isEmpty || m.permissions.contains(.writeable)
        }
        if invalid || !chars.allSatisfy({ $0 is CBMutableCharacteristic }) {
            misuse(call, .cachedValueNotReadOnly)
            reportAdd(service, error: CBError(.invalidParameters))
            return
        }
        let descriptors = chars.flatMap { $0.descriptors ?? [] }
        if !descriptors.allSatisfy({ ($0 as? CBMutableDescriptor)?.publishableBytes != nil }) {
            misuse(call, .unsupportedDescriptor)
            reportAdd(service, error: CBError(.invalidParameters))
            return
        }
        guard !services.contains(where: { $0 === service }) else {
            record(call, .noEffect)
            reportAdd(service, error: CBError(.invalidParameters))
            return
        }
        record(call, .performed)
        services.append(service)
        publish()
        reportAdd(service, error: nil)
    }

    public func remove(_ service: CBMutableService) {
        let call = PeripheralManagerCall.removeService(service: service.uuid)
        guard requirePoweredOn(call) else { return }
        guard services.contains(where: { $0 === service }) else { return record(call, .noEffect) }
        record(call, .performed)
        services.removeAll { $0 === service }
        publish()
    }

    public func removeAllServices() {
        guard requirePoweredOn(.removeAllServices) else { return }
        record(.removeAllServices, services.isEmpty ? .noEffect : .performed)
        guard !services.isEmpty else { return }
        services.removeAll()
        publish()
    }

    private func reportAdd(_ service: CBMutableService, error: CBError?) {
        world.schedule(afterMicros: Self.callbackDelayMicros) { [weak self] in
            guard let self else { return }
            self.deliver(.didAdd(service: service.uuid, error: error?.description)) {
                $0.peripheralManager(self, didAdd: service, error: error)
            }
        }
    }

    /// Rebuilds the device's GATT server from the published services. While centrals are
    /// connected the world indicates Service Changed (Vol 3 Part G 7.1); the simulated server
    /// forgets every CCCD then, so every subscription ends.
    private func publish() {
        byDefinition.removeAll()
        let definitions = services.map { s -> SimulatedService in
            let chars = (s.characteristics ?? []).compactMap { $0 as? CBMutableCharacteristic }.map { m in
                let descriptors = (m.descriptors ?? []).compactMap { d -> SimulatedDescriptor? in
                    guard let d = d as? CBMutableDescriptor, let bytes = d.publishableBytes else { return nil }
                    d.characteristic = m
                    return SimulatedDescriptor(uuid: d.uuid, value: bytes)
                }
                let def = SimulatedCharacteristic(
                    uuid: m.uuid, properties: m.properties, permissions: m.permissions,
                    value: m.cachedValue.map { [UInt8]($0) } ?? [], descriptors: descriptors)
                m.published = def
                m.service = s
                byDefinition[ObjectIdentifier(def)] = m
                return def
            }
            return SimulatedService(
                uuid: s.uuid, isPrimary: s.isPrimary, characteristics: chars,
                includedServices: (s.includedServices ?? []).map(\.uuid))
        }
        if world.isConnected(device) {
            world.changeServices(of: device, to: definitions)
            let ended = subscriptions
            subscriptions.removeAll()
            for s in ended { unsubscribed(s.central, s.characteristic) }
        } else {
            device.services = definitions
        }
    }

    // MARK: - Advertising

    /// Advertises the local name and service UUIDs, the two keys Core Bluetooth's peripheral
    /// manager supports (Apple's `CBPeripheralManager.startAdvertising(_:)`); other keys are
    /// ignored and
    /// recorded. Already advertising: `didStartAdvertising` reports `alreadyAdvertising`.
    public func startAdvertising(_ advertisementData: [String: Any]?) {
        let data = advertisementData ?? [:]
        let name = data[CBAdvertisementDataLocalNameKey] as? String
        let uuids = data[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID] ?? []
        let ignored = data.keys.filter {
            $0 != CBAdvertisementDataLocalNameKey && $0 != CBAdvertisementDataServiceUUIDsKey
        }
        .sorted()
        let call = PeripheralManagerCall.startAdvertising(localName: name, serviceUUIDs: uuids, ignoredKeys: ignored)
        guard requirePoweredOn(call) else { return }
        if isAdvertising {
            record(call, .noEffect)
            world.schedule(afterMicros: Self.callbackDelayMicros) { [weak self] in
                guard let self else { return }
                let error = CBError(.alreadyAdvertising)
                self.deliver(.didStartAdvertising(error: error.description)) {
                    $0.peripheralManagerDidStartAdvertising(self, error: error)
                }
            }
            return
        }
        record(call, .performed)
        advertisingGeneration += 1
        let generation = advertisingGeneration
        world.schedule(afterMicros: Self.callbackDelayMicros) { [weak self] in
            guard let self, generation == self.advertisingGeneration, self.state == .poweredOn else { return }
            self.device.localName = name
            self.device.advertisedServiceUUIDs = uuids
            self.device.isAdvertising = true
            self.isAdvertising = true
            self.deliver(.didStartAdvertising(error: nil)) { $0.peripheralManagerDidStartAdvertising(self, error: nil) }
        }
    }

    public func stopAdvertising() {
        guard requirePoweredOn(.stopAdvertising) else { return }
        let pending = !isAdvertising && advertisingGeneration > 0
        record(.stopAdvertising, isAdvertising || pending ? .performed : .noEffect)
        advertisingGeneration += 1
        isAdvertising = false
        device.isAdvertising = false
    }

    // MARK: - Answering requests

    /// Answers a `didReceiveRead` request (with `request.value`) or a `didReceiveWrite` array
    /// (pass its first request). Exactly once per request: a second answer, an answer to a
    /// later request of a write array or to a write command is API misuse and sends nothing
    /// (each handler ends in one `respond`).
    public func respond(to request: CBATTRequest, withResult result: CBATTError.Code) {
        let bytes = request.value.map { [UInt8]($0) } ?? []
        let key = ObjectIdentifier(request)
        let read = awaiting[key]?.isRead ?? false
        let call = PeripheralManagerCall.respond(
            central: request.central.identifier,
            characteristic: request.characteristic.uuid, read: read,
            result: result.byte, length: bytes.count)
        guard requirePoweredOn(call) else { return }
        guard let a = awaiting.removeValue(forKey: key) else { return misuse(call, .noPendingRequest) }
        record(call, .performed)
        if result == .success {
            a.answer(nil, a.isRead ? bytes : nil)
        } else {
            a.answer(result.byte, nil)
        }
    }

    // MARK: - Notifications

    /// Sends `value` as a notification (or indication, as each central configured the CCCD) to
    /// the subscribed centrals among `centrals` (all subscribed ones when nil). Returns false,
    /// sending nothing, when the transmit queue cannot take one PDU per central; then
    /// `peripheralManagerIsReady(toUpdateSubscribers:)` follows once it drains. A value longer
    /// than a central's `maximumUpdateValueLength` is cut to it (ATT_MTU − 3, Vol 3 Part F
    /// 3.4.7.1) and a warning is logged.
    public func updateValue(
        _ value: Data, for characteristic: CBMutableCharacteristic,
        onSubscribedCentrals centrals: [CBCentral]?
    ) -> Bool {
        let bytes = [UInt8](value)
        let targets = subscriptions.filter { s in
            s.characteristic === characteristic && (centrals?.contains { $0 === s.central } ?? true)
        }
        let maximum = targets.map(\.central.maximumUpdateValueLength).min()
        func call(_ result: Bool) -> PeripheralManagerCall {
            .updateValue(
                characteristic: characteristic.uuid, length: bytes.count, maximumLength: maximum,
                centrals: targets.count, result: result)
        }
        guard requirePoweredOn(call(false)) else { return false }
        guard let def = characteristic.published, byDefinition[ObjectIdentifier(def)] === characteristic,
            let c = device.database.characteristics.first(where: { $0.definition === def })
        else {
            misuse(call(false), .foreignCharacteristic)
            return false
        }
        guard inFlight + targets.count <= simulation.transmitQueueCapacity else {
            readyPending = true
            record(call(false), .performed)
            return false
        }
        record(call(true), .performed)
        for t in targets {
            if bytes.count > t.central.maximumUpdateValueLength {
                world.log(
                    "[CoreBluetooth] WARNING: updateValue of \(bytes.count) bytes to \(t.central) exceeds its "
                        + "maximumUpdateValueLength \(t.central.maximumUpdateValueLength); truncated")
            }
            if let link = t.central.link, link.serverNotify(c, bytes) { inFlight += 1 }
        }
        scheduleDrain()
        return true
    }

    /// Frees queue slots one connection event at a time.
    private func scheduleDrain() {
        guard !drainScheduled, inFlight > 0 else { return }
        drainScheduled = true
        world.schedule(after: device.connectionInterval) { [weak self] in
            guard let self else { return }
            self.drainScheduled = false
            self.inFlight -= min(self.inFlight, self.world.configuration.packetsPerConnectionEvent)
            if self.readyPending, self.inFlight < self.simulation.transmitQueueCapacity {
                self.readyPending = false
                self.deliver(.isReadyToUpdateSubscribers) { $0.peripheralManagerIsReady(toUpdateSubscribers: self) }
            }
            self.scheduleDrain()
        }
    }

    /// Recorded; the simulated connection's timing does not change (the central decides the
    /// connection parameters in the simulation).
    public func setDesiredConnectionLatency(_ latency: CBPeripheralManagerConnectionLatency, for central: CBCentral) {
        let call = PeripheralManagerCall.setDesiredConnectionLatency(latency, central: central.identifier)
        guard requirePoweredOn(call) else { return }
        record(call, central.link == nil ? .noEffect : .performed)
    }

    // MARK: - The device's adapter

    /// Leaving `.poweredOn`, Core Bluetooth stops advertising and clears the published
    /// database (the app re-adds its services on the next `.poweredOn`); the device's radio
    /// goes quiet, so connected centrals lose the link after their supervision timeout.
    func setAdapterState(_ new: CBManagerState) {
        guard new != adapterState else { return }
        adapterState = new
        adapterChanged()
    }

    private func adapterChanged() {
        let new: CBManagerState =
            switch world.authorization {
            case .denied, .restricted: .unauthorized
            default: adapterState
            }
        guard new != state else { return }
        if state == .poweredOn {
            advertisingGeneration += 1
            isAdvertising = false
            device.isAdvertising = false
            if world.isConnected(device) { world.loseLink(device) }
            // The app's services are gone; the device's attribute table stays as it was until
            // the next `add` (nothing can reach it: no advertising, links silent), so an export
            // of the run still answers the discoveries made before.
            services.removeAll()
            byDefinition.removeAll()
        }
        state = new
        deliver(.didUpdateState(new)) { $0.peripheralManagerDidUpdateState(self) }
    }

    // MARK: - Helpers

    private func central(for link: SimulatedLink) -> CBCentral {
        let key = ObjectIdentifier(link)
        if let c = centrals[key] { return c }
        let c = CBCentral(link: link)
        centrals[key] = c
        return c
    }

    private func unsubscribed(_ central: CBCentral, _ characteristic: CBMutableCharacteristic) {
        characteristic.subscribedCentrals?.removeAll { $0 === central }
        world.schedule(afterMicros: 0) { [weak self] in
            guard let self else { return }
            self.deliver(.didUnsubscribe(central: central.identifier, characteristic: characteristic.uuid)) {
                $0.peripheralManager(self, central: central, didUnsubscribeFrom: characteristic)
            }
        }
    }

    /// Half the operation latency: the request crosses the air in one connection event.
    private var arrivalDelay: Int64 { device.effectiveOperationLatency / 2 }

    private func record(_ call: PeripheralManagerCall, _ disposition: PeripheralManagerDisposition) {
        world.record(
            .peripheralManager(
                PeripheralManagerRecord(
                    manager: traceID,
                    entry: .call(call, state: state, inCallback: currentCallback, disposition: disposition))))
    }

    /// The call is ignored; the log line follows Core Bluetooth's "API MISUSE" style (the text
    /// after the prefix is the simulator's).
    private func misuse(_ call: PeripheralManagerCall, _ reason: PeripheralManagerMisuse) {
        record(call, .misuse(reason))
        let what =
            switch reason {
            case .notPoweredOn: "can only accept this command while in the powered on state"
            case .noPendingRequest: "was asked to respond to a request that awaits no response"
            case .foreignCharacteristic: "was given a characteristic it has not published"
            case .cachedValueNotReadOnly: "was given a characteristic with a cached value that is not read-only"
            case .unsupportedDescriptor:
                "only supports Characteristic User Description and Presentation Format descriptors"
            }
        world.log("[CoreBluetooth] API MISUSE: <CBPeripheralManager \(traceID)> \(what) (\(call.name))")
    }

    private func requirePoweredOn(_ call: PeripheralManagerCall) -> Bool {
        guard state == .poweredOn else {
            misuse(call, .notPoweredOn)
            return false
        }
        return true
    }

    func deliver(_ callback: PeripheralManagerCallback, _ body: (any CBPeripheralManagerDelegate) -> Void) {
        let d = delegate
        world.record(
            .peripheralManager(
                PeripheralManagerRecord(
                    manager: traceID,
                    entry: .callback(callback, delivered: d != nil))))
        guard let d else { return }
        let saved = currentCallback
        currentCallback = callback.name
        body(d)
        currentCallback = saved
    }
}

// MARK: - The world's bridge

extension CBPeripheralManager: LocalGATTServer {
    func read(
        _ c: GATTServerDatabase.Characteristic, from link: SimulatedLink,
        answer: @escaping (UInt8?, [UInt8]?) -> Void
    ) {
        guard let def = c.definition, let m = byDefinition[ObjectIdentifier(def)] else {
            return answer(CBATTError.Code.invalidHandle.byte, nil)
        }
        // Static: Core Bluetooth answers from its cache without asking the app.
        if let cached = m.cachedValue { return answer(nil, [UInt8](cached)) }
        let central = central(for: link)
        let request = CBATTRequest(central: central, characteristic: m, offset: 0, value: nil)
        awaiting[ObjectIdentifier(request)] = Awaiting(
            request: request, link: ObjectIdentifier(link), isRead: true,
            answer: answer)
        world.schedule(afterMicros: arrivalDelay) { [weak self] in
            guard let self else { return }
            self.deliver(.didReceiveRead(central: central.identifier, characteristic: m.uuid, offset: 0)) {
                $0.peripheralManager(self, didReceiveRead: request)
            }
        }
    }

    func write(
        _ c: GATTServerDatabase.Characteristic, parts: [(offset: Int, value: [UInt8])], from link: SimulatedLink,
        answer: ((UInt8?) -> Void)?
    ) {
        guard let def = c.definition, let m = byDefinition[ObjectIdentifier(def)] else {
            answer?(CBATTError.Code.invalidHandle.byte)
            return
        }
        let central = central(for: link)
        let requests = parts.map {
            CBATTRequest(central: central, characteristic: m, offset: $0.offset, value: Data($0.value))
        }
        if let answer, let first = requests.first {
            awaiting[ObjectIdentifier(first)] = Awaiting(
                request: first, link: ObjectIdentifier(link), isRead: false,
                answer: { code, _ in answer(code) })
        }
        let length = parts.reduce(0) { $0 + $1.value.count }
        world.schedule(afterMicros: arrivalDelay) { [weak self] in
            guard let self else { return }
            self.deliver(
                .didReceiveWrite(
                    central: central.identifier, characteristic: m.uuid, requests: requests.count,
                    length: length)
            ) {
                $0.peripheralManager(self, didReceiveWrite: requests)
            }
        }
    }

    func configurationChanged(
        _ c: GATTServerDatabase.Characteristic, from old: UInt16, to new: UInt16,
        link: SimulatedLink
    ) {
        guard let def = c.definition, let m = byDefinition[ObjectIdentifier(def)] else { return }
        let central = central(for: link)
        let key = ObjectIdentifier(link)
        let was = old & 0x3 != 0
        let now = new & 0x3 != 0
        if !was && now {
            subscriptions.append((key, central, m))
            m.subscribedCentrals = (m.subscribedCentrals ?? []) + [central]
            world.schedule(afterMicros: arrivalDelay) { [weak self] in
                guard let self else { return }
                self.deliver(.didSubscribe(central: central.identifier, characteristic: m.uuid)) {
                    $0.peripheralManager(self, central: central, didSubscribeTo: m)
                }
            }
        } else if was && !now {
            subscriptions.removeAll { $0.link == key && $0.characteristic === m }
            unsubscribed(central, m)
        }
    }

    /// Core Bluetooth reports a disconnected central as unsubscribed from everything it
    /// subscribed to; its unanswered requests are void.
    func linkClosed(_ link: SimulatedLink) {
        let key = ObjectIdentifier(link)
        if let c = centrals.removeValue(forKey: key) { c.lastMTU = link.mtu }
        for k in awaiting.keys where awaiting[k]?.link == key { awaiting[k] = nil }
        let ended = subscriptions.filter { $0.link == key }
        subscriptions.removeAll { $0.link == key }
        for s in ended { unsubscribed(s.central, s.characteristic) }
    }
}

extension SimulatedWorld {
    /// The adapter of a peripheral manager's device changes state (the other phone's Settings).
    public func setAdapterState(_ state: CBManagerState, of manager: CBPeripheralManager) {
        manager.setAdapterState(state)
    }
}

/// A subscribed (central, characteristic) pair with the link it came over.
typealias PeripheralManagerSubscription = (
    link: ObjectIdentifier, central: CBCentral, characteristic: CBMutableCharacteristic
)

/// What the system keeps of a peripheral manager created with a restore identifier when the
/// app's process ends (`CBPeripheralManager.deinit`).
struct PreservedPeripheralManagerState {
    let device: SimulatedPeripheral
    let services: [CBMutableService]
    let centrals: [ObjectIdentifier: CBCentral]
    let subscriptions: [PeripheralManagerSubscription]
    let isAdvertising: Bool
}
