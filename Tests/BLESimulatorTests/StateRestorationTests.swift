import BLEBytes
import BLESimulator
import BLETimeline
import Foundation
import Testing

/// Core Bluetooth's central state restoration (000_*.txt "State Restoration"): a relaunched
/// app's manager with the same restore identifier gets the peripherals and scan back.
@Suite("state restoration")
struct StateRestorationTests {
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

/// The seed's restoring central (000_*.txt "Central Manager State Restoration"): re-assigns
/// the delegate and retains the restored peripherals, resumes the scan if there was one,
/// rediscovers on a restored connection, reads the battery level.
private final class RestoringCentral: CBCentralManagerDelegate, CBPeripheralDelegate {
    var central: CBCentralManager!
    var peripheral: CBPeripheral?
    let resumeScan: Bool
    let keepsRestored: Bool
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
            p.discoverServices(nil)
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
