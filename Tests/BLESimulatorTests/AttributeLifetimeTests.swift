import BLEBytes
import BLESimulator
import BLETimeline
import Foundation
import Testing

/// A central the test drives call by call: it only scans (with `scanServices`) and keeps what
/// the delegate methods tell it.
private final class ScriptedCentral: CBCentralManagerDelegate, CBPeripheralDelegate {
    var central: CBCentralManager!
    let scanServices: [CBUUID]?
    var discovered: [String] = []
    var peripheral: CBPeripheral?

    init(world: SimulatedWorld, scanServices: [CBUUID]?) {
        self.scanServices = scanServices
        central = CBCentralManager(delegate: self, queue: nil, world: world)
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        if central.state == .poweredOn { central.scanForPeripherals(withServices: scanServices) }
    }

    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
        advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {
        discovered.append(peripheral.name ?? "?")
        if peripheral.name == "HRM" { self.peripheral = peripheral }
    }
}

/// The heart-rate sensor connected, its Heart Rate service and characteristics discovered.
private func connectedSensor() throws -> (SimulatedWorld, SimulatedPeripheral, ScriptedCentral, CBPeripheral) {
    let world = SimulatedWorld()
    let sensor = makeHeartRateSensor()
    world.add(sensor)
    let app = ScriptedCentral(world: world, scanServices: [heartRateServiceUUID])
    world.run(for: .seconds(1))
    let p = try #require(app.peripheral)
    p.delegate = app
    app.central.stopScan()
    app.central.connect(p)
    world.run(for: .seconds(1))
    try #require(p.state == .connected)
    p.discoverServices([heartRateServiceUUID])
    world.run(for: .seconds(1))
    let service = try #require(p.services?.first { $0.uuid == heartRateServiceUUID })
    p.discoverCharacteristics(nil, for: service)
    world.run(for: .seconds(1))
    try #require(service.characteristics?.count == 2)
    return (world, sensor, app, p)
}

private func subscriptionsOnAir(_ world: SimulatedWorld) -> Int {
    world.trace.radioEvents.count { if case .subscribe = $0.kind { true } else { false } }
}

/// How a connection ends.
enum LinkEnd: String, CaseIterable, Sendable {
    case cancelPeripheralConnection, linkLoss, peripheralDisconnects
}

@Suite("Discovered attributes and the CCCD, as in Core Bluetooth")
struct AttributeLifetimeTests {
    /// Rule: discovered attributes do not survive the connection. Apple's `CBPeripheral.services`:
    /// "If you haven't yet called the discoverServices(_:) method to discover the services of the
    /// peripheral, or if there was an error in doing so, the value of this property is nil" —
    /// and discovery belongs to a connection: the app discovers again after each
    /// `centralManager(_:didConnect:)`, the old service and characteristic objects being invalid.
    /// After the link ends — the app's `cancelPeripheralConnection(_:)`, link loss, or the
    /// peripheral's own disconnection — `services` is nil; on the next connection a command
    /// naming an old `CBCharacteristic` or `CBService` is refused ("API MISUSE", recorded as
    /// misuse `foreign_attribute`, nothing on the air, no delegate callback) until the app
    /// rediscovers. "Forgot to rediscover after reconnect" fails here.
    @Test(
        "services are nil after the link ends and old attributes are refused after reconnecting",
        arguments: LinkEnd.allCases)
    func attributesInvalidatedByDisconnection(_ end: LinkEnd) throws {
        let (world, sensor, app, p) = try connectedSensor()
        let oldService = try #require(p.services?.first { $0.uuid == heartRateServiceUUID })
        let oldMeasurement = try #require(oldService.characteristics?.first { $0.uuid == heartRateMeasurementUUID })

        switch end {
        case .cancelPeripheralConnection: app.central.cancelPeripheralConnection(p)
        case .linkLoss: world.loseLink(sensor)
        case .peripheralDisconnects: world.disconnect(sensor)
        }
        world.run(for: .seconds(10))
        #expect(p.state == .disconnected)
        #expect(p.services == nil)

        app.central.connect(p)
        world.run(for: .seconds(1))
        try #require(p.state == .connected)
        #expect(p.services == nil)
        let callbacksBefore = world.trace.callbacks.count
        p.setNotifyValue(true, for: oldMeasurement)
        p.readValue(for: oldMeasurement)
        p.discoverCharacteristics(nil, for: oldService)
        world.run(for: .seconds(1))
        for name in ["setNotifyValue(_:for:)", "readValue(for:)", "discoverCharacteristics(_:for:)"] {
            #expect(world.trace.calls(name).last?.disposition == .misuse(.foreignAttribute), "\(name)")
        }
        #expect(subscriptionsOnAir(world) == 0)
        #expect(world.trace.callbacks.count == callbacksBefore)
        #expect(world.trace.log.filter { $0.contains("API MISUSE") }.count == 3)
        #expect(!oldMeasurement.isNotifying)

        // Rediscovering gives new objects that work.
        p.discoverServices([heartRateServiceUUID])
        world.run(for: .seconds(1))
        let service = try #require(p.services?.first { $0.uuid == heartRateServiceUUID })
        #expect(service !== oldService)
        p.discoverCharacteristics([heartRateMeasurementUUID], for: service)
        world.run(for: .seconds(1))
        let measurement = try #require(service.characteristics?.first)
        p.setNotifyValue(true, for: measurement)
        world.run(for: .seconds(1))
        #expect(world.trace.calls("setNotifyValue(_:for:)").last?.disposition == .performed)
        #expect(subscriptionsOnAir(world) == 1)
        #expect(measurement.isNotifying)
    }

    /// Rule: an empty UUID array means the same as nil. Apple documents nil: for
    /// `scanForPeripherals(withServices:options:)` a nil `serviceUUIDs` returns all discovered
    /// peripherals regardless of their services; for `discoverServices(_:)` "If the
    /// servicesUUIDs parameter is nil, this method returns all of the peripheral's available
    /// services" (likewise `discoverCharacteristics(_:for:)`). Core Bluetooth treats an empty
    /// array like nil (not a filter that matches nothing). The trace keeps the argument as
    /// given (`[]`), which the linter's `unfiltered-scan` already reads as unfiltered.
    @Test("an empty UUID array scans for and discovers everything, like nil")
    func emptyArraysMeanAll() throws {
        let world = SimulatedWorld()
        world.add(makeOtherDevice())
        world.add(makeHeartRateSensor())
        let app = ScriptedCentral(world: world, scanServices: [])
        world.run(for: .seconds(1))
        #expect(Set(app.discovered) == ["HRM", "Lamp"])
        #expect(
            world.trace.calls("scanForPeripherals(withServices:options:)").first?.call
                == .scanForPeripherals(services: [], allowDuplicates: false))

        let p = try #require(app.peripheral)
        p.delegate = app
        app.central.stopScan()
        app.central.connect(p)
        world.run(for: .seconds(1))
        p.discoverServices([])
        world.run(for: .seconds(1))
        let uuids = Set(p.services?.map(\.uuid) ?? [])
        #expect(uuids.isSuperset(of: [heartRateServiceUUID, batteryServiceUUID]))
        let service = try #require(p.services?.first { $0.uuid == heartRateServiceUUID })
        p.discoverCharacteristics([], for: service)
        world.run(for: .seconds(1))
        #expect(service.characteristics?.map(\.uuid) == [heartRateMeasurementUUID, CBUUID(string: "2A38")])
    }

    /// Rule: the Client Characteristic Configuration descriptor is not written with
    /// `writeValue(_:for:)`. Apple's documentation of `CBPeripheral.writeValue(_:for:)`: "You
    /// can't use this method to write the value of a client configuration descriptor
    /// (CBUUIDClientCharacteristicConfigurationString). Instead, use setNotifyValue(_:for:)".
    /// Core Bluetooth raises an exception; the simulator refuses the call with "API MISUSE",
    /// records misuse `cccd_write`, sends nothing and calls no delegate method.
    @Test("writeValue(_:for:) on the CCCD is refused and writes nothing")
    func cccdWriteRefused() throws {
        let (world, _, app, p) = try connectedSensor()
        defer { withExtendedLifetime(app) {} }
        let service = try #require(p.services?.first)
        let measurement = try #require(service.characteristics?.first { $0.uuid == heartRateMeasurementUUID })
        p.discoverDescriptors(for: measurement)
        world.run(for: .seconds(1))
        let cccd = try #require(measurement.descriptors?.first { $0.uuid == CBUUID(string: "2902") })
        let radioBefore = world.trace.radioEvents.count
        let callbacksBefore = world.trace.callbacks.count
        p.writeValue(Data([0x01, 0x00]), for: cccd)
        world.run(for: .seconds(1))
        let call = world.trace.calls("writeValue(_:for:) descriptor").last
        #expect(call?.disposition == .misuse(.cccdWrite))
        #expect(world.trace.log.last?.contains("API MISUSE") == true)
        #expect(world.trace.log.last?.contains("setNotifyValue") == true)
        #expect(world.trace.radioEvents.count == radioBefore)
        #expect(world.trace.callbacks.count == callbacksBefore)
        #expect(!measurement.isNotifying)
        // The line decodes as the linter reads it (BLETimeline's strict `SimulatorTraceLine`).
        let line = try #require(
            world.trace.jsonl().split(separator: "\n").last { $0.contains("\"reason\":\"cccd_write\"") })
        let decoded = try JSONDecoder().decode(SimulatorTraceLine.self, from: Data(line.utf8))
        guard case .api(let api) = decoded.body else {
            Issue.record("not an api line: \(line)")
            return
        }
        #expect(api.disposition == .misuse(.cccdWrite))
        #expect(api.call.selector == .writeDescriptor)
    }

    /// Rule: `setNotifyValue(true, for:)` on a characteristic that is already notifying writes
    /// nothing. Apple's `setNotifyValue(_:for:)` sets the characteristic's notification state
    /// (reflected by `isNotifying`); the CCCD is written when that state changes, so calling it
    /// twice writes the descriptor once. Each call still gets
    /// `peripheral(_:didUpdateNotificationStateFor:error:)`.
    @Test("setNotifyValue(true) twice writes the CCCD once")
    func setNotifyTwiceWritesOnce() throws {
        let (world, _, app, p) = try connectedSensor()
        defer { withExtendedLifetime(app) {} }
        let service = try #require(p.services?.first)
        let measurement = try #require(service.characteristics?.first { $0.uuid == heartRateMeasurementUUID })
        p.setNotifyValue(true, for: measurement)
        p.setNotifyValue(true, for: measurement)
        world.run(for: .seconds(1))
        #expect(subscriptionsOnAir(world) == 1)
        #expect(measurement.isNotifying)
        let updates = world.trace.callbackNames().filter { $0 == "peripheral(_:didUpdateNotificationStateFor:error:)" }
        #expect(updates.count == 2)
        // Turning it off is a change: written once more.
        p.setNotifyValue(false, for: measurement)
        world.run(for: .seconds(1))
        #expect(subscriptionsOnAir(world) == 2)
        #expect(!measurement.isNotifying)
    }
}

@Suite("Peripheral objects below poweredOff")
struct PeripheralInvalidationTests {
    /// Rule: Apple's `centralManagerDidUpdateState(_:)`: "A state with a value lower than
    /// poweredOn implies that scanning has stopped, which in turn disconnects any
    /// previously-connected peripherals. If the state moves below poweredOff, all CBPeripheral
    /// objects obtained from this central manager become invalid and must be retrieved or
    /// discovered again." After `.resetting` the old object cannot connect (refused, recorded
    /// as misuse `foreign_attribute`, nothing on the air); `retrievePeripherals(withIdentifiers:)`
    /// hands out a new object that can. `.poweredOff` alone (not below it) keeps the object.
    @Test("after resetting the old CBPeripheral cannot connect; a retrieved one can")
    func resetInvalidatesPeripherals() throws {
        let (world, _, app, old) = try connectedSensor()
        let id = old.identifier
        world.powerOff()
        world.powerOn()
        world.run(for: .seconds(1))
        app.central.connect(old)
        world.run(for: .seconds(1))
        #expect(world.trace.calls("connect(_:options:)").last?.disposition == .performed)
        #expect(old.state == .connected)
        app.central.cancelPeripheralConnection(old)
        world.run(for: .seconds(1))

        world.reset()
        world.run(for: .seconds(5))
        #expect(app.central.state == .poweredOn)
        let connectionsBefore = world.trace.radioEvents.count {
            if case .connectionCreate = $0.kind { true } else { false }
        }
        app.central.connect(old)
        world.run(for: .seconds(1))
        #expect(world.trace.calls("connect(_:options:)").last?.disposition == .misuse(.foreignAttribute))
        #expect(old.state == .disconnected)
        #expect(
            world.trace.radioEvents.count { if case .connectionCreate = $0.kind { true } else { false } }
                == connectionsBefore)

        let fresh = try #require(app.central.retrievePeripherals(withIdentifiers: [id]).first)
        #expect(fresh !== old)
        app.central.connect(fresh)
        world.run(for: .seconds(1))
        #expect(fresh.state == .connected)
        #expect(fresh.services == nil)
    }
}
