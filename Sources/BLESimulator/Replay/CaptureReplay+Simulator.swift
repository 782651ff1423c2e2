import BLEBytes
import BLEPackets
import BLEReplay
import BLETimeline
import Foundation

/// Captured peripherals as `SimulatedPeripheral`s: the app's own central code (written against
/// the simulator's Core Bluetooth API) runs against what a real device did in a capture.
///
/// What a simulated peripheral is built from, per peer (connections where this host was the
/// central; the peer of a peripheral-side capture is a central, see `playCentral`):
/// - **Database**: the peer's server as the LAST connection to it knew it (its model keeps what
///   an earlier connection to the same peer learned, outside the services it rediscovered), with the
///   captured handles and properties (`SimulatedService(handle:endHandle:)`, …) and no
///   generated Generic Attribute service: a captured 0x1801 is served as it was.
/// - **Answers**: the recorded backing of every selected connection to the peer, its histories
///   concatenated in capture order (`RecordedGATTValues`, the answers `blecap replay`'s ATT
///   server gives; `ReplayedPeer.reads`).
/// - **Notifications, link end, faults**: per connection. The n-th simulated connection plays
///   the n-th captured connection's notification streams and link end (the last captured one
///   for any later connection), so a captured reconnect sequence replays in order.
/// - **Advertisement, timing**: from the last connection that has them.
extension CaptureReplay {
    /// One simulated peripheral per peer of the selected central-side connections.
    ///
    /// `faults` apply to every simulated connection, timed from its establishment (or, with
    /// `timesFromCaptureStart`, by the captured connection it replays): `dropLinkAtMicros`
    /// silences the link (`SimulatedWorld.loseLink`), `powerOffAtMicros` powers the phone's
    /// adapter off (`SimulatedWorld.powerOff`), `responseDelayMicros` adds to the operation
    /// latency, `serverMTU` replaces the captured Server Rx MTU, `errors` answer reads and
    /// writes of those value handles with the ATT error, and `notificationDropProbability`
    /// removes the notifications `ReplayFaults.streamDrops(of:)` picks (the ones
    /// `run(faults:)` drops for the same seed). The timed ones need no further set-up: the
    /// peripheral learns its world when a central connects (`connectionObservers`).
    public func simulatedPeripherals(
        _ selection: ConnectionSelection = .all,
        faults: ReplayFaults = .none
    ) -> [SimulatedPeripheral] {
        replayedPeers(selection, faults: faults).map(\.peripheral)
    }

    /// The same as `simulatedPeripherals`, with what each was built from (models, answer
    /// histories, streams; `peripheral.ignoredHandles` lists captured handles the simulator's
    /// layout could not honour, none for a consistent capture).
    public func replayedPeers(
        _ selection: ConnectionSelection = .all,
        faults: ReplayFaults = .none
    ) -> [ReplayedPeer] {
        var order: [String] = []
        var groups: [String: [ReplayConnectionModel]] = [:]
        for m in models(selection) where m.connection.hostIsCentral {
            // A connection whose peer address is unknown (the capture began during it) is a
            // peer of its own.
            let key = m.peer.map { "\($0)" } ?? "#\(m.number)"
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(m)
        }
        return order.map { ReplayedPeer(models: groups[$0]!, captureStart: session.startTime, faults: faults) }
    }

    /// Adds the simulated peripherals of the selection to `world` (scanning centrals hear them
    /// advertise from now on) and returns them.
    @discardableResult
    public func install(
        into world: SimulatedWorld, _ selection: ConnectionSelection = .all,
        faults: ReplayFaults = .none
    ) -> [SimulatedPeripheral] {
        let peripherals = simulatedPeripherals(selection, faults: faults)
        for p in peripherals { world.add(p) }
        return peripherals
    }
}

extension ReplayAttribute {
    /// The type of the service replay makes for characteristics outside every discovered
    /// service: `inferredType(0)`, which names no attribute (handle 0 is reserved, Core 5.4
    /// Vol 3 Part F 3.2.2).
    public static let inferredServiceType = inferredType(0)
}

/// One captured peer as a simulated peripheral, with what it was built from.
public struct ReplayedPeer {
    public let peripheral: SimulatedPeripheral
    let state: PeerReplayState

    init(models: [ReplayConnectionModel], captureStart: Int64, faults: ReplayFaults) {
        state = PeerReplayState(models: models, captureStart: captureStart, faults: faults)
        peripheral = state.makePeripheral()
    }

    /// The captured connections to the peer, in capture order.
    public var models: [ReplayConnectionModel] { state.models }
    /// The captured answers to Read Requests per handle, in capture order over every
    /// connection (what the peripheral's n-th read gets; a read that Read Blob Requests
    /// continued gets their answers appended, `RecordedGATTValues.readValue`).
    public var reads: [UInt16: [ReplayAnswer]] {
        var reads: [UInt16: [ReplayAnswer]] = [:]
        for m in models { for (h, list) in m.peerServer.reads { reads[h, default: []] += list } }
        return reads
    }
    /// Per captured connection: value handle → the values its recorded notification source
    /// sends after a subscription (drops applied).
    public var streamValues: [[UInt16: [[UInt8]]]] { state.streamValues }
}

/// The state a replayed peer's connection observer keeps (streams, open connections); its
/// answers are the peripheral's recorded backing. The peripheral's observer holds it; it never
/// holds the peripheral, so nothing leaks.
final class PeerReplayState {
    let models: [ReplayConnectionModel]
    let faults: ReplayFaults
    /// Per captured connection: its recorded notification sources.
    private(set) var notificationSources: [[SimulatedPeripheral.NotificationSource]] = []
    private(set) var streamValues: [[UInt16: [[UInt8]]]] = []

    private let captureStart: Int64
    /// Simulated connections so far (the n-th replays captured connection min(n, count − 1)).
    private var connections = 0
    private var open: Set<Int> = []

    init(models: [ReplayConnectionModel], captureStart: Int64, faults: ReplayFaults) {
        self.models = models
        self.faults = faults
        self.captureStart = captureStart
        for m in models {
            let (sources, values) = streams(of: m)
            notificationSources.append(sources)
            streamValues.append(values)
        }
    }

    private var last: ReplayConnectionModel { models[models.count - 1] }
    private var database: ReplayServerModel { last.peerServer }

    /// The value a notification or indication carries (after its handle).
    private static func notifiedValue(_ b: ByteView) -> [UInt8] {
        switch ATTPDU(b) {
        case .handleValueNotification(let n): n.value.toArray()
        case .handleValueIndication(let i): i.value.toArray()
        default: []
        }
    }

    // MARK: - Notification streams

    /// The peer's notifications and indications of one connection that a subscription
    /// started, per value handle: the first subscription's (each simulated subscription plays
    /// it from the start), minus the ones the drop fault removes, at their captured offsets
    /// from the CCCD write. Items sent with no subscription seen (before the capture began,
    /// or never enabled) are left out: the simulated server, as a real one, sends only what
    /// the client configured (Vol 3 Part G 3.3.3.3).
    private func streams(of m: ReplayConnectionModel)
        -> ([SimulatedPeripheral.NotificationSource], [UInt16: [[UInt8]]])
    {
        let drops = faults.streamDrops(of: m)
        var firstSubscription: [UInt16: Int] = [:]
        var order: [UInt16] = []
        var values: [UInt16: [(offset: Duration, value: [UInt8])]] = [:]
        var indicates: [UInt16: Bool] = [:]
        for (i, item) in m.stream.enumerated() where item.hostIsClient {
            let op = ATTOpcode(item.bytes.first ?? 0)
            guard op == .handleValueNotification || op == .handleValueIndication,
                case .subscription(let step) = item.anchor,
                let h = item.bytes.withByteView(ATTPDU.handle(of:))
            else { continue }
            if firstSubscription[h] == nil {
                firstSubscription[h] = step
                order.append(h)
                values[h] = []
            }
            guard firstSubscription[h] == step else { continue }
            indicates[h] = op == .handleValueIndication
            if drops.drops(i) { continue }
            values[h]!.append((.microseconds(item.offset), item.bytes.withByteView(Self.notifiedValue)))
        }
        let sources = order.map { h in
            SimulatedPeripheral.NotificationSource.recorded(
                characteristic: CBUUID(database.attribute(h)?.type ?? ReplayAttribute.inferredType(h)), valueHandle: h,
                values: values[h]!, indicate: indicates[h] ?? false)
        }
        return (sources, values.mapValues { $0.map(\.value) })
    }

    // MARK: - The peripheral

    func makePeripheral() -> SimulatedPeripheral {
        let c = last.connection
        let address = last.peer ?? BDAddr(rawValue: 0xC0_00_00_00_00_00 | UInt64(UInt16(truncatingIfNeeded: c.number)))
        let p = SimulatedPeripheral(address: address, addressType: c.summary.peerAddressType ?? 1)
        p.providesGenericAttributeService = false
        let recorded = RecordedGATTValues(servers: models.map(\.peerServer), faults: faults)
        p.services = services(recorded)
        p.valueBacking = recorded
        p.notificationSources = notificationSources.first ?? []

        // GAP Device Name (Vol 3 Part C 12.1) if the capture read it.
        let deviceName = database.attributes.first { $0.type == BluetoothUUID(uuid16: 0x2A00) }
            .flatMap { recorded.firstRecordedValue($0.handle) }.map { String(decoding: $0, as: UTF8.self) }
        if let ad = models.last(where: { $0.connection.advertisement != nil })?.connection.advertisement {
            applyAdvertisement(ad, to: p)
        } else {
            // Not captured (the central connected without scanning): advertise the primary
            // services it discovered and the name, so a central that scans by service finds it.
            p.advertisedServiceUUIDs = database.attributes
                .filter { $0.type == ReplayAttribute.primaryService && !$0.isInferred }
                .compactMap { $0.value.withByteView(BluetoothUUID.init(littleEndian:)) }
                .filter { $0 != BluetoothUUID(uuid16: 0x1800) && $0 != BluetoothUUID(uuid16: 0x1801) }
                .map(CBUUID.init)
            p.localName = deviceName
        }
        p.name = deviceName ?? p.localName

        // ATT_MTU: the captured Server Rx MTU; without an exchange nothing says more than the
        // minimum, 23 (Vol 3 Part F 3.2.8), which is what the captured connection ran at.
        p.mtu = max(
            23,
            faults.serverMTU ?? models.last(where: { $0.peerServer.serverRxMTU != nil })?
                .peerServer.serverRxMTU ?? 23)
        let timed = models.last { $0.connection.timing != nil }?.connection ?? c
        p.connectionInterval = .microseconds(timed.intervalMicros)
        p.supervisionTimeout = .microseconds(timed.supervisionTimeoutMicros)
        // The median request → response time seen from this host, plus the injected delay.
        let latencies = models.flatMap { $0.steps.filter(\.hostIsClient).compactMap(\.latency) }.sorted()
        if !latencies.isEmpty || faults.responseDelayMicros != 0 {
            let median = latencies.isEmpty ? 2 * timed.intervalMicros : latencies[latencies.count / 2]
            p.operationLatency = .microseconds(max(0, median &+ faults.responseDelayMicros))
        }
        p.connectionObservers.append { [weak p] change in
            guard let p else { return }
            self.connectionChanged(change, p)
        }
        return p
    }

    /// Advertisement fields from the captured AD structures (Core Supplement Part A): the
    /// advertising data first, then what only the scan response adds; the raw advertising
    /// data goes on the air as captured (`advertisingDataOverride`).
    private func applyAdvertisement(_ ad: CapturedAdvertisement, to p: SimulatedPeripheral) {
        var localName: String?
        var shortName: String?
        var uuids: [CBUUID] = []
        var serviceData: [(uuid: CBUUID, data: [UInt8])] = []
        var manufacturer: [UInt8]?
        var tx: Int8?
        for bytes in [ad.data, ad.scanResponse] {
            bytes.withByteView { view in
                for s in AdvertisingData(view) {
                    if let name = s.localName {
                        let text = String(decoding: name.toArray(), as: UTF8.self)
                        if s.type == .completeLocalName {
                            localName = localName ?? text
                        } else {
                            shortName = shortName ?? text
                        }
                    } else if let list = s.uuidList, ADType.serviceUUIDLists.contains(s.type) {
                        for u in list where !uuids.contains(CBUUID(u)) { uuids.append(CBUUID(u)) }
                    } else if let t = s.txPowerLevel {
                        tx = tx ?? t
                    } else if let sd = s.serviceData, !serviceData.contains(where: { $0.uuid == CBUUID(sd.uuid) }) {
                        serviceData.append((CBUUID(sd.uuid), sd.data.toArray()))
                    } else if s.type == .manufacturerSpecificData, s.data.count >= 2 {
                        manufacturer = manufacturer ?? s.data.toArray()
                    }
                }
            }
        }
        p.localName = localName ?? shortName
        p.advertisedServiceUUIDs = uuids
        p.serviceData = serviceData
        p.manufacturerData = manufacturer
        p.txPowerLevel = tx
        p.rssi = Int(ad.rssi)
        p.advertisingDataOverride = ad.data.isEmpty ? ad.scanResponse : ad.data
    }

    // MARK: - Database

    private struct Characteristic {
        var uuid: BluetoothUUID
        var declaration: UInt16?
        var value: UInt16
        var properties: UInt8
        var descriptors: [(handle: UInt16, uuid: BluetoothUUID)] = []
        var inferred = false
    }

    private struct Service {
        var uuid: BluetoothUUID
        var isPrimary: Bool
        var start: UInt16?
        var end: UInt16?
        var includes: [UInt16] = []
        var characteristics: [Characteristic] = []
    }

    /// The captured attribute table as simulator definitions. Characteristics go into the
    /// discovered service whose range holds them; descriptors follow their value up to the
    /// next declaration (Vol 3 Part G 3.3). Attributes the traffic used but discovery never
    /// named (`isInferred`) become characteristics (type `inferredType(handle)`, the properties
    /// their use implied) of the service whose range holds them — except a written handle
    /// right after a notifying value with no discovered descriptor, the CCCD the simulator
    /// puts there itself. The rest (and characteristics outside every discovered service) go
    /// into services of type `inferredServiceType`, one per gap between discovered services:
    /// an app cannot find them by a service UUID it knows, as it could not on the real device
    /// without discovering them.
    private func services(_ recorded: RecordedGATTValues) -> [SimulatedService] {
        let attrs = database.attributes
        var services: [Service] = attrs.compactMap { a in
            guard !a.isInferred, a.type == ReplayAttribute.primaryService || a.type == ReplayAttribute.secondaryService,
                let uuid = a.value.withByteView(BluetoothUUID.init(littleEndian:))
            else { return nil }
            return Service(
                uuid: uuid, isPrimary: a.type == ReplayAttribute.primaryService, start: a.handle,
                end: max(a.handle, a.groupEnd ?? a.handle))
        }
        func serviceIndex(_ h: UInt16) -> Int? { services.firstIndex { $0.start! <= h && h <= $0.end! } }
        var declarations: [Characteristic] = attrs.compactMap { a in
            guard !a.isInferred, a.type == ReplayAttribute.characteristic,
                let d = GATTCharacteristicDeclarationValue.fields(in: a.value)
            else { return nil }
            return Characteristic(uuid: d.uuid, declaration: a.handle, value: d.valueHandle, properties: d.properties)
        }
        declarations.sort { $0.value < $1.value }
        let boundaries = Set(
            attrs.filter {
                [
                    ReplayAttribute.primaryService, ReplayAttribute.secondaryService, ReplayAttribute.include,
                    ReplayAttribute.characteristic,
                ].contains($0.type)
            }.map(\.handle))
        // Descriptors: discovered non-declaration attributes after a value, before the next
        // declaration or the end of the service.
        for i in declarations.indices {
            let v = declarations[i].value
            let end = serviceIndex(v).map { services[$0].end! } ?? 0xFFFF
            for a in attrs where a.handle > v && a.handle <= end && !a.isInferred {
                if boundaries.contains(a.handle) || declarations.contains(where: { $0.value == a.handle }) { break }
                declarations[i].descriptors.append((a.handle, a.type))
            }
        }
        for a in attrs where a.type == ReplayAttribute.include && !a.isInferred {
            if let s = serviceIndex(a.handle) {
                services[s].includes.append(GATTIncludeDeclarationValue.includedServiceHandle(in: a.value) ?? 0)
            }
        }
        var orphans: [Characteristic] = []
        func place(_ c: Characteristic) {
            if let s = serviceIndex(c.value) { services[s].characteristics.append(c) } else { orphans.append(c) }
        }
        for c in declarations { place(c) }
        for a in attrs where a.isInferred {
            if a.handle >= 2, let owner = declarations.first(where: { $0.value == a.handle - 1 }),
                owner.properties & (GATTCharacteristicProperty.notify | GATTCharacteristicProperty.indicate) != 0,
                owner.descriptors.isEmpty, (a.properties ?? 0) & ~GATTCharacteristicProperty.write == 0
            {
                continue  // the notifying value's CCCD, which the simulator adds at this handle
            }
            place(
                Characteristic(
                    uuid: a.type, declaration: nil, value: a.handle, properties: a.properties ?? 0,
                    inferred: true))
        }
        // Orphans: one service per run of them between discovered services.
        orphans.sort { $0.value < $1.value }
        var groups: [[Characteristic]] = []
        for c in orphans {
            if let prev = groups.last?.last,
                !services.contains(where: { $0.start! > prev.value && $0.start! < c.value })
            {
                groups[groups.count - 1].append(c)
            } else {
                groups.append([c])
            }
        }
        for g in groups {
            let first = g[0].declaration ?? g[0].value &- 1
            services.append(
                Service(
                    uuid: ReplayAttribute.inferredServiceType, isPrimary: true,
                    start: first > 1 ? first - 1 : nil, end: nil, characteristics: g))
        }
        services.sort {
            ($0.start ?? $0.characteristics.first?.value ?? 0) < ($1.start ?? $1.characteristics.first?.value ?? 0)
        }

        return services.map { s in
            let includes = s.includes.compactMap { start in services.first { $0.start == start }.map { CBUUID($0.uuid) }
            }
            let chars = s.characteristics.sorted { $0.value < $1.value }.map { characteristic($0, recorded) }
            return SimulatedService(
                uuid: CBUUID(s.uuid), isPrimary: s.isPrimary, characteristics: chars,
                includedServices: includes, handle: s.start, endHandle: s.end)
        }
    }

    /// A characteristic of the captured table; its value's reads and writes are answered by the
    /// peripheral's recorded backing, its descriptors hold the first value read of them.
    private func characteristic(_ c: Characteristic, _ recorded: RecordedGATTValues) -> SimulatedCharacteristic {
        let descriptors = c.descriptors.map { d in
            SimulatedDescriptor(
                uuid: CBUUID(d.uuid), value: recorded.firstRecordedValue(d.handle) ?? [], handle: d.handle)
        }
        return SimulatedCharacteristic(
            uuid: CBUUID(c.uuid), properties: CBCharacteristicProperties(rawValue: UInt(c.properties)),
            descriptors: descriptors, declarationHandle: c.declaration, valueHandle: c.value)
    }

    // MARK: - Connections

    /// A simulated connection opened or closed: the opened one gets its captured
    /// connection's streams, link end and the timed faults.
    private func connectionChanged(_ change: SimulatedPeripheral.ConnectionChange, _ p: SimulatedPeripheral) {
        switch change.event {
        case .disconnected:
            open.remove(change.connection)
        case .connected:
            let number = change.connection
            open.insert(number)
            let index = min(connections, models.count - 1)
            connections += 1
            let m = models[index]
            p.notificationSources = notificationSources[index]
            let world = change.world
            func at(_ micros: Int64, _ action: @escaping () -> Void) {
                world.schedule(after: .microseconds(max(0, micros))) { [weak self] in
                    guard let self, self.open.contains(number) else { return }
                    action()
                }
            }
            // The captured end, when the peer ended the link: a termination at its time, or a
            // link that went silent one supervision timeout before its Connection Timeout
            // (Vol 6 Part B 4.5.2), so that the disconnection comes at the captured time.
            if let end = m.linkEnd {
                switch end.side {
                case .remote:
                    at(end.capturedOffset) { [weak p] in if let p { world.disconnect(p, reason: end.reason) } }
                case .linkLoss:
                    at(end.capturedOffset &- m.connection.supervisionTimeoutMicros) { [weak p] in
                        if let p { world.loseLink(p) }
                    }
                default: break
                }
            }
            let own = faults.relative(toConnectionAt: m.connection.summary.startTime &- captureStart)
            if let t = own.dropLinkAtMicros { at(t) { [weak p] in if let p { world.loseLink(p) } } }
            if let t = own.powerOffAtMicros { at(t) { world.powerOff() } }
        }
    }
}
