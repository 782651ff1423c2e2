import BLEBytes
import BLEReplay
import BLESimulator
import Foundation

/// A central written the usual Core Bluetooth way: wait for poweredOn, scan for a
/// service, stop the scan, connect, discover, subscribe to what it is told to, and record
/// every callback with the world's time, so a test can compare what the app saw with the
/// capture.
final class RecordingCentral: CBCentralManagerDelegate, CBPeripheralDelegate {
    enum Event {
        case state(CBManagerState)
        case connected
        case disconnected(error: (any Error)?)
        case value(CBUUID, Result<[UInt8], CBATTError>)
        case wrote(CBUUID, CBATTError?)
        case notifying(CBUUID, Bool, (any Error)?)
    }

    let world: SimulatedWorld
    var central: CBCentralManager!
    let scanServices: [CBUUID]?
    let services: [CBUUID]?
    let subscribe: Set<CBUUID>
    /// Reconnect after a disconnection the app did not ask for, up to this many connections.
    var reconnectUpTo = 1
    /// Connect only to this peripheral (else to the first one discovered).
    var only: UUID?

    private(set) var peripheral: CBPeripheral?
    private(set) var events: [(time: Int64, event: Event)] = []
    private(set) var connections = 0
    /// The services the last discovery found, kept by the app: `peripheral.services` is nil
    /// again once the connection ends, as in Core Bluetooth.
    private(set) var discoveredServices: [CBService] = []
    /// Called once every characteristic of every discovered service is known.
    var onReady: ((RecordingCentral) -> Void)?
    private var pendingCharacteristicDiscoveries = 0

    init(
        world: SimulatedWorld, scanFor scanServices: [CBUUID]?, discover services: [CBUUID]?,
        subscribe: Set<CBUUID> = []
    ) {
        self.world = world
        self.scanServices = scanServices
        self.services = services
        self.subscribe = subscribe
        central = CBCentralManager(delegate: self, queue: nil, world: world)
    }

    // MARK: - Queries

    func characteristic(_ uuid: CBUUID) -> CBCharacteristic? {
        for s in peripheral?.services ?? [] {
            if let c = s.characteristics?.first(where: { $0.uuid == uuid }) { return c }
        }
        return nil
    }

    /// Values (or ATT errors) delivered for `uuid`, with their times.
    func values(_ uuid: CBUUID) -> [(time: Int64, result: Result<[UInt8], CBATTError>)] {
        events.compactMap { e in
            if case .value(let u, let r) = e.event, u == uuid { (e.time, r) } else { nil }
        }
    }

    func times(where match: (Event) -> Bool) -> [Int64] { events.filter { match($0.event) }.map(\.time) }
    var connectTimes: [Int64] { times { if case .connected = $0 { true } else { false } } }
    var disconnections: [(time: Int64, error: (any Error)?)] {
        events.compactMap { e in if case .disconnected(let err) = e.event { (e.time, err) } else { nil } }
    }

    func read(_ uuid: CBUUID) {
        guard let p = peripheral, let c = characteristic(uuid) else { return }
        p.readValue(for: c)
    }

    // MARK: - Central

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        events.append((world.nowMicros, .state(central.state)))
        guard central.state == .poweredOn else { return }
        central.scanForPeripherals(withServices: scanServices, options: nil)
    }

    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
        advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {
        guard self.peripheral == nil, only.map({ $0 == peripheral.identifier }) ?? true else { return }
        self.peripheral = peripheral  // Core Bluetooth does not keep it for us
        central.stopScan()
        central.connect(peripheral, options: nil)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        connections += 1
        events.append((world.nowMicros, .connected))
        peripheral.delegate = self
        peripheral.discoverServices(services)
    }

    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
        timestamp: CFAbsoluteTime, isReconnecting: Bool, error: (any Error)?
    ) {
        events.append((world.nowMicros, .disconnected(error: error)))
        if error != nil, connections < reconnectUpTo { central.connect(peripheral, options: nil) }
    }

    // MARK: - Peripheral

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        let found = peripheral.services ?? []
        discoveredServices = found
        pendingCharacteristicDiscoveries = found.count
        for s in found { peripheral.discoverCharacteristics(nil, for: s) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        for c in service.characteristics ?? [] where subscribe.contains(c.uuid) {
            peripheral.setNotifyValue(true, for: c)
        }
        pendingCharacteristicDiscoveries -= 1
        if pendingCharacteristicDiscoveries == 0 { onReady?(self) }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        let result: Result<[UInt8], CBATTError> =
            if let e = error as? CBATTError { .failure(e) } else {
                .success(characteristic.value.map { [UInt8]($0) } ?? [])
            }
        events.append((world.nowMicros, .value(characteristic.uuid, result)))
    }

    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        events.append((world.nowMicros, .wrote(characteristic.uuid, error as? CBATTError)))
    }

    func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic,
        error: (any Error)?
    ) {
        events.append((world.nowMicros, .notifying(characteristic.uuid, characteristic.isNotifying, error)))
    }
}

/// What a capture says, read from the replay model (never typed in by hand).
enum Captured {
    /// Values of the peer's notifications/indications on `handle` with their frames and
    /// capture times (µs since 1970), in order.
    static func stream(_ m: ReplayConnectionModel, handle: UInt16) -> [(frame: Int, time: Int64, value: [UInt8])] {
        m.connection.att.compactMap { pdu in
            guard !pdu.sentByHost, pdu.bytes.first == 0x1B || pdu.bytes.first == 0x1D,
                pdu.bytes.count >= 3, UInt16(pdu.bytes[1]) | UInt16(pdu.bytes[2]) << 8 == handle
            else { return nil }
            return (pdu.frame, pdu.time, Array(pdu.bytes.dropFirst(3)))
        }
    }

    /// The value handle of the characteristic `uuid` in the peer's database of `m`.
    static func valueHandle(_ m: ReplayConnectionModel, _ uuid: CBUUID) -> UInt16? {
        m.connection.summary.remoteDatabase.characteristics.first { $0.uuid == uuid.bluetoothUUID }?.valueHandle
    }
}
