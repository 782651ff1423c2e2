import BLEBytes
import BLEPackets
import BLETimeline
import Dispatch
import Foundation

/// `CBCentralManager` over a `SimulatedWorld`.
///
/// Semantics follow Apple's Core Bluetooth documentation and the project's rules
/// (docs/rules/<slug>.md); each rule is documented where it is enforced. Delegate methods are called from inside the world's `run`, never synchronously from
/// an API call, as on a real queue.
public final class CBCentralManager: CBManager {
    /// Not in `hot`: a weak reference makes `HotState` address-only, and `deinit` then
    /// destroys it through its value witness (docs/performance.md). Unchecked for the reason
    /// `hot` is.
    @exclusivity(unchecked) public weak var delegate: (any CBCentralManagerDelegate)?
    public var isScanning: Bool { hot.isScanning }
    /// This manager's number in the world's trace (1, 2, …).
    public var traceID: Int { hot.traceID }
    /// `CBCentralManagerOptionRestoreIdentifierKey`: the manager's state outlives the app's
    /// process (see `SimulatedWorld.relaunchApp`).
    public let restoreIdentifier: String?
    /// The delegate method currently running (for `CallContext.inCallback`).
    var currentCallback: String? {
        get { hot.currentCallback }
        set { hot.currentCallback = newValue }
    }

    /// The manager's mutable state under one exclusivity exemption, unchecked for the reason
    /// `SimulatedWorld.hot` states: the manager belongs to its world's thread, and no access
    /// to `hot` spans a call (delegate methods run between accesses, never inside one).
    @exclusivity(unchecked) private var hot = HotState()
    private struct HotState {
        var isScanning = false
        var traceID = 0
        var entries: [PeripheralEntry] = []
        var entryIndex: [UUID: Int] = [:]
        var scanServices: [CBUUID]?
        var allowDuplicates = false
        var scanGeneration = 0
        /// The app's process ended (`terminate`): nothing reaches this manager any more.
        var isTerminated = false
        /// State taken over from the previous launch, delivered before the first state update.
        var restored: PreservedCentralState?
        var currentCallback: String?
    }

    /// Joins `SimulatedWorld.current` if one is bound (`SimulatedWorld.withCurrent`), else a new
    /// world of its own (reachable as `world`). The queue is accepted for source compatibility:
    /// callbacks run inside the world's run loop.
    public convenience init(
        delegate: (any CBCentralManagerDelegate)?, queue: DispatchQueue?,
        options: [String: Any]? = nil
    ) {
        self.init(delegate: delegate, queue: queue, options: options, world: SimulatedWorld.current ?? SimulatedWorld())
    }

    public convenience init() { self.init(delegate: nil, queue: nil, options: nil) }

    public init(
        delegate: (any CBCentralManagerDelegate)?, queue: DispatchQueue?, options: [String: Any]? = nil,
        world: SimulatedWorld
    ) {
        self.delegate = delegate
        restoreIdentifier = options?[CBCentralManagerOptionRestoreIdentifierKey] as? String
        super.init(world: world)
        hot.traceID = world.register(self)
        // A relaunched app's manager takes over what the system kept for its identifier.
        if let id = restoreIdentifier, let saved = world.takePreservedState(id) {
            for e in saved.entries {
                hot.entryIndex[e.identifier] = hot.entries.count
                hot.entries.append(e)
                e.hot.link?.central = self
            }
            hot.restored = saved
        }
        for d in world.peripherals { peripheralAdded(d) }
        record(
            .centralManagerInit(
                restoreIdentifier: restoreIdentifier,
                showPowerAlert: boolOption(options, CBCentralManagerOptionShowPowerAlertKey)),
            entry: nil, .performed)
        // The first state arrives asynchronously, even when the adapter is already on; a
        // restored manager hears `willRestoreState` first.
        later(afterMicros: micros(world.configuration.stateUpdateDelay)) { m in
            if let r = m.hot.restored {
                m.hot.restored = nil
                m.deliverRestoration(r)
            }
            m.worldStateChanged()
        }
    }

    /// The app let the manager go: as if its process ended (`terminate`).
    deinit { terminate() }

    // MARK: - State restoration

    /// The app's process ends (`SimulatedWorld.relaunchApp`, or the app lets the manager go).
    /// Without a restore identifier the manager's connections end (on the air, with no
    /// callbacks: there is no app left to call) and pending ones are cancelled. With one, the
    /// system keeps its connected and connecting peripherals for the next launch's manager of
    /// the same identifier (Apple's state preservation and restoration of Core Bluetooth apps:
    /// the system re-creates the central manager after the app is relaunched), together with what
    /// it was scanning for; the scan itself stops with the app, and the new manager's
    /// delegate gets it back in `willRestoreState` to resume.
    func terminate() {
        guard !hot.isTerminated else { return }
        hot.isTerminated = true
        world.unregister(hot.traceID)
        var kept: [PeripheralEntry] = []
        var keptServices: [UUID: [CBService]] = [:]
        for e in hot.entries {
            e.hot.object?.manager = nil
            if restoreIdentifier != nil, e.hot.state == .connected || e.hot.state == .connecting {
                if e.hot.state == .connected, let services = e.hot.object?.services {
                    keptServices[e.identifier] = services
                }
                e.hot.object = nil
                e.hot.handedOut = false
                e.hot.unresolvedConnectCall = nil
                e.hot.connectGeneration += 1
                kept.append(e)
                continue
            }
            abandon(e)
            e.hot.link?.detach()
        }
        let scanning = hot.isScanning
        if hot.isScanning { endScan(onAir: true) }
        guard let id = restoreIdentifier, !kept.isEmpty || scanning else { return }
        world.preserve(
            PreservedCentralState(
                entries: kept, isScanning: scanning, scanServices: hot.scanServices,
                allowDuplicates: hot.allowDuplicates, services: keptServices), for: id)
        world.record(
            .world(
                .centralStatePreserved(
                    restoreIdentifier: id, peripherals: kept.map(\.identifier),
                    isScanning: scanning)))
    }

    /// Ends what `e` has going with no delegate callback (nobody is left to call, or the app
    /// let the peripheral go): a pending connection is cancelled on the air (LE Create
    /// Connection Cancel), an open one ends with 0x16 Connection Terminated By Local Host.
    private func abandon(_ e: PeripheralEntry) {
        switch e.hot.state {
        case .connecting:
            e.hot.connectGeneration += 1
            e.hot.state = .disconnected
            world.recordRadio(
                TimelineEvent(
                    frame: 0, time: 0, peer: e.device.address,
                    peerAddressType: e.device.addressType, kind: .connectionCancel),
                commandAnswered: true)
        case .connected, .disconnecting:
            e.hot.autoReconnect = false
            endConnection(e, reason: HCIError.connectionTerminatedByLocalHost, side: .local, error: nil, notify: false)
        case .disconnected: break
        }
    }

    /// `centralManager(_:willRestoreState:)` with Core Bluetooth's keys: the restored
    /// peripherals (new objects, connected or connecting, which the app must retain as any
    /// other) and, if the old manager was scanning, its services and options.
    ///
    /// A connected peripheral comes back with what was discovered on its connection — services,
    /// characteristics, descriptors, their last values and each characteristic's `isNotifying`
    /// — as new objects of the new process. Apple's Core Bluetooth Programming Guide ("Core
    /// Bluetooth Background Processing for iOS Apps", state preservation and restoration): the
    /// system keeps track of the peripherals connected and the characteristics the central was
    /// subscribed to, and restores the manager with them; the restored `CBPeripheral`'s
    /// `services` are the discovered ones (issue 18 item 3). The server's CCCDs never changed,
    /// so notifications keep arriving and reach the restored characteristics.
    private func deliverRestoration(_ r: PreservedCentralState) {
        let peripherals = r.entries.map { e in
            let p = object(for: e)
            if let services = r.services[e.identifier] { p.adoptRestoredAttributes(services) }
            return p
        }
        world.hot.sweepNeeded = true
        var state: [String: Any] = [:]
        if !peripherals.isEmpty { state[CBCentralManagerRestoredStatePeripheralsKey] = peripherals }
        if r.isScanning {
            if let services = r.scanServices { state[CBCentralManagerRestoredStateScanServicesKey] = services }
            state[CBCentralManagerRestoredStateScanOptionsKey] =
                [CBCentralManagerScanOptionAllowDuplicatesKey: NSNumber(value: r.allowDuplicates)] as [String: Any]
        }
        // A pending connection goes on under the new manager.
        for e in r.entries where e.hot.state == .connecting { attemptConnection(e) }
        deliver(
            .willRestoreState(
                peripherals: r.entries.map(\.identifier), scanServices: r.isScanning ? r.scanServices : nil,
                isScanning: r.isScanning)
        ) {
            $0.centralManager(self, willRestoreState: state)
        }
    }

    /// Runs `body` on this manager after `delay` µs if the manager still exists then. The
    /// world's registry answers that, not a `weak` capture: a weak reference would put the
    /// manager's reference counts in a side table (see `PeripheralEntry.object`). The closure
    /// belongs to the world's queue, so the world outlives it.
    private func later(afterMicros delay: Int64, _ body: @escaping (CBCentralManager) -> Void) {
        let id = hot.traceID
        world.schedule(afterMicros: delay) { [unowned(unsafe) world] in
            if let m = world.central(id) { body(m) }
        }
    }

    // MARK: - Scanning

    /// Starts (or restarts, with new arguments) a scan. Before `.poweredOn` it does nothing but
    /// log "API MISUSE" (docs/rules/scan-before-powered-on.md). `nil` services report every
    /// advertiser (recorded: docs/rules/unfiltered-scan.md). Without
    /// `CBCentralManagerScanOptionAllowDuplicatesKey` each peripheral is
    /// reported once per scan, as the controller filters duplicates.
    public func scanForPeripherals(withServices serviceUUIDs: [CBUUID]?, options: [String: Any]? = nil) {
        let duplicates = boolOption(options, CBCentralManagerScanOptionAllowDuplicatesKey)
        let call = APICall.scanForPeripherals(services: serviceUUIDs, allowDuplicates: duplicates)
        guard requirePoweredOn(call) else { return }
        record(call, entry: nil, .performed)
        // An empty list is nil ("all"), as in Core Bluetooth.
        hot.scanServices = CBPeripheral.allIfEmpty(serviceUUIDs)
        hot.allowDuplicates = duplicates
        hot.isScanning = true
        hot.scanGeneration += 1
        for e in hot.entries { e.hot.seenInScan = false }
        // iOS foreground scanning: active, 30 ms window in a 30 ms interval (units of 0.625 ms).
        world.recordRadio(
            TimelineEvent(
                frame: 0, time: 0,
                kind: .scanStart(
                    ScanParameters.make(
                        extended: false, active: true, interval: 0x0030, window: 0x0030, filterPolicy: 0,
                        ownAddressType: 1,
                        phys: 1, filterDuplicates: duplicates ? 0 : 1, parametersKnown: true))), commandAnswered: true)
        for e in hot.entries { scheduleAdvertising(e, generation: hot.scanGeneration, first: true) }
    }

    public func stopScan() {
        guard requirePoweredOn(.stopScan) else { return }
        record(.stopScan, entry: nil, hot.isScanning ? .performed : .noEffect)
        guard hot.isScanning else { return }
        endScan(onAir: true)
    }

    private func endScan(onAir: Bool) {
        hot.isScanning = false
        hot.scanGeneration += 1
        if onAir { world.recordRadio(TimelineEvent(frame: 0, time: 0, kind: .scanStop)) }
    }

    private func scheduleAdvertising(_ entry: PeripheralEntry, generation: Int, first: Bool) {
        let interval = max(1_000, micros(entry.device.advertisingInterval))
        // A fixed phase per device (from its address) instead of a random advDelay: reports
        // interleave realistically and identically on every run.
        let delay = first ? Int64(entry.device.address.rawValue % UInt64(interval)) + 1 : interval
        later(afterMicros: delay) { [entry] m in
            guard generation == m.hot.scanGeneration, m.hot.isScanning else { return }
            m.advertisementHeard(entry)
            // Reported once: the controller filters the rest (Filter_Duplicates).
            if !m.hot.allowDuplicates, entry.hot.seenInScan { return }
            m.scheduleAdvertising(entry, generation: generation, first: false)
        }
    }

    /// One advertising event of `entry`'s device while scanning. Returns whether it was heard.
    @discardableResult
    private func advertisementHeard(_ entry: PeripheralEntry) -> Bool {
        let d = entry.device
        guard d.isInRange, d.isAdvertising, state == .poweredOn else { return false }
        if !hot.allowDuplicates && entry.hot.seenInScan { return true }
        entry.hot.seenInScan = true
        var ev = TimelineEvent(
            frame: 0, time: 0, peer: d.address, peerAddressType: d.addressType,
            kind: .advertisement(
                AdvertisementInfo.make(
                    extended: false, eventType: d.isConnectable ? 0 : 3, rssi: Int8(clamping: d.rssi),
                    txPower: nil, primaryPHY: nil)))
        ev.peer = d.address
        world.recordRadio(ev, value: d.advertisingData)
        // Core Bluetooth filters by service in the host: the report is on the air either way.
        if let wanted = hot.scanServices, !d.advertisedServiceUUIDs.contains(where: wanted.contains) { return true }
        world.hot.knownIdentifiers.insert(d.identifier)
        let peripheral = object(for: entry)
        deliver(
            .didDiscover(
                peripheral: d.identifier, rssi: d.rssi, localName: d.localName,
                serviceUUIDs: d.advertisedServiceUUIDs)
        ) {
            $0.centralManager(
                self, didDiscover: peripheral, advertisementData: d.advertisementDictionary,
                rssi: NSNumber(value: d.rssi))
        }
        return true
    }

    // MARK: - Connecting

    /// Connects; never times out (a peripheral out of range connects when it comes back). Before
    /// `.poweredOn`: "API MISUSE". The app must keep the `CBPeripheral`: if it does not, the
    /// object is released at the end of the run-loop turn and the pending connection is
    /// cancelled silently (docs/rules/peripheral-not-retained.md); the `connect`
    /// record's `retained` says which happened.
    public func connect(_ peripheral: CBPeripheral, options: [String: Any]? = nil) {
        let entry = peripheral.entry
        let auto = boolOption(options, CBConnectPeripheralOptionEnableAutoReconnect)
        let call = APICall.connect(peripheral: entry.identifier, autoReconnect: auto, retained: nil)
        guard requirePoweredOn(call, entry: entry) else { return }
        guard entry.hot.object === peripheral else {
            misuse(call, entry, .foreignAttribute)
            return
        }
        guard entry.hot.state == .disconnected else {
            record(call, entry: entry, .noEffect)
            return
        }
        entry.hot.unresolvedConnectCall = record(call, entry: entry, .performed)
        world.hot.sweepNeeded = true
        entry.hot.autoReconnect = auto
        entry.hot.state = .connecting
        let d = entry.device
        let interval = UInt16(clamping: micros(d.connectionInterval) / 1250)
        world.recordRadio(
            TimelineEvent(
                frame: 0, time: 0, peer: d.address, peerAddressType: d.addressType,
                kind: .connectionCreate(
                    ConnectionCreateInfo.make(
                        extended: false, filterPolicy: 0, scanInterval: 0x0060, scanWindow: 0x0030,
                        intervalMin: interval, intervalMax: interval, latency: 0,
                        supervisionTimeout: UInt16(clamping: micros(d.supervisionTimeout) / 10_000)))),
            commandAnswered: true)
        attemptConnection(entry)
    }

    /// Completes a pending connection once the device can be reached: after about one
    /// advertising interval (the initiator waits for a connectable advertisement).
    private func attemptConnection(_ entry: PeripheralEntry) {
        let d = entry.device
        guard entry.hot.state == .connecting, d.isInRange, d.isAdvertising, d.isConnectable else { return }
        let generation = entry.hot.connectGeneration
        later(afterMicros: micros(d.advertisingInterval)) { [entry] m in
            guard entry.hot.connectGeneration == generation, entry.hot.state == .connecting,
                m.state == .poweredOn, d.isInRange, d.isAdvertising, d.isConnectable
            else { return }
            if let failure = d.connectionFailure {
                entry.hot.state = .disconnected
                m.world.recordRadio(
                    TimelineEvent(
                        frame: 0, time: 0, peer: d.address, peerAddressType: d.addressType,
                        kind: .connectionFailed(
                            ConnectionCompleteInfo.make(
                                status: HCIError.connectionFailedToBeEstablished, handle: 0, role: 0, timing: nil,
                                isLE: true))))
                let error = CBError(failure)
                if let p = entry.hot.object {
                    m.deliver(.didFailToConnect(peripheral: d.identifier, error: error.description)) {
                        $0.centralManager(m, didFailToConnect: p, error: error)
                    }
                }
                return
            }
            m.completeConnection(entry)
        }
    }

    private func completeConnection(_ entry: PeripheralEntry) {
        let d = entry.device
        let (number, handle) = world.allocateConnection()
        let timing = ConnectionTiming(
            interval: UInt16(clamping: micros(d.connectionInterval) / 1250), latency: 0,
            supervisionTimeout: UInt16(clamping: micros(d.supervisionTimeout) / 10_000))
        world.recordRadio(
            TimelineEvent(
                frame: 0, time: 0, connection: number, peer: d.address,
                peerAddressType: d.addressType,
                kind: .connectionComplete(
                    ConnectionCompleteInfo.make(
                        status: 0, handle: handle, role: 0, timing: timing, isLE: true))))
        let link = SimulatedLink(world: world, central: self, entry: entry, number: number, handle: handle)
        entry.hot.link = link
        entry.hot.state = .connected
        d.connectionChanged(.init(world: world, connection: number, event: .connected))
        world.hot.knownIdentifiers.insert(d.identifier)
        // iOS exchanges the MTU first thing; the app's first request queues behind it.
        link.enqueue(.exchangeMTU)
        if let p = entry.hot.object {
            deliver(.didConnect(peripheral: d.identifier)) { $0.centralManager(self, didConnect: p) }
        }
    }

    /// Cancels a pending connection or disconnects. Core Bluetooth reports
    /// `didDisconnectPeripheral` with no error in both cases; requests still queued get no
    /// callbacks.
    public func cancelPeripheralConnection(_ peripheral: CBPeripheral) {
        let entry = peripheral.entry
        let call = APICall.cancelPeripheralConnection(peripheral: entry.identifier)
        guard requirePoweredOn(call, entry: entry) else { return }
        switch entry.hot.state {
        case .disconnected, .disconnecting:
            record(call, entry: entry, .noEffect)
        case .connecting:
            record(call, entry: entry, .performed)
            entry.hot.connectGeneration += 1
            entry.hot.state = .disconnected
            world.recordRadio(
                TimelineEvent(
                    frame: 0, time: 0, peer: entry.device.address,
                    peerAddressType: entry.device.addressType, kind: .connectionCancel),
                commandAnswered: true)
            deliver(.didDisconnect(peripheral: entry.identifier, isReconnecting: false, error: nil)) {
                $0.centralManager(
                    self, didDisconnectPeripheral: peripheral, timestamp: self.timestamp,
                    isReconnecting: false, error: nil)
            }
        case .connected:
            record(call, entry: entry, .performed)
            entry.hot.state = .disconnecting
            entry.hot.autoReconnect = false
            later(afterMicros: micros(entry.device.connectionInterval)) { [entry] m in
                guard entry.hot.state == .disconnecting else { return }
                m.endConnection(
                    entry, reason: HCIError.connectionTerminatedByLocalHost, side: .local, error: nil, notify: true)
            }
        }
    }

    /// Ends `entry`'s connection: the disconnection on the air, outstanding requests cut off,
    /// and (if `notify` and the app still has the object) `didDisconnectPeripheral`.
    func endConnection(
        _ entry: PeripheralEntry, reason: UInt8, side: DisconnectionSide, error: CBError?,
        notify: Bool
    ) {
        guard let link = entry.hot.link else { return }
        let d = entry.device
        world.recordRadio(
            TimelineEvent(
                frame: 0, time: 0, connection: link.number, peer: d.address,
                peerAddressType: d.addressType,
                kind: .disconnection(status: 0, reason: reason, side: side)))
        link.close(disconnectionFrame: world.lastSequence)
        entry.hot.link = nil
        d.connectionChanged(
            .init(world: world, connection: link.number, event: .disconnected(reason: reason, side: side)))
        // Auto-reconnect (iOS 17) covers disconnections the app did not ask for.
        let reconnecting = entry.hot.autoReconnect && side != .local
        entry.hot.state = reconnecting ? .connecting : .disconnected
        entry.hot.object?.connectionEnded()
        if notify, let p = entry.hot.object {
            deliver(.didDisconnect(peripheral: d.identifier, isReconnecting: reconnecting, error: error?.description)) {
                $0.centralManager(
                    self, didDisconnectPeripheral: p, timestamp: self.timestamp,
                    isReconnecting: reconnecting, error: error)
            }
        }
        if reconnecting { attemptConnection(entry) }
    }

    /// Seconds since 2001-01-01 of the current virtual time (Core Bluetooth's timestamp).
    var timestamp: CFAbsoluteTime {
        Double(world.configuration.epochMicros + world.nowMicros) / 1e6 - 978_307_200
    }

    // MARK: - Retrieving

    /// Peripherals the system knows (discovered or connected before in this world), in the
    /// order asked.
    public func retrievePeripherals(withIdentifiers identifiers: [UUID]) -> [CBPeripheral] {
        guard state == .poweredOn else {
            misuse(.retrievePeripherals(identifiers: identifiers, found: 0), nil, .notPoweredOn)
            return []
        }
        let found = identifiers.compactMap { id -> CBPeripheral? in
            guard world.hot.knownIdentifiers.contains(id), let i = hot.entryIndex[id] else { return nil }
            return object(for: hot.entries[i])
        }
        record(.retrievePeripherals(identifiers: identifiers, found: found.count), entry: nil, .performed)
        return found
    }

    /// Peripherals connected to the system (by any central in the world) with one of the
    /// services.
    public func retrieveConnectedPeripherals(withServices serviceUUIDs: [CBUUID]) -> [CBPeripheral] {
        guard state == .poweredOn else {
            misuse(.retrieveConnectedPeripherals(services: serviceUUIDs, found: 0), nil, .notPoweredOn)
            return []
        }
        let found = hot.entries.compactMap { e -> CBPeripheral? in
            guard world.isConnected(e.device),
                e.device.services.contains(where: { serviceUUIDs.contains($0.uuid) })
            else { return nil }
            return object(for: e)
        }
        record(.retrieveConnectedPeripherals(services: serviceUUIDs, found: found.count), entry: nil, .performed)
        return found
    }

    // MARK: - World hooks

    func peripheralAdded(_ d: SimulatedPeripheral) {
        guard hot.entryIndex[d.identifier] == nil else { return }
        hot.entryIndex[d.identifier] = hot.entries.count
        let e = PeripheralEntry(device: d)
        hot.entries.append(e)
        if hot.isScanning { scheduleAdvertising(e, generation: hot.scanGeneration, first: true) }
    }

    /// The adapter or authorization changed. Leaving `.poweredOn` ends the scan and every
    /// connection before the state update is delivered; Core Bluetooth then invalidates its
    /// peripherals (they are `.disconnected`), and no `didDisconnectPeripheral` is called for
    /// them — the state update is the app's notice (the app restarts from
    /// `centralManagerDidUpdateState(_:)`).
    ///
    /// Below `.poweredOff` (`.resetting`, `.unauthorized`, `.unsupported`, `.unknown`) the
    /// `CBPeripheral` objects themselves become invalid (Apple, `centralManagerDidUpdateState(_:)`:
    /// if the state moves below powered off, the peripherals obtained from the manager become
    /// invalid and must be retrieved or discovered again): the app's old objects are refused
    /// (`connect` and peripheral commands: misuse `foreign_attribute`), and discovery or
    /// `retrievePeripherals(withIdentifiers:)` hands out new ones.
    func worldStateChanged() {
        let new = world.managerState
        guard new != state else { return }
        if state == .poweredOn {
            if hot.isScanning { endScan(onAir: false) }
            for e in hot.entries {
                switch e.hot.state {
                case .connecting:
                    e.hot.connectGeneration += 1
                    e.hot.state = .disconnected
                case .connected, .disconnecting:
                    e.hot.autoReconnect = false
                    endConnection(
                        e, reason: HCIError.connectionTerminatedByLocalHost, side: .local, error: nil, notify: false)
                case .disconnected: break
                }
            }
        }
        if new.rawValue < CBManagerState.poweredOff.rawValue {
            for e in hot.entries where e.hot.object != nil {
                e.hot.object = nil
                e.hot.handedOut = false
                e.hot.unresolvedConnectCall = nil
            }
        }
        state = new
        deliver(.didUpdateState(new)) { $0.centralManagerDidUpdateState(self) }
    }

    func rangeChanged(_ d: SimulatedPeripheral) {
        guard let i = hot.entryIndex[d.identifier] else { return }
        let e = hot.entries[i]
        if d.isInRange {
            attemptConnection(e)
        } else if e.hot.link != nil {
            linkLost(d)
        }
    }

    /// Starts a supervision timeout on the connection to `d`, if there is one.
    func linkLost(_ d: SimulatedPeripheral) {
        guard let i = hot.entryIndex[d.identifier], let link = hot.entries[i].hot.link, !link.isSilent else { return }
        let e = hot.entries[i]
        link.isSilent = true
        later(afterMicros: micros(d.supervisionTimeout)) { [e, link] m in
            guard e.hot.link === link else { return }
            m.endConnection(
                e, reason: HCIError.connectionTimeout, side: .linkLoss, error: CBError(.connectionTimeout), notify: true
            )
        }
    }

    /// An ATT transaction on `entry`'s link timed out (`SimulatedLink.transactionTimedOut`).
    /// iOS then ends the connection itself: public reports show `didDisconnectPeripheral`
    /// 30.0 s after a request the peripheral never answered (dotintent/react-native-ble-plx
    /// issue 566: discoverServices at 21:59:39.034, disconnection at 22:00:09.035; noble/bleno
    /// issue 74: a write left unanswered, the link gone ~30 s later). Modelled: the peripheral
    /// is `.disconnecting` at once (commands are refused `not_connected`), and one connection
    /// interval later (the LL_TERMINATE_IND) the link ends with HCI reason 0x16 Connection
    /// Terminated By Local Host and `didDisconnectPeripheral` carries `CBError.connectionTimeout`;
    /// auto-reconnect does not resume a connection the host ended.
    func attTransactionTimedOut(_ entry: PeripheralEntry) {
        guard entry.hot.state == .connected, let link = entry.hot.link else { return }
        entry.hot.state = .disconnecting
        entry.hot.autoReconnect = false
        later(afterMicros: micros(entry.device.connectionInterval)) { [entry, link] m in
            guard entry.hot.link === link else { return }
            m.endConnection(
                entry, reason: HCIError.connectionTerminatedByLocalHost, side: .local,
                error: CBError(.connectionTimeout),
                notify: true)
        }
    }

    /// The peripheral terminated the connection to `d` (`SimulatedWorld.disconnect`).
    func remoteDisconnected(_ d: SimulatedPeripheral, reason: UInt8) {
        guard let i = hot.entryIndex[d.identifier], let link = hot.entries[i].hot.link, !link.isSilent else { return }
        endConnection(
            hot.entries[i], reason: reason, side: .remote, error: CBError(.peripheralDisconnected), notify: true)
    }

    func servicesChanged(_ d: SimulatedPeripheral) {
        guard let i = hot.entryIndex[d.identifier], let link = hot.entries[i].hot.link else { return }
        link.serviceChanged()
    }

    /// The server of `d` sends a notification/indication for `c`; returns whether it went out.
    func serverNotify(_ d: SimulatedPeripheral, _ c: GATTServerDatabase.Characteristic, _ value: [UInt8]) -> Bool {
        guard let i = hot.entryIndex[d.identifier], let link = hot.entries[i].hot.link else { return false }
        return link.serverNotify(c, value)
    }

    func hasConnection(to d: SimulatedPeripheral) -> Bool {
        guard let i = hot.entryIndex[d.identifier] else { return false }
        return hot.entries[i].hot.link != nil
    }

    /// Called after every run-loop turn: a `CBPeripheral` the app let go is gone; its pending
    /// connection is cancelled and its connection dropped, with no callbacks (there is no
    /// object left to report on). Also settles the `retained` flag of `connect` records.
    func sweepReleasedPeripherals() {
        for e in hot.entries {
            if let index = e.hot.unresolvedConnectCall {
                e.hot.unresolvedConnectCall = nil
                let retained = e.hot.object != nil
                world.patchAPICall(index) {
                    if case .connect(let id, let auto, _) = $0.call {
                        $0.call = .connect(peripheral: id, autoReconnect: auto, retained: retained)
                    }
                }
            }
            guard e.hot.handedOut, e.hot.object == nil else { continue }
            e.hot.handedOut = false
            world.record(.world(.peripheralReleased(peripheral: e.identifier, state: e.hot.state)))
            abandon(e)
        }
    }

    // MARK: - Helpers

    /// The app-facing object for `entry`: the one the app still holds, or a new one.
    func object(for entry: PeripheralEntry) -> CBPeripheral {
        if let p = entry.hot.object { return p }
        let p = CBPeripheral(manager: self, entry: entry)
        entry.hot.object = p
        entry.hot.handedOut = true
        return p
    }

    func context(_ entry: PeripheralEntry?) -> CallContext {
        CallContext(
            managerState: state, peripheralState: entry?.hot.state, isScanning: hot.isScanning,
            inCallback: hot.currentCallback)
    }

    @discardableResult
    func record(_ call: APICall, entry: PeripheralEntry?, _ disposition: APIDisposition) -> Int {
        world.record(
            .api(APICallRecord(central: hot.traceID, call: call, context: context(entry), disposition: disposition)))
    }

    /// Core Bluetooth ignores the call and logs "API MISUSE".
    func misuse(_ call: APICall, _ entry: PeripheralEntry?, _ reason: MisuseReason) {
        record(call, entry: entry, .misuse(reason))
        let subject = entry.map { "<CBPeripheral \($0.identifier.uuidString)>" } ?? "<CBCentralManager \(hot.traceID)>"
        let what =
            switch reason {
            case .notPoweredOn: "can only accept this command while in the powered on state"
            case .notConnected: "can only accept commands while in the connected state"
            case .foreignAttribute: "was given an attribute that does not belong to it"
            case .cccdWrite:
                "Client Characteristic Configuration descriptors must be configured using setNotifyValue(_:for:)"
            }
        world.log("[CoreBluetooth] API MISUSE: \(subject) \(what) (\(call.name))")
    }

    private func requirePoweredOn(_ call: APICall, entry: PeripheralEntry? = nil) -> Bool {
        guard state == .poweredOn else {
            misuse(call, entry, .notPoweredOn)
            return false
        }
        return true
    }

    /// Records a central-delegate callback and calls it if a delegate is set.
    func deliver(_ callback: DelegateCallback, _ body: (any CBCentralManagerDelegate) -> Void) {
        let d = delegate
        world.record(.callback(CallbackRecord(central: hot.traceID, callback: callback, delivered: d != nil)))
        guard let d else { return }
        let saved = hot.currentCallback
        hot.currentCallback = callback.name
        body(d)
        hot.currentCallback = saved
    }
}
