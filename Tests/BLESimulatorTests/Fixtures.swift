import BLEBytes
import BLESimulator
import Foundation

let heartRateServiceUUID = CBUUID(string: "180D")
let heartRateMeasurementUUID = CBUUID(string: "2A37")
let batteryServiceUUID = CBUUID(string: "180F")
let batteryLevelUUID = CBUUID(string: "2A19")

/// Heart Rate Measurement values the simulated sensor notifies, one per second: 8-bit and
/// 16-bit formats, and one malformed value (16-bit flag, one byte) the central's length-checked
/// parser must reject.
let heartRateNotifications: [[UInt8]] = [[0x00, 60], [0x01, 61, 0x00], [0x00, 62], [0x01, 63], [0x00, 64]]
/// What `parseHeartRate` makes of them.
let expectedHeartRates = [60, 61, 62, 64]

/// A heart-rate sensor: Heart Rate service (Measurement notify, Body Sensor Location read) and
/// Battery service (Battery Level read/notify, 87 %), advertising 0x180D.
func makeHeartRateSensor(address: String = "D8:0D:18:00:00:01", rssi: Int = -55) -> SimulatedPeripheral {
    let measurement = SimulatedCharacteristic(uuid: heartRateMeasurementUUID, properties: [.notify])
    let location = SimulatedCharacteristic(uuid: CBUUID(string: "2A38"), properties: [.read], value: [0x01])
    let battery = SimulatedCharacteristic(uuid: batteryLevelUUID, properties: [.read, .notify], value: [87])
    let p = SimulatedPeripheral(
        address: BDAddr(address)!, name: "HRM",
        services: [
            SimulatedService(uuid: heartRateServiceUUID, characteristics: [measurement, location]),
            SimulatedService(uuid: batteryServiceUUID, characteristics: [battery]),
        ])
    p.advertisedServiceUUIDs = [heartRateServiceUUID]
    p.rssi = rssi
    p.notificationSources = [
        .init(
            characteristic: heartRateMeasurementUUID, interval: .seconds(1),
            count: heartRateNotifications.count
        ) { heartRateNotifications[$0] }
    ]
    return p
}

/// A device that does not advertise the heart-rate service (must not be reported to a 180D scan).
func makeOtherDevice() -> SimulatedPeripheral {
    let p = SimulatedPeripheral(
        address: BDAddr("C0:FF:EE:00:00:02")!, name: "Lamp",
        services: [
            SimulatedService(
                uuid: CBUUID(string: "FFF0"),
                characteristics: [
                    SimulatedCharacteristic(uuid: CBUUID(string: "FFF1"), properties: [.read, .write])
                ])
        ])
    p.advertisedServiceUUIDs = [CBUUID(string: "FFF0")]
    // Faster than the sensor, so a scan hears it first (and must not report it to a 180D scan).
    p.advertisingInterval = .milliseconds(20)
    return p
}

/// A heart-rate central as an iOS app writes it, with nothing renamed: the simulator's types
/// carry Core Bluetooth's names. Two additions, both to finish its story: it discovers the Battery
/// service too (to read
/// 2A19), and it records what it sees for the assertions.
final class HeartRateCentral: CBCentralManagerDelegate, CBPeripheralDelegate {
    var centralManager: CBCentralManager!
    var discoveredPeripheral: CBPeripheral?
    /// The peripheral-not-retained mistake, when false.
    let retainsPeripheral: Bool
    /// The scan-before-powered-on mistake, when true.
    let scansInInit: Bool

    var heartRates: [Int] = []
    var rejectedMeasurements = 0
    var batteryLevel: Int?
    var states: [CBManagerState] = []
    var connected = 0
    var disconnections: [(isReconnecting: Bool, error: (any Error)?)] = []

    init(retainsPeripheral: Bool = true, scansInInit: Bool = false) {
        self.retainsPeripheral = retainsPeripheral
        self.scansInInit = scansInInit
        centralManager = CBCentralManager(delegate: self, queue: nil)
        if scansInInit { centralManager.scanForPeripherals(withServices: nil) }
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        states.append(central.state)
        guard central.state == .poweredOn else { return }
        central.scanForPeripherals(
            withServices: [heartRateServiceUUID],
            options: [CBCentralManagerScanOptionAllowDuplicatesKey: false])
    }

    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
        advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {
        guard RSSI.intValue > -70 else { return }
        if retainsPeripheral { discoveredPeripheral = peripheral }
        central.stopScan()
        central.connect(peripheral, options: nil)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        connected += 1
        peripheral.delegate = self
        peripheral.discoverServices([heartRateServiceUUID, batteryServiceUUID])
    }

    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
        timestamp: CFAbsoluteTime, isReconnecting: Bool, error: (any Error)?
    ) {
        disconnections.append((isReconnecting, error))
        if isReconnecting { return }
        discoveredPeripheral = nil
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        guard let services = peripheral.services else { return }
        for service in services { peripheral.discoverCharacteristics(nil, for: service) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        guard let characteristics = service.characteristics else { return }
        for characteristic in characteristics {
            if characteristic.properties.contains(.notify) { peripheral.setNotifyValue(true, for: characteristic) }
            if characteristic.properties.contains(.read) { peripheral.readValue(for: characteristic) }
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        guard let data = characteristic.value else { return }
        switch characteristic.uuid {
        case heartRateMeasurementUUID:
            if let rate = parseHeartRate(data) { heartRates.append(rate) } else { rejectedMeasurements += 1 }
        case batteryLevelUUID:
            batteryLevel = data.first.map { Int($0) } ?? 0
        default: break
        }
    }

    /// The length-checked parser.
    func parseHeartRate(_ data: Data) -> Int? {
        guard data.count >= 2 else { return nil }
        let flags = data[data.startIndex]
        let is16Bit = (flags & 0x01) != 0
        if is16Bit {
            guard data.count >= 3 else { return nil }
            return Int(data[data.startIndex + 1]) | (Int(data[data.startIndex + 2]) << 8)
        }
        return Int(data[data.startIndex + 1])
    }
}

/// A world with the heart-rate sensor and an unrelated device, and the seed central in it.
func heartRateWorld(
    retains: Bool = true, scansInInit: Bool = false,
    configure: (SimulatedWorld.Configuration) -> SimulatedWorld.Configuration = { $0 }
)
    -> (SimulatedWorld, SimulatedPeripheral, HeartRateCentral)
{
    let world = SimulatedWorld(configuration: configure(SimulatedWorld.Configuration()))
    let sensor = makeHeartRateSensor()
    world.add(makeOtherDevice())
    world.add(sensor)
    let app = SimulatedWorld.withCurrent(world) {
        HeartRateCentral(retainsPeripheral: retains, scansInInit: scansInInit)
    }
    return (world, sensor, app)
}

extension SimulatorTrace {
    func calls(_ name: String) -> [APICallRecord] { apiCalls.filter { $0.call.name == name } }
    func radio(_ type: String) -> [TraceRecord] {
        records.filter { if case .radio(let e) = $0.entry { "\(e.type)" == type } else { false } }
    }
    func callbackNames() -> [String] { callbacks.map(\.name) }
}
