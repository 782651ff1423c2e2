import BLESimulator
import Foundation
import Testing

/// Runs the two iOS apps of this target (compiled with only the import changed) against each
/// other in one `SimulatedWorld`, so the compile-only target also checks that the code behaves
/// as it would on iOS.
@Suite("iOS heart-rate apps, import changed only")
struct HeartRateAppTests {
    @Test(
        "central and peripheral manager run: notifications arrive, descriptors are typed as on iOS, L2CAP fails as a refused PSM"
    )
    func appsRunTogether() throws {
        let world = SimulatedWorld()
        let (monitor, sensor) = SimulatedWorld.withCurrent(world) { (HeartRateMonitor(), HeartRateSensor()) }
        #expect(monitor.authorizationAtLaunch == .allowedAlways)
        #expect(!monitor.extendedScanning)
        #expect(world.run(until: { !monitor.subscribed.isEmpty && !sensor.subscribers.isEmpty }, timeout: .seconds(5)))

        for bpm: UInt8 in [72, 75, 80] { sensor.send(bpm: bpm) }
        world.run(for: .milliseconds(500))
        #expect(monitor.beats == [72, 75, 80])
        #expect(monitor.sensorLocation == 0x01)

        // Apple's CBDescriptor.value types: String for 0x2901, NSNumber for 0x2902, Data for 0x2904.
        #expect(monitor.descriptions[HeartRateUUIDs.measurement] == "Heart rate")
        #expect(monitor.configurations[HeartRateUUIDs.measurement] == 0x0001)
        #expect(monitor.formats[HeartRateUUIDs.measurement] == Data([0x04, 0x00, 0xAF, 0x27, 0x01, 0x00, 0x00]))

        // A control-point write reaches the sensor and succeeds.
        monitor.resetEnergyExpended()
        world.run(for: .milliseconds(300))
        #expect(sensor.energyResets == 1)

        // The sensor published a channel from the LE dynamic range; opening it fails as iOS
        // reports a refused PSM: CBErrorDomain code 1.
        let psm = try #require(sensor.publishedPSM)
        #expect((0x80...0xFF).contains(psm))
        monitor.openStreamingChannel(psm: psm)
        world.run(for: .milliseconds(300))
        let failure = try #require(monitor.l2capFailure) as NSError
        #expect(failure.domain == CBErrorDomain)
        #expect(failure.code == CBError.Code.invalidParameters.rawValue)

        // Identity semantics: the discovered set holds the one connected object.
        let connected = try #require(monitor.connected)
        #expect(monitor.discovered.contains(connected))
        #expect(monitor.discoveredOrder.firstIndex(of: connected) == 0)
        #expect(world.trace.log.isEmpty)
    }

    /// The sensor app "forgets" to answer a control-point write: the central's write fails after
    /// the ATT transaction timeout (30 s, Core Vol 3 Part F 3.3.3) and the link is dropped; the
    /// app sees CBErrorDomain code 6 twice (the write, the disconnection) and scans again.
    @Test("a write the peripheral-manager app never answers fails after 30 s on the central")
    func unansweredWriteTimesOut() throws {
        let world = SimulatedWorld()
        let (monitor, sensor) = SimulatedWorld.withCurrent(world) { (HeartRateMonitor(), HeartRateSensor()) }
        #expect(world.run(until: { !monitor.subscribed.isEmpty }, timeout: .seconds(5)))
        sensor.answersWrites = false
        monitor.resetEnergyExpended()
        world.run(for: .seconds(29))
        #expect(monitor.errors.isEmpty)
        world.run(for: .seconds(2))
        #expect(monitor.errors.map(\.domain) == [CBErrorDomain, CBErrorDomain])
        #expect(monitor.errors.map(\.code) == [6, 6])
        #expect(monitor.errors.first?.text == "The connection has timed out unexpectedly.")
        #expect(world.trace.worldEvents.count { if case .attTransactionTimeout = $0 { true } else { false } } == 1)
        // The app's own recovery: it scanned, reconnected and subscribed again.
        #expect(monitor.connected?.state == .connected)
    }
}
