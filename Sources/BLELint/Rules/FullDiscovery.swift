import BLEBytes
import BLETimeline

/// BLE012: discovering the whole GATT database to use a few characteristics of it.
///
/// `discoverServices(nil)` makes Core Bluetooth run Discover All Primary Services (Read By
/// Group Type over 0x0001–0xFFFF, Core Vol 3 Part G 4.4.1) and `discoverCharacteristics(nil,
/// for:)` Discover All Characteristics of a Service (Read By Type 0x2803 over the service's
/// range, 4.6.1). Each round trip costs at least one connection interval; an app that then
/// uses two characteristics has spent the radio time (and the peripheral's battery) for
/// nothing. The rule asks for the UUIDs the app needs to be passed instead
/// (`discoverServices([heartRateServiceUUID])`, docs/rules/full-discovery.md).
///
/// What can be told from HCI: Discover Primary Service by UUID uses Find By Type Value, so a
/// Read By Group Type over the whole range is an unfiltered service discovery. Characteristic
/// discovery by UUID and of all characteristics are the same Read By Type on the wire (the
/// client filters), so characteristics count towards "discovered" but do not by themselves
/// start a finding.
///
/// "Few" is a threshold: the finding is made when the session (every connection to the
/// same peer in the capture: Core Bluetooth caches the database across connections) used at
/// most `max_used_fraction` of the characteristics it discovered, and discovered at least
/// `min_characteristics`. Both sides are counted per characteristic, not per response or per
/// UUID: a database discovered again on a later connection is the same database, and two
/// characteristics with one UUID are two. The GAP and GATT services' characteristics are left
/// out: Core Bluetooth never shows them to an app.
///
/// Whose behaviour it is: on Android and BlueZ the OS stack discovers everything whatever the
/// app asks, and the message says so (the capture tells: Android's vendor commands, BlueZ's
/// management records); elsewhere it is the app's call or its stack's.
public struct FullDiscovery: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE012", slug: "full-discovery", title: "Whole database discovered, few characteristics used",
        defaultSeverity: .note,
        summary: """
            This host discovered every primary service of the peer (Read By Group Type over \
            0x0001–0xFFFF: discoverServices(nil)) and the characteristics of every service (Read By \
            Type over each whole service), but the session then read, wrote, subscribed to or \
            received notifications from only a few of the characteristics it found (at most \
            max_used_fraction of them, each characteristic counted once over every connection to \
            the same peer in the capture, the GAP and GATT services' own left out as Core \
            Bluetooth never shows them). Discovery by UUID costs fewer round trips and less power \
            on both sides. Android's BluetoothGatt.discoverServices() and BlueZ's bluetoothd \
            always discover everything, so on their captures this note states the OS stack's \
            cost, not an app's choice, and says so.
            """,
        enforces: [
            "Discover by UUID the services the app uses, and in them the characteristics it uses, rather than the whole database."
        ],
        references: [
            .apple("CBPeripheral.discoverServices(_:)"),
            .apple("CBPeripheral.discoverCharacteristics(_:for:)"),
            .android("BluetoothGatt.discoverServices()"),
            .android("BluetoothGattCallback.onServicesDiscovered"),
            .android("BluetoothGatt.getService(UUID)"),
            .spec("Vol 3 Part G 4.4.1, 4.4.2", "discovering all primary services, or one by UUID"),
            .spec("Vol 3 Part G 2.5.2", "attribute caching"),
        ],
        evidence: [.hci],
        thresholds: [
            ThresholdSpec(
                "max_used_fraction", 0.5, unit: "",
                "Report when the session used at most this fraction of the characteristics it discovered"),
            ThresholdSpec(
                "min_characteristics", 4, unit: "characteristics",
                "Smaller databases are not worth reporting: discovering them all costs little"),
        ],
        fix: """
            func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
                peripheral.delegate = self
                peripheral.discoverServices([heartRateServiceUUID])  // not nil
            }

            func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
                for service in peripheral.services ?? [] {
                    peripheral.discoverCharacteristics([heartRateMeasurementUUID], for: service)
                }
            }
            """,
        android: PlatformAdvice(
            """
            Android's public API has no discovery by UUID: `BluetoothGatt.discoverServices()` always \
            discovers every service, characteristic and descriptor, and `onServicesDiscovered` hands the app \
            the whole database (Android's `BluetoothGatt` reference). On an Android capture the note is the \
            stack's cost (the finding's party is `os-stack`); what an app can do is call `discoverServices()` \
            once per connection and bond with peers it meets often, whose database the stack can keep.
            """,
            fix: """
                override fun onConnectionStateChange(gatt: BluetoothGatt, status: Int, newState: Int) {
                    if (newState == BluetoothProfile.STATE_CONNECTED) gatt.discoverServices()  // once per connection
                }

                override fun onServicesDiscovered(gatt: BluetoothGatt, status: Int) {
                    val c = gatt.getService(serviceUuid)?.getCharacteristic(characteristicUuid) ?: return
                    // use only what the app needs
                }
                """))

    static let maximumPeers = 256
    /// Bounds per session: discovery requests remembered, characteristics used.
    static let maximumRequests = 512
    static let maximumUsed = 512
    /// The characteristics the GAP and GATT services define (Assigned Numbers 3.8: Device Name,
    /// Appearance, Peripheral Privacy Flag, Reconnection Address, Peripheral Preferred
    /// Connection Parameters, Service Changed, Central Address Resolution, Resolvable Private
    /// Address Only, Client/Server Supported Features, Database Hash, Encrypted Data Key
    /// Material, LE GATT Security Levels). Their use is the stack's, like their discovery.
    static let stackCharacteristics: Set<BluetoothUUID> = Set(
        [0x2A00, 0x2A01, 0x2A02, 0x2A03, 0x2A04, 0x2A05, 0x2AA6, 0x2AC9, 0x2B29, 0x2B2A, 0x2B3A, 0x2B88, 0x2BF5].map {
            BluetoothUUID(uuid16: $0)
        })

    /// Who the session is with: the peer address, or the connection when it has none.
    enum SessionKey: Hashable {
        case peer(BDAddr)
        case connection(Int)
    }

    /// What one peer's database showed over every connection to it. A peer's handles are
    /// stable while its database is (Vol 3 Part G 2.5.2), so a request is known by where it
    /// started: a rediscovery on a later connection repeats the same requests and replaces
    /// their counts instead of adding to them.
    struct Session {
        var fullDiscovery: TimelineEvent?
        /// Primary services found, by the start handle of the Read By Group Type that found them.
        var servicesFound: [UInt16: Int] = [:]
        /// Characteristics found outside the GAP and GATT services, by the start handle of the
        /// request.
        var characteristicsFound: [UInt16: Int] = [:]
        /// Whether any response held GAP or GATT characteristics (left out of the count).
        var stackCharacteristicsFound = false
        var firstCharacteristicDiscovery: Int?
        /// Characteristics used, by value handle (a CCCD counts for its characteristic): the
        /// attribute as first used and its frame. Named only if a finding lists it (naming every
        /// notification's attribute was 30 % of `lint` on the bench capture).
        var used: [UInt16: (handle: UInt16, attribute: AttributeRef?, frame: Int)] = [:]
        var usedOrder: [UInt16] = []

        var services: Int { servicesFound.values.reduce(0, +) }
        var characteristics: Int { characteristicsFound.values.reduce(0, +) }
    }

    let maxUsedFraction: Double
    let minCharacteristics: Int
    var sessions: [SessionKey: Session] = [:]
    var order: [SessionKey] = []
    var hostStack: HostStack?
    /// The last characteristic found already used, by session: a notification stream uses the
    /// same one again and again, and the two hash lookups that tell were 9 % of `lint`. Valid
    /// for good: sessions and their used characteristics are never removed.
    var lastUsed: (key: SessionKey, handle: UInt16)?

    public static let observedEvents: TimelineEventClasses = [.gattRequests, .gattUpdates]
    public static let observedFacts: HCIFactClasses = .capture  // the host stack

    public init(settings: RuleSettings) {
        maxUsedFraction = settings.threshold("max_used_fraction", in: Self.descriptor)
        minCharacteristics = Int(settings.threshold("min_characteristics", in: Self.descriptor))
    }

    public static let readsATTOrSMP = true

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        f.aclPackets == 0 ? "the input holds no ACL data (no GATT discovery to look at)" : nil
    }

    static func key(_ e: TimelineEvent) -> SessionKey? {
        if let p = e.peer { return .peer(p) }
        return e.connection.map { .connection($0) }
    }

    mutating func update(_ e: TimelineEvent, create: Bool, _ body: (inout Session) -> Void) {
        guard let k = Self.key(e) else { return }
        // One lookup, and the session changed in place (never read out: it holds an event).
        if let i = sessions.index(forKey: k) { return body(&sessions.values[i]) }
        guard create, sessions.count < Self.maximumPeers else { return }
        var s = Session()
        body(&s)
        sessions[k] = s
        order.append(k)
    }

    public mutating func observe(_ fact: HCIFact, _ sink: FindingSink) {
        if case .hostStack(let s) = fact.kind { hostStack = s }
    }

    public mutating func observe(_ e: TimelineEvent, _ sink: FindingSink) {
        switch e.kind {
        case .discovery(let d, let sent) where sent:
            switch d.target {
            case .primaryServices where d.filter == nil:
                update(e, create: true) { s in
                    if s.fullDiscovery == nil, d.startHandle == 0x0001, d.endHandle == 0xFFFF { s.fullDiscovery = e }
                    if s.servicesFound[d.startHandle] != nil || s.servicesFound.count < Self.maximumRequests {
                        s.servicesFound[d.startHandle] = d.found
                    }
                }
            case .characteristics where d.filter == nil:
                update(e, create: true) { s in
                    if s.firstCharacteristicDiscovery == nil { s.firstCharacteristicDiscovery = e.frame }
                    if d.foundInStackServices > 0 { s.stackCharacteristicsFound = true }
                    if s.characteristicsFound[d.startHandle] != nil
                        || s.characteristicsFound.count < Self.maximumRequests
                    {
                        s.characteristicsFound[d.startHandle] = d.found - d.foundInStackServices
                    }
                }
            default: break
            }
        // Only what addresses the peer's server counts (the timeline tags each operation with
        // its server): a read by the peer of this host's own server uses no characteristic of
        // the database this host discovered.
        case .read(let op, _) where op.sent && op.serverIsPeer: use(op, e)
        case .write(let op, _) where op.sent && op.serverIsPeer: use(op, e)
        case .subscribe(let op, _) where op.sent && op.serverIsPeer: use(op, e)
        case .notification(let op) where !op.sent && op.serverIsPeer: use(op, e)
        case .indication(let op) where !op.sent && op.serverIsPeer: use(op, e)
        default: break
        }
    }

    /// Every read, write and notification comes here: the common case, a characteristic the
    /// session used before, is two lookups and no copy of the event.
    mutating func use(_ op: AttributeOperation, _ e: TimelineEvent) {
        var handle = op.handle
        if let a = op.attribute, a.role == .descriptor, let value = a.characteristicValueHandle { handle = value }
        guard let k = Self.key(e) else { return }
        if let last = lastUsed, last.handle == handle, last.key == k { return }
        guard let i = sessions.index(forKey: k) else { return }
        let frame = e.frame
        Self.use(op, handle, frame, &sessions.values[i])
        if sessions.values[i].used[handle] != nil { lastUsed = (k, handle) }
    }

    static func use(_ op: AttributeOperation, _ handle: UInt16, _ frame: Int, _ s: inout Session) {
        guard s.used[handle] == nil, s.used.count < Self.maximumUsed else { return }
        if let a = op.attribute {
            let characteristic = a.role == .descriptor ? a.characteristic : a.uuid
            if let characteristic, stackCharacteristics.contains(characteristic) { return }
        }
        s.used[handle] = (op.handle, op.attribute, frame)
        s.usedOrder.append(handle)
    }

    /// How the finding names a used characteristic: its value's name (a descriptor used counts
    /// for, and is named as, the characteristic it belongs to), else its handle.
    static func name(_ u: (handle: UInt16, attribute: AttributeRef?, frame: Int)) -> String {
        guard var a = u.attribute else { return Describe.handle(u.handle) }
        if a.role == .descriptor {
            guard let c = a.characteristic else { return Describe.handle(a.characteristicValueHandle ?? u.handle) }
            a = AttributeRef.make(
                role: .value, handle: a.characteristicValueHandle ?? u.handle, uuid: c, characteristic: nil,
                properties: a.characteristicProperties, carriedOver: a.carriedOver)
        }
        return a.displayName
    }

    /// Whose habit a whole-database discovery is, in the finding's words.
    var owner: String {
        switch hostStack {
        case .android:
            "Android's BluetoothGatt.discoverServices() always discovers every service and characteristic, whatever the app needs: this is the OS stack's cost, which the app cannot lower"
        case .bluez:
            "BlueZ's bluetoothd discovers the whole database of every device it connects to, before and whatever the app asks: this is the OS stack's habit, not the app's choice"
        case nil:
            "the app asked for every service (discoverServices(nil)) and every characteristic (discoverCharacteristics(nil, for:)), or its OS stack did so on its own"
        }
    }

    public mutating func finish(at time: Int64, _ sink: FindingSink) {
        for k in order {
            guard let s = sessions[k], let d = s.fullDiscovery, s.characteristics >= max(1, minCharacteristics) else {
                continue
            }
            let used = s.usedOrder
            guard Double(used.count) <= maxUsedFraction * Double(s.characteristics) else { continue }
            let stack = s.stackCharacteristicsFound ? " (not counting the GAP and GATT services')" : ""
            var msg =
                "all \(s.services) primary services (Read By Group Type over 0x0001–0xFFFF) and \(s.characteristics) characteristics\(stack) were discovered"
            if used.isEmpty {
                msg += ", but the session never read, wrote, subscribed to or was notified by any of them"
            } else {
                let names = used.prefix(4).compactMap { s.used[$0].map(Self.name) }.joined(separator: ", ")
                msg += ", but the session used only \(used.count) of them (\(names)\(used.count > 4 ? ", …" : ""))"
            }
            msg += "; \(owner)"
            if hostStack == nil { msg += ": discover by UUID" }
            let usedFrames = used.prefix(8).compactMap { s.used[$0]?.frame }
            sink.report(
                msg, connection: d.connection, peer: d.peer, handle: nil, time: d.time,
                frames: [d.frame] + (s.firstCharacteristicDiscovery.map { [$0] } ?? []) + usedFrames,
                evidence: .hci, party: hostStack == nil ? nil : .osStack)
        }
    }
}
