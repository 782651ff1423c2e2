import BLEBytes
import BLEReplay
import BLESimulator
import BLETimeline
import Foundation
import TestSupport
import Testing

/// `ReplayFaults` on the library path: a captured peripheral installed with a fault, and the
/// app's central seeing its effect. Each test compares with the same run without the fault;
/// times are on the world's virtual clock.
@Suite struct FaultInjectionTests {
    static let heartRate = CBUUID(string: "180D")
    static let measurement = CBUUID(string: "2A37")
    static let bodySensorLocation = CBUUID(string: "2A38")

    struct Run {
        let world: SimulatedWorld
        let app: RecordingCentral
        let peripheral: SimulatedPeripheral
        let model: ReplayConnectionModel
    }

    /// clean_heart_rate with `faults`: the app subscribes to the measurement; `ready` runs
    /// once discovery is done.
    static func run(
        _ name: String = "clean_heart_rate.central.btsnoop", faults: ReplayFaults = .none,
        discover: [CBUUID]? = [heartRate], subscribe: Set<CBUUID> = [measurement],
        for duration: Duration = .seconds(30), ready: ((RecordingCentral) -> Void)? = nil
    ) throws -> Run {
        let replay = try CaptureInstallTests.replay(name)
        let world = SimulatedWorld()
        let p = try #require(replay.install(into: world, faults: faults).first)
        let app = RecordingCentral(world: world, scanFor: nil, discover: discover, subscribe: subscribe)
        app.onReady = ready
        world.run(for: duration)
        return Run(world: world, app: app, peripheral: p, model: try #require(replay.models.first))
    }

    @Test func droppedLinkEndsWithConnectionTimeoutAfterTheSupervisionTimeout() throws {
        let clean = try Self.run()
        let drop: Int64 = 5_000_000
        let faulty = try Self.run(faults: ReplayFaults(dropLinkAtMicros: drop))
        let connected = try #require(faulty.app.connectTimes.first)

        #expect(clean.app.disconnections.isEmpty)
        let d = try #require(faulty.app.disconnections.first)
        #expect((d.error as? CBError)?.code == .connectionTimeout)
        // Silent at the drop, ended one (captured) supervision timeout later (Vol 6 Part B 4.5.2).
        #expect(d.time - connected == drop + faulty.model.connection.supervisionTimeoutMicros)
        let cleanCount = clean.app.values(Self.measurement).count
        let received = faulty.app.values(Self.measurement)
        #expect(cleanCount == 20)
        #expect(!received.isEmpty && received.count < cleanCount)
        #expect(received.allSatisfy { $0.time < connected + drop })
    }

    @Test func powerOffEndsTheConnectionWithAStateUpdate() throws {
        let off: Int64 = 3_000_000
        let faulty = try Self.run(faults: ReplayFaults(powerOffAtMicros: off))
        let connected = try #require(faulty.app.connectTimes.first)

        let poweredOff = faulty.app.events.filter { if case .state(.poweredOff) = $0.event { true } else { false } }
        #expect(poweredOff.map(\.time) == [connected + off])
        #expect(faulty.app.peripheral?.state == .disconnected)
        #expect(!faulty.world.isConnected(faulty.peripheral))
        // Core Bluetooth's notice is the state update, not didDisconnectPeripheral.
        #expect(faulty.app.disconnections.isEmpty)
        let received = faulty.app.values(Self.measurement)
        #expect(received.count < 20)
        #expect(received.allSatisfy { $0.time < connected + off })
        // The radio shows the disconnection.
        #expect(faulty.world.trace.radioEvents.contains { if case .disconnection = $0.kind { true } else { false } })
    }

    @Test func responseDelayPostponesEveryAnswer() throws {
        func readLatency(_ faults: ReplayFaults) throws -> Int64 {
            var asked: Int64 = 0
            let r = try Self.run(faults: faults, subscribe: [], for: .seconds(5)) { app in
                asked = app.world.nowMicros
                app.read(Self.bodySensorLocation)
            }
            let answered = try #require(r.app.values(Self.bodySensorLocation).first)
            return answered.time - asked
        }
        let delay: Int64 = 250_000
        let plain = try readLatency(.none)
        let delayed = try readLatency(ReplayFaults(responseDelayMicros: delay))
        #expect(plain > 0)
        #expect(delayed - plain == delay)
    }

    @Test func serverMTUChangesTheWriteLength() throws {
        func maximumLength(_ name: String, _ faults: ReplayFaults) throws -> Int {
            var length = 0
            _ = try Self.run(name, faults: faults, discover: nil, subscribe: [], for: .seconds(3)) { app in
                length = app.peripheral!.maximumWriteValueLength(for: .withoutResponse)
            }
            return length
        }
        let centralMTU = Int(SimulatedWorld.Configuration().centralMTU)
        let replay = try CaptureInstallTests.replay("clean_heart_rate.central.btsnoop")
        let captured = Int(try #require(replay.models.first?.peerServer.serverRxMTU))
        #expect(try maximumLength("clean_heart_rate.central.btsnoop", .none) == min(centralMTU, captured) - 3)
        #expect(try maximumLength("clean_heart_rate.central.btsnoop", ReplayFaults(serverMTU: 64)) == 61)
        // No exchange in this capture: the connection ran at the minimum ATT_MTU, 23.
        #expect(try maximumLength("oversized_and_unchecked_writes.central.btsnoop", .none) == 20)
    }

    @Test func injectedErrorsAnswerReadsAndWrites() throws {
        // cached_reconnect: connection 2 writes the Heart Rate Control Point (0x0015) and
        // reads Body Sensor Location (0x0013), both successfully.
        let name = "cached_reconnect.central.btsnoop"
        let replay = try CaptureInstallTests.replay(name)
        let db = try #require(replay.models.last?.connection.summary.remoteDatabase)
        let controlPoint = CBUUID(try #require(db.characteristics.first { $0.valueHandle == 0x0015 }).uuid)
        let location = CBUUID(try #require(db.characteristics.first { $0.valueHandle == 0x0013 }).uuid)
        func exercise(_ faults: ReplayFaults) throws -> (read: Result<[UInt8], CBATTError>?, write: CBATTError??) {
            let r = try Self.run(name, faults: faults, subscribe: [], for: .seconds(3)) { app in
                app.read(location)
                app.peripheral!.writeValue(Data([0x01]), for: app.characteristic(controlPoint)!, type: .withResponse)
            }
            let wrote = r.app.events.compactMap { e -> CBATTError?? in
                if case .wrote(let u, let err) = e.event, u == controlPoint { err } else { nil }
            }
            return (r.app.values(location).first?.result, wrote.first)
        }
        let plain = try exercise(.none)
        #expect((try? plain.read?.get()) != nil)
        #expect(plain.write == .some(nil))
        let faulty = try exercise(ReplayFaults(errors: [0x0013: 0x80, 0x0015: 0x81]))
        guard case .failure(let readError)? = faulty.read else {
            Issue.record("the read was not refused")
            return
        }
        #expect(readError.code.rawValue == 0x80)
        #expect(faulty.write??.code.rawValue == 0x81)
    }

    @Test func droppedNotificationsAreSeededAndMatchTheATTReplay() throws {
        func received(_ seed: UInt64) throws -> [[UInt8]] {
            try Self.run(faults: ReplayFaults(notificationDropProbability: 0.4, seed: seed))
                .app.values(Self.measurement).compactMap { try? $0.result.get() }
        }
        let replay = try CaptureInstallTests.replay("clean_heart_rate.central.btsnoop")
        let m = try #require(replay.models.first)
        let stream = Captured.stream(m, handle: 0x0010).map(\.value)
        #expect(m.stream.count == stream.count)

        let a = try received(7)
        let again = try received(7)
        let b = try received(11)
        #expect(a == again)
        #expect(a != b)
        #expect(a.count < stream.count && b.count < stream.count)
        // Exactly the stream minus the items the seeded decisions drop …
        let faults = ReplayFaults(notificationDropProbability: 0.4, seed: 7)
        let drops = faults.streamDrops(of: m)
        #expect(a == stream.indices.filter { !drops.drops($0) }.map { stream[$0] })
        // … which are the ones the ATT-level replay drops for the same seed.
        #expect(replay.run(faults: faults).connections.first?.replayed.droppedNotifications == stream.count - a.count)
    }
}
