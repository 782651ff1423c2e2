import BLEBytes
import BLESimulator
import Foundation
import Testing

/// The simulator does not retain what Core Bluetooth does not retain (peripherals, managers),
/// without `weak` references on its hot paths: these tests pin the lifetimes it must keep.
@Suite("object lifetimes")
struct ObjectLifetimeTests {
    @Test("a service the app keeps does not keep its peripheral, and never names a later peripheral object")
    func serviceDoesNotRetainPeripheral() throws {
        let (world, _, app) = heartRateWorld()
        world.run(for: .seconds(2))
        let service = try #require(app.discoveredPeripheral?.services?.first)
        #expect(service.peripheral === app.discoveredPeripheral)
        weak let released = app.discoveredPeripheral
        // The app lets go: the object is gone and the service no longer names it.
        app.discoveredPeripheral = nil
        #expect(released == nil)
        #expect(service.peripheral == nil)
        // Released outside a run-loop turn: noticed at once.
        #expect(world.trace.worldEvents.contains { if case .peripheralReleased = $0 { true } else { false } })
        // A new object for the same device (retrieved again) is not the old service's peripheral.
        let again = try #require(
            app.centralManager.retrievePeripherals(withIdentifiers: [makeHeartRateSensor().identifier]).first)
        #expect(service.peripheral == nil)
        #expect(again.services == nil)
    }

    /// Rule: Core Bluetooth does not retain a `CBPeripheral`; when the app's last reference goes,
    /// the connection is cancelled (docs/rules/peripheral-not-retained.md). That
    /// happens when the object goes, not at some later event: released outside a run-loop turn
    /// (app or test code between `run` calls) a connected peripheral's link ends at once, in an
    /// idle world too; released inside a delegate method it ends when that turn ends.
    @Test("a connected peripheral the app drops is released at once, even in an idle world")
    func droppedConnectedPeripheralReleasedAtOnce() throws {
        final class Holder: CBCentralManagerDelegate {
            var central: CBCentralManager!
            var peripheral: CBPeripheral?
            init(world: SimulatedWorld) { central = CBCentralManager(delegate: self, queue: nil, world: world) }
            func centralManagerDidUpdateState(_ central: CBCentralManager) {
                if central.state == .poweredOn { central.scanForPeripherals(withServices: nil) }
            }
            func centralManager(
                _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                advertisementData: [String: Any], rssi RSSI: NSNumber
            ) {
                self.peripheral = peripheral
                central.stopScan()
                central.connect(peripheral)
            }
        }
        let world = SimulatedWorld()
        let lamp = makeOtherDevice()  // no notification source: nothing keeps the world busy
        world.add(lamp)
        let app = Holder(world: world)
        world.run(for: .seconds(2))
        #expect(app.peripheral?.state == .connected)
        #expect(world.isIdle)
        let now = world.now
        app.peripheral = nil
        // No run needed: the link is gone now, at the current time.
        #expect(!world.isConnected(lamp))
        #expect(world.trace.worldEvents.last { if case .peripheralReleased = $0 { true } else { false } } != nil)
        let end = try #require(world.trace.radioEvents.last)
        if case .disconnection(_, let reason, let side) = end.kind {
            #expect(reason == 0x16 && side == .local)
        } else {
            Issue.record("last radio event is not the disconnection: \(end.kind)")
        }
        #expect(world.trace.records.last.map { $0.time } == Int64(now.components.seconds) * 1_000_000)
    }

    @Test("a manager the app lets go stops its connections' callbacks; its peripherals lose their manager")
    func managerReleasedMidConnection() throws {
        let world = SimulatedWorld()
        let sensor = makeHeartRateSensor()
        world.add(sensor)
        var app: HeartRateCentral? = SimulatedWorld.withCurrent(world) { HeartRateCentral() }
        world.run(for: .milliseconds(2500))
        let peripheral = try #require(app?.discoveredPeripheral)
        #expect(peripheral.state == .connected)
        #expect(peripheral.manager != nil)
        weak let manager = app?.centralManager
        let callbacks = world.trace.callbacks.count
        let notifications = world.trace.radioEvents.filter { if case .notification = $0.kind { true } else { false } }
            .count
        app = nil
        #expect(manager == nil)
        #expect(peripheral.manager == nil)
        // The sensor's source and the queued events run into a detached link: nothing more
        // is delivered or sent, and nothing touches the freed manager.
        world.run(for: .seconds(10))
        #expect(world.trace.callbacks.count == callbacks)
        #expect(
            world.trace.radioEvents.filter { if case .notification = $0.kind { true } else { false } }.count
                == notifications)
        #expect(!world.isConnected(sensor))
        // Calls on the orphaned peripheral do nothing.
        peripheral.discoverServices(nil)
        #expect(world.isIdle)
    }

    @Test("a world dropped with events still queued releases them; queued events run once, in order")
    func queuedEventsReleased() {
        final class Token {}
        weak let token: Token?
        var ran: [Int] = []
        do {
            let world = SimulatedWorld()
            let t = Token()
            token = t
            world.schedule(after: .seconds(2)) { [t] in
                _ = t
                ran.append(2)
            }
            world.schedule(after: .seconds(1)) { ran.append(1) }
            world.schedule(after: .seconds(1)) { ran.append(11) }
            world.run(for: .milliseconds(1500))
            #expect(ran == [1, 11])
            #expect(!world.isIdle)
        }
        // The 2 s event never ran; the world's queue let go of its closure (and the token).
        #expect(ran == [1, 11])
        #expect(token == nil)
    }
}
