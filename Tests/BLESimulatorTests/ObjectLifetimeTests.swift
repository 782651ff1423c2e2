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
        // Noticed at the end of the next run-loop turn (the next notification, within 1 s).
        world.run(for: .milliseconds(1500))
        #expect(world.trace.worldEvents.contains { if case .peripheralReleased = $0 { true } else { false } })
        // A new object for the same device (retrieved again) is not the old service's peripheral.
        let again = try #require(
            app.centralManager.retrievePeripherals(withIdentifiers: [makeHeartRateSensor().identifier]).first)
        #expect(service.peripheral == nil)
        #expect(again.services == nil)
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
