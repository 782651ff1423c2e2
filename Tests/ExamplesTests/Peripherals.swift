import BLEBytes
import BLESimulator
import Foundation

// The simulated devices the example centrals talk to. They are defined with the world's
// peripheral model (`SimulatedPeripheral`: advertising, GATT table with properties and
// permissions, read/write handlers, notification sources).

let heartRateServiceUUID = CBUUID(string: "180D")
let heartRateMeasurementUUID = CBUUID(string: "2A37")
let bodySensorLocationUUID = CBUUID(string: "2A38")
let heartRateControlPointUUID = CBUUID(string: "2A39")
let batteryServiceUUID = CBUUID(string: "180F")
let batteryLevelUUID = CBUUID(string: "2A19")

/// Heart Rate Measurement values the sensor notifies, one per second: 8-bit and 16-bit formats
/// (flags bit 0, Heart Rate Service 3.1.1.1) and one truncated 16-bit value that the careful
/// length-checked parser must refuse.
let heartRateMeasurements: [[UInt8]] = [[0x00, 72], [0x01, 0x2C, 0x01], [0x00, 75], [0x01, 76]]

/// A heart-rate strap: Heart Rate service (Measurement notify, Body Sensor Location read, Heart
/// Rate Control Point write) and Battery service (Battery Level read/notify), advertising 180D.
/// `controlPointWrites` collects what reached the Control Point.
final class HeartRateStrap {
    let device: SimulatedPeripheral
    private(set) var controlPointWrites: [[UInt8]] = []

    init(address: String = "D8:0D:18:00:00:01") {
        let controlPoint = SimulatedCharacteristic(uuid: heartRateControlPointUUID, properties: [.write])
        device = SimulatedPeripheral(
            address: BDAddr(address)!, name: "Strap",
            services: [
                SimulatedService(
                    uuid: heartRateServiceUUID,
                    characteristics: [
                        SimulatedCharacteristic(uuid: heartRateMeasurementUUID, properties: [.notify]),
                        // chest
                        SimulatedCharacteristic(uuid: bodySensorLocationUUID, properties: [.read], value: [0x01]),
                        controlPoint,
                    ]),
                SimulatedService(
                    uuid: batteryServiceUUID,
                    characteristics: [
                        SimulatedCharacteristic(uuid: batteryLevelUUID, properties: [.read, .notify], value: [91])
                    ]),
            ])
        device.advertisedServiceUUIDs = [heartRateServiceUUID]
        device.notificationSources = [
            .init(
                characteristic: heartRateMeasurementUUID, interval: .seconds(1),
                count: heartRateMeasurements.count
            ) { heartRateMeasurements[$0] }
        ]
        controlPoint.onWrite = { [unowned self] in
            self.controlPointWrites.append($0)
            return nil
        }
    }
}

/// Something else on the air that a filtered scan must not report: a lamp advertising FFE0, a
/// little louder and faster than the strap.
func makeLamp() -> SimulatedPeripheral {
    let p = SimulatedPeripheral(
        address: BDAddr("C0:FF:EE:00:00:02")!, name: "Lamp",
        services: [
            SimulatedService(
                uuid: CBUUID(string: "FFE0"),
                characteristics: [
                    SimulatedCharacteristic(uuid: CBUUID(string: "FFE1"), properties: [.read, .write])
                ])
        ])
    p.advertisedServiceUUIDs = [CBUUID(string: "FFE0")]
    p.advertisingInterval = .milliseconds(20)
    p.rssi = -50
    return p
}

/// The article's ambient sensor: one service FFF0 with a temperature
/// and an on/off state characteristic, both notify/read/write. Its read handler answers the
/// temperature as text with a degree sign; its write handler keeps the state bit. The article
/// answers a random 10…30 °; here the readings come from a fixed list so runs repeat.
/// `acceptsCommands` adds Write Without Response to the state characteristic (for the
/// streaming examples).
final class AmbientSensor {
    static let serviceUUID = CBUUID(string: "0000FFF0-0000-1000-8000-00805F9B34FB")
    static let temperatureUUID = CBUUID(string: "0000FFF1-0000-1000-8000-00805F9B34FB")
    static let stateUUID = CBUUID(string: "0000FFF1-0000-1000-8000-00805F9B34FC")

    let device: SimulatedPeripheral
    private(set) var state = false
    private(set) var stateWrites = 0
    private(set) var bytesWritten = 0
    private var readings = [21, 23, 22, 25]
    private var reads = 0

    init(acceptsCommands: Bool = false, address: String = "F0:F0:00:00:00:01") {
        var stateProperties: CBCharacteristicProperties = [.notify, .read, .write]
        if acceptsCommands { stateProperties.insert(.writeWithoutResponse) }
        let temperature = SimulatedCharacteristic(
            uuid: Self.temperatureUUID, properties: [.notify, .read, .write],
            permissions: [.readable, .writeable])
        let state = SimulatedCharacteristic(
            uuid: Self.stateUUID, properties: stateProperties,
            permissions: [.readable, .writeable], value: [0])
        device = SimulatedPeripheral(
            address: BDAddr(address)!, name: "Ambient",
            services: [
                SimulatedService(uuid: Self.serviceUUID, characteristics: [temperature, state])
            ])
        device.advertisedServiceUUIDs = [Self.serviceUUID]
        // peripheralManager(_:didReceiveRead:): the current temperature as "NN°".
        temperature.onRead = { [unowned self] in
            let degrees = self.readings[self.reads % self.readings.count]
            self.reads += 1
            return .success(Array("\(degrees)°".utf8))
        }
        // peripheralManager(_:didReceiveWrite:): the first byte is the on/off bit.
        state.onWrite = { [unowned self] value in
            self.stateWrites += 1
            self.bytesWritten += value.count
            if let bit = value.first { self.state = bit == 1 }
            return nil
        }
        // The article's closing note: updateValue(_:for:onSubscribedCentrals:) to subscribers.
        device.notificationSources = [
            .init(characteristic: Self.temperatureUUID, interval: .seconds(2), count: 3) {
                Array("\(19 + $0)°".utf8)
            }
        ]
    }
}

/// A world holding `devices`, with `app` created inside it (its `CBCentralManager` joins it).
func world<App>(_ devices: [SimulatedPeripheral], _ app: () -> App) -> (SimulatedWorld, App) {
    let world = SimulatedWorld()
    for d in devices { world.add(d) }
    return (world, SimulatedWorld.withCurrent(world, app))
}
