import BLEReplay
import BLESimulator
import Foundation
import TestSupport
import Testing

/// The app's heart-rate peripheral, written against the simulator's CBPeripheralManager the
/// usual Core Bluetooth way: publish on poweredOn, advertise the service, answer reads, accept
/// writes,
/// notify subscribers. It implements the device of the Bumble captures (README "clean_heart_rate":
/// Heart Rate with Measurement (Notify) and Body Sensor Location (Read, Chest), Battery Level
/// (Read|Notify, 87 %), Device Information strings; "cached_reconnect" adds the Heart Rate
/// Control Point (Write)). The `Defects` make the deliberately broken variants.
final class HeartRateSensor: CBPeripheralManagerDelegate {
    struct Defects: OptionSet {
        let rawValue: Int
        static let noBodySensorLocation = Defects(rawValue: 1)
        static let refusesBatteryRead = Defects(rawValue: 2)
        static let refusesControlPoint = Defects(rawValue: 4)
    }

    let manager: CBPeripheralManager
    let world: SimulatedWorld
    let defects: Defects
    let withControlPoint: Bool
    /// Measurements sent per subscription, one a second, the first at once.
    let measurementsPerSubscription: Int
    private(set) var controlPointWrites: [[UInt8]] = []
    private var measurement: CBMutableCharacteristic?
    private var generation = 0

    init(world: SimulatedWorld, measurements: Int, withControlPoint: Bool = false, defects: Defects = []) {
        self.world = world
        self.defects = defects
        self.withControlPoint = withControlPoint
        measurementsPerSubscription = measurements
        manager = CBPeripheralManager(delegate: nil, queue: nil, world: world)
        manager.delegate = self
    }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        guard peripheral.state == .poweredOn else { return }
        let hrm = CBMutableCharacteristic(
            type: CBUUID(string: "2A37"), properties: [.notify], value: nil, permissions: [])
        measurement = hrm
        let heartRate = CBMutableService(type: CBUUID(string: "180D"), primary: true)
        var hrChars: [CBCharacteristic] = [hrm]
        if !defects.contains(.noBodySensorLocation) {
            hrChars.append(
                CBMutableCharacteristic(
                    type: CBUUID(string: "2A38"), properties: [.read], value: Data([0x01]),
                    permissions: [.readable]))
        }
        if withControlPoint {
            hrChars.append(
                CBMutableCharacteristic(
                    type: CBUUID(string: "2A39"), properties: [.write], value: nil,
                    permissions: [.writeable]))
        }
        heartRate.characteristics = hrChars
        let battery = CBMutableService(type: CBUUID(string: "180F"), primary: true)
        battery.characteristics = [
            CBMutableCharacteristic(
                type: CBUUID(string: "2A19"), properties: [.read, .notify],
                value: nil, permissions: [.readable])
        ]
        let info = CBMutableService(type: CBUUID(string: "180A"), primary: true)
        info.characteristics = [
            CBMutableCharacteristic(
                type: CBUUID(string: "2A29"), properties: [.read],
                value: Data("Acme Biometrics".utf8), permissions: [.readable]),
            CBMutableCharacteristic(
                type: CBUUID(string: "2A24"), properties: [.read], value: Data("HRM-200".utf8),
                permissions: [.readable]),
        ]
        for s in [heartRate, battery, info] { peripheral.add(s) }
        peripheral.startAdvertising([
            CBAdvertisementDataLocalNameKey: "PulseBelt HR",
            CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "180D")],
        ])
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        guard request.characteristic.uuid == CBUUID(string: "2A19") else {
            return peripheral.respond(to: request, withResult: .requestNotSupported)
        }
        if defects.contains(.refusesBatteryRead) {
            return peripheral.respond(to: request, withResult: .readNotPermitted)
        }
        request.value = Data([87])
        peripheral.respond(to: request, withResult: .success)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        guard let first = requests.first else { return }
        if first.characteristic.uuid == CBUUID(string: "2A39"), !defects.contains(.refusesControlPoint) {
            controlPointWrites.append(first.value.map { [UInt8]($0) } ?? [])
            peripheral.respond(to: first, withResult: .success)
        } else {
            peripheral.respond(to: first, withResult: .writeNotPermitted)
        }
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral,
        didSubscribeTo characteristic: CBCharacteristic
    ) {
        guard characteristic.uuid == CBUUID(string: "2A37") else { return }
        generation += 1
        send(0, generation)
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral,
        didUnsubscribeFrom characteristic: CBCharacteristic
    ) {
        generation += 1
    }

    /// Flags 0x16 (UINT8 value, sensor contact, one RR interval) + bpm + RR, once a second.
    private func send(_ n: Int, _ g: Int) {
        guard n < measurementsPerSubscription, g == generation, let hrm = measurement else { return }
        let bpm = 70 + n % 10
        let rr = 60 * 1024 / bpm
        _ = manager.updateValue(
            Data([0x16, UInt8(bpm), UInt8(rr & 0xFF), UInt8(rr >> 8)]), for: hrm,
            onSubscribedCentrals: nil)
        world.schedule(after: .seconds(1)) { [weak self] in self?.send(n + 1, g) }
    }
}

@Suite struct CentralPlaybackTests {
    static func replay(_ name: String) throws -> CaptureReplay {
        try CaptureReplay(contentsOf: URL(fileURLWithPath: Fixtures.capture("bumble/\(name)")))
    }

    /// The captured central's operations, read from the capture: what the playback must play.
    static func capturedOperations(_ replay: CaptureReplay) -> [(kind: String, uuid: String)] {
        replay.models.flatMap { m in
            m.connection.summary.localDatabase.characteristics.isEmpty
                ? []
                : m.steps.filter { !$0.hostIsClient }
                    .compactMap { s -> (String, String)? in
                        guard let h = s.bytes.count >= 3 ? UInt16(s.bytes[1]) | UInt16(s.bytes[2]) << 8 : nil else {
                            return nil
                        }
                        let db = m.connection.summary.localDatabase
                        switch s.bytes[0] {
                        case 0x0A:
                            return db.characteristics.first { $0.valueHandle == h }.map {
                                ("read", CBUUID($0.uuid).uuidString)
                            }
                        case 0x12:
                            if let c = db.characteristics.first(where: { $0.valueHandle == h }) {
                                return ("write", CBUUID(c.uuid).uuidString)
                            }
                            // A CCCD: the characteristic whose value precedes it.
                            let c = db.characteristics.filter { $0.valueHandle < h }.max {
                                $0.valueHandle < $1.valueHandle
                            }
                            let on = s.bytes.count >= 5 && s.bytes[3] & 0x03 != 0
                            return c.map { (on ? "subscribe" : "unsubscribe", CBUUID($0.uuid).uuidString) }
                        default: return nil
                        }
                    }
        }
    }

    @Test func theCapturedCentralPlaysWithoutMismatchAgainstAFaithfulPeripheral() throws {
        let replay = try Self.replay("clean_heart_rate.peripheral.btsnoop")
        let world = SimulatedWorld()
        let sensor = HeartRateSensor(world: world, measurements: 20)
        let playback = replay.playCentral(against: world, peripheral: sensor.manager.device)

        #expect(playback.isFinished)
        #expect(playback.mismatches.isEmpty, "\(playback.mismatches)")
        // Every operation of the captured central, in order, with the captured outcome.
        let played = playback.operations.map { "\($0.kind.rawValue) \($0.characteristic.uuidString)" }
        let captured = Self.capturedOperations(replay).map { "\($0.kind) \($0.uuid)" }
        #expect(played == captured)
        #expect(playback.operations.map(\.kind) == [.read, .read, .subscribe, .read, .read])
        #expect(playback.operations.allSatisfy { $0.replayedOutcome == $0.capturedOutcome })
        #expect(playback.notifications.map(\.captured) == [20])
        #expect(playback.notifications.map(\.received) == [20])
    }

    @Test func aBrokenPeripheralShowsEachMismatch() throws {
        let replay = try Self.replay("clean_heart_rate.peripheral.btsnoop")
        let world = SimulatedWorld()
        // Three defects: no Body Sensor Location, the battery read refused, 12 measurements
        // where the captured sensor sent 20.
        let sensor = HeartRateSensor(
            world: world, measurements: 12, defects: [.noBodySensorLocation, .refusesBatteryRead])
        let playback = replay.playCentral(against: world, peripheral: sensor.manager.device)

        #expect(playback.isFinished)
        // The same operations were attempted …
        #expect(playback.operations.map(\.kind) == [.read, .read, .subscribe, .read, .read])
        // … and the differences are exactly the defects.
        let found = playback.mismatches.map { "\($0.kind.rawValue) \($0.characteristic?.uuidString ?? "-")" }
        #expect(
            found == ["missingCharacteristic 2A38", "outcome 2A19", "outcome 2A38", "notifications 2A37"],
            "\(playback.mismatches)")
        #expect(playback.notifications.map(\.received) == [12])
        let battery = try #require(playback.operations.first { $0.characteristic == CBUUID(string: "2A19") })
        #expect(battery.capturedOutcome == .success)
        #expect(battery.replayedOutcome == .attError(CBATTError.Code.readNotPermitted.byte))
        let location = try #require(playback.operations.first { $0.characteristic == CBUUID(string: "2A38") })
        #expect(location.replayedOutcome == .notPerformed("characteristic not found"))
    }

    /// cached_reconnect: two connections; the second writes the Heart Rate Control Point.
    @Test func writesAndReconnectionsPlayInOrder() throws {
        let replay = try Self.replay("cached_reconnect.peripheral.btsnoop")
        let world = SimulatedWorld()
        let sensor = HeartRateSensor(world: world, measurements: 4, withControlPoint: true)
        let playback = replay.playCentral(against: world, peripheral: sensor.manager.device)

        #expect(playback.isFinished)
        #expect(playback.mismatches.isEmpty, "\(playback.mismatches)")
        #expect(Set(playback.operations.map(\.connection)).count == 2)
        let write = try #require(playback.operations.first { $0.kind == .write })
        #expect(write.characteristic == CBUUID(string: "2A39"))
        #expect(sensor.controlPointWrites == [write.capturedValue])
        #expect(playback.notifications.map(\.received) == playback.notifications.map(\.captured))

        // The same central against a peripheral that refuses the write: one outcome mismatch.
        let world2 = SimulatedWorld()
        let refusing = HeartRateSensor(
            world: world2, measurements: 4, withControlPoint: true,
            defects: [.refusesControlPoint])
        let refused = replay.playCentral(against: world2, peripheral: refusing.manager.device)
        #expect(refused.mismatches.map(\.kind) == [.outcome], "\(refused.mismatches)")
        #expect(refused.mismatches.first?.characteristic == CBUUID(string: "2A39"))
        #expect(refusing.controlPointWrites.isEmpty)
    }
}

/// Every peripheral-side capture's central is scripted without a trap; with nobody to connect
/// to, nothing is played and the playback says so.
@Suite struct CentralPlaybackCorpusTests {
    static let captures = BumbleReplayTests.captures.filter { !$0.hasSuffix(".central.btsnoop") }

    @Test(arguments: captures)
    func scriptsTheCapturedCentral(_ path: String) throws {
        let replay = try CaptureReplay(path: path)
        let playback = replay.playCentral(against: SimulatedWorld(), timeout: .seconds(2))
        #expect(!playback.isFinished)
        #expect(playback.operations.allSatisfy { $0.replayedOutcome == nil })
        #expect(playback.mismatches.count >= playback.operations.count)
    }
}
