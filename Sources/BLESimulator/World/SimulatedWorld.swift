import BLEBytes
import BLEPackets
import BLETimeline
import Foundation

/// A deterministic Bluetooth world on a virtual clock: the phone's adapter, the peripherals
/// around it, and every central manager the app created in it.
///
/// Nothing sleeps. Time advances only in `run(for:)` / `run(until:)`, which execute scheduled
/// events in (time, scheduling order) order and call delegates from inside the run, the way
/// Core Bluetooth calls them on its queue. The same program against the same world produces
/// the same trace, byte for byte (`trace.jsonl()`).
///
/// A world and everything in it belong to the thread that drives it; nothing here is
/// thread-safe, as nothing needs to be: there is no real concurrency in a simulated radio.
public final class SimulatedWorld {
    public struct Configuration {
        /// Wall-clock time of the world's start, µs since 1970 (radio events' `time`). Fixed by
        /// default so traces do not depend on when a test ran.
        public var epochMicros: Int64 = 1_767_225_600_000_000  // 2026-01-01T00:00:00Z
        public var adapterState: CBManagerState = .poweredOn
        public var authorization: CBManagerAuthorization = .allowedAlways
        /// Delay between creating a central manager and its first state update.
        public var stateUpdateDelay: Duration = .milliseconds(5)
        /// The central's ATT Client Rx MTU (iOS asks for 527 on connection).
        public var centralMTU: UInt16 = 527
        /// Controller ACL buffers available for write commands (`canSendWriteWithoutResponse`
        /// is false when all are in flight; each connection event frees up to
        /// `packetsPerConnectionEvent`).
        public var writeWithoutResponseBuffers: Int = 8
        public var packetsPerConnectionEvent: Int = 4
        /// How long `reset()` keeps the adapter in `.resetting`.
        public var resetDuration: Duration = .milliseconds(500)

        public init() {}
    }

    public let configuration: Configuration

    public var trace: SimulatorTrace { hot.trace }
    public var peripherals: [SimulatedPeripheral] { hot.peripherals }
    public var adapterState: CBManagerState { hot.adapterState }
    public var authorization: CBManagerAuthorization { hot.authorization }
    /// Virtual time since the world started, µs.
    public var nowMicros: Int64 { hot.nowMicros }
    public var now: Duration { .microseconds(hot.nowMicros) }

    /// The world's mutable state, in one place so that the one exclusivity exemption below
    /// covers it and states its reason once. The simulator's other classes (`SimulatedLink`
    /// and its `NotificationTick`s, the Core Bluetooth façade) point here for the reason.
    ///
    /// Unchecked: each checked access to a class's stored `var` is a `swift_beginAccess` call
    /// (a thread-local lookup and an access-set update), about a third of the benchmark's
    /// instructions with ~20 such accesses per notification when these were checked. The checks
    /// can never fire: a world and its objects are confined to the thread that drives them, and
    /// no access to this state spans a call (app and delegate code run between accesses, never
    /// inside an `inout` one: `step` runs an event with no access to `hot` open).
    @exclusivity(unchecked) var hot: HotState
    struct HotState {
        var adapterState: CBManagerState
        var authorization: CBManagerAuthorization
        var trace = SimulatorTrace()
        var peripherals: [SimulatedPeripheral] = []
        var nowMicros: Int64 = 0
        var scheduler = EventScheduler()
        /// Set when a `CBPeripheral` is deallocated or a `connect` awaits its `retained` flag:
        /// the end of the current run-loop turn must sweep
        /// (`CBCentralManager.sweepReleasedPeripherals`).
        var sweepNeeded = false
        /// An event is running (`step`): releases wait for the end of the turn.
        var isStepping = false
        var isSweeping = false
        /// Central managers by trace number − 1; a slot is cleared when its manager is
        /// deallocated (`unregister`), which is how a queued event learns its manager is gone.
        var centrals: [CentralSlot] = []
        var connectionCount = 0
        /// Central-manager state the system keeps across an app relaunch, by restore identifier.
        var preservedCentrals: [String: PreservedCentralState] = [:]
        /// Peripheral-manager state the system keeps across an app relaunch, by restore
        /// identifier.
        var preservedPeripheralManagers: [String: PreservedPeripheralManagerState] = [:]
        /// Identifiers the system has seen (discovered or connected): what
        /// `retrievePeripherals(withIdentifiers:)` can return.
        var knownIdentifiers: Set<UUID> = []
    }

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        hot = HotState(adapterState: configuration.adapterState, authorization: configuration.authorization)
    }

    /// Queued events that never ran give back their references.
    deinit { hot.scheduler.releaseAll() }

    // MARK: - Peripherals

    public func add(_ peripheral: SimulatedPeripheral) {
        guard !hot.peripherals.contains(where: { $0 === peripheral }) else { return }
        hot.peripherals.append(peripheral)
        for c in liveCentrals { c.peripheralAdded(peripheral) }
    }

    // MARK: - Clock

    /// Runs `action` `delay` from now, inside the run loop (for test scripts: "at 2 s, power off").
    public func schedule(after delay: Duration, _ action: @escaping () -> Void) {
        schedule(afterMicros: micros(delay), action)
    }

    func schedule(afterMicros delay: Int64, _ action: @escaping () -> Void) {
        hot.scheduler.schedule(at: hot.nowMicros &+ max(0, delay), .action(action))
    }

    func schedule(afterMicros delay: Int64, _ tick: NotificationTick) {
        hot.scheduler.schedule(at: hot.nowMicros &+ max(0, delay), .notificationTick(tick))
    }

    /// Advances virtual time by `duration`, running every event due on the way.
    public func run(for duration: Duration) { run(untilMicros: hot.nowMicros &+ max(0, micros(duration))) }

    /// Advances virtual time to `time` (since the world started).
    public func run(until time: Duration) { run(untilMicros: micros(time)) }

    /// Runs until `condition` holds (checked after every event) or `timeout` of virtual time
    /// passes; returns whether the condition held.
    @discardableResult
    public func run(until condition: () -> Bool, timeout: Duration) -> Bool {
        let limit = hot.nowMicros &+ max(0, micros(timeout))
        if condition() { return true }
        while let item = hot.scheduler.pop(notAfter: limit) {
            step(item)
            if condition() { return true }
        }
        hot.nowMicros = max(hot.nowMicros, limit)
        return condition()
    }

    private func run(untilMicros limit: Int64) {
        while let item = hot.scheduler.pop(notAfter: limit) { step(item) }
        hot.nowMicros = max(hot.nowMicros, limit)
    }

    private func step(_ item: EventScheduler.Item) {
        hot.nowMicros = max(hot.nowMicros, item.time)
        hot.isStepping = true
        EventScheduler.run(item)
        // After every turn of the run loop: anything the app did not keep is gone now. Only
        // turns that released a `CBPeripheral` or left a `connect` to settle have work to do.
        if hot.sweepNeeded { sweep() }
        hot.isStepping = false
    }

    private func sweep() {
        hot.sweepNeeded = false
        for c in liveCentrals { c.sweepReleasedPeripherals() }
    }

    /// The app let a `CBPeripheral` go. Inside a run-loop turn the sweep waits for the turn's
    /// end (a delegate method may still be running); outside one — test or app code between
    /// `run` calls — nothing else is running, so the release takes effect at once: a connected
    /// peripheral's link ends now, in an idle world too, as Core Bluetooth cancels it when the
    /// object goes (docs/rules/peripheral-not-retained.md).
    func peripheralReleased() {
        hot.sweepNeeded = true
        if !hot.isStepping, !hot.isSweeping {
            hot.isSweeping = true
            sweep()
            hot.isSweeping = false
        }
    }

    /// Whether anything is scheduled.
    public var isIdle: Bool { hot.scheduler.isEmpty }

    // MARK: - World events

    /// The phone's Bluetooth adapter changes state (Settings, Control Center, a crash of the
    /// Bluetooth daemon). Every central manager reports the new state; leaving `.poweredOn` ends
    /// its scan and connections (see `CBCentralManager`).
    public func setAdapterState(_ state: CBManagerState) {
        guard state != hot.adapterState else { return }
        hot.adapterState = state
        record(.world(.adapterStateChanged(state)))
        if state == .poweredOn || state == .poweredOff {
            recordRadio(TimelineEvent(frame: 0, time: 0, kind: .power), value: [state == .poweredOn ? 1 : 0])
        }
        for c in liveCentrals { c.worldStateChanged() }
    }

    public func powerOff() { setAdapterState(.poweredOff) }
    public func powerOn() { setAdapterState(.poweredOn) }

    /// `.resetting`, then back to `.poweredOn` after `configuration.resetDuration`.
    public func reset() {
        setAdapterState(.resetting)
        schedule(after: configuration.resetDuration) { [unowned(unsafe) self] in self.setAdapterState(.poweredOn) }
    }

    /// The user's Bluetooth permission for the app (Apple's `CBManager.authorization`).
    public func setAuthorization(_ authorization: CBManagerAuthorization) {
        guard authorization != hot.authorization else { return }
        hot.authorization = authorization
        for c in liveCentrals { c.worldStateChanged() }
    }

    /// The state a central manager reports: unauthorized when the app may not use Bluetooth,
    /// otherwise the adapter's.
    var managerState: CBManagerState {
        switch hot.authorization {
        case .denied, .restricted: .unauthorized
        default: hot.adapterState
        }
    }

    /// The peripheral moves out of (or back into) radio range. Out of range: no advertisements,
    /// and an open connection is lost after its supervision timeout. Back in range: pending
    /// connections complete (Core Bluetooth's `connect` never times out).
    public func setInRange(_ peripheral: SimulatedPeripheral, _ inRange: Bool) {
        guard peripheral.isInRange != inRange else { return }
        peripheral.isInRange = inRange
        record(.world(.peripheralRangeChanged(address: peripheral.address.description, inRange: inRange)))
        for c in liveCentrals { c.rangeChanged(peripheral) }
    }

    /// The link to `peripheral` goes silent (interference, the peripheral resets): nothing more
    /// is answered, and after the supervision timeout every central sees the connection end
    /// with reason 0x08 Connection Timeout (Core Vol 6 Part B 4.5.2).
    public func loseLink(_ peripheral: SimulatedPeripheral) {
        record(
            .world(
                .linkLossStarted(
                    address: peripheral.address.description,
                    supervisionTimeoutMicros: micros(peripheral.supervisionTimeout))))
        for c in liveCentrals { c.linkLost(peripheral) }
    }

    /// The app's process is terminated and launched again, as iOS does to an app in the
    /// background for a Bluetooth event (Apple's state preservation and restoration). Every central
    /// manager
    /// of the old process stops: nothing reaches it or its delegate any more. One created with
    /// `CBCentralManagerOptionRestoreIdentifierKey` leaves its connected and connecting
    /// peripherals (and what it was scanning for) with the system; the new launch's manager
    /// with the same identifier gets them in `centralManager(_:willRestoreState:)` before its
    /// first state update. Without the key the old connections end. Drop the old app's
    /// objects and create the new ones (in `withCurrent`) after calling this. The same
    /// happens to a single manager that the app deallocates.
    public func relaunchApp() {
        record(.world(.appRelaunched))
        for c in liveCentrals { c.terminate() }
    }

    func preserve(_ state: PreservedCentralState, for identifier: String) { hot.preservedCentrals[identifier] = state }

    func preservePeripheralManager(_ state: PreservedPeripheralManagerState, for identifier: String) {
        hot.preservedPeripheralManagers[identifier] = state
    }

    func takePreservedPeripheralManager(_ identifier: String) -> PreservedPeripheralManagerState? {
        hot.preservedPeripheralManagers.removeValue(forKey: identifier)
    }

    func takePreservedState(_ identifier: String) -> PreservedCentralState? {
        hot.preservedCentrals.removeValue(forKey: identifier)
    }

    /// The peripheral ends every connection to it now, as its host does with HCI Disconnect
    /// (Core Vol 4 Part E 7.1.6): the peer sends LL_TERMINATE_IND and the central's controller
    /// reports Disconnection Complete with `reason` (Vol 4 Part E 7.7.5; reason codes Vol 1
    /// Part F: 0x13 Remote User Terminated Connection, 0x14 Low Resources, 0x15 Power Off).
    /// Core Bluetooth reports it as `didDisconnectPeripheral` with `CBError.peripheralDisconnected`
    /// ("The specified device has disconnected from us."); the trace records a `world` event
    /// and a radio disconnection with side `remote`, which the btsnoop export writes as a
    /// Disconnection Complete the central never asked for. A link already gone silent (link
    /// loss) cannot carry the termination and is left to its supervision timeout. An app that
    /// connected with `CBConnectPeripheralOptionEnableAutoReconnect` sees `isReconnecting`
    /// and the system connects again when the peripheral advertises.
    public func disconnect(_ peripheral: SimulatedPeripheral, reason: UInt8 = HCIError.remoteUserTerminatedConnection) {
        record(.world(.peripheralDisconnected(address: peripheral.address.description, reason: reason)))
        for c in liveCentrals { c.remoteDisconnected(peripheral, reason: reason) }
    }

    /// The peripheral's GATT database changes: it indicates Service Changed (Vol 3 Part G 7.1)
    /// on every connection, and Core Bluetooth reports `didModifyServices` with the services it
    /// invalidated.
    public func changeServices(of peripheral: SimulatedPeripheral, to services: [SimulatedService]) {
        peripheral.services = services
        record(.world(.servicesChanged(address: peripheral.address.description)))
        for c in liveCentrals { c.servicesChanged(peripheral) }
    }

    /// The peripheral's server sends `value` for its characteristic `uuid` (the one with value
    /// handle `valueHandle`, when given: two characteristics may share a UUID) to every
    /// connected client that enabled notifications or indications in the CCCD, and to no one
    /// else.
    public func notify(
        _ peripheral: SimulatedPeripheral, characteristic uuid: CBUUID, valueHandle: UInt16? = nil,
        value: [UInt8]
    ) {
        guard let c = peripheral.database.characteristic(uuid: uuid, valueHandle: valueHandle) else { return }
        var sent = false
        for central in liveCentrals { sent = central.serverNotify(peripheral, c, value) || sent }
        if !sent {
            record(.world(.notificationSuppressed(address: peripheral.address.description, handle: c.valueHandle)))
        }
    }

    // MARK: - Centrals

    /// Adds a central manager; returns its number (1, 2, … in order of creation).
    func register(_ central: CBCentralManager) -> Int {
        hot.centrals.append(CentralSlot(object: .passUnretained(central)))
        return hot.centrals.count
    }

    /// Called by the manager's `deinit`.
    func unregister(_ id: Int) {
        guard hot.centrals.indices.contains(id - 1) else { return }
        hot.centrals[id - 1].object = nil
    }

    /// The manager numbered `id`, if it still exists.
    func central(_ id: Int) -> CBCentralManager? {
        hot.centrals.indices.contains(id - 1) ? hot.centrals[id - 1].object?.takeUnretainedValue() : nil
    }

    var liveCentrals: [CBCentralManager] { hot.centrals.compactMap { $0.object?.takeUnretainedValue() } }

    func allocateConnection() -> (number: Int, handle: UInt16) {
        hot.connectionCount += 1
        return (hot.connectionCount, UInt16(truncatingIfNeeded: 0x0040 + (hot.connectionCount - 1) % 0x0E00))
    }

    /// Whether any central has a connection to `peripheral`.
    public func isConnected(_ peripheral: SimulatedPeripheral) -> Bool {
        liveCentrals.contains { $0.hasConnection(to: peripheral) }
    }

    // MARK: - Trace

    @discardableResult
    func record(_ entry: TraceRecord.Entry) -> Int { hot.trace.append(time: hot.nowMicros, entry) }

    /// Records a radio event at the current time; returns its trace index. `commandAnswered`:
    /// an HCI command whose Command Complete/Status comes at once (it gets the next sequence
    /// number as its response frame).
    @discardableResult
    func recordRadio(
        _ event: TimelineEvent, value: [UInt8] = [], outcome: Outcome = .none,
        commandAnswered: Bool = false
    ) -> Int {
        var e = event
        e.time = configuration.epochMicros &+ hot.nowMicros
        if !value.isEmpty { e.value = value.withByteView { InlineBytes($0) } }
        e.outcome = outcome
        let index = hot.trace.appendRadio(time: hot.nowMicros, e)
        if commandAnswered { resolve(index, requestTime: hot.nowMicros) }
        return index
    }

    /// Fills in the answer of a request recorded at `index`: allocates the response's sequence
    /// number (the frame a capture would give it) and sets the outcome; `value` replaces the
    /// event's value (a read's result).
    func resolve(_ index: Int, requestTime: Int64, error: UInt8? = nil, handle: UInt16 = 0, value: [UInt8]? = nil) {
        let response = hot.trace.allocateSequence()
        let latency = hot.nowMicros &- requestTime
        hot.trace.update(index) { entry in
            guard case .radio(var e) = entry else { return }
            e.outcome =
                error.map { .error(frame: response, latency: latency, code: $0, handle: handle) }
                ?? .success(frame: response, latency: latency)
            if let value { e.value = value.withByteView { InlineBytes($0) } }
            entry = .radio(e)
        }
    }

    /// Marks a request at `index` as cut off by the disconnection recorded at `frame`.
    func resolveDisconnected(_ index: Int, frame: Int) {
        hot.trace.update(index) { entry in
            guard case .radio(var e) = entry else { return }
            e.outcome = .disconnected(frame: frame)
            entry = .radio(e)
        }
    }

    /// The request at `index` went unanswered for the ATT transaction timeout (30 s, Core Vol 3
    /// Part F 3.3.3): the timeline's own outcome for it.
    func resolveTimedOut(_ index: Int) {
        hot.trace.update(index) { entry in
            guard case .radio(var e) = entry else { return }
            e.outcome = .timeout
            entry = .radio(e)
        }
    }

    func patchAPICall(_ index: Int, _ body: (inout APICallRecord) -> Void) {
        hot.trace.update(index) { entry in
            guard case .api(var a) = entry else { return }
            body(&a)
            entry = .api(a)
        }
    }

    func log(_ line: String) { hot.trace.appendLog(line) }

    var lastSequence: Int { hot.trace.nextSequence - 1 }

    // MARK: - The world a manager joins

    /// The world a `CBCentralManager(delegate:queue:)` created inside `withCurrent` joins, so
    /// app code that creates its own manager (as a typical app's `BluetoothManager` does in
    /// `init`) runs unchanged.
    public static func withCurrent<R>(_ world: SimulatedWorld, _ body: () throws -> R) rethrows -> R {
        try $currentBox.withValue(WorldBox(world)) { try body() }
    }

    /// The world bound by `withCurrent`, if any.
    public static var current: SimulatedWorld? { currentBox?.world }

    @TaskLocal private static var currentBox: WorldBox?
}

/// Carries a world through task-local storage. A world is confined to the thread that drives
/// it; the box is only ever read on that thread, which is why the unchecked conformance holds.
/// It holds the world strongly for the `withCurrent` call it is bound in (the caller holds it
/// anyway): a `weak` reference would move the world's reference counts to a side table.
private final class WorldBox: @unchecked Sendable {
    let world: SimulatedWorld
    init(_ w: SimulatedWorld) { world = w }
}

/// What the system keeps of a terminated app's central manager (`SimulatedWorld.relaunchApp`).
struct PreservedCentralState {
    /// Connected and connecting peripherals, with their links.
    var entries: [PeripheralEntry]
    var isScanning: Bool
    var scanServices: [CBUUID]?
    var allowDuplicates: Bool
    /// The discovered attribute tree of each kept connected peripheral, by identifier.
    var services: [UUID: [CBService]] = [:]
}

/// A central manager the world does not retain; cleared by the manager's `deinit`. `Unmanaged`
/// rather than an `unowned(unsafe)` optional: copies of a struct holding one read back nil in
/// unoptimized builds (Swift 6.3, seen in `compactMap` over the slots).
struct CentralSlot {
    var object: Unmanaged<CBCentralManager>?
}
