import BLESimulator
import Foundation

/// The "Working with CoreBluetooth" article's central: scans for the FFF0 service, connects,
/// discovers the temperature and state characteristics, subscribes to temperature, reads it on
/// request and writes the on/off state with response.
///
/// Ported by renaming the class (the article calls it `BluetoothManager`); `NSObject` and
/// `override` are gone because the simulator's delegates are plain protocols, and the class is
/// not `final` so the wrong versions can change one method each. The article's misspelled
/// `temperatureCharactersticUUID` is spelled out here.
class TemperatureCentral: CBCentralManagerDelegate, CBPeripheralDelegate {
    var centralManager: CBCentralManager!
    var discoveredPeripheral: CBPeripheral?
    var discoveredTemperatureCharacteristic: CBCharacteristic?
    var discoveredStateCharacteristic: CBCharacteristic?

    var currentTemperature: String = "-"
    private(set) var temperatureUpdates = 0
    private(set) var confirmedWrites = 0
    private(set) var failedWrites = 0

    let serviceUUID = AmbientSensor.serviceUUID
    let temperatureCharacteristicUUID = AmbientSensor.temperatureUUID
    let stateCharacteristicUUID = AmbientSensor.stateUUID

    init() {
        centralManager = CBCentralManager(delegate: self, queue: nil)
    }

    /// Ready for `requestTemperature()` / `setState(_:)` (what the article's UI waits for).
    var isReady: Bool { discoveredTemperatureCharacteristic != nil && discoveredStateCharacteristic != nil }

    // MARK: CBCentralManagerDelegate

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        if central.state == .poweredOn {
            central.scanForPeripherals(withServices: [serviceUUID])
        }
    }

    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
        advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {
        discoveredPeripheral = peripheral
        central.stopScan()
        central.connect(peripheral)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.delegate = self
        peripheral.discoverServices([serviceUUID])
    }

    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
        timestamp: CFAbsoluteTime, isReconnecting: Bool, error: (any Error)?
    ) {
        discoveredPeripheral = nil
        discoveredTemperatureCharacteristic = nil
        discoveredStateCharacteristic = nil
    }

    // MARK: CBPeripheralDelegate

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        if let services = peripheral.services {
            for service in services {
                peripheral.discoverCharacteristics(
                    [temperatureCharacteristicUUID, stateCharacteristicUUID], for: service)
            }
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        if let characteristics = service.characteristics {
            for characteristic in characteristics {
                if characteristic.uuid == temperatureCharacteristicUUID {
                    peripheral.setNotifyValue(true, for: characteristic)
                    discoveredTemperatureCharacteristic = characteristic
                } else if characteristic.uuid == stateCharacteristicUUID {
                    discoveredStateCharacteristic = characteristic
                }
            }
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        if characteristic.uuid == temperatureCharacteristicUUID {
            if let value = characteristic.value, let message = String(data: value, encoding: .utf8) {
                currentTemperature = message
                temperatureUpdates += 1
            }
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        if error == nil { confirmedWrites += 1 } else { failedWrites += 1 }
    }

    func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {}

    // MARK: Reading and writing data

    func requestTemperature() {
        if let discoveredPeripheral, let discoveredTemperatureCharacteristic {
            discoveredPeripheral.readValue(for: discoveredTemperatureCharacteristic)
        }
    }

    /// The article writes `.withResponse` without looking at the properties; the sensor's state
    /// characteristic has Write, so the call is right for this device.
    func setState(_ state: Bool) {
        if let discoveredPeripheral, let discoveredStateCharacteristic {
            discoveredPeripheral.writeValue(
                Data([state ? 1 : 0]), for: discoveredStateCharacteristic, type: .withResponse)
        }
    }
}

/// A right way to stream state changes with `.withoutResponse`
/// (docs/rules/write-without-response-flow.md): send while the peripheral
/// can take more, resume in `peripheralIsReady(toSendWriteWithoutResponse:)`.
class FlowControlledStateStreamer: TemperatureCentral {
    var queue: [Data] = []

    func stream(_ values: [Data]) {
        queue += values
        drain()
    }

    func drain() {
        guard let peripheral = discoveredPeripheral, let characteristic = discoveredStateCharacteristic else { return }
        while let next = queue.first {
            guard characteristic.properties.contains(.writeWithoutResponse), peripheral.canSendWriteWithoutResponse,
                next.count <= peripheral.maximumWriteValueLength(for: .withoutResponse)
            else { return }
            peripheral.writeValue(next, for: characteristic, type: .withoutResponse)
            queue.removeFirst()
        }
    }

    override func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) { drain() }
}
