// An iOS heart-rate central written the way Apple's sample code and a typical app's
// `BluetoothManager` are. The only change from the iOS source is the import: `CoreBluetooth` → `BLESimulator`.
// It compiles against the simulator's Core Bluetooth surface (identity semantics, `CBManager`,
// authorization, features, connection events, L2CAP, NSError bridging, typed descriptor
// values); `HeartRateAppTests` runs it.
import BLESimulator
import Foundation

/// Heart Rate Service and its characteristics (Assigned Numbers).
enum HeartRateUUIDs {
    static let service = CBUUID(string: "180D")
    static let measurement = CBUUID(string: "2A37")
    static let bodySensorLocation = CBUUID(string: "2A38")
    static let controlPoint = CBUUID(string: "2A39")
    static let userDescription = CBUUID(string: CBUUIDCharacteristicUserDescriptionString)
    static let clientConfiguration = CBUUID(string: CBUUIDClientCharacteristicConfigurationString)
    static let presentationFormat = CBUUID(string: CBUUIDCharacteristicFormatString)
}

protocol HeartRateMonitorObserver: AnyObject {
    func monitor(_ monitor: HeartRateMonitor, didReceive bpm: Int)
}

final class HeartRateMonitor: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    private(set) var centralManager: CBCentralManager!
    weak var observer: (any HeartRateMonitorObserver)?

    /// Every peripheral seen while scanning, kept so Core Bluetooth does not release them.
    private(set) var discovered: Set<CBPeripheral> = []
    /// In discovery order, for a list UI.
    private(set) var discoveredOrder: [CBPeripheral] = []
    private(set) var connected: CBPeripheral?
    private(set) var measurement: CBCharacteristic?
    private(set) var controlPoint: CBCharacteristic?
    private(set) var subscribed: Set<CBCharacteristic> = []

    private(set) var beats: [Int] = []
    private(set) var sensorLocation: UInt8?
    private(set) var descriptions: [CBUUID: String] = [:]
    private(set) var configurations: [CBUUID: UInt16] = [:]
    private(set) var formats: [CBUUID: Data] = [:]
    private(set) var errors: [(domain: String, code: Int, text: String)] = []
    private(set) var l2capFailure: (any Error)?
    private(set) var stateHistory: [CBManagerState] = []
    private(set) var authorizationAtLaunch: CBManagerAuthorization = .notDetermined
    private(set) var extendedScanning = false
    private(set) var restored: [CBPeripheral] = []

    static let restoreIdentifier = "com.example.heartrate.central"

    override init() {
        super.init()
        authorizationAtLaunch = CBManager.authorization
        guard authorizationAtLaunch != .denied, authorizationAtLaunch != .restricted else { return }
        centralManager = CBCentralManager(
            delegate: self, queue: nil,
            options: [
                CBCentralManagerOptionShowPowerAlertKey: true,
                CBCentralManagerOptionRestoreIdentifierKey: Self.restoreIdentifier,
            ])
        extendedScanning = CBCentralManager.supports(.extendedScanAndConnect)
    }

    // MARK: - Shared state handling (works for either manager through CBManager)

    static func isUsable(_ manager: CBManager) -> Bool {
        switch manager.state {
        case .poweredOn: true
        case .unauthorized:
            switch manager.authorization {
            case .denied, .restricted: false
            default: false
            }
        case .poweredOff, .resetting, .unknown, .unsupported: false
        @unknown default: false
        }
    }

    // MARK: - CBCentralManagerDelegate

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        stateHistory.append(central.state)
        guard Self.isUsable(central) else {
            // Below poweredOff every CBPeripheral is invalid: forget them all.
            if central.state != .poweredOff {
                discovered.removeAll()
                discoveredOrder.removeAll()
                connected = nil
            }
            measurement = nil
            controlPoint = nil
            subscribed.removeAll()
            return
        }
        central.registerForConnectionEvents(options: [.serviceUUIDs: [HeartRateUUIDs.service]])
        if let peripheral = connected, peripheral.state == .connected {
            peripheral.discoverServices([HeartRateUUIDs.service])
        } else {
            startScanning()
        }
    }

    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        let peripherals = dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral] ?? []
        for peripheral in peripherals {
            peripheral.delegate = self
            restored.append(peripheral)
            discovered.insert(peripheral)
            connected = peripheral
        }
    }

    func startScanning() {
        guard centralManager.state == .poweredOn, !centralManager.isScanning else { return }
        centralManager.scanForPeripherals(
            withServices: [HeartRateUUIDs.service],
            options: [CBCentralManagerScanOptionAllowDuplicatesKey: false])
    }

    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
        advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {
        guard RSSI.intValue > -90 else { return }
        let (inserted, _) = discovered.insert(peripheral)
        if inserted { discoveredOrder.append(peripheral) }
        guard connected == nil else { return }
        central.stopScan()
        connected = peripheral
        central.connect(
            peripheral,
            options: [
                CBConnectPeripheralOptionNotifyOnDisconnectionKey: true,
                CBConnectPeripheralOptionEnableAutoReconnect: true,
            ])
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        guard peripheral == connected else { return }
        peripheral.delegate = self
        peripheral.discoverServices([HeartRateUUIDs.service])
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {
        record(error)
        if let index = discoveredOrder.firstIndex(of: peripheral) { discoveredOrder.remove(at: index) }
        discovered.remove(peripheral)
        connected = nil
        startScanning()
    }

    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
        timestamp: CFAbsoluteTime, isReconnecting: Bool, error: (any Error)?
    ) {
        record(error)
        // The attributes of the old connection are invalid: rediscover on the next one.
        measurement = nil
        controlPoint = nil
        subscribed.removeAll()
        if isReconnecting { return }
        if let error, case CBError.peripheralDisconnected = error {
            central.connect(peripheral, options: nil)
        } else {
            connected = nil
            startScanning()
        }
    }

    func centralManager(
        _ central: CBCentralManager, connectionEventDidOccur event: CBConnectionEvent, for peripheral: CBPeripheral
    ) {
        switch event {
        case .peerConnected: discovered.insert(peripheral)
        case .peerDisconnected: break
        @unknown default: break
        }
    }

    // MARK: - CBPeripheralDelegate

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        if let error { return record(error) }
        for service in peripheral.services ?? [] where service.uuid == HeartRateUUIDs.service {
            peripheral.discoverCharacteristics(
                [HeartRateUUIDs.measurement, HeartRateUUIDs.bodySensorLocation, HeartRateUUIDs.controlPoint],
                for: service)
        }
    }

    func peripheral(
        _ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?
    ) {
        if let error { return record(error) }
        for characteristic in service.characteristics ?? [] {
            switch characteristic.uuid {
            case HeartRateUUIDs.measurement:
                measurement = characteristic
                if characteristic.properties.contains(.notify) {
                    peripheral.setNotifyValue(true, for: characteristic)
                }
                peripheral.discoverDescriptors(for: characteristic)
            case HeartRateUUIDs.bodySensorLocation:
                if characteristic.properties.contains(.read) { peripheral.readValue(for: characteristic) }
            case HeartRateUUIDs.controlPoint:
                controlPoint = characteristic
            default:
                break
            }
        }
    }

    func peripheral(
        _ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: (any Error)?
    ) {
        if let error { return record(error) }
        for descriptor in characteristic.descriptors ?? [] { peripheral.readValue(for: descriptor) }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor descriptor: CBDescriptor, error: (any Error)?) {
        if let error { return record(error) }
        guard let owner = descriptor.characteristic?.uuid else { return }
        switch descriptor.uuid.uuidString {
        case CBUUIDCharacteristicUserDescriptionString:
            if let text = descriptor.value as? String { descriptions[owner] = text }
        case CBUUIDClientCharacteristicConfigurationString:
            if let bits = descriptor.value as? NSNumber { configurations[owner] = bits.uint16Value }
        case CBUUIDCharacteristicFormatString:
            if let data = descriptor.value as? Data { formats[owner] = data }
        default:
            break
        }
    }

    func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic,
        error: (any Error)?
    ) {
        if let error { return record(error) }
        if characteristic.isNotifying {
            subscribed.insert(characteristic)
        } else {
            subscribed.remove(characteristic)
        }
    }

    func peripheral(
        _ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?
    ) {
        if let error { return record(error) }
        guard let data = characteristic.value else { return }
        switch characteristic.uuid {
        case HeartRateUUIDs.measurement:
            if let bpm = Self.parseHeartRate(data) {
                beats.append(bpm)
                observer?.monitor(self, didReceive: bpm)
            }
        case HeartRateUUIDs.bodySensorLocation:
            sensorLocation = data.first
        default:
            break
        }
    }

    func peripheral(
        _ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?
    ) {
        guard let error else { return }
        if let attError = error as? CBATTError {
            switch attError.code {
            case .insufficientAuthentication, .insufficientEncryption:
                // Pairing needed: iOS shows the prompt and the app retries.
                break
            case CBATTError.writeNotPermitted:
                break
            default:
                break
            }
        }
        record(error)
    }

    func peripheral(_ peripheral: CBPeripheral, didOpen channel: CBL2CAPChannel?, error: (any Error)?) {
        if let error {
            l2capFailure = error
            return record(error)
        }
        channel?.inputStream.open()
        channel?.outputStream.open()
    }

    // MARK: - Commands

    /// Resets the energy expended counter (Heart Rate Control Point value 0x01).
    func resetEnergyExpended() {
        guard let peripheral = connected, let controlPoint, peripheral.state == .connected else { return }
        peripheral.writeValue(Data([0x01]), for: controlPoint, type: .withResponse)
    }

    func openStreamingChannel(psm: CBL2CAPPSM) {
        guard let peripheral = connected, peripheral.state == .connected else { return }
        peripheral.openL2CAPChannel(psm)
    }

    func disconnect() {
        guard let peripheral = connected else { return }
        if let measurement, subscribed.contains(measurement) {
            peripheral.setNotifyValue(false, for: measurement)
        }
        centralManager.cancelPeripheralConnection(peripheral)
    }

    // MARK: - Helpers

    /// Heart Rate Measurement (Heart Rate Service 3.1): flags bit 0 selects a UInt8 or UInt16.
    static func parseHeartRate(_ data: Data) -> Int? {
        let bytes = [UInt8](data)
        guard let flags = bytes.first else { return nil }
        if flags & 0x01 == 0 {
            return bytes.count >= 2 ? Int(bytes[1]) : nil
        }
        return bytes.count >= 3 ? Int(bytes[1]) | Int(bytes[2]) << 8 : nil
    }

    private func record(_ error: (any Error)?) {
        guard let error else { return }
        let nsError = error as NSError
        errors.append((nsError.domain, nsError.code, nsError.localizedDescription))
        if nsError.domain == CBErrorDomain, let code = CBError.Code(rawValue: nsError.code) {
            switch code {
            case .connectionTimeout, .peripheralDisconnected, .connectionFailed:
                break  // reconnect paths above
            case .encryptionTimedOut, .peerRemovedPairingInformation:
                break  // ask the user to forget the device in Settings
            default:
                break
            }
        } else if nsError.domain == CBATTErrorDomain {
            _ = CBATTError.Code(rawValue: nsError.code)
        }
    }
}
