import BLEBytes
import BLEPackets
import BLEReplay
import BLETimeline
import Foundation

extension CaptureReplay {
    /// Peripheral-side replay: the central of a capture recorded on the peripheral
    /// (`!connection.hostIsCentral`) played against the app's own `CBPeripheralManager` code,
    /// already published in `world`.
    ///
    /// A simulator `CBCentralManager` in `world` scans (for `peripheral`'s identifier if given,
    /// else for the captured server's primary services), connects, discovers the services and
    /// characteristics the captured central discovered, by UUID, and then performs the
    /// captured central's operations in order — reads, writes with and without response,
    /// subscriptions and unsubscriptions — each as long after the previous one as in the
    /// capture (or as soon as that one is answered, if later). It ends each connection as the
    /// capture did and reconnects for the next selected connection. The world runs until the
    /// playback is done or `timeout` (default: the captured connections' length plus 10 s
    /// each) of virtual time has passed.
    ///
    /// What Core Bluetooth does by itself is not played: the MTU exchange, discovery PDUs
    /// beyond the UUIDs, Handle Value Confirmations. Operations on the GAP and GATT services
    /// (0x1800, 0x1801: the system's, not the app's), on descriptors other than the CCCD, on
    /// handles the capture never identified, and ATT requests Core Bluetooth has no call for,
    /// are listed in `skipped`.
    public func playCentral(
        against world: SimulatedWorld, _ selection: ConnectionSelection = .all,
        peripheral: SimulatedPeripheral? = nil, timeout: Duration? = nil
    ) -> CentralPlayback {
        let playback = CentralPlayback(
            models: models(selection).filter { !$0.connection.hostIsCentral }, world: world,
            target: peripheral)
        playback.start()
        world.run(until: { playback.isFinished }, timeout: timeout ?? playback.defaultTimeout)
        return playback
    }
}

/// The captured central's operations played against the app's peripheral, side by side with
/// what the capture recorded, and the differences (`mismatches`).
public final class CentralPlayback {
    /// One operation of the captured central, as captured and as played.
    public struct Operation: Sendable {
        public enum Kind: String, Sendable { case read, write, writeWithoutResponse, subscribe, unsubscribe }

        public enum Outcome: Sendable, Equatable, CustomStringConvertible {
            case success
            /// An ATT Error Response code (Core 5.4 Vol 3 Part F 3.4.1.1).
            case attError(UInt8)
            /// A Write Command: there is no response (Vol 3 Part F 3.4.5.3); or a request the
            /// capture has no response to.
            case noResponse
            /// The playback could not perform it (the characteristic is missing, the link ended…).
            case notPerformed(String)

            public var description: String {
                switch self {
                case .success: "success"
                case .attError(let c): "ATT error 0x" + String(c, radix: 16, uppercase: true)
                case .noResponse: "no response"
                case .notPerformed(let why): "not performed (\(why))"
                }
            }
        }

        /// The captured connection's number.
        public var connection: Int
        public var kind: Kind
        public var service: CBUUID
        public var characteristic: CBUUID
        /// The value handle on the captured server.
        public var handle: UInt16
        /// The request's frame in the capture.
        public var frame: Int
        /// Written: what the central wrote (played as is); read: what the server answered.
        public var capturedValue: [UInt8]
        public var capturedOutcome: Outcome
        /// Nil: the playback never got to it.
        public var replayedOutcome: Outcome?
        /// For reads: what the app's peripheral answered.
        public var replayedValue: [UInt8]?
        /// µs since the capture's first frame.
        var capturedTime: Int64
    }

    /// Notifications and indications of one characteristic on one connection.
    public struct NotificationCount: Sendable, Equatable {
        public var connection: Int
        public var characteristic: CBUUID
        public var captured: Int
        public var received: Int
    }

    public struct Mismatch: Sendable, CustomStringConvertible {
        public enum Kind: String, Sendable {
            /// A service or characteristic the captured central discovered is not there.
            case missingService, missingCharacteristic
            /// A characteristic's properties differ from the captured declaration's.
            case properties
            /// An operation's outcome differs (or it could not be performed).
            case outcome
            /// A read answered another value.
            case value
            /// Another number of notifications or indications arrived.
            case notifications
            /// The connection could not be made, or ended otherwise than in the capture.
            case connection
        }
        public var kind: Kind
        public var connection: Int
        public var characteristic: CBUUID?
        /// Index into `operations`, for operation mismatches.
        public var operation: Int?
        public var detail: String

        public var description: String {
            "#\(connection) \(kind.rawValue)\(characteristic.map { " \($0)" } ?? ""): \(detail)"
        }
    }

    public private(set) var operations: [Operation] = []
    public private(set) var notifications: [NotificationCount] = []
    /// Captured PDUs not played, with why.
    public private(set) var skipped: [(frame: Int, reason: String)] = []
    /// Every difference, in the order found.
    public var mismatches: [Mismatch] {
        var out = structural
        for (i, op) in operations.enumerated() {
            guard let replayed = op.replayedOutcome else {
                out.append(
                    Mismatch(
                        kind: .outcome, connection: op.connection, characteristic: op.characteristic,
                        operation: i, detail: "\(op.kind.rawValue) never played"))
                continue
            }
            if replayed != op.capturedOutcome {
                out.append(
                    Mismatch(
                        kind: .outcome, connection: op.connection, characteristic: op.characteristic,
                        operation: i,
                        detail: "\(op.kind.rawValue): captured \(op.capturedOutcome), replayed \(replayed)"))
            } else if op.kind == .read, replayed == .success, op.replayedValue != op.capturedValue {
                out.append(
                    Mismatch(
                        kind: .value, connection: op.connection, characteristic: op.characteristic,
                        operation: i,
                        detail: "read: captured \(hex(op.capturedValue)), replayed \(hex(op.replayedValue ?? []))"))
            }
        }
        for n in notifications where n.captured != n.received {
            out.append(
                Mismatch(
                    kind: .notifications, connection: n.connection, characteristic: n.characteristic, operation: nil,
                    detail: "captured \(n.captured), received \(n.received)"))
        }
        return out
    }
    public private(set) var isFinished = false

    // MARK: - Script

    private struct Script {
        var model: ReplayConnectionModel
        var operations: Range<Int>
        /// Captured value handle → characteristic, for notification counts.
        var notified: [UInt16: (service: CBUUID, characteristic: CBUUID, count: Int)]
        /// Services and characteristics the captured central discovered (system services aside).
        var table: [(service: CBUUID, characteristics: [(uuid: CBUUID, properties: UInt8)])]
    }

    private let world: SimulatedWorld
    private let target: SimulatedPeripheral?
    private var scripts: [Script] = []
    private var structural: [Mismatch] = []
    private static let systemServices = [BluetoothUUID(uuid16: 0x1800), BluetoothUUID(uuid16: 0x1801)]

    init(models: [ReplayConnectionModel], world: SimulatedWorld, target: SimulatedPeripheral?) {
        self.world = world
        self.target = target
        for m in models { scripts.append(script(m)) }
    }

    var defaultTimeout: Duration {
        .microseconds(
            scripts.reduce(Int64(0)) { sum, s in
                let c = s.model.connection.summary
                return sum &+ max(0, (c.endTime ?? c.startTime) &- c.startTime) &+ 10_000_000
            })
    }

    /// The characteristic a value handle belongs to on the captured host's server.
    private func characteristic(_ server: ReplayServerModel, value h: UInt16)
        -> (service: BluetoothUUID, uuid: BluetoothUUID, properties: UInt8)?
    {
        guard
            let decl = server.attributes.last(where: {
                $0.type == ReplayAttribute.characteristic
                    && GATTCharacteristicDeclarationValue.valueHandle(in: $0.value) == h && $0.handle < h
            }),
            let uuid = GATTCharacteristicDeclarationValue.fields(in: decl.value)?.uuid,
            let service = server.attributes.last(where: {
                ($0.type == ReplayAttribute.primaryService || $0.type == ReplayAttribute.secondaryService)
                    && $0.handle < h
                    && h <= ($0.groupEnd ?? $0.handle)
            }), let serviceUUID = service.value.withByteView(BluetoothUUID.init(littleEndian:))
        else { return nil }
        return (serviceUUID, uuid, decl.value[0])
    }

    private func script(_ m: ReplayConnectionModel) -> Script {
        let server = m.hostServer
        let att = m.connection.att
        let first = operations.count
        var lastRead: Int?
        var prepared: [(handle: UInt16, offset: Int, part: [UInt8], error: UInt8?, frame: Int, time: Int64)] = []

        func target(_ h: UInt16, frame: Int, what: String) -> (
            service: BluetoothUUID, uuid: BluetoothUUID, properties: UInt8
        )? {
            guard let c = characteristic(server, value: h) else {
                let reason =
                    server.attribute(h).map { $0.isInferred ? "never discovered" : "not a characteristic value" }
                    ?? "unknown handle"
                skipped.append((frame, "\(what) of 0x\(String(h, radix: 16, uppercase: true)): \(reason)"))
                return nil
            }
            if Self.systemServices.contains(c.service) {
                skipped.append((frame, "\(what) of \(c.uuid): the system's GAP/GATT service, not the app's"))
                return nil
            }
            return c
        }
        func outcome(_ response: [UInt8]?) -> Operation.Outcome {
            guard let r = response else { return .noResponse }
            return r.first == ATTOpcode.errorResponse.rawValue ? .attError(ReplayAnswer.errorCode(in: r)) : .success
        }

        for s in m.steps where !s.hostIsClient {
            let pdu = att[s.capturedIndex]
            let op = ATTOpcode(s.bytes.first ?? 0)
            let fields = ATTClientFields(s.bytes)
            let h = fields.handle
            let response = s.responseIndex.map { att[$0].bytes }
            func add(
                _ kind: Operation.Kind, _ c: (service: BluetoothUUID, uuid: BluetoothUUID, properties: UInt8),
                handle: UInt16, value: [UInt8], _ result: Operation.Outcome, frame: Int = pdu.frame,
                time: Int64 = pdu.time
            ) {
                operations.append(
                    Operation(
                        connection: m.number, kind: kind, service: CBUUID(c.service),
                        characteristic: CBUUID(c.uuid), handle: handle, frame: frame,
                        capturedValue: value, capturedOutcome: result, capturedTime: time))
            }
            switch op {
            case .readRequest:
                lastRead = nil
                if server.isCCCD(h)
                    || (server.attribute(h).map { !$0.isInferred } ?? false) && characteristic(server, value: h) == nil
                {
                    skipped.append(
                        (pdu.frame, "read of 0x\(String(h, radix: 16, uppercase: true)): a descriptor or declaration"))
                    continue
                }
                guard let c = target(h, frame: pdu.frame, what: "read") else { continue }
                let result = outcome(response)
                add(.read, c, handle: h, value: result == .success ? Array(response!.dropFirst()) : [], result)
                lastRead = operations.count - 1
            case .readBlobRequest:
                // Read Blob continuing the read (Read Long Characteristic Values, Vol 3 Part G 4.8.3):
                // Core Bluetooth reads the whole value in one call.
                guard let i = lastRead, operations[i].handle == h, operations[i].capturedOutcome == .success,
                    Int(fields.offset) == operations[i].capturedValue.count
                else {
                    skipped.append((pdu.frame, "Read Blob not continuing a read"))
                    continue
                }
                switch outcome(response) {
                case .success: operations[i].capturedValue += response!.dropFirst()
                case let other: operations[i].capturedOutcome = other
                }
            case .writeRequest:
                lastRead = nil
                if server.isCCCD(h) {
                    guard let v = server.valueHandle(ofCCCD: h), let c = target(v, frame: pdu.frame, what: "CCCD write")
                    else { continue }
                    let config = fields.value.withByteView(GATTClientConfiguration.bits(of:)) ?? 0
                    let enabling = GATTClientConfiguration.notification | GATTClientConfiguration.indication
                    add(
                        config & enabling != 0 ? .subscribe : .unsubscribe, c, handle: v,
                        value: fields.value,
                        outcome(response))
                } else if let c = target(h, frame: pdu.frame, what: "write") {
                    add(.write, c, handle: h, value: fields.value, outcome(response))
                }
            case .writeCommand:
                lastRead = nil
                if let c = target(h, frame: pdu.frame, what: "write command") {
                    add(.writeWithoutResponse, c, handle: h, value: fields.value, .noResponse)
                }
            case .prepareWriteRequest:
                lastRead = nil
                var error: UInt8?
                if case .attError(let code) = outcome(response) { error = code }
                prepared.append(
                    (h, Int(fields.offset), fields.value, error, pdu.frame, pdu.time))
            case .executeWriteRequest:
                lastRead = nil
                // Prepare Write … Execute Write (Vol 3 Part G 4.9.4): one long write per handle.
                if s.bytes.withByteView(ATTExecuteWriteRequest.init(pdu:))?.flags
                    == ATTExecuteWriteRequest.writeAllPreparedWrites
                {
                    var handles: [UInt16] = []
                    for p in prepared where !handles.contains(p.handle) { handles.append(p.handle) }
                    for ph in handles {
                        let parts = prepared.filter { $0.handle == ph }
                        guard let c = target(ph, frame: parts[0].frame, what: "long write") else { continue }
                        var value: [UInt8] = []
                        for p in parts.sorted(by: { $0.offset < $1.offset }) where p.offset <= value.count {
                            value = Array(value.prefix(p.offset)) + p.part
                        }
                        let result: Operation.Outcome =
                            parts.compactMap(\.error).first.map(Operation.Outcome.attError)
                            ?? outcome(response)
                        add(.write, c, handle: ph, value: value, result, frame: parts[0].frame, time: parts[0].time)
                    }
                }
                prepared = []
            case .exchangeMTURequest, .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest,
                .readByGroupTypeRequest, .handleValueConfirmation:
                // MTU exchange, discovery, confirmations: Core Bluetooth's own.
                break
            default:
                skipped.append(
                    (
                        pdu.frame,
                        "ATT opcode 0x\(String(op.rawValue, radix: 16, uppercase: true)): no Core Bluetooth call"
                    ))
            }
        }

        // Notifications and indications the captured server sent, per characteristic.
        var notified: [UInt16: (service: CBUUID, characteristic: CBUUID, count: Int)] = [:]
        for pdu in att
        where pdu.sentByHost
            && (pdu.opcode == ATTOpcode.handleValueNotification.rawValue
                || pdu.opcode == ATTOpcode.handleValueIndication.rawValue)
        {
            guard let h = pdu.bytes.withByteView(ATTPDU.handle(of:)), let c = characteristic(server, value: h),
                !Self.systemServices.contains(c.service)
            else { continue }
            notified[h, default: (CBUUID(c.service), CBUUID(c.uuid), 0)].count += 1
        }
        // The captured central's view of the table: its discovered services and characteristics.
        var table: [(service: CBUUID, characteristics: [(uuid: CBUUID, properties: UInt8)])] = []
        for s in server.attributes where s.type == ReplayAttribute.primaryService && !s.isInferred {
            guard let uuid = s.value.withByteView(BluetoothUUID.init(littleEndian:)),
                !Self.systemServices.contains(uuid)
            else { continue }
            let end = s.groupEnd ?? s.handle
            let chars = server.attributes.filter {
                $0.type == ReplayAttribute.characteristic && !$0.isInferred && $0.handle > s.handle && $0.handle <= end
            }.compactMap { d -> (uuid: CBUUID, properties: UInt8)? in
                guard let f = GATTCharacteristicDeclarationValue.fields(in: d.value) else { return nil }
                return (CBUUID(f.uuid), f.properties)
            }
            table.append((CBUUID(uuid), chars))
        }
        return Script(model: m, operations: first..<operations.count, notified: notified, table: table)
    }

    // MARK: - Playing

    private var central: CBCentralManager!
    private var peripheral: CBPeripheral?
    private var current = 0
    private var next = 0
    private var connectedAt: Int64 = 0
    private var issuedAt: [Int: Int64] = [:]
    private var pending: Int?
    private var waitingForReady: Int?
    private var pendingDiscoveries = 0
    private var ending = false
    private var received: [CBUUID: Int] = [:]
    private var characteristics: [String: CBCharacteristic] = [:]

    func start() {
        central = CBCentralManager(delegate: self, queue: nil, world: world)
        if scripts.isEmpty { isFinished = true }
    }

    private func key(_ service: CBUUID, _ c: CBUUID) -> String { "\(service)/\(c)" }

    private var script: Script { scripts[current] }

    private func connectNext() {
        guard current < scripts.count else {
            isFinished = true
            return
        }
        next = script.operations.lowerBound
        pending = nil
        waitingForReady = nil
        ending = false
        received = [:]
        characteristics = [:]
        if let p = peripheral {
            central.connect(p, options: nil)
        } else {
            let services =
                target == nil
                ? Array(Set(scripts.flatMap { $0.table.map(\.service) })).sorted { $0.uuidString < $1.uuidString } : nil
            central.scanForPeripherals(withServices: services?.isEmpty == true ? nil : services, options: nil)
        }
    }

    /// Discovery done: compare with the captured table, then play the operations.
    private func ready() {
        guard let p = peripheral else { return }
        for s in script.table {
            guard let service = p.services?.first(where: { $0.uuid == s.service }) else {
                structural.append(
                    Mismatch(
                        kind: .missingService, connection: script.model.number, characteristic: s.service,
                        operation: nil, detail: "service \(s.service) not found"))
                continue
            }
            for c in s.characteristics {
                guard let found = service.characteristics?.first(where: { $0.uuid == c.uuid }) else {
                    structural.append(
                        Mismatch(
                            kind: .missingCharacteristic, connection: script.model.number,
                            characteristic: c.uuid, operation: nil,
                            detail: "characteristic \(c.uuid) of service \(s.service) not found"))
                    continue
                }
                characteristics[key(s.service, c.uuid)] = found
                if found.properties.declarationBits != c.properties {
                    structural.append(
                        Mismatch(
                            kind: .properties, connection: script.model.number, characteristic: c.uuid,
                            operation: nil,
                            detail: "captured properties 0x\(String(c.properties, radix: 16)), "
                                + "replayed 0x\(String(found.properties.declarationBits, radix: 16))"))
                }
            }
        }
        // Operations on characteristics outside the table (used, never discovered here).
        for s in p.services ?? [] {
            for c in s.characteristics ?? [] where characteristics[key(s.uuid, c.uuid)] == nil {
                characteristics[key(s.uuid, c.uuid)] = c
            }
        }
        scheduleNext()
    }

    /// The next operation goes out as long after the previous one as in the capture, and not
    /// before the previous one is answered.
    private func scheduleNext() {
        let ops = script.operations
        let due: Int64
        if next < ops.upperBound {
            if next == ops.lowerBound {
                due = connectedAt &+ max(0, operations[next].capturedTime &- script.model.connection.summary.startTime)
            } else {
                due =
                    (issuedAt[next - 1] ?? world.nowMicros)
                    &+ max(0, operations[next].capturedTime &- operations[next - 1].capturedTime)
            }
            let i = next
            world.schedule(after: .microseconds(max(0, due &- world.nowMicros))) { [weak self] in self?.issue(i) }
        } else {
            finishConnection()
        }
    }

    private func issue(_ i: Int) {
        guard let p = peripheral, p.state == .connected, i == next else { return }
        issuedAt[i] = world.nowMicros
        let op = operations[i]
        guard let c = characteristics[key(op.service, op.characteristic)] else {
            return complete(i, .notPerformed("characteristic not found"))
        }
        switch op.kind {
        case .read:
            pending = i
            p.readValue(for: c)
        case .write:
            pending = i
            p.writeValue(Data(op.capturedValue), for: c, type: .withResponse)
        case .writeWithoutResponse:
            guard c.properties.contains(.writeWithoutResponse) else {
                // Core Bluetooth drops it: nothing on the air, no callback.
                return complete(i, .notPerformed("no Write Without Response property"))
            }
            guard p.canSendWriteWithoutResponse else {
                waitingForReady = i
                return
            }
            guard op.capturedValue.count <= p.maximumWriteValueLength(for: .withoutResponse) else {
                return complete(i, .notPerformed("longer than maximumWriteValueLength"))
            }
            p.writeValue(Data(op.capturedValue), for: c, type: .withoutResponse)
            complete(i, .noResponse)
        case .subscribe, .unsubscribe:
            pending = i
            p.setNotifyValue(op.kind == .subscribe, for: c)
        }
    }

    private func complete(_ i: Int, _ outcome: Operation.Outcome, value: [UInt8]? = nil) {
        guard i == next else { return }
        operations[i].replayedOutcome = outcome
        operations[i].replayedValue = value
        pending = nil
        next = i + 1
        scheduleNext()
    }

    /// After the last operation: end the link as the capture did. The central ended it: cancel
    /// as long after the last operation as captured. The peripheral ended it, or it was lost:
    /// wait for that (the captured delay plus a supervision timeout), then cancel.
    private func finishConnection() {
        guard !ending, let p = peripheral else { return }
        ending = true
        let m = script.model
        let lastTime =
            script.operations.isEmpty
            ? m.connection.summary.startTime : operations[script.operations.upperBound - 1].capturedTime
        let lastIssued =
            script.operations.isEmpty ? connectedAt : (issuedAt[script.operations.upperBound - 1] ?? connectedAt)
        var delay = max(0, (m.connection.disconnection?.time ?? lastTime) &- lastTime)
        if let side = m.linkEnd?.side, side != .remote { delay &+= m.connection.supervisionTimeoutMicros &+ 1_000_000 }
        let due = max(world.nowMicros, lastIssued &+ delay)
        world.schedule(after: .microseconds(due &- world.nowMicros)) { [weak self] in
            guard let self, p.state == .connected || p.state == .connecting else { return }
            self.central.cancelPeripheralConnection(p)
        }
    }

    private func connectionEnded(error: (any Error)?) {
        let m = script.model
        // Operations the link took with it.
        for i in next..<script.operations.upperBound where operations[i].replayedOutcome == nil {
            operations[i].replayedOutcome = .notPerformed("disconnected")
        }
        if !ending {
            structural.append(
                Mismatch(
                    kind: .connection, connection: m.number, characteristic: nil, operation: nil,
                    detail: "ended before the captured operations were done (\(error.map { "\($0)" } ?? "no error"))"))
        } else if let side = m.linkEnd?.side, side != .remote, error == nil {
            structural.append(
                Mismatch(
                    kind: .connection, connection: m.number, characteristic: nil, operation: nil,
                    detail: "the captured peripheral ended the connection (\(side)); the app's did not"))
        }
        for (_, n) in script.notified.sorted(by: { $0.key < $1.key }) {
            notifications.append(
                NotificationCount(
                    connection: m.number, characteristic: n.characteristic, captured: n.count,
                    received: received[n.characteristic] ?? 0))
        }
        for (uuid, count) in received.sorted(by: { $0.key.uuidString < $1.key.uuidString })
        where !script.notified.values.contains(where: { $0.characteristic == uuid }) {
            notifications.append(
                NotificationCount(connection: m.number, characteristic: uuid, captured: 0, received: count))
        }
        current += 1
        world.schedule(after: .zero) { [weak self] in self?.connectNext() }
    }
}

extension CentralPlayback: CBCentralManagerDelegate, CBPeripheralDelegate {
    public func centralManagerDidUpdateState(_ central: CBCentralManager) {
        if central.state == .poweredOn, peripheral == nil, current == 0 { connectNext() }
    }

    public func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
        advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {
        guard self.peripheral == nil, target.map({ $0.identifier == peripheral.identifier }) ?? true else { return }
        self.peripheral = peripheral
        central.stopScan()
        central.connect(peripheral, options: nil)
    }

    public func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        connectedAt = world.nowMicros
        peripheral.delegate = self
        peripheral.discoverServices(script.table.isEmpty ? nil : script.table.map(\.service))
    }

    public func centralManager(
        _ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?
    ) {
        structural.append(
            Mismatch(
                kind: .connection, connection: script.model.number, characteristic: nil, operation: nil,
                detail: "connection failed (\(error.map { "\($0)" } ?? "no error"))"))
        connectionEnded(error: error)
    }

    public func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
        timestamp: CFAbsoluteTime, isReconnecting: Bool, error: (any Error)?
    ) {
        connectionEnded(error: error)
    }

    public func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        let services = peripheral.services ?? []
        pendingDiscoveries = services.count
        if services.isEmpty { ready() }
        for s in services { peripheral.discoverCharacteristics(nil, for: s) }
    }

    public func peripheral(
        _ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService,
        error: (any Error)?
    ) {
        pendingDiscoveries -= 1
        if pendingDiscoveries == 0 { ready() }
    }

    public func peripheral(
        _ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic,
        error: (any Error)?
    ) {
        if let i = pending, operations[i].kind == .read,
            characteristics[key(operations[i].service, operations[i].characteristic)] === characteristic
        {
            // The read's answer (a notification of the same characteristic in flight would be
            // taken for it: Core Bluetooth reports both through this one callback).
            if let e = error as? CBATTError {
                complete(i, .attError(e.code.byte))
            } else if let error {
                complete(i, .notPerformed("\(error)"))
            } else {
                complete(i, .success, value: characteristic.value.map { [UInt8]($0) } ?? [])
            }
        } else if error == nil {
            received[characteristic.uuid, default: 0] += 1
        }
    }

    public func peripheral(
        _ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic,
        error: (any Error)?
    ) {
        guard let i = pending, operations[i].kind == .write else { return }
        complete(i, Self.outcome(error))
    }

    public func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic,
        error: (any Error)?
    ) {
        guard let i = pending, operations[i].kind == .subscribe || operations[i].kind == .unsubscribe else { return }
        complete(i, Self.outcome(error))
    }

    public func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {
        guard let i = waitingForReady else { return }
        waitingForReady = nil
        issue(i)
    }

    private static func outcome(_ error: (any Error)?) -> Operation.Outcome {
        guard let error else { return .success }
        if let e = error as? CBATTError { return .attError(e.code.byte) }
        return .notPerformed("\(error)")
    }
}

private func hex(_ bytes: [UInt8]) -> String {
    bytes.isEmpty ? "(empty)" : bytes.map { String(format: "%02x", $0) }.joined()
}
