import BLEBytes
import BLESimulator
import BLETimeline
import Foundation
import Testing

/// Core Bluetooth's central state restoration (Apple's state preservation and restoration): a
/// relaunched
/// app's manager with the same restore identifier gets the peripherals and scan back.
@Suite("state restoration")
struct StateRestorationTests {
    /// Rule: a restored connected peripheral comes back with its discovered services,
    /// characteristics and notification state (Apple's Core Bluetooth Programming Guide, "Core
    /// Bluetooth Background Processing for iOS Apps": the system preserves the connected
    /// peripherals and the characteristics the central was subscribed to, issue 18 item 3).
    /// The app needs no rediscovery: `services` is the discovered tree (new objects of the new
    /// process, the old ones stay refused), `isNotifying` is true where it was, and the
    /// notifications the peripheral keeps sending reach `didUpdateValueFor` instead of being
    /// dropped as values for an undiscovered characteristic.
    @Test("a restored peripheral keeps its discovered services and notification state; notifications keep arriving")
    func restoresDiscoveredAttributes() throws {
        let world = SimulatedWorld()
        let sensor = makeHeartRateSensor()
        world.add(sensor)
        var first: RestoringCentral? = SimulatedWorld.withCurrent(world) { RestoringCentral(restoreIdentifier: "hr") }
        world.run(for: .milliseconds(2500))
        let old = try #require(first?.peripheral)
        let oldMeasurement = try #require(
            old.services?.first { $0.uuid == heartRateServiceUUID }?.characteristics?.first {
                $0.uuid == heartRateMeasurementUUID
            })
        #expect(oldMeasurement.isNotifying)
        let oldServices = try #require(old.services).map(\.uuid)
        world.relaunchApp()
        first = nil

        let second = SimulatedWorld.withCurrent(world) {
            let c = RestoringCentral(restoreIdentifier: "hr", resumeScan: false)
            c.rediscovers = false
            return c
        }
        world.run(for: .milliseconds(10))
        let restored = try #require(second.restoredPeripherals.first)
        #expect(restored.services?.map(\.uuid) == oldServices)
        let service = try #require(restored.services?.first { $0.uuid == heartRateServiceUUID })
        #expect(service.peripheral === restored)
        let measurement = try #require(service.characteristics?.first { $0.uuid == heartRateMeasurementUUID })
        #expect(measurement.isNotifying)
        #expect(measurement.handle == oldMeasurement.handle)
        #expect(measurement !== oldMeasurement)
        #expect(measurement.service === service)

        // The sensor goes on notifying (5 values, one a second): they reach the new app.
        world.run(for: .seconds(3))
        #expect(!second.heartRates.isEmpty)
        #expect(!second.didDiscoverServices)
        #expect(
            !world.trace.worldEvents.contains {
                if case .valueForUndiscoveredCharacteristic = $0 { true } else { false }
            })
        // Commands on the restored attributes are accepted; on the old process's, refused.
        restored.readValue(for: measurement)
        restored.readValue(for: oldMeasurement)
        let reads = world.trace.apiCalls.filter { $0.call.name == "readValue(for:)" }.suffix(2).map(\.disposition)
        #expect(reads == [.performed, .misuse(.foreignAttribute)])
    }

    /// Rule: `peripheralManager(_:willRestoreState:)` is called for a peripheral manager created
    /// with `CBPeripheralManagerOptionRestoreIdentifierKey` in the relaunched app, before its
    /// first state update, with the still-published services
    /// (`CBPeripheralManagerRestoredStateServicesKey`) and the advertisement
    /// (`CBPeripheralManagerRestoredStateAdvertisementDataKey`) (Apple,
    /// `peripheralManager(_:willRestoreState:)`). The system kept the database, the advertising and
    /// the subscribed central:
    /// the central's connection never dropped and the new app's `updateValue` reaches it.
    @Test("a relaunched peripheral manager gets willRestoreState first; its services and subscriber are kept")
    func restoresPeripheralManager() throws {
        let world = SimulatedWorld()
        var first: RestoringSensor? = SimulatedWorld.withCurrent(world) { RestoringSensor(restoreIdentifier: "sensor") }
        let central = ArticleCentral(world: world)
        _ = world.run(until: { central.notifying == [true] }, timeout: .seconds(5))
        #expect(first?.subscribers == 1)
        // The sensor app's process ends (the central runs on another phone and stays).
        first = nil
        #expect(
            world.trace.worldEvents.contains(
                .peripheralManagerStatePreserved(
                    restoreIdentifier: "sensor", services: [articleServiceUUID], isAdvertising: true)))
        world.run(for: .milliseconds(200))

        let second = SimulatedWorld.withCurrent(world) { RestoringSensor(restoreIdentifier: "sensor") }
        world.run(for: .milliseconds(20))
        #expect(second.events.prefix(2) == ["willRestoreState", "didUpdateState poweredOn"])
        #expect(second.restoredServices.map(\.uuid) == [articleServiceUUID])
        #expect(second.restoredAdvertisedServices == [articleServiceUUID])
        // Published still: the restored characteristic notifies the central that never left.
        let characteristic = try #require(
            second.restoredServices.first?.characteristics?.first as? CBMutableCharacteristic)
        #expect(second.manager.updateValue(Data("31°".utf8), for: characteristic, onSubscribedCentrals: nil))
        world.run(for: .milliseconds(200))
        #expect(central.temperatures.last == "31°")
        #expect(
            world.trace.radioEvents.count { if case .connectionComplete = $0.kind { true } else { false } } == 1)
        #expect(world.trace.managerCallbacks().contains { $0.name == "peripheralManager(_:willRestoreState:)" })

        // Without the identifier nothing is kept: a new manager hears no restoration.
        let plain = SimulatedWorld.withCurrent(world) { RestoringSensor(restoreIdentifier: nil) }
        world.run(for: .milliseconds(20))
        #expect(plain.events == ["didUpdateState poweredOn"])
    }

    @Test(
        "a relaunched app's manager gets its connected peripheral in willRestoreState, before the state update, and uses it"
    )
    func restoresConnectedPeripheral() throws {
        let world = SimulatedWorld()
        let sensor = makeHeartRateSensor()
        world.add(sensor)
        var first: RestoringCentral? = SimulatedWorld.withCurrent(world) {
            RestoringCentral(restoreIdentifier: "myCentral")
        }
        world.run(for: .milliseconds(2500))
        #expect(first?.peripheral?.state == .connected)
        let heardBefore = first?.heartRates.count ?? 0
        #expect(heardBefore >= 1)

        world.relaunchApp()
        first = nil
        // The connection stays up while no app runs.
        #expect(
            world.trace.worldEvents.contains(
                .centralStatePreserved(
                    restoreIdentifier: "myCentral",
                    peripherals: [sensor.identifier], isScanning: false)))
        world.run(for: .milliseconds(500))

        let second = SimulatedWorld.withCurrent(world) { RestoringCentral(restoreIdentifier: "myCentral") }
        world.run(for: .milliseconds(10))
        // willRestoreState came first, then the state update.
        #expect(second.events.prefix(2) == ["willRestoreState", "didUpdateState poweredOn"])
        let restored = try #require(second.restoredPeripherals.first)
        #expect(second.restoredPeripherals.count == 1)
        #expect(restored.identifier == sensor.identifier)
        #expect(restored.state == .connected)
        #expect(second.restoredScanServices == nil)
        // No new connection was made: the same one goes on (one LE Connection Complete).
        #expect(
            world.trace.radioEvents.filter { if case .connectionComplete = $0.kind { true } else { false } }.count == 1)

        // Usable: the app discovers, reads and subscribes again on the restored connection.
        world.run(for: .seconds(3))
        #expect(second.batteryLevel == 87)
        #expect(second.didDiscoverServices)
        let callbacks = world.trace.callbacks.map(\.name)
        let restore = try #require(callbacks.firstIndex(of: "centralManager(_:willRestoreState:)"))
        let update = try #require(callbacks[restore...].firstIndex(of: "centralManagerDidUpdateState(_:)"))
        #expect(restore < update)
        #expect(
            world.trace.jsonl().contains(
                "\"callback\":\"centralManager(_:willRestoreState:)\",\"central\":2,\"delivered\":true,\"peripherals\":[\"\(sensor.identifier.uuidString)\"],\"is_scanning\":false"
            ))
    }

    @Test("a scan in progress comes back as services and options; the scan itself stopped with the app")
    func restoresScan() throws {
        let world = SimulatedWorld()
        world.add(makeOtherDevice())  // advertises FFF0 only: the 180D scan runs on
        var first: RestoringCentral? = SimulatedWorld.withCurrent(world) {
            RestoringCentral(restoreIdentifier: "scanner")
        }
        world.run(for: .seconds(1))
        #expect(first?.central.isScanning == true)
        world.relaunchApp()
        first = nil
        #expect(world.trace.radio("scan.stop").count == 1)
        let second = SimulatedWorld.withCurrent(world) {
            RestoringCentral(restoreIdentifier: "scanner", resumeScan: false)
        }
        world.run(for: .milliseconds(10))
        #expect(second.restoredPeripherals.isEmpty)
        #expect(second.restoredScanServices == [heartRateServiceUUID])
        #expect(second.restoredAllowDuplicates == false)
        #expect(second.central.isScanning == false)
    }

    @Test("without the restore identifier nothing is restored and the old connections end")
    func withoutIdentifierNothingRestored() throws {
        let world = SimulatedWorld()
        let sensor = makeHeartRateSensor()
        world.add(sensor)
        var first: RestoringCentral? = SimulatedWorld.withCurrent(world) { RestoringCentral(restoreIdentifier: nil) }
        world.run(for: .milliseconds(2500))
        #expect(first?.peripheral?.state == .connected)
        world.relaunchApp()
        first = nil
        #expect(!world.isConnected(sensor))
        let end = try #require(
            world.trace.radioEvents.last { if case .disconnection = $0.kind { true } else { false } })
        if case .disconnection(_, let reason, let side) = end.kind {
            #expect(reason == 0x16)
            #expect(side == .local)
        }
        // A new manager with an identifier finds nothing kept under it either.
        let second = SimulatedWorld.withCurrent(world) {
            RestoringCentral(restoreIdentifier: "myCentral", resumeScan: false)
        }
        world.run(for: .seconds(1))
        #expect(second.events.first == "didUpdateState poweredOn")
        #expect(!second.events.contains("willRestoreState"))
        #expect(!world.trace.callbacks.contains { if case .willRestoreState = $0 { true } else { false } })
    }

    @Test("a manager without the key in the relaunched app does not take over a kept connection")
    func otherIdentifierDoesNotRestore() throws {
        let world = SimulatedWorld()
        world.add(makeHeartRateSensor())
        var first: RestoringCentral? = SimulatedWorld.withCurrent(world) { RestoringCentral(restoreIdentifier: "a") }
        world.run(for: .milliseconds(2500))
        #expect(first?.central.restoreIdentifier == "a")
        world.relaunchApp()
        first = nil
        let plain = SimulatedWorld.withCurrent(world) { RestoringCentral(restoreIdentifier: nil, resumeScan: false) }
        let other = SimulatedWorld.withCurrent(world) { RestoringCentral(restoreIdentifier: "b", resumeScan: false) }
        world.run(for: .seconds(1))
        #expect(!plain.events.contains("willRestoreState"))
        #expect(!other.events.contains("willRestoreState"))
        // The kept state waits for its own identifier.
        let owner = SimulatedWorld.withCurrent(world) { RestoringCentral(restoreIdentifier: "a", resumeScan: false) }
        world.run(for: .milliseconds(10))
        #expect(owner.restoredPeripherals.count == 1)
        #expect(owner.restoredPeripherals.first?.state == .connected)
    }

    @Test("restored peripherals the app does not keep are released like any other: the connection ends")
    func unretainedRestoredPeripheralReleased() throws {
        let world = SimulatedWorld()
        let sensor = makeHeartRateSensor()
        world.add(sensor)
        var first: RestoringCentral? = SimulatedWorld.withCurrent(world) { RestoringCentral(restoreIdentifier: "x") }
        world.run(for: .milliseconds(2500))
        #expect(first?.peripheral?.state == .connected)
        world.relaunchApp()
        first = nil
        let careless = SimulatedWorld.withCurrent(world) {
            RestoringCentral(restoreIdentifier: "x", resumeScan: false, keepsRestored: false)
        }
        world.run(for: .milliseconds(100))
        #expect(careless.events.first == "willRestoreState")
        #expect(world.trace.worldEvents.contains(.peripheralReleased(peripheral: sensor.identifier, state: .connected)))
        #expect(!world.isConnected(sensor))
    }
}

/// A restoring central as Apple's `centralManager(_:willRestoreState:)` expects it: re-assigns
/// the delegate and retains the restored peripherals, resumes the scan if there was one,
/// rediscovers on a restored connection, reads the battery level.
private final class RestoringCentral: CBCentralManagerDelegate, CBPeripheralDelegate {
    var central: CBCentralManager!
    var peripheral: CBPeripheral?
    let resumeScan: Bool
    let keepsRestored: Bool
    /// Discovers again on a restored connection (an app that trusts the restored services does not).
    var rediscovers = true
    var events: [String] = []
    var restoredPeripherals: [CBPeripheral] = []
    var restoredScanServices: [CBUUID]?
    var restoredAllowDuplicates: Bool?
    var heartRates: [UInt8] = []
    var batteryLevel: Int?
    var didDiscoverServices = false

    init(restoreIdentifier: String?, resumeScan: Bool = true, keepsRestored: Bool = true) {
        self.resumeScan = resumeScan
        self.keepsRestored = keepsRestored
        let options: [String: Any]? = restoreIdentifier.map { [CBCentralManagerOptionRestoreIdentifierKey: $0] }
        central = CBCentralManager(delegate: self, queue: nil, options: options)
    }

    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        events.append("willRestoreState")
        let peripherals = dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral] ?? []
        restoredScanServices = dict[CBCentralManagerRestoredStateScanServicesKey] as? [CBUUID]
        let options = dict[CBCentralManagerRestoredStateScanOptionsKey] as? [String: Any]
        restoredAllowDuplicates = (options?[CBCentralManagerScanOptionAllowDuplicatesKey] as? NSNumber)?.boolValue
        guard keepsRestored else { return }
        restoredPeripherals = peripherals
        for p in peripherals {
            p.delegate = self
            peripheral = p
        }
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        events.append("didUpdateState \(central.state)")
        guard central.state == .poweredOn else { return }
        if let p = peripheral, p.state == .connected {
            if rediscovers { p.discoverServices(nil) }
        } else if resumeScan {
            central.scanForPeripherals(withServices: [heartRateServiceUUID])
        }
    }

    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
        advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {
        self.peripheral = peripheral
        central.stopScan()
        central.connect(peripheral)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.delegate = self
        peripheral.discoverServices(nil)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        didDiscoverServices = true
        for s in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: s) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        for c in service.characteristics ?? [] {
            if c.properties.contains(.notify) { peripheral.setNotifyValue(true, for: c) }
            if c.properties.contains(.read) { peripheral.readValue(for: c) }
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        guard let v = characteristic.value, let first = v.first else { return }
        if characteristic.uuid == batteryLevelUUID { batteryLevel = Int(first) }
        if characteristic.uuid == heartRateMeasurementUUID, v.count >= 2 { heartRates.append(v[v.startIndex + 1]) }
    }
}

/// A peripheral manager that restores its state (Apple's `peripheralManager(_:willRestoreState:)`):
/// publishes the article's service on first launch; on a restored launch it takes the kept
/// services instead of adding them again.
private final class RestoringSensor: CBPeripheralManagerDelegate {
    var manager: CBPeripheralManager!
    var events: [String] = []
    var restoredServices: [CBMutableService] = []
    var restoredAdvertisedServices: [CBUUID]?
    var subscribers = 0

    init(restoreIdentifier: String?) {
        let options: [String: Any]? = restoreIdentifier.map { [CBPeripheralManagerOptionRestoreIdentifierKey: $0] }
        manager = CBPeripheralManager(delegate: self, queue: nil, options: options)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, willRestoreState dict: [String: Any]) {
        events.append("willRestoreState")
        restoredServices = dict[CBPeripheralManagerRestoredStateServicesKey] as? [CBMutableService] ?? []
        let advertisement = dict[CBPeripheralManagerRestoredStateAdvertisementDataKey] as? [String: Any]
        restoredAdvertisedServices = advertisement?[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID]
    }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        events.append("didUpdateState \(peripheral.state)")
        guard peripheral.state == .poweredOn, restoredServices.isEmpty else { return }
        let temperature = CBMutableCharacteristic(
            type: articleTemperatureUUID, properties: [.notify, .read], value: nil, permissions: [.readable])
        let service = CBMutableService(type: articleServiceUUID, primary: true)
        service.characteristics = [temperature]
        peripheral.add(service)
        peripheral.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [articleServiceUUID]])
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic
    ) {
        subscribers += 1
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        request.value = Data("20°".utf8)
        peripheral.respond(to: request, withResult: .success)
    }
}
