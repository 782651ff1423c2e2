import BLEBytes
import BLESimulator
import Foundation

// The "Working with CoreBluetooth" article: an ambient sensor with a temperature
// characteristic and an on/off state characteristic in one service, the peripheral built with
// CBPeripheralManager and the central with CBCentralManager. Ported by renaming nothing.

let articleServiceUUID = CBUUID(string: "0000FFF0-0000-1000-8000-00805F9B34FB")
let articleTemperatureUUID = CBUUID(string: "0000FFF1-0000-1000-8000-00805F9B34FB")
/// Not in the Bluetooth Base UUID (…34FC): a 128-bit UUID on the air.
let articleStateUUID = CBUUID(string: "0000FFF1-0000-1000-8000-00805F9B34FC")

/// The article's peripheral. Two changes, both marked: the temperature comes from a fixed
/// sequence instead of `Int.random(in: 10...30)` (a deterministic run), and the manager keeps
/// the subscribed central and what it saw, as the article's closing note suggests.
final class ArticlePeripheral: CBPeripheralManagerDelegate {
    var peripheralManager: CBPeripheralManager!
    let serviceUUID = articleServiceUUID
    let temperatureCharactersticsUUID = articleTemperatureUUID
    let stateCharacteristicsUUID = articleStateUUID
    var state: Bool = false

    // Test additions.
    var temperatures = [21, 22, 23, 24, 25, 26]
    var reads = 0
    var writes: [[UInt8]] = []
    var subscribed: [CBCentral] = []
    var unsubscribed = 0
    var readyCalls = 0
    var temperatureCharacteristic: CBMutableCharacteristic?
    /// Answer every read twice (the respond-twice mistake).
    var respondsTwice = false

    init(simulation: CBPeripheralManager.Simulation = .init(), world: SimulatedWorld) {
        peripheralManager = CBPeripheralManager(delegate: self, queue: nil, world: world, simulation: simulation)
    }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        if peripheral.state == .poweredOn {
            let temperatureCharacteristic = CBMutableCharacteristic(
                type: temperatureCharactersticsUUID,
                properties: [.notify, .read, .write],
                value: nil,
                permissions: [.readable, .writeable])
            let stateCharacteristic = CBMutableCharacteristic(
                type: stateCharacteristicsUUID,
                properties: [.notify, .read, .write],
                value: nil,
                permissions: [.readable, .writeable])
            self.temperatureCharacteristic = temperatureCharacteristic

            let service = CBMutableService(type: serviceUUID, primary: true)
            service.characteristics = [temperatureCharacteristic, stateCharacteristic]

            peripheralManager.add(service)
            peripheralManager.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [serviceUUID]])
        }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        if request.characteristic.uuid == temperatureCharactersticsUUID {
            reads += 1
            let degrees = temperatures.isEmpty ? 20 : temperatures.removeFirst()  // was Int.random(in: 10...30)
            if let value = "\(degrees)°".data(using: .utf8) {
                request.value = value
                peripheralManager.respond(to: request, withResult: .success)
                if respondsTwice { peripheralManager.respond(to: request, withResult: .success) }
            }
        }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        for request in requests {
            writes.append(request.value.map { [UInt8]($0) } ?? [])
            if request.characteristic.uuid == stateCharacteristicsUUID {
                if let value = request.value, let bit = value.first {
                    state = bit == 1
                }
                // The article answers every request of the array; Core Bluetooth expects one
                // answer, to the first.
                peripheralManager.respond(to: request, withResult: .success)
            }
        }
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral,
        didSubscribeTo characteristic: CBCharacteristic
    ) {
        subscribed.append(central)
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral,
        didUnsubscribeFrom characteristic: CBCharacteristic
    ) {
        subscribed.removeAll { $0 === central }
        unsubscribed += 1
    }

    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) { readyCalls += 1 }

    /// The article's closing note: push a value to the subscribed centrals.
    @discardableResult
    func push(_ text: String) -> Bool {
        guard let c = temperatureCharacteristic else { return false }
        return peripheralManager.updateValue(Data(text.utf8), for: c, onSubscribedCentrals: nil)
    }
}

/// The article's central, with its `BluetoothManager` renamed and what it sees recorded.
final class ArticleCentral: CBCentralManagerDelegate, CBPeripheralDelegate {
    var centralManager: CBCentralManager!
    var discoveredPeripheral: CBPeripheral?
    var discoveredTemperatureCharacteristic: CBCharacteristic?
    var discoveredStateCharacteristic: CBCharacteristic?
    var currentTemperature: String = "-"

    let serviceUUID = articleServiceUUID
    let temperatureCharactersticUUID = articleTemperatureUUID
    let stateCharacteristicUUID = articleStateUUID

    // Test additions.
    var temperatures: [String] = []
    var writeResults: [String?] = []
    var notifying: [Bool] = []

    init(world: SimulatedWorld) {
        centralManager = CBCentralManager(delegate: self, queue: nil, world: world)
    }

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

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        if let services = peripheral.services {
            for service in services {
                peripheral.discoverCharacteristics(
                    [temperatureCharactersticUUID, stateCharacteristicUUID], for: service)
            }
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        if let characteristics = service.characteristics {
            for characteristic in characteristics {
                if characteristic.uuid == temperatureCharactersticUUID {
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
        if characteristic.uuid == temperatureCharactersticUUID {
            if let value = characteristic.value, let message = String(data: value, encoding: .utf8) {
                currentTemperature = message
                temperatures.append(message)
            }
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        writeResults.append(error.map { "\($0)" })
    }

    func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic,
        error: (any Error)?
    ) {
        notifying.append(characteristic.isNotifying)
    }

    func requestTemperature() {
        if let discoveredPeripheral, let discoveredTemperatureCharacteristic {
            discoveredPeripheral.readValue(for: discoveredTemperatureCharacteristic)
        }
    }

    func setState(_ state: Bool) {
        if let discoveredPeripheral, let discoveredStateCharacteristic {
            discoveredPeripheral.writeValue(
                Data([state ? 1 : 0]),
                for: discoveredStateCharacteristic,
                type: .withResponse)
        }
    }
}

/// A world with the article's peripheral and central, run until the central is subscribed.
func articleWorld(simulation: CBPeripheralManager.Simulation = .init())
    -> (SimulatedWorld, ArticlePeripheral, ArticleCentral)
{
    let world = SimulatedWorld()
    let peripheral = ArticlePeripheral(simulation: simulation, world: world)
    let central = ArticleCentral(world: world)
    world.run(until: { central.notifying == [true] }, timeout: .seconds(5))
    return (world, peripheral, central)
}

extension SimulatorTrace {
    func managerCalls(_ name: String) -> [(call: PeripheralManagerCall, disposition: PeripheralManagerDisposition)] {
        peripheralManagerRecords.compactMap {
            if case .call(let c, _, _, let d) = $0.entry, c.name == name { (c, d) } else { nil }
        }
    }

    func managerCallbacks() -> [PeripheralManagerCallback] {
        peripheralManagerRecords.compactMap { if case .callback(let c, true) = $0.entry { c } else { nil } }
    }
}
