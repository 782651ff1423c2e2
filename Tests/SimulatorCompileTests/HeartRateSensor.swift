// An iOS heart-rate sensor (peripheral role) in the style of Apple's "Transferring Data Between
// Bluetooth Low Energy Devices" sample and a typical app's `BLEPeripheralManager`. Only the import
// differs from the iOS source.
import BLESimulator
import Foundation

final class HeartRateSensor: NSObject, CBPeripheralManagerDelegate {
    private(set) var peripheralManager: CBPeripheralManager!
    private var measurement: CBMutableCharacteristic?
    private var controlPoint: CBMutableCharacteristic?
    private var service: CBMutableService?

    /// Centrals that subscribed to the measurement, as a set (CBCentral is Hashable).
    private(set) var subscribers: Set<CBCentral> = []
    /// Values `updateValue` could not send yet; flushed in `peripheralManagerIsReady`.
    private var backlog: [Data] = []
    private(set) var sent = 0
    private(set) var energyResets = 0
    private(set) var publishedPSM: CBL2CAPPSM?
    private(set) var addErrors: [any Error] = []
    private(set) var advertising = false
    /// When false, the sensor "forgets" to answer control-point writes (a common bug).
    var answersWrites = true

    static let localName = "Pulse"

    override init() {
        super.init()
        peripheralManager = CBPeripheralManager(
            delegate: self, queue: nil, options: [CBPeripheralManagerOptionShowPowerAlertKey: true])
    }

    // MARK: - CBPeripheralManagerDelegate

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        guard HeartRateMonitor.isUsable(peripheral) else {
            // Core Bluetooth clears the published database below poweredOn.
            subscribers.removeAll()
            advertising = false
            return
        }
        publishServices()
        peripheral.publishL2CAPChannel(withEncryption: false)
    }

    private func publishServices() {
        let measurement = CBMutableCharacteristic(
            type: HeartRateUUIDs.measurement, properties: [.notify], value: nil, permissions: [])
        // Characteristic Presentation Format (Core Vol 3 Part G 3.3.3.5): unsigned 8-bit, unit
        // beats per minute (0x27AF), namespace Bluetooth SIG.
        measurement.descriptors = [
            CBMutableDescriptor(type: HeartRateUUIDs.userDescription, value: "Heart rate"),
            CBMutableDescriptor(
                type: HeartRateUUIDs.presentationFormat, value: Data([0x04, 0x00, 0xAF, 0x27, 0x01, 0x00, 0x00])),
        ]
        let location = CBMutableCharacteristic(
            type: HeartRateUUIDs.bodySensorLocation, properties: [.read], value: Data([0x01]),
            permissions: [.readable])
        let controlPoint = CBMutableCharacteristic(
            type: HeartRateUUIDs.controlPoint, properties: [.write], value: nil, permissions: [.writeable])
        let service = CBMutableService(type: HeartRateUUIDs.service, primary: true)
        service.characteristics = [measurement, location, controlPoint]
        self.measurement = measurement
        self.controlPoint = controlPoint
        self.service = service
        peripheralManager.add(service)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?) {
        if let error {
            addErrors.append(error)
            return
        }
        guard service == self.service else { return }
        peripheral.startAdvertising([
            CBAdvertisementDataLocalNameKey: Self.localName,
            CBAdvertisementDataServiceUUIDsKey: [HeartRateUUIDs.service],
        ])
    }

    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: (any Error)?) {
        if let error, case CBError.alreadyAdvertising = error { return }
        advertising = error == nil
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic
    ) {
        guard characteristic == measurement else { return }
        subscribers.insert(central)
        peripheral.setDesiredConnectionLatency(.low, for: central)
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic
    ) {
        subscribers.remove(central)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        // Only static values here; anything else is not readable.
        peripheral.respond(to: request, withResult: .readNotPermitted)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        guard let first = requests.first else { return }
        guard answersWrites else { return }
        for request in requests {
            guard request.characteristic == controlPoint else {
                return peripheral.respond(to: first, withResult: .writeNotPermitted)
            }
            guard request.offset == 0, let value = request.value, value.count == 1 else {
                return peripheral.respond(to: first, withResult: .invalidAttributeValueLength)
            }
            // Heart Rate Control Point: 0x01 resets Energy Expended; other values are
            // "Control Point value not supported" (Heart Rate Service, ATT error 0x80).
            guard value.first == 0x01 else {
                return peripheral.respond(to: first, withResult: CBATTError.Code(rawValue: 0x80))
            }
            energyResets += 1
        }
        peripheral.respond(to: first, withResult: .success)
    }

    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {
        flush()
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, didPublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?
    ) {
        guard error == nil else { return }
        publishedPSM = PSM
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didOpen channel: CBL2CAPChannel?, error: (any Error)?) {
        guard let channel else { return }
        channel.outputStream.open()
    }

    // MARK: - Sending

    /// Queues one measurement (flags 0: UInt8 beats per minute).
    func send(bpm: UInt8) {
        backlog.append(Data([0x00, bpm]))
        flush()
    }

    private func flush() {
        guard let measurement else { return }
        while let next = backlog.first {
            guard peripheralManager.updateValue(next, for: measurement, onSubscribedCentrals: nil) else { return }
            backlog.removeFirst()
            sent += 1
        }
    }

    func stop() {
        peripheralManager.stopAdvertising()
        if let psm = publishedPSM { peripheralManager.unpublishL2CAPChannel(psm) }
        peripheralManager.removeAllServices()
    }
}
