import BLEBytes
import BLESimulator
import BLETimeline
import Foundation
import Testing

@Suite("Core Bluetooth semantics")
struct CoreBluetoothSemanticsTests {
    @Test("scanning in init, before poweredOn, is ignored with API MISUSE and recorded")
    func scanBeforePoweredOn() {
        let (world, _, app) = heartRateWorld(scansInInit: true)
        let misuse = world.trace.apiCalls.first { $0.call.name == "scanForPeripherals(withServices:options:)" }
        #expect(misuse?.disposition == .misuse(.notPoweredOn))
        #expect(misuse?.context.managerState == .unknown)
        #expect(misuse?.context.inCallback == nil)
        #expect(misuse?.call == .scanForPeripherals(services: nil, allowDuplicates: false))
        #expect(world.trace.log.count == 1)
        #expect(world.trace.log.first?.contains("API MISUSE") == true)
        #expect(world.trace.radio("scan.start").isEmpty)
        #expect(app.centralManager.isScanning == false)
        // The correct scan from didUpdateState then works.
        world.run(for: .seconds(2))
        #expect(world.trace.radio("scan.start").count == 1)
        #expect(app.connected == 1)
    }

    @Test("a correct central logs no misuse")
    func noMisuseWhenCorrect() {
        let (world, _, _) = heartRateWorld()
        world.run(for: .seconds(2))
        #expect(world.trace.log.isEmpty)
        #expect(!world.trace.apiCalls.contains { if case .misuse = $0.disposition { true } else { false } })
    }

    @Test("discovering before didConnect is API MISUSE and sends nothing")
    func discoverBeforeConnected() {
        final class Eager: CBCentralManagerDelegate {
            var central: CBCentralManager!
            var peripheral: CBPeripheral?
            func centralManagerDidUpdateState(_ central: CBCentralManager) {
                if central.state == .poweredOn { central.scanForPeripherals(withServices: [heartRateServiceUUID]) }
            }
            func centralManager(
                _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                advertisementData: [String: Any], rssi RSSI: NSNumber
            ) {
                self.peripheral = peripheral
                central.stopScan()
                central.connect(peripheral)
                peripheral.discoverServices([heartRateServiceUUID])  // WRONG: not connected yet
            }
        }
        let world = SimulatedWorld()
        world.add(makeHeartRateSensor())
        let app = Eager()
        app.central = CBCentralManager(delegate: app, queue: nil, world: world)
        world.run(for: .seconds(2))
        let call = world.trace.calls("discoverServices(_:)").first
        #expect(call?.disposition == .misuse(.notConnected))
        #expect(call?.context.peripheralState == .connecting)
        #expect(call?.context.inCallback == "centralManager(_:didDiscover:advertisementData:rssi:)")
        #expect(!world.trace.radioEvents.contains { if case .discovery = $0.kind { true } else { false } })
        #expect(app.peripheral?.state == .connected)
    }

    @Test("power-off mid-connection ends the connection and the scan with only a state update")
    func powerOffMidConnection() {
        let (world, sensor, app) = heartRateWorld()
        world.run(for: .milliseconds(2500))
        #expect(app.heartRates.count == 2)
        let peripheral = try! #require(app.discoveredPeripheral)
        world.powerOff()
        #expect(app.states == [.poweredOn, .poweredOff])
        #expect(peripheral.state == .disconnected)
        #expect(app.disconnections.isEmpty)  // no didDisconnectPeripheral on power-off
        #expect(app.centralManager.isScanning == false)
        let disconnection = world.trace.radioEvents.last { if case .disconnection = $0.kind { true } else { false } }
        if case .disconnection(_, let reason, let side)? = disconnection?.kind {
            #expect(reason == 0x16)
            #expect(side == .local)
        } else {
            Issue.record("no disconnection on the air")
        }
        // Nothing more arrives while off; the sensor's notifications are not delivered.
        world.notify(sensor, characteristic: heartRateMeasurementUUID, value: [0x00, 99])
        world.run(for: .seconds(3))
        #expect(app.heartRates.count == 2)
        // Calls while off are misuse.
        app.centralManager.scanForPeripherals(withServices: [heartRateServiceUUID])
        #expect(world.trace.apiCalls.last?.disposition == .misuse(.notPoweredOn))
        // Power back on: the seed restarts from didUpdateState and connects again.
        world.powerOn()
        world.run(for: .seconds(3))
        #expect(app.states == [.poweredOn, .poweredOff, .poweredOn])
        #expect(app.connected == 2)
    }

    @Test("link loss: didDisconnect with connectionTimeout after the supervision timeout, request cut off")
    func linkLoss() {
        let (world, sensor, app) = heartRateWorld()
        world.run(for: .milliseconds(1500))
        let peripheral = try! #require(app.discoveredPeripheral)
        let battery = try! #require(
            peripheral.services?.first { $0.uuid == batteryServiceUUID }?.characteristics?.first)
        world.loseLink(sensor)
        peripheral.readValue(for: battery)
        world.run(for: .milliseconds(1999))
        #expect(app.disconnections.isEmpty)
        world.run(for: .milliseconds(2))
        #expect(app.disconnections.count == 1)
        #expect(app.disconnections.first?.isReconnecting == false)
        #expect(app.disconnections.first.map { CBError.connectionTimeout ~= $0.error! } == true)
        #expect(peripheral.state == .disconnected)
        let events = world.trace.radioEvents
        let disconnection = try! #require(events.last { if case .disconnection = $0.kind { true } else { false } })
        if case .disconnection(_, let reason, let side) = disconnection.kind {
            #expect(reason == 0x08)
            #expect(side == .linkLoss)
        }
        let lastRead = try! #require(events.last { if case .read = $0.kind { true } else { false } })
        #expect(lastRead.outcome == .disconnected(frame: disconnection.frame))
    }

    @Test("link loss with auto-reconnect reports isReconnecting and connects again")
    func linkLossAutoReconnect() {
        final class AutoReconnecting: CBCentralManagerDelegate {
            var central: CBCentralManager!
            var peripheral: CBPeripheral?
            var connects = 0
            var reconnecting: [Bool] = []
            func centralManagerDidUpdateState(_ central: CBCentralManager) {
                if central.state == .poweredOn { central.scanForPeripherals(withServices: [heartRateServiceUUID]) }
            }
            func centralManager(
                _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                advertisementData: [String: Any], rssi RSSI: NSNumber
            ) {
                self.peripheral = peripheral
                central.stopScan()
                central.connect(peripheral, options: [CBConnectPeripheralOptionEnableAutoReconnect: true])
            }
            func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) { connects += 1 }
            func centralManager(
                _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
                timestamp: CFAbsoluteTime, isReconnecting: Bool, error: (any Error)?
            ) {
                reconnecting.append(isReconnecting)
            }
        }
        let world = SimulatedWorld()
        let sensor = makeHeartRateSensor()
        world.add(sensor)
        let app = AutoReconnecting()
        app.central = CBCentralManager(delegate: app, queue: nil, world: world)
        world.run(for: .seconds(1))
        world.setInRange(sensor, false)
        world.run(for: .seconds(3))
        #expect(app.reconnecting == [true])
        #expect(app.peripheral?.state == .connecting)
        world.setInRange(sensor, true)
        world.run(for: .seconds(1))
        #expect(app.connects == 2)
        #expect(app.peripheral?.state == .connected)
    }

    @Test("a peripheral the app does not retain is released and its pending connection cancelled")
    func unretainedPeripheral() {
        let (world, sensor, app) = heartRateWorld(retains: false)
        world.run(for: .seconds(5))
        #expect(app.connected == 0)
        #expect(app.heartRates.isEmpty)
        let connect = try! #require(world.trace.calls("connect(_:options:)").first)
        #expect(connect.call == .connect(peripheral: sensor.identifier, autoReconnect: false, retained: false))
        #expect(
            world.trace.worldEvents.contains(.peripheralReleased(peripheral: sensor.identifier, state: .connecting)))
        #expect(world.trace.radio("connection.create").count == 1)
        #expect(world.trace.radio("connection.cancel").count == 1)
        #expect(world.trace.radio("connection.complete").isEmpty)
        #expect(!world.isConnected(sensor))
    }

    @Test("retrievePeripherals returns known devices only")
    func retrieve() {
        let (world, sensor, app) = heartRateWorld()
        let stranger = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
        world.run(for: .seconds(2))
        let found = app.centralManager.retrievePeripherals(withIdentifiers: [stranger, sensor.identifier])
        #expect(found.map(\.identifier) == [sensor.identifier])
        #expect(found.first === app.discoveredPeripheral)  // the same object the app holds
        let connected = app.centralManager.retrieveConnectedPeripherals(withServices: [heartRateServiceUUID])
        #expect(connected.map(\.identifier) == [sensor.identifier])
        #expect(app.centralManager.retrieveConnectedPeripherals(withServices: [CBUUID(string: "FFF0")]).isEmpty)
    }

    @Test("notifications only while subscribed")
    func notificationsOnlyWhileSubscribed() {
        let (world, sensor, app) = heartRateWorld()
        world.run(for: .milliseconds(1500))
        let p = try! #require(app.discoveredPeripheral)
        let battery = try! #require(p.services?.first { $0.uuid == batteryServiceUUID }?.characteristics?.first)
        #expect(battery.isNotifying)
        world.notify(sensor, characteristic: batteryLevelUUID, value: [80])
        #expect(app.batteryLevel == 80)
        p.setNotifyValue(false, for: battery)
        world.run(for: .milliseconds(200))
        #expect(!battery.isNotifying)
        world.notify(sensor, characteristic: batteryLevelUUID, value: [70])
        #expect(app.batteryLevel == 80)
        #expect(
            world.trace.worldEvents.last
                == .notificationSuppressed(address: "D8:0D:18:00:00:01", handle: battery.handle))
        #expect(world.trace.radio("gatt.unsubscribe").count == 1)
    }

    @Test("setNotifyValue on a characteristic without notify/indicate fails with requestNotSupported")
    func notifyNotSupported() {
        let (world, _, app) = heartRateWorld()
        world.run(for: .milliseconds(1500))
        let p = try! #require(app.discoveredPeripheral)
        let location = try! #require(p.services?.first?.characteristics?.first { $0.uuid == CBUUID(string: "2A38") })
        let before = world.trace.radioEvents.count
        p.setNotifyValue(true, for: location)
        world.run(for: .milliseconds(100))
        #expect(
            world.trace.callbacks.last
                == .didUpdateNotificationState(
                    peripheral: p.identifier, characteristic: location.uuid, isNotifying: false,
                    error: CBATTError(.requestNotSupported).description))
        #expect(world.trace.radioEvents.count == before)
    }

    @Test("service changed: didModifyServices with the invalidated services, rediscovery works")
    func serviceChanged() {
        final class Watcher: CBPeripheralDelegate {
            var invalidated: [CBUUID] = []
            func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {
                invalidated = invalidatedServices.map(\.uuid)
            }
        }
        let (world, sensor, app) = heartRateWorld()
        world.run(for: .milliseconds(1500))
        let p = try! #require(app.discoveredPeripheral)
        let watcher = Watcher()
        p.delegate = watcher
        world.changeServices(
            of: sensor,
            to: [
                SimulatedService(
                    uuid: batteryServiceUUID,
                    characteristics: [
                        SimulatedCharacteristic(uuid: batteryLevelUUID, properties: [.read], value: [50])
                    ])
            ])
        #expect(watcher.invalidated == [heartRateServiceUUID, batteryServiceUUID])
        #expect(p.services?.isEmpty == true)
        let indication = world.trace.radioEvents.last { if case .indication = $0.kind { true } else { false } }
        #expect(indication?.value.bytes == [0x01, 0x00, 0xFF, 0xFF])
        p.delegate = app
        p.discoverServices(nil)
        world.run(for: .seconds(1))
        #expect(p.services?.map(\.uuid) == [batteryServiceUUID])
        #expect(app.batteryLevel == 50)
    }
}
