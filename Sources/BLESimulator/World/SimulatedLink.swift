import BLEAir
import BLEBytes
import BLEPackets
import BLETimeline
import Foundation

/// One ATT request Core Bluetooth has queued on a connection.
enum ATTOperation {
    case exchangeMTU
    case discoverServices([CBUUID]?)
    case discoverIncludedServices([CBUUID]?, CBService)
    case discoverCharacteristics([CBUUID]?, CBService)
    case discoverDescriptors(CBCharacteristic)
    case read(CBCharacteristic)
    case readDescriptor(CBDescriptor)
    case write(CBCharacteristic, [UInt8])
    case writeDescriptor(CBDescriptor, [UInt8])
    case setNotify(CBCharacteristic, Bool)
}

/// One LE connection between the simulated phone and a simulated peripheral: the client's
/// request queue and the server's per-client state (CCCDs).
///
/// ATT allows one outstanding request per bearer (Core Vol 3 Part F 3.3.2): requests wait in
/// `queue` and go out one at a time, in call order. Notifications and write commands do not
/// wait. While the link is silent (link loss) requests go out and are never answered; the
/// disconnection resolves them as `disconnected`.
final class SimulatedLink {
    // Unchecked references: the central manager owns its entries (never removed) and each
    // entry owns its link, and the manager holds its world. Queued closures hold the link
    // strongly (no weak references anywhere on it, so its counts stay inline and cheap), so a
    // link can outlive its manager: the manager's `deinit` detaches its links, and every
    // closure checks `isOpen` before it touches these three. Checked `unowned` would cost an
    // atomic strong retain per use on the notification path.
    unowned(unsafe) let world: SimulatedWorld
    /// The manager whose connection this is; a restored manager takes it over
    /// (`CBCentralManager.terminate`).
    var central: CBCentralManager {
        get { hot.central }
        set { hot.central = newValue }
    }
    unowned(unsafe) let entry: PeripheralEntry
    let device: SimulatedPeripheral
    let number: Int
    let handle: UInt16
    /// The peer's address type as the connection was made with it (LE Connection Complete
    /// reports it once, Vol 4 Part E 7.7.65.1): every event of the connection carries it.
    let peerAddressType: UInt8
    var bearer: ATTBearerState { hot.bearer }
    var mtu: UInt16 { hot.bearer.mtu }
    var isOpen: Bool { hot.isOpen }
    var isSilent: Bool {
        get { hot.isSilent }
        set { hot.isSilent = newValue }
    }
    /// An ATT transaction timed out: no more ATT on this bearer (Core Vol 3 Part F 3.3.3).
    var attTimedOut: Bool { hot.bearer.timedOut }

    /// The link's mutable state, in one place so that the one exclusivity exemption below
    /// covers it and states its reason once.
    ///
    /// Unchecked: each checked access to a class's stored `var` is a `swift_beginAccess` call
    /// (a thread-local lookup and an access-set update), and the notification and write-command
    /// paths touch these several times per value. The checks cannot fire: a link belongs to
    /// its world's thread, and no access to `hot` spans a call out of the link (delegate and
    /// peripheral-manager code, the world's scheduler and the local server run between
    /// accesses, never inside a `mutating` one on `hot`). See `SimulatedWorld.hot`.
    @exclusivity(unchecked) private var hot: HotState
    private struct HotState {
        /// See `SimulatedLink.central`. Unchecked for the reason `world` is.
        unowned(unsafe) var central: CBCentralManager
        /// Write Command flow control (controller ACL buffers, Vol 4 Part E 4.1.1): buffers
        /// free, values sent and not yet freed, a drain scheduled, and whether the app saw
        /// `canSendWriteWithoutResponse` false (it hears `isReady` when one frees).
        var freeBuffers: Int
        var inFlight = 0
        var drainScheduled = false
        var blocked = false
        /// The ATT bearer: ATT_MTU (23 until the exchange completes, Vol 3 Part F 3.2.8), the
        /// central's request on the air (tagged with its trace index) and whether a transaction
        /// timed out. The central is the host client; the simulated peripheral sends no requests.
        var bearer = ATTBearerState()
        var isOpen = true
        var isSilent = false

        var queue: [ATTOperation] = []
        var head = 0
        var busy = false
        /// The operation whose request is on the air (its delegate hears an ATT timeout).
        var current: ATTOperation?
        /// A transaction timer is scheduled (one per link at a time, see `armTransactionTimer`).
        var timerArmed = false

        /// Server side: this client's CCCD values by CCCD handle.
        var cccd: [UInt16: UInt16] = [:]
        /// Notification sources scheduled for this link and not yet finished. A CCCD write
        /// retires those of its characteristic (the new configuration starts its own), so a
        /// live tick's configuration is always the one in `cccd`.
        var ticks: [NotificationTick] = []
    }

    init(world: SimulatedWorld, central: CBCentralManager, entry: PeripheralEntry, number: Int, handle: UInt16) {
        self.world = world
        hot = HotState(central: central, freeBuffers: world.configuration.writeWithoutResponseBuffers)
        self.entry = entry
        self.device = entry.device
        self.number = number
        self.handle = handle
        peerAddressType = entry.device.addressType
    }

    var canSendWriteWithoutResponse: Bool { hot.isOpen && hot.freeBuffers > 0 }
    private var db: GATTServerDatabase { device.database }
    private var peripheral: CBPeripheral? { entry.hot.object }

    // MARK: - Request queue

    func enqueue(_ op: ATTOperation) {
        guard hot.isOpen, !attTimedOut else { return }
        hot.queue.append(op)
        pump()
    }

    private func pump() {
        guard hot.isOpen, !hot.busy, !attTimedOut, hot.head < hot.queue.count else { return }
        let op = hot.queue[hot.head]
        // The slot must not keep the operation's CBService/CBCharacteristic: they hold the
        // peripheral's entry, which holds this link (a cycle that would outlive the world).
        hot.queue[hot.head] = .exchangeMTU
        hot.head += 1
        if hot.head > 32, hot.head * 2 > hot.queue.count {
            hot.queue.removeFirst(hot.head)
            hot.head = 0
        }
        hot.busy = true
        hot.current = op
        start(op)
    }

    private func finish() {
        hot.busy = false
        hot.bearer.responseReceived(by: .host)
        hot.current = nil
        pump()
    }

    /// The central manager is being deallocated: nothing of this link may run any more
    /// (queued closures find it closed). No disconnection is recorded: the app let its manager
    /// go, and the trace has no one to attribute callbacks to.
    func detach() {
        hot.isOpen = false
        for t in hot.ticks { t.hot.isRetired = true }
        hot.ticks.removeAll()
        // Queued operations hold attributes, which hold the entry that holds this link.
        hot.queue.removeAll()
        hot.head = 0
        hot.busy = false
        hot.bearer.closed()
        hot.current = nil
    }

    func close(disconnectionFrame: Int) {
        hot.isOpen = false
        device.localServer?.linkClosed(self)
        if let o = hot.bearer.outstanding(.host) { world.resolveDisconnected(o.tag, frame: disconnectionFrame) }
        hot.bearer.closed()
        hot.current = nil
        hot.queue.removeAll()
        hot.head = 0
        hot.busy = false
        hot.cccd.removeAll()
    }

    /// Puts a request on the air, lets the server answer it on arrival, and delivers the
    /// answer after the peripheral's operation latency.
    private func exchange(
        _ kind: TimelineEvent.Kind, value: [UInt8] = [], errorHandle: UInt16,
        server: () -> (error: UInt8?, value: [UInt8]?),
        then: @escaping (_ error: UInt8?, _ value: [UInt8]?) -> Void
    ) {
        exchange(
            kind, value: value, errorHandle: errorHandle,
            deferred: { answer in
                let a = server()
                answer(a.error, a.value)
            }, then: then)
    }

    /// The same with a server that may answer later (a `CBPeripheralManager`'s app answers in
    /// `respond(to:withResult:)`): the response goes out at the operation latency or as soon as
    /// the answer exists, whichever is later; only the first answer counts.
    private func exchange(
        _ kind: TimelineEvent.Kind, value: [UInt8] = [], errorHandle: UInt16,
        deferred server: (_ answer: @escaping (UInt8?, [UInt8]?) -> Void) -> Void,
        then: @escaping (_ error: UInt8?, _ value: [UInt8]?) -> Void
    ) {
        let index = world.recordRadio(event(kind), value: value, outcome: .pending)
        let t0 = world.nowMicros
        hot.bearer.requestSent(Self.requestOpcode(kind), by: .host, at: t0, tag: index)
        guard !hot.isSilent else { return }
        let due = t0 &+ device.effectiveOperationLatency
        var answered = false
        server { [self] error, answerValue in
            guard !answered else { return }
            answered = true
            self.world.schedule(afterMicros: due &- self.world.nowMicros) { [self] in
                guard self.hot.isOpen, !self.hot.isSilent, !self.attTimedOut else { return }
                self.world.resolve(index, requestTime: t0, error: error, handle: errorHandle, value: answerValue)
                self.hot.bearer.responseReceived(by: .host)
                then(error, answerValue)
            }
        }
        // Only a server that answers later (a peripheral manager's app, which may never call
        // `respond`) can leave a transaction open: the others have scheduled their response.
        if !answered { armTransactionTimer() }
    }

    // MARK: - ATT transaction timeout

    /// Core Vol 3 Part F 3.3.3: a transaction not completed within 30 seconds times out.
    static var transactionTimeoutMicros: Int64 { ATTBearer.transactionTimeoutMicros }

    /// One timer per link: when it fires it times out the request on the air if that request is
    /// 30 s old, or re-arms for the younger one. Links whose servers answer at once never arm
    /// it, so their sessions schedule nothing more than before.
    private func armTransactionTimer() {
        guard !hot.timerArmed, let due = hot.bearer.timeoutDue(.host) else { return }
        hot.timerArmed = true
        world.schedule(afterMicros: due &- world.nowMicros) { [self] in
            self.hot.timerArmed = false
            guard self.hot.isOpen, !self.attTimedOut, self.hot.bearer.outstanding(.host) != nil else { return }
            if let o = self.hot.bearer.timeOut(.host, now: self.world.nowMicros) {
                self.transactionTimedOut(request: o.tag)
            } else {
                self.armTransactionTimer()
            }
        }
    }

    /// The request on the air was not answered in 30 s. The transaction has failed and no more
    /// ATT PDUs may be sent on this bearer (Core Vol 3 Part F 3.3.3: the bearer state says so
    /// from now on); the pending operation's delegate is told, and the central manager drops
    /// the link (`CBCentralManager.attTransactionTimedOut`). Recorded as world event
    /// `att_timeout`.
    private func transactionTimedOut(request index: Int) {
        let request = world.trace.records[index].sequence
        // The request's outcome is the timeline's `timeout`, not the later disconnection.
        world.resolveTimedOut(index)
        world.record(.world(.attTransactionTimeout(address: device.address.description, request: request)))
        let op = hot.current
        hot.current = nil
        // Operations queued behind it never go out; the disconnection voids them.
        hot.queue.removeAll()
        hot.head = 0
        hot.central.attTransactionTimedOut(entry)
        if let op, let p = peripheral { failOperation(op, p, CBError(.connectionTimeout)) }
    }

    /// Calls the delegate method of `op` with `error` (nothing changes on the attribute).
    private func failOperation(_ op: ATTOperation, _ p: CBPeripheral, _ error: CBError) {
        let text = error.description
        let id = p.identifier
        switch op {
        case .exchangeMTU: break
        case .discoverServices:
            p.deliver(.didDiscoverServices(peripheral: id, services: [], error: text)) {
                $0.peripheral(p, didDiscoverServices: error)
            }
        case .discoverIncludedServices(_, let s):
            p.deliver(.didDiscoverIncludedServices(peripheral: id, service: s.uuid, error: text)) {
                $0.peripheral(p, didDiscoverIncludedServicesFor: s, error: error)
            }
        case .discoverCharacteristics(_, let s):
            p.deliver(.didDiscoverCharacteristics(peripheral: id, service: s.uuid, characteristics: [], error: text)) {
                $0.peripheral(p, didDiscoverCharacteristicsFor: s, error: error)
            }
        case .discoverDescriptors(let c):
            p.deliver(.didDiscoverDescriptors(peripheral: id, characteristic: c.uuid, error: text)) {
                $0.peripheral(p, didDiscoverDescriptorsFor: c, error: error)
            }
        case .read(let c):
            p.deliver(.didUpdateValue(peripheral: id, characteristic: c.uuid, length: 0, error: text)) {
                $0.peripheral(p, didUpdateValueFor: c, error: error)
            }
        case .readDescriptor(let d):
            p.deliver(.didUpdateDescriptorValue(peripheral: id, descriptor: d.uuid, error: text)) {
                $0.peripheral(p, didUpdateValueFor: d, error: error)
            }
        case .write(let c, _):
            p.deliver(.didWriteValue(peripheral: id, characteristic: c.uuid, error: text)) {
                $0.peripheral(p, didWriteValueFor: c, error: error)
            }
        case .writeDescriptor(let d, _):
            p.deliver(.didWriteDescriptorValue(peripheral: id, descriptor: d.uuid, error: text)) {
                $0.peripheral(p, didWriteValueFor: d, error: error)
            }
        case .setNotify(let c, _):
            p.deliver(
                .didUpdateNotificationState(
                    peripheral: id, characteristic: c.uuid, isNotifying: c.isNotifying, error: text)
            ) {
                $0.peripheral(p, didUpdateNotificationStateFor: c, error: error)
            }
        }
    }

    /// The ATT request a radio event of the central's stands for (Vol 3 Part G 4.3–4.12).
    private static func requestOpcode(_ kind: TimelineEvent.Kind) -> ATTOpcode {
        switch kind {
        case .discovery(let d, _): ATTSynthesis.discoveryOpcode(d)
        case .read(let op, _), .write(let op, _), .subscribe(let op, _): ATTOpcode(op.opcode)
        case .mtuExchange: .exchangeMTURequest
        default: preconditionFailure("not an ATT request of the central's: \(kind)")
        }
    }

    private func event(_ kind: TimelineEvent.Kind) -> TimelineEvent {
        TimelineEvent(
            frame: 0, time: 0, connection: number, peer: device.address, peerAddressType: peerAddressType,
            kind: kind)
    }

    private func operation(
        _ opcode: ATTOpcode, _ handle: UInt16, _ ref: AttributeRef?, offset: UInt16? = nil,
        sent: Bool = true
    ) -> AttributeOperation {
        AttributeOperation.make(
            opcode: opcode.rawValue, handle: handle, attribute: ref, mtu: mtu, offset: offset, sent: sent)
    }

    private func valueRef(_ c: CBCharacteristic) -> AttributeRef {
        AttributeRef.make(
            role: .value, handle: c.handle, uuid: c.uuid.bluetoothUUID, characteristic: nil,
            properties: c.properties.declarationBits, carriedOver: false)
    }

    private func error(_ code: UInt8?) -> CBATTError? { code.map { CBATTError(.init(rawValue: Int($0))) } }

    // MARK: - Operations

    private func start(_ op: ATTOperation) {
        switch op {
        case .exchangeMTU:
            let (client, server) = (world.configuration.centralMTU, device.mtu)
            let effective = ATTBearer.effectiveMTU(client: client, server: server)
            exchange(
                .mtuExchange(clientRxMTU: client, serverRxMTU: server, effective: effective, sent: true),
                errorHandle: 0, server: { (nil, nil) }
            ) { [self] _, _ in
                self.hot.bearer.exchangeMTU(client: client, server: server)
                self.finish()
            }

        case .discoverServices(let filter):
            let found = db.services.filter { !$0.isHidden && $0.isPrimary && (filter?.contains($0.uuid) ?? true) }
            exchange(
                .discovery(
                    DiscoveryInfo.make(
                        target: .primaryServices, startHandle: 1, endHandle: 0xFFFF,
                        filter: filter?.count == 1 ? filter![0].bluetoothUUID : nil,
                        found: found.count), sent: true),
                errorHandle: 1, server: { (found.isEmpty ? ATTErrorCode.attributeNotFound : nil, nil) }
            ) { [self] _, _ in
                if let p = self.peripheral {
                    var list = p.services ?? []
                    for s in found where !list.contains(where: { $0.handle == s.start }) {
                        list.append(
                            CBService(uuid: s.uuid, isPrimary: true, handle: s.start, endHandle: s.end, peripheral: p))
                    }
                    list.sort { $0.handle < $1.handle }
                    p.services = list
                    p.deliver(.didDiscoverServices(peripheral: p.identifier, services: found.map(\.uuid), error: nil)) {
                        $0.peripheral(p, didDiscoverServices: nil)
                    }
                }
                self.finish()
            }

        case .discoverIncludedServices(let filter, let service):
            let s = db.services.first { $0.start == service.handle && $0.uuid == service.uuid }
            let targets = (s?.includes ?? []).map { db.services[$0.serviceIndex] }
                .filter { filter?.contains($0.uuid) ?? true }
            exchange(
                .discovery(
                    DiscoveryInfo.make(
                        target: .includes, startHandle: service.handle, endHandle: service.endHandle,
                        filter: nil, found: targets.count), sent: true),
                errorHandle: service.handle,
                server: {
                    (
                        s == nil
                            ? ATTErrorCode.invalidHandle : (targets.isEmpty ? ATTErrorCode.attributeNotFound : nil), nil
                    )
                }
            ) {
                [self] code, _ in
                if let p = self.peripheral {
                    let err = code == ATTErrorCode.invalidHandle ? self.error(code) : nil
                    if err == nil {
                        service.includedServices = targets.map { t in
                            p.services?.first { $0.handle == t.start }
                                ?? CBService(
                                    uuid: t.uuid, isPrimary: t.isPrimary, handle: t.start, endHandle: t.end,
                                    peripheral: p)
                        }
                    }
                    p.deliver(
                        .didDiscoverIncludedServices(
                            peripheral: p.identifier, service: service.uuid,
                            error: err?.description)
                    ) {
                        $0.peripheral(p, didDiscoverIncludedServicesFor: service, error: err)
                    }
                }
                self.finish()
            }

        case .discoverCharacteristics(let filter, let service):
            let s = db.services.first { $0.start == service.handle && $0.uuid == service.uuid }
            let found = (s?.characteristics ?? []).map { db.characteristics[$0] }
                .filter { filter?.contains($0.uuid) ?? true }
            exchange(
                .discovery(
                    DiscoveryInfo.make(
                        target: .characteristics, startHandle: service.handle,
                        endHandle: service.endHandle,
                        filter: filter?.count == 1 ? filter![0].bluetoothUUID : nil,
                        found: found.count), sent: true),
                errorHandle: service.handle,
                server: {
                    (
                        s == nil ? ATTErrorCode.invalidHandle : (found.isEmpty ? ATTErrorCode.attributeNotFound : nil),
                        nil
                    )
                }
            ) {
                [self] code, _ in
                if let p = self.peripheral {
                    let err = code == ATTErrorCode.invalidHandle ? self.error(code) : nil
                    if err == nil {
                        var list = service.characteristics ?? []
                        for c in found where !list.contains(where: { $0.handle == c.valueHandle }) {
                            let ch = CBCharacteristic(
                                uuid: c.uuid, properties: c.properties, valueHandle: c.valueHandle,
                                service: service)
                            list.append(ch)
                            p.characteristicsByHandle[c.valueHandle] = ch
                        }
                        list.sort { $0.handle < $1.handle }
                        service.characteristics = list
                    }
                    p.deliver(
                        .didDiscoverCharacteristics(
                            peripheral: p.identifier, service: service.uuid,
                            characteristics: found.map(\.uuid), error: err?.description)
                    ) {
                        $0.peripheral(p, didDiscoverCharacteristicsFor: service, error: err)
                    }
                }
                self.finish()
            }

        case .discoverDescriptors(let characteristic):
            let c = db.characteristic(valueHandle: characteristic.handle).flatMap {
                $0.uuid == characteristic.uuid ? $0 : nil
            }
            let found = c?.descriptors ?? []
            exchange(
                .discovery(
                    DiscoveryInfo.make(
                        target: .descriptors, startHandle: characteristic.handle &+ 1,
                        endHandle: c?.endHandle ?? characteristic.handle, filter: nil,
                        found: found.count), sent: true),
                errorHandle: characteristic.handle &+ 1,
                server: {
                    (
                        c == nil ? ATTErrorCode.invalidHandle : (found.isEmpty ? ATTErrorCode.attributeNotFound : nil),
                        nil
                    )
                }
            ) { [self] code, _ in
                if let p = self.peripheral {
                    let err = code == ATTErrorCode.invalidHandle ? self.error(code) : nil
                    if err == nil {
                        var list = characteristic.descriptors ?? []
                        for d in found where !list.contains(where: { $0.handle == d.handle }) {
                            list.append(CBDescriptor(uuid: d.uuid, handle: d.handle, characteristic: characteristic))
                        }
                        characteristic.descriptors = list
                    }
                    p.deliver(
                        .didDiscoverDescriptors(
                            peripheral: p.identifier, characteristic: characteristic.uuid,
                            error: err?.description)
                    ) {
                        $0.peripheral(p, didDiscoverDescriptorsFor: characteristic, error: err)
                    }
                }
                self.finish()
            }

        case .read(let characteristic):
            exchange(
                .read(operation(.readRequest, characteristic.handle, valueRef(characteristic)), .read),
                errorHandle: characteristic.handle,
                deferred: { serverRead(characteristic, $0) }
            ) { [self] code, value in
                if let p = self.peripheral {
                    let err = self.error(code)
                    if err == nil { characteristic.value = Data(value ?? []) }
                    p.deliver(
                        .didUpdateValue(
                            peripheral: p.identifier, characteristic: characteristic.uuid,
                            length: value?.count ?? 0, error: err?.description)
                    ) {
                        $0.peripheral(p, didUpdateValueFor: characteristic, error: err)
                    }
                }
                self.finish()
            }

        case .readDescriptor(let descriptor):
            let ref = AttributeRef.make(
                role: .descriptor, handle: descriptor.handle, uuid: descriptor.uuid.bluetoothUUID,
                characteristic: descriptor.characteristic?.uuid.bluetoothUUID, properties: nil,
                carriedOver: false)
            exchange(
                .read(operation(.readRequest, descriptor.handle, ref), .read), errorHandle: descriptor.handle,
                server: { serverReadDescriptor(descriptor) }
            ) { [self] code, value in
                if let p = self.peripheral {
                    let err = self.error(code)
                    if err == nil { descriptor.setValue(bytes: value ?? []) }
                    p.deliver(
                        .didUpdateDescriptorValue(
                            peripheral: p.identifier, descriptor: descriptor.uuid,
                            error: err?.description)
                    ) {
                        $0.peripheral(p, didUpdateValueFor: descriptor, error: err)
                    }
                }
                self.finish()
            }

        case .write(let characteristic, let bytes):
            let done: (UInt8?) -> Void = { [self] code in
                if let p = self.peripheral {
                    let err = self.error(code)
                    p.deliver(
                        .didWriteValue(
                            peripheral: p.identifier, characteristic: characteristic.uuid,
                            error: err?.description)
                    ) {
                        $0.peripheral(p, didWriteValueFor: characteristic, error: err)
                    }
                }
                self.finish()
            }
            if bytes.count <= Int(mtu) - 3 {
                exchange(
                    .write(operation(.writeRequest, characteristic.handle, valueRef(characteristic)), .request),
                    value: bytes,
                    errorHandle: characteristic.handle,
                    deferred: { serverWriteRequest(characteristic, bytes, chunk: bytes.count, kind: .request, $0) }
                ) { code, _ in
                    done(code)
                }
            } else {
                longWrite(characteristic, bytes, offset: 0, done: done)
            }

        case .writeDescriptor(let descriptor, let bytes):
            let ref = AttributeRef.make(
                role: .descriptor, handle: descriptor.handle, uuid: descriptor.uuid.bluetoothUUID,
                characteristic: descriptor.characteristic?.uuid.bluetoothUUID, properties: nil,
                carriedOver: false)
            exchange(
                .write(operation(.writeRequest, descriptor.handle, ref), .request), value: bytes,
                errorHandle: descriptor.handle,
                server: { (serverWriteDescriptor(descriptor, bytes), nil) }
            ) { [self] code, _ in
                if let p = self.peripheral {
                    let err = self.error(code)
                    p.deliver(
                        .didWriteDescriptorValue(
                            peripheral: p.identifier, descriptor: descriptor.uuid,
                            error: err?.description)
                    ) {
                        $0.peripheral(p, didWriteValueFor: descriptor, error: err)
                    }
                }
                self.finish()
            }

        case .setNotify(let characteristic, let enabled):
            let done: (UInt8?) -> Void = { [self] code in
                if let p = self.peripheral {
                    let err = self.error(code)
                    if err == nil { characteristic.isNotifying = enabled }
                    p.deliver(
                        .didUpdateNotificationState(
                            peripheral: p.identifier, characteristic: characteristic.uuid,
                            isNotifying: characteristic.isNotifying,
                            error: err?.description)
                    ) {
                        $0.peripheral(p, didUpdateNotificationStateFor: characteristic, error: err)
                    }
                }
                self.finish()
            }
            guard let c = db.characteristic(valueHandle: characteristic.handle), c.uuid == characteristic.uuid,
                let cccdHandle = c.cccdHandle,
                !characteristic.properties.isDisjoint(with: [.notify, .indicate])
            else {
                // No CCCD to write: Core Bluetooth fails the call itself.
                world.schedule(afterMicros: 0) { done(CBATTError.Code.requestNotSupported.byte) }
                return
            }
            // Already in the asked state (checked when the request's turn comes, so two calls in a
            // row write once): nothing to write.
            guard characteristic.isNotifying != enabled else {
                world.schedule(afterMicros: 0) { done(nil) }
                return
            }
            let configuration: UInt16 = !enabled ? 0 : (characteristic.properties.contains(.notify) ? 1 : 2)
            let ref = AttributeRef.make(
                role: .descriptor, handle: cccdHandle, uuid: AttributeRef.cccdUUID,
                characteristic: characteristic.uuid.bluetoothUUID, properties: nil, carriedOver: false,
                characteristicValueHandle: c.valueHandle, characteristicProperties: c.properties.declarationBits)
            exchange(
                .subscribe(operation(.writeRequest, cccdHandle, ref), configuration: configuration),
                value: [UInt8(configuration & 0xFF), UInt8(configuration >> 8)], errorHandle: cccdHandle,
                server: {
                    serverWriteCCCD(c, configuration)
                    return (nil, nil)
                }
            ) { code, _ in done(code) }
        }
    }

    /// Prepare Write requests of ATT_MTU − 5 bytes each, then Execute Write (Vol 3 Part F
    /// 3.4.6; Vol 3 Part G 4.9.4 Write Long Characteristic Values).
    ///
    /// A Prepare Write is checked for permission only: the server queues parts without knowing
    /// how long the whole value will be, so a value over the 512-octet maximum (Vol 3 Part F
    /// 3.2.9) is refused at Execute Write, with Invalid Attribute Value Length and the
    /// attribute's handle in error (Vol 3 Part F 3.4.6.3: prepared values exceeding the
    /// attribute's maximum length are discarded at execution).
    private func longWrite(_ c: CBCharacteristic, _ bytes: [UInt8], offset: Int, done: @escaping (UInt8?) -> Void) {
        let chunk = max(1, Int(mtu) - 5)
        if offset < bytes.count {
            let part = Array(bytes[offset..<min(bytes.count, offset + chunk)])
            let allowed = serverWritePrecheck(c, length: 0, request: true)
            exchange(
                .write(
                    operation(.prepareWriteRequest, c.handle, valueRef(c), offset: UInt16(clamping: offset)), .prepare),
                value: part, errorHandle: c.handle, server: { (allowed, part) }
            ) { [self] code, _ in
                if let code { done(code) } else { self.longWrite(c, bytes, offset: offset + chunk, done: done) }
            }
        } else {
            exchange(
                .write(operation(.executeWriteRequest, 0, nil, offset: 1), .execute), errorHandle: c.handle,
                deferred: { serverWriteRequest(c, bytes, chunk: chunk, kind: .longWrite, $0) }
            ) { code, _ in done(code) }
        }
    }

    /// A Write Command: on the air now, no response; the controller buffer frees at a later
    /// connection event.
    func sendWriteCommand(_ c: CBCharacteristic, _ bytes: [UInt8]) {
        hot.freeBuffers -= 1
        hot.inFlight += 1
        if hot.freeBuffers == 0 { hot.blocked = true }
        world.recordRadio(event(.write(operation(.writeCommand, c.handle, valueRef(c)), .command)), value: bytes)
        if !hot.isSilent {
            if let local = device.localServer, let sc = db.characteristic(valueHandle: c.handle), sc.uuid == c.uuid {
                // A peripheral manager's app sees accepted commands in didReceiveWrite; no answer.
                if serverWritePrecheck(c, length: bytes.count, request: false) == nil {
                    local.write(sc, parts: [(0, bytes)], from: self, answer: nil)
                }
            } else {
                _ = serverWrite(c, bytes, kind: .command)
            }
        }
        scheduleDrain()
    }

    private func scheduleDrain() {
        guard !hot.drainScheduled, hot.inFlight > 0, !hot.isSilent else { return }
        hot.drainScheduled = true
        world.schedule(after: device.connectionInterval) { [self] in
            guard self.hot.isOpen else { return }
            self.hot.drainScheduled = false
            guard !self.hot.isSilent else { return }
            let n = min(self.hot.inFlight, self.world.configuration.packetsPerConnectionEvent)
            self.hot.inFlight -= n
            self.hot.freeBuffers += n
            if self.hot.blocked, n > 0, let p = self.peripheral {
                self.hot.blocked = false
                p.deliver(.isReadyToSendWriteWithoutResponse(peripheral: p.identifier)) {
                    $0.peripheralIsReady(toSendWriteWithoutResponse: p)
                }
            }
            self.scheduleDrain()
        }
    }

    func readRSSI() {
        let rssi = device.rssi
        world.schedule(after: device.connectionInterval) { [self] in
            guard self.hot.isOpen, let p = self.peripheral else { return }
            p.deliver(.didReadRSSI(peripheral: p.identifier, rssi: rssi, error: nil)) {
                $0.peripheral(p, didReadRSSI: NSNumber(value: rssi), error: nil)
            }
        }
    }

    // MARK: - Server side

    /// Answers a Read Request: from the server's backing, or (permissions checked first, as Core
    /// Bluetooth checks them) by a peripheral manager's app.
    private func serverRead(_ ch: CBCharacteristic, _ answer: @escaping (UInt8?, [UInt8]?) -> Void) {
        let checked = serverRead(ch)
        if checked.0 == nil, let local = device.localServer, let c = db.characteristic(valueHandle: ch.handle) {
            local.read(c, from: self) { answer($0, $1.map { Array($0.prefix(512)) }) }
        } else {
            answer(checked.0, checked.1)
        }
    }

    private func serverRead(_ ch: CBCharacteristic) -> (UInt8?, [UInt8]?) {
        guard let c = db.characteristic(valueHandle: ch.handle), c.uuid == ch.uuid, let def = c.definition else {
            return (CBATTError.Code.invalidHandle.byte, nil)
        }
        guard c.properties.contains(.read), def.permissions.contains(.readable) else {
            return (CBATTError.Code.readNotPermitted.byte, nil)
        }
        let answer =
            device.valueBacking != nil ? device.valueBacking!.readValue(c.valueHandle) : db.readValue(c.valueHandle)
        switch answer {
        case .value(let v): return (nil, Array(v.prefix(512)))
        case .error(let code): return (code, nil)
        }
    }

    private func serverReadDescriptor(_ d: CBDescriptor) -> (UInt8?, [UInt8]?) {
        guard let (c, i) = db.descriptor(handle: d.handle), c.descriptors[i].uuid == d.uuid else {
            return (CBATTError.Code.invalidHandle.byte, nil)
        }
        if c.cccdHandle == d.handle {
            let v = hot.cccd[d.handle] ?? 0
            return (nil, [UInt8(v & 0xFF), UInt8(v >> 8)])
        }
        return (nil, c.descriptors[i].definition?.value ?? [])
    }

    private func serverWritePrecheck(_ ch: CBCharacteristic, length: Int, request: Bool) -> UInt8? {
        guard let c = db.characteristic(valueHandle: ch.handle), c.uuid == ch.uuid, let def = c.definition else {
            return CBATTError.Code.invalidHandle.byte
        }
        let property: CBCharacteristicProperties = request ? .write : .writeWithoutResponse
        guard c.properties.contains(property), def.permissions.contains(.writeable) else {
            return CBATTError.Code.writeNotPermitted.byte
        }
        // The longest attribute value is 512 octets (Vol 3 Part F 3.2.9).
        guard length <= 512 else { return CBATTError.Code.invalidAttributeValueLength.byte }
        return nil
    }

    /// Applies a Write Request, or an Execute Write of `bytes` prepared in parts of `chunk`
    /// bytes (`kind` says which), and answers it: from the server's backing, or by a peripheral
    /// manager's app, which gets the prepared parts as one array of requests (`didReceiveWrite`).
    private func serverWriteRequest(
        _ ch: CBCharacteristic, _ bytes: [UInt8], chunk: Int, kind: GATTWriteKind,
        _ answer: @escaping (UInt8?, [UInt8]?) -> Void
    ) {
        guard let local = device.localServer, let c = db.characteristic(valueHandle: ch.handle), c.uuid == ch.uuid
        else {
            answer(serverWrite(ch, bytes, kind: kind), nil)
            return
        }
        if let refused = serverWritePrecheck(ch, length: bytes.count, request: true) {
            answer(refused, nil)
            return
        }
        let step = max(1, chunk)
        let parts = stride(from: 0, to: max(bytes.count, 1), by: step).map {
            (offset: $0, value: Array(bytes[$0..<min(bytes.count, $0 + step)]))
        }
        local.write(c, parts: parts, from: self) { answer($0, nil) }
    }

    /// Applies a write; a command that fails is ignored silently (no response to a command,
    /// Vol 3 Part F 3.4.5.3).
    private func serverWrite(_ ch: CBCharacteristic, _ bytes: [UInt8], kind: GATTWriteKind) -> UInt8? {
        if let refused = serverWritePrecheck(ch, length: bytes.count, request: kind != .command) { return refused }
        guard db.characteristic(valueHandle: ch.handle)?.definition != nil else { return nil }
        if device.valueBacking != nil { return device.valueBacking!.writeValue(ch.handle, bytes, kind: kind) }
        return db.writeValue(ch.handle, bytes, kind: kind)
    }

    private func serverWriteDescriptor(_ d: CBDescriptor, _ bytes: [UInt8]) -> UInt8? {
        guard let (c, i) = db.descriptor(handle: d.handle), c.descriptors[i].uuid == d.uuid else {
            return CBATTError.Code.invalidHandle.byte
        }
        if c.cccdHandle == d.handle {
            guard let bits = GATTClientConfiguration.bits(ofWritten: bytes) else {
                return CBATTError.Code.invalidAttributeValueLength.byte
            }
            serverWriteCCCD(c, bits)
            return nil
        }
        guard let def = c.descriptors[i].definition else { return CBATTError.Code.writeNotPermitted.byte }
        def.value = bytes
        return nil
    }

    /// Stores the client's configuration and starts (or stops) the characteristic's
    /// notification sources for this client.
    private func serverWriteCCCD(_ c: GATTServerDatabase.Characteristic, _ value: UInt16) {
        guard let h = c.cccdHandle else { return }
        let old = hot.cccd[h] ?? 0
        hot.cccd[h] = value
        device.localServer?.configurationChanged(c, from: old, to: value, link: self)
        // The previous subscription's sources end; each enabling write starts them anew.
        retireTicks { $0.characteristic.valueHandle == c.valueHandle }
        guard value & (GATTClientConfiguration.notification | GATTClientConfiguration.indication) != 0 else { return }
        for source in device.notificationSources where source.targets(c) {
            if let count = source.count, count <= 0 { continue }
            let t = NotificationTick(link: self, source: source, characteristic: c, configuration: value)
            hot.ticks.append(t)
            world.schedule(afterMicros: t.delay(before: 0), t)
        }
    }

    /// One tick of a notification source fired (`NotificationTick.fire`, only while its
    /// subscription is the current one): send value `n`, then schedule the next.
    func fire(_ t: NotificationTick) {
        guard hot.isOpen else { return retire(t) }
        _ = send(
            t.characteristic, t.source.value(t.hot.n), configuration: t.configuration,
            preferIndication: t.source.indicate, tick: t)
        t.hot.n += 1
        if let count = t.source.count, t.hot.n >= count { return retire(t) }
        world.schedule(afterMicros: t.delay(before: t.hot.n), t)
    }

    private func retire(_ t: NotificationTick) {
        t.hot.isRetired = true
        hot.ticks.removeAll { $0 === t }
    }

    private func retireTicks(where ends: (NotificationTick) -> Bool) {
        guard !hot.ticks.isEmpty else { return }
        for t in hot.ticks where ends(t) { t.hot.isRetired = true }
        hot.ticks.removeAll { $0.hot.isRetired }
    }

    deinit {
        // Ticks still in the world's queue must not reach a freed link (they hold it unowned).
        for t in hot.ticks { t.hot.isRetired = true }
    }

    /// Sends a notification or an indication, whichever this client enabled in the CCCD (Vol 3
    /// Part G 3.3.3.3): a notification when it enabled both, unless `preferIndication`. The
    /// value is cut to ATT_MTU − 3 (Vol 3 Part F 3.4.7.1).
    func serverNotify(_ c: GATTServerDatabase.Characteristic, _ value: [UInt8], preferIndication: Bool = false) -> Bool
    {
        guard hot.isOpen, let h = c.cccdHandle, let config = hot.cccd[h] else { return false }
        return send(c, value, configuration: config, preferIndication: preferIndication, tick: nil)
    }

    /// `serverNotify` with the client's configuration known (a tick carries it); `tick` also
    /// caches the `CBCharacteristic` the value is delivered on.
    private func send(
        _ c: GATTServerDatabase.Characteristic, _ value: [UInt8], configuration config: UInt16,
        preferIndication: Bool, tick: NotificationTick?
    ) -> Bool {
        guard !hot.isSilent, config & (GATTClientConfiguration.notification | GATTClientConfiguration.indication) != 0
        else { return false }
        let notifies =
            config & GATTClientConfiguration.notification != 0
            && !(preferIndication && config & GATTClientConfiguration.indication != 0)
        // Most values fit: keep the caller's array rather than copying it.
        let limit = Int(mtu) - 3
        let bytes = value.count <= limit ? value : Array(value.prefix(limit))
        let ref = AttributeRef.make(
            role: .value, handle: c.valueHandle, uuid: c.uuid.bluetoothUUID, characteristic: nil,
            properties: c.properties.declarationBits, carriedOver: false)
        if notifies {
            world.recordRadio(
                event(.notification(operation(.handleValueNotification, c.valueHandle, ref, sent: false))), value: bytes
            )
        } else {
            // Core Bluetooth confirms indications itself.
            let i = world.recordRadio(
                event(.indication(operation(.handleValueIndication, c.valueHandle, ref, sent: false))), value: bytes,
                outcome: .pending)
            world.resolve(i, requestTime: world.nowMicros)
        }
        guard let p = peripheral, let ch = discovered(c, on: p, tick: tick) else {
            world.record(
                .world(.valueForUndiscoveredCharacteristic(peripheral: entry.identifier, handle: c.valueHandle)))
            return true
        }
        // Through the buffer: Data's generic sequence initializer costs several times more.
        ch.value = bytes.withUnsafeBytes { Data($0) }
        p.deliver(
            .didUpdateValue(peripheral: p.identifier, characteristic: ch.uuid, length: bytes.count, error: nil),
            manager: hot.central
        ) {
            $0.peripheral(p, didUpdateValueFor: ch, error: nil)
        }
        return true
    }

    /// The app's object for `c`, if it discovered it: looked up by value handle, or taken from
    /// the tick's cache while the object and its discovered attributes are the same.
    @inline(__always)
    private func discovered(
        _ c: GATTServerDatabase.Characteristic, on p: CBPeripheral,
        tick: NotificationTick?
    ) -> CBCharacteristic? {
        if let tick, tick.hot.cachedGeneration == p.generation, tick.hot.cachedVersion == p.attributeVersion {
            return tick.hot.cachedCharacteristic
        }
        var ch = p.characteristicsByHandle[c.valueHandle]
        if let found = ch, found.uuid != c.uuid { ch = nil }
        if let tick {
            tick.hot.cachedGeneration = p.generation
            tick.hot.cachedVersion = p.attributeVersion
            tick.hot.cachedCharacteristic = ch
        }
        return ch
    }

    /// The server's database changed: it indicates Service Changed for the whole handle range
    /// (Vol 3 Part G 7.1); Core Bluetooth drops every discovered service and reports them as
    /// invalidated. A server without a Service Changed characteristic (a captured database
    /// that has none) cannot tell the client: nothing goes on the air and Core Bluetooth keeps
    /// its (now stale) services, as a phone would (Vol 3 Part G 2.5.2: without it, the client
    /// may take the database as unchanging). The server's per-client state is reset either way.
    func serviceChanged() {
        guard hot.isOpen else { return }
        hot.cccd.removeAll()
        retireTicks { _ in true }
        guard let handle = db.serviceChangedHandle else { return }
        let ref = AttributeRef.make(
            role: .value, handle: handle,
            uuid: GATTServerDatabase.serviceChangedUUID.bluetoothUUID, characteristic: nil,
            properties: db.characteristic(valueHandle: handle)?.properties.declarationBits
                ?? GATTCharacteristicProperty.indicate,
            carriedOver: false)
        if !hot.isSilent {
            let i = world.recordRadio(
                event(.indication(operation(.handleValueIndication, handle, ref, sent: false))),
                value: [0x01, 0x00, 0xFF, 0xFF], outcome: .pending)
            world.resolve(i, requestTime: world.nowMicros)
        }
        guard let p = peripheral else { return }
        let invalidated = p.services ?? []
        p.services = []
        p.characteristicsByHandle.removeAll()
        p.deliver(.didModifyServices(peripheral: p.identifier, invalidated: invalidated.map(\.uuid))) {
            $0.peripheral(p, didModifyServices: invalidated)
        }
    }
}

/// A running notification source of one subscription on one link: scheduled again after every
/// value, so a session of thousands of notifications reuses one object instead of allocating a
/// closure context per value. The world owns the link (through its central manager) for as
/// long as the tick can fire; the link's `deinit` retires its ticks, so `link` is never used
/// after the link is gone.
final class NotificationTick {
    unowned(unsafe) let link: SimulatedLink
    let source: SimulatedPeripheral.NotificationSource
    let characteristic: GATTServerDatabase.Characteristic
    /// The client's CCCD value for this subscription (it holds while the tick is live).
    let configuration: UInt16
    /// A periodic source's interval, µs (converted once, not per value).
    private let intervalMicros: Int64
    /// The tick's mutable state under one exclusivity exemption: unchecked for the reason
    /// `SimulatedLink.hot` is (one thread drives the world; no access spans a call).
    @exclusivity(unchecked) var hot = HotState()
    struct HotState {
        /// The next value's index (`source.value(n)`).
        var n = 0
        /// Set when the subscription ended or the link is gone: the queued event does nothing.
        var isRetired = false
        /// The app's `CBCharacteristic` for the value, valid while the peripheral object
        /// (`CBPeripheral.generation`) and its discovered attributes (`attributeVersion`) are
        /// the ones it was found for: saves a dictionary lookup per value.
        var cachedGeneration = -1
        var cachedVersion = -1
        var cachedCharacteristic: CBCharacteristic?
    }

    init(
        link: SimulatedLink, source: SimulatedPeripheral.NotificationSource,
        characteristic: GATTServerDatabase.Characteristic, configuration: UInt16
    ) {
        self.link = link
        self.source = source
        self.characteristic = characteristic
        self.configuration = configuration
        intervalMicros = micros(source.interval)
    }

    /// µs from value `n − 1` (or from the subscription) to value `n`.
    @inline(__always)
    func delay(before n: Int) -> Int64 {
        source.offsets == nil ? intervalMicros : source.delay(before: n)
    }

    func fire() {
        guard !hot.isRetired else { return }
        link.fire(self)
    }
}
