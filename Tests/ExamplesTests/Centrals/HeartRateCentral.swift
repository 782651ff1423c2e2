import BLESimulator
import Foundation

/// A heart-rate central as an iOS app writes it (create the manager, scan, connect, discover,
/// read and subscribe), with nothing renamed but the class: the simulator's types
/// carry Core Bluetooth's names.
///
/// What differs from the seed and why:
/// - no `NSObject` base and no `override init`: the simulator's delegates are plain protocols;
/// - the class is not `final`, so the deliberately wrong versions (WrongCentrals.swift) can
///   change one method each;
/// - `discoverServices` asks for Battery (180F) too, else the 2A19 branch never runs;
/// - results go into properties instead of `print`, for the tests.
class HeartRateCentral: CBCentralManagerDelegate, CBPeripheralDelegate {
    var centralManager: CBCentralManager!
    var discoveredPeripheral: CBPeripheral?

    private(set) var heartRates: [Int] = []
    private(set) var rejectedMeasurements = 0
    private(set) var batteryLevel: Int?
    private(set) var bodySensorLocation: UInt8?
    private(set) var notifying: Set<CBUUID> = []

    init() {
        centralManager = CBCentralManager(delegate: self, queue: nil)
    }

    // Always wait for poweredOn before scanning.
    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn else { return }
        startScanning()
    }

    // Scan only for peripherals advertising the service we need.
    func startScanning() {
        centralManager.scanForPeripherals(
            withServices: [heartRateServiceUUID],
            options: [CBCentralManagerScanOptionAllowDuplicatesKey: false])
    }

    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
        advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {
        guard RSSI.intValue > -70 else { return }  // weak signals are not worth a connection
        discoveredPeripheral = peripheral  // Core Bluetooth does not keep it for us
        centralManager.stopScan()  // found what we came for
        centralManager.connect(peripheral, options: nil)
    }

    // Delegate first, then discovery, and only once connected.
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.delegate = self
        peripheral.discoverServices([heartRateServiceUUID, batteryServiceUUID])
    }

    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
        timestamp: CFAbsoluteTime, isReconnecting: Bool, error: (any Error)?
    ) {
        if isReconnecting { return }  // the system is reconnecting by itself
        discoveredPeripheral = nil
    }

    // Discover the characteristics of each service found.
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        guard let services = peripheral.services else { return }
        for service in services {
            peripheral.discoverCharacteristics(nil, for: service)
        }
    }

    // Properties are checked before subscribing or reading (docs/rules/read-or-notify-without-property.md).
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        guard let characteristics = service.characteristics else { return }
        for characteristic in characteristics {
            if characteristic.properties.contains(.notify) {
                peripheral.setNotifyValue(true, for: characteristic)
            }
            if characteristic.properties.contains(.read) {
                peripheral.readValue(for: characteristic)
            }
        }
    }

    func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic,
        error: (any Error)?
    ) {
        if characteristic.isNotifying { notifying.insert(characteristic.uuid) }
    }

    // Every notified or read value is parsed.
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        guard let data = characteristic.value else { return }
        switch characteristic.uuid {
        case heartRateMeasurementUUID:
            if let heartRate = parseHeartRate(data) { heartRates.append(heartRate) } else { rejectedMeasurements += 1 }
        case batteryLevelUUID:
            batteryLevel = data.first.map { Int($0) } ?? 0
        case bodySensorLocationUUID:
            bodySensorLocation = data.first
        default:
            break
        }
    }

    /// Flags bit 0 chooses an 8- or 16-bit (little-endian) rate, and every
    /// byte is checked to be there before it is read.
    func parseHeartRate(_ data: Data) -> Int? {
        guard data.count >= 2 else { return nil }
        let bytes = [UInt8](data)
        let is16Bit = (bytes[0] & 0x01) != 0
        if is16Bit {
            guard bytes.count >= 3 else { return nil }
            return Int(bytes[1]) | (Int(bytes[2]) << 8)
        }
        return Int(bytes[1])
    }

    // Used by the wrong versions and the write example; the right flow never writes or
    // discovers descriptors (declared here so that subclasses can override them).
    func peripheral(
        _ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: (any Error)?
    ) {}
    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {}
    func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {}
}
