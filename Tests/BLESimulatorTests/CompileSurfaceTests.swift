import BLEBytes
import BLESimulator
import Foundation
import Testing

/// A central that connects to the first device it hears and discovers everything, reading every
/// descriptor; it keeps what the delegate methods hand it.
private final class ExploringCentral: CBCentralManagerDelegate, CBPeripheralDelegate {
    var central: CBCentralManager!
    var peripheral: CBPeripheral?
    var descriptorValues: [CBUUID: Any] = [:]
    var errors: [any Error] = []
    var opened: [(channel: CBL2CAPChannel?, error: (any Error)?)] = []

    init(world: SimulatedWorld) { central = CBCentralManager(delegate: self, queue: nil, world: world) }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        if central.state == .poweredOn { central.scanForPeripherals(withServices: nil) }
    }
    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
        advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {
        guard self.peripheral == nil else { return }
        self.peripheral = peripheral
        central.stopScan()
        central.connect(peripheral)
    }
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.delegate = self
        peripheral.discoverServices(nil)
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        for s in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: s) }
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        for c in service.characteristics ?? [] { peripheral.discoverDescriptors(for: c) }
    }
    func peripheral(
        _ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: (any Error)?
    ) {
        for d in characteristic.descriptors ?? [] { peripheral.readValue(for: d) }
    }
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor descriptor: CBDescriptor, error: (any Error)?) {
        if let error { errors.append(error) } else { descriptorValues[descriptor.uuid] = descriptor.value }
    }
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        if let error { errors.append(error) }
    }
    func peripheral(_ peripheral: CBPeripheral, didOpen channel: CBL2CAPChannel?, error: (any Error)?) {
        opened.append((channel, error))
    }
}

/// A device with a write-only characteristic carrying a user description, a presentation
/// format and a CCCD (notify), so every typed descriptor kind is on its server.
private func describedDevice() -> SimulatedPeripheral {
    let c = SimulatedCharacteristic(
        uuid: CBUUID(string: "FFF1"), properties: [.write, .notify],
        descriptors: [
            SimulatedDescriptor(
                uuid: CBUUID(string: CBUUIDCharacteristicUserDescriptionString), value: Array("Dimmer".utf8)),
            SimulatedDescriptor(
                uuid: CBUUID(string: CBUUIDCharacteristicFormatString), value: [0x04, 0, 0, 0x27, 1, 0, 0]),
            SimulatedDescriptor(uuid: CBUUID(string: "FFF9"), value: [0xAB]),
        ])
    let p = SimulatedPeripheral(
        address: BDAddr("C0:FF:EE:00:00:07")!, name: "Lamp",
        services: [SimulatedService(uuid: CBUUID(string: "FFF0"), characteristics: [c])])
    p.advertisedServiceUUIDs = [CBUUID(string: "FFF0")]
    return p
}

private func exploredWorld() throws -> (SimulatedWorld, ExploringCentral, CBPeripheral) {
    let world = SimulatedWorld()
    world.add(describedDevice())
    let app = ExploringCentral(world: world)
    world.run(for: .seconds(2))
    let p = try #require(app.peripheral)
    try #require(p.state == .connected)
    return (world, app, p)
}

@Suite("Core Bluetooth's compile surface: identity, CBManager/CBPeer, errors, typed descriptors, L2CAP")
struct CompileSurfaceTests {
    /// Rule: Core Bluetooth's objects are `NSObject`s compared by identity (`isEqual:` and `hash`
    /// of `NSObject`): `Set<CBPeripheral>`, `Set<CBCharacteristic>`, `==` and `firstIndex(of:)`
    /// work and distinguish objects, not UUIDs. Two discoveries of the same characteristic on two
    /// connections are different objects (the first invalid after the link ended).
    @Test("CBPeripheral, CBService, CBCharacteristic and CBDescriptor are Hashable by identity")
    func identitySemantics() throws {
        let (world, app, p) = try exploredWorld()
        let service = try #require(p.services?.first)
        let c = try #require(service.characteristics?.first)
        let descriptors = try #require(c.descriptors)
        #expect(Set(descriptors).count == descriptors.count)
        #expect(descriptors.firstIndex(of: descriptors[1]) == 1)
        let peripherals: Set<CBPeripheral> = [p, p]
        #expect(peripherals.count == 1)
        #expect(p == app.peripheral)
        let peer: CBPeer = p
        #expect(peer.identifier == p.identifier)

        // Rediscovered after a reconnection: equal UUID, a different object.
        app.central.cancelPeripheralConnection(p)
        world.run(for: .seconds(1))
        app.central.connect(p)
        world.run(for: .seconds(2))
        let again = try #require(p.services?.first?.characteristics?.first)
        #expect(again.uuid == c.uuid)
        #expect(again != c)
        #expect(!Set<CBCharacteristic>([c]).contains(again))
        #expect(Set<CBService>([service]).count == 1)
    }

    /// Rule: `CBCentralManager` and `CBPeripheralManager` are `CBManager`s (iOS 10+), whose
    /// `state` starts `.unknown`, and whose `authorization` (instance, iOS 13.1+; class property,
    /// iOS 13.1+) is the app's Bluetooth authorization; `CBPeripheral` and `CBCentral` are
    /// `CBPeer`s with an `identifier`.
    @Test("CBManager is the managers' base class and answers authorization; CBPeer carries the identifier")
    func managerAndPeer() {
        var configuration = SimulatedWorld.Configuration()
        configuration.authorization = .denied
        let world = SimulatedWorld(configuration: configuration)
        let managers: [CBManager] = [
            CBCentralManager(delegate: nil, queue: nil, world: world),
            CBPeripheralManager(delegate: nil, queue: nil, world: world),
        ]
        #expect(managers.map(\.state) == [.unknown, .unknown])
        #expect(managers.map(\.authorization) == [.denied, .denied])
        world.run(for: .milliseconds(50))
        #expect(managers.map(\.state) == [.unauthorized, .unauthorized])
        #expect(SimulatedWorld.withCurrent(world) { CBManager.authorization } == .denied)
        #expect(CBManager.authorization == .allowedAlways)
        #expect(!CBCentralManager.supports(.extendedScanAndConnect))
        #expect(CBCentralManager.supports([]))
    }

    /// Rule: Core Bluetooth's errors are `NSError`s in `CBATTErrorDomain` (code = the ATT Error
    /// Response code, Core Vol 3 Part F Table 3.4) and `CBErrorDomain` (code = `CBError.Code`'s
    /// raw value, Apple's `CBError.h`); Swift code matches them with the static aliases
    /// (`CBATTError.readNotPermitted`, `CBError.peripheralDisconnected`).
    @Test("errors bridge to NSError with Apple's domains and codes, and match the static aliases")
    func errorBridging() throws {
        let (world, app, p) = try exploredWorld()
        let c = try #require(p.services?.first?.characteristics?.first)
        p.readValue(for: c)  // write-only: the server answers Read Not Permitted (0x02)
        world.run(for: .seconds(1))
        let error = try #require(app.errors.first)
        let ns = error as NSError
        #expect(ns.domain == CBATTErrorDomain)
        #expect(ns.domain == "CBATTErrorDomain")
        #expect(ns.code == 2)
        #expect(ns.localizedDescription == "Reading is not permitted.")
        #expect(CBATTError.readNotPermitted ~= error)
        #expect((error as? CBATTError)?.code == CBATTError.readNotPermitted)

        let disconnected = CBError(.peripheralDisconnected) as NSError
        #expect(disconnected.domain == CBErrorDomain)
        #expect(disconnected.code == 7)
        #expect(CBError.Code(rawValue: 7) == CBError.peripheralDisconnected)
        #expect(CBError.connectionTimeout.rawValue == 6)
        #expect(CBError.leGattNearBackgroundNotificationLimit.rawValue == 18)
        #expect(CBATTError.insufficientEncryption.rawValue == 0x0F)
        #expect(CBATTError.insufficientResources.rawValue == 0x11)
    }

    /// Rule: `CBDescriptor.value` is typed by descriptor (Apple, `CBDescriptor` and the
    /// `CBUUID…String` constants): `String` for Characteristic User Description (0x2901),
    /// `NSNumber` for Client Characteristic Configuration (0x2902), `Data` for Presentation
    /// Format (0x2904) and any other descriptor.
    @Test("descriptor values are String for 0x2901, NSNumber for 0x2902 and Data otherwise")
    func typedDescriptorValues() throws {
        let (_, app, _) = try exploredWorld()
        #expect(app.descriptorValues[CBUUID(string: CBUUIDCharacteristicUserDescriptionString)] as? String == "Dimmer")
        let cccd = app.descriptorValues[CBUUID(string: CBUUIDClientCharacteristicConfigurationString)] as? NSNumber
        #expect(cccd?.uint16Value == 0)
        #expect(
            app.descriptorValues[CBUUID(string: CBUUIDCharacteristicFormatString)] as? Data
                == Data([0x04, 0, 0, 0x27, 1, 0, 0]))
        #expect(app.descriptorValues[CBUUID(string: "FFF9")] as? Data == Data([0xAB]))
    }

    /// Rule: `CBMutableDescriptor` supports only Characteristic User Description and
    /// Characteristic Presentation Format (Apple, `init(type:value:)`); the system makes the
    /// CCCD. A published user description is read back by a central as a `String`; a service
    /// with any other mutable descriptor is refused (`didAdd` with `CBError.invalidParameters`,
    /// misuse `unsupported_descriptor`).
    @Test("CBMutableDescriptor: 0x2901 and 0x2904 are published, others refused")
    func mutableDescriptors() throws {
        final class Publisher: CBPeripheralManagerDelegate {
            var manager: CBPeripheralManager!
            var descriptors: [CBMutableDescriptor] = []
            var addErrors: [(any Error)?] = []
            func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
                guard peripheral.state == .poweredOn else { return }
                let c = CBMutableCharacteristic(
                    type: CBUUID(string: "FFF1"), properties: [.read], value: Data([1]), permissions: [.readable])
                c.descriptors = descriptors
                let s = CBMutableService(type: CBUUID(string: "FFF0"), primary: true)
                s.characteristics = [c]
                peripheral.add(s)
                peripheral.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "FFF0")]])
            }
            func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?) {
                addErrors.append(error)
            }
        }
        let world = SimulatedWorld()
        let good = Publisher()
        good.descriptors = [
            CBMutableDescriptor(type: CBUUID(string: CBUUIDCharacteristicUserDescriptionString), value: "Level")
        ]
        good.manager = CBPeripheralManager(delegate: good, queue: nil, world: world)
        let app = ExploringCentral(world: world)
        world.run(for: .seconds(2))
        #expect(good.addErrors.count == 1 && good.addErrors[0] == nil)
        #expect(app.descriptorValues[CBUUID(string: CBUUIDCharacteristicUserDescriptionString)] as? String == "Level")

        let bad = Publisher()
        bad.descriptors = [
            CBMutableDescriptor(type: CBUUID(string: CBUUIDClientCharacteristicConfigurationString), value: nil)
        ]
        let otherWorld = SimulatedWorld()
        bad.manager = CBPeripheralManager(delegate: bad, queue: nil, world: otherWorld)
        otherWorld.run(for: .milliseconds(100))
        let error = try #require(bad.addErrors.first ?? nil)
        #expect(CBError.invalidParameters ~= error)
        #expect(
            otherWorld.trace.managerCalls("add(_:)").map(\.disposition) == [.misuse(.unsupportedDescriptor)])
    }

    /// Rule: an L2CAP channel the peer does not serve is refused on the LE signalling channel
    /// (Core Vol 3 Part A 4.23, "SPSM not supported"), which Core Bluetooth reports in
    /// `peripheral(_:didOpen:error:)` with a nil channel and CBErrorDomain code 1
    /// (`invalidParameters`), as seen from macOS against a peer without the PSM
    /// (embassy-rs/trouble issue 371). The simulator models no credit-based channels: every open
    /// fails so; publishing hands out PSMs from the LE dynamic range 0x0080–0x00FF (Part A 4.22).
    @Test("openL2CAPChannel fails with invalidParameters; publishL2CAPChannel reports a dynamic PSM")
    func l2capFailsRealistically() throws {
        let (world, app, p) = try exploredWorld()
        p.openL2CAPChannel(0x0081)
        #expect(app.opened.isEmpty)  // asynchronous, as on iOS
        world.run(for: .milliseconds(200))
        #expect(app.opened.count == 1)
        #expect(app.opened.first?.channel == nil)
        let error = try #require(app.opened.first?.error) as NSError
        #expect(error.domain == CBErrorDomain && error.code == 1)
        #expect(world.trace.callbacks.contains { $0.name == "peripheral(_:didOpen:error:)" })

        final class Publisher: CBPeripheralManagerDelegate {
            var psms: [CBL2CAPPSM] = []
            var unpublished: [(CBL2CAPPSM, Bool)] = []
            func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
                guard peripheral.state == .poweredOn else { return }
                peripheral.publishL2CAPChannel(withEncryption: true)
                peripheral.publishL2CAPChannel(withEncryption: false)
            }
            func peripheralManager(
                _ peripheral: CBPeripheralManager, didPublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?
            ) {
                psms.append(PSM)
            }
            func peripheralManager(
                _ peripheral: CBPeripheralManager, didUnpublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?
            ) {
                unpublished.append((PSM, error == nil))
            }
        }
        let other = SimulatedWorld()
        let publisher = Publisher()
        let manager = CBPeripheralManager(delegate: publisher, queue: nil, world: other)
        other.run(for: .milliseconds(100))
        #expect(publisher.psms.count == 2 && Set(publisher.psms).count == 2)
        #expect(publisher.psms.allSatisfy { (0x80...0xFF).contains($0) })
        manager.unpublishL2CAPChannel(publisher.psms[0])
        manager.unpublishL2CAPChannel(0x0042)
        other.run(for: .milliseconds(100))
        #expect(publisher.unpublished.map(\.1) == [true, false])
    }
}
