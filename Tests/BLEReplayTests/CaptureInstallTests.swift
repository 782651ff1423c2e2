import BLEBytes
import BLEReplay
import BLESimulator
import BLETimeline
import Foundation
import TestSupport
import Testing

/// `CaptureReplay.install(into:)`: a captured peripheral in a `SimulatedWorld`, used by app
/// code through the simulator's Core Bluetooth API. Every expectation is read from the
/// capture's own bytes (its replay model), not typed in.
@Suite struct CaptureInstallTests {
    static func replay(_ name: String) throws -> CaptureReplay {
        try CaptureReplay(contentsOf: URL(fileURLWithPath: Fixtures.capture("bumble/\(name)")))
    }

    static let heartRate = CBUUID(string: "180D")
    static let measurement = CBUUID(string: "2A37")

    @Test func thePeripheralIsBuiltFromTheCapture() throws {
        let replay = try Self.replay("clean_heart_rate.central.btsnoop")
        let m = try #require(replay.models.first)
        let peripherals = replay.simulatedPeripherals()
        // One peer: the heart-rate sensor (the decoy was never connected).
        #expect(peripherals.count == 1)
        let p = try #require(peripherals.first)
        #expect(p.address == m.peer)
        #expect(p.addressType == m.connection.summary.peerAddressType)
        let ad = try #require(m.connection.advertisement)
        #expect(p.advertisingDataOverride == ad.data)
        #expect(p.rssi == Int(ad.rssi))
        // The AD fields parsed from those bytes (README: name and three 16-bit UUIDs).
        #expect(p.localName == "PulseBelt HR")
        #expect(p.advertisedServiceUUIDs == ["180D", "180F", "180A"].map { CBUUID(string: $0) })
        #expect(p.name == p.localName)  // no Device Name read in this capture
        #expect(p.mtu == m.peerServer.serverRxMTU)
        #expect(p.connectionInterval == .microseconds(m.connection.intervalMicros))
        #expect(p.supervisionTimeout == .microseconds(m.connection.supervisionTimeoutMicros))
        #expect(!p.providesGenericAttributeService)
        #expect(p.ignoredHandles.isEmpty)
        // The median captured round trip.
        let latencies = m.steps.filter(\.hostIsClient).compactMap(\.latency).sorted()
        #expect(p.operationLatency == .microseconds(latencies[latencies.count / 2]))
    }

    /// The app's central scans, connects, discovers by UUID, reads and subscribes: it finds
    /// the captured handles, reads the captured values and receives the captured notifications
    /// at the captured pace.
    @Test func aTypicalCentralSeesTheCapturedSession() throws {
        let replay = try Self.replay("clean_heart_rate.central.btsnoop")
        let m = try #require(replay.models.first)
        let world = SimulatedWorld()
        replay.install(into: world)
        let app = RecordingCentral(
            world: world, scanFor: [Self.heartRate],
            discover: ["180D", "180F", "180A"].map { CBUUID(string: $0) },
            subscribe: [Self.measurement])
        app.onReady = { app in
            for uuid in ["2A29", "2A24", "2A19", "2A38"] { app.read(CBUUID(string: uuid)) }
        }
        world.run(for: .seconds(30))

        // Handles: what discovery found is what the capture's database says.
        for uuid in ["2A37", "2A38", "2A19", "2A29", "2A24"].map({ CBUUID(string: $0) }) {
            let c = try #require(app.characteristic(uuid), "\(uuid)")
            #expect(c.handle == Captured.valueHandle(m, uuid), "\(uuid)")
        }
        // Reads: the captured answers.
        for uuid in ["2A29", "2A24", "2A19", "2A38"].map({ CBUUID(string: $0) }) {
            let h = try #require(Captured.valueHandle(m, uuid))
            guard case .value(let captured)? = m.peerServer.reads[h]?.first else {
                Issue.record("no captured read of \(uuid)")
                continue
            }
            let got = app.values(uuid).map(\.result)
            #expect(got.count == 1)
            #expect((try? got.first?.get()) == captured, "\(uuid)")
        }
        // Notifications: the captured values, in order, with the captured spacing.
        let stream = Captured.stream(m, handle: try #require(Captured.valueHandle(m, Self.measurement)))
        #expect(stream.count == 20)
        let received = app.values(Self.measurement)
        #expect(received.compactMap { try? $0.result.get() } == stream.map(\.value))
        #expect(
            zip(received.dropFirst(), received).map { $0.time - $1.time }
                == zip(stream.dropFirst(), stream).map { $0.time - $1.time })
    }

    /// The captured answers in order: 0x05 Insufficient Authentication first, the value on the
    /// retry; the indications after the subscription with the captured values.
    @Test func errorsAndIndicationsReplayInCapturedOrder() throws {
        let replay = try Self.replay("indications_and_errors.central.btsnoop")
        let m = try #require(replay.models.first)
        let world = SimulatedWorld()
        let p = try #require(replay.install(into: world).first)
        let service = try #require(m.connection.summary.remoteDatabase.services.first { $0.startHandle == 0x000E })
        let indicate = try #require(
            m.connection.summary.remoteDatabase.characteristics.first { $0.valueHandle == 0x0010 })
        let secure = try #require(
            m.connection.summary.remoteDatabase.characteristics.first { $0.valueHandle == 0x0013 })
        let app = RecordingCentral(
            world: world, scanFor: nil, discover: [CBUUID(service.uuid)],
            subscribe: [CBUUID(indicate.uuid)])
        app.onReady = { app in
            app.read(CBUUID(secure.uuid))
            app.read(CBUUID(secure.uuid))
        }
        // No advertisement in this capture: the peripheral advertises its discovered services.
        #expect(p.advertisedServiceUUIDs.contains(CBUUID(service.uuid)))
        world.run(for: .seconds(10))

        let reads = app.values(CBUUID(secure.uuid)).map(\.result)
        let captured = try #require(m.peerServer.reads[0x0013])
        #expect(captured.count == 2)
        #expect(reads.count == 2)
        if case .error(let code) = captured[0] {
            #expect(reads.first.flatMap { if case .failure(let e) = $0 { e.code.rawValue } else { nil } } == Int(code))
        } else {
            Issue.record("the capture's first read of 0x0013 was not refused")
        }
        if case .value(let v) = captured[1] { #expect((try? reads.last?.get()) == v) }
        let indications = app.values(CBUUID(indicate.uuid)).compactMap { try? $0.result.get() }
        #expect(indications == Captured.stream(m, handle: 0x0010).map(\.value))
        #expect(indications.count == 5)
    }

    /// reconnect_storm: the peer ended connections 1, 3, 5 (HCI Disconnect 0x13) and 2, 4 were
    /// lost (supervision timeout). An app that reconnects sees the same sequence, each end at
    /// the captured time after its connection.
    @Test func peerEndedLinksReplayPerConnection() throws {
        let replay = try Self.replay("reconnect_storm.central.btsnoop")
        let models = replay.models.filter { $0.connection.hostIsCentral }
        let ends = models.map(\.linkEnd)
        #expect(ends.count == 6)
        let world = SimulatedWorld()
        replay.install(into: world)
        let app = RecordingCentral(world: world, scanFor: [Self.heartRate], discover: nil)
        app.reconnectUpTo = models.count
        world.run(for: .seconds(20))

        #expect(app.connections == models.count)
        let connects = app.connectTimes
        let disconnections = app.disconnections
        // The sixth ended on the central's side in the capture: the app never asked, so it stays.
        #expect(ends.last??.side == .local)
        #expect(disconnections.count == models.count - 1)
        for (i, d) in disconnections.enumerated() {
            let end = try #require(ends[i])
            #expect(d.time - connects[i] == end.capturedOffset, "connection \(i + 1)")
            switch end.side {
            case .remote: #expect((d.error as? CBError)?.code == .peripheralDisconnected, "connection \(i + 1)")
            case .linkLoss: #expect((d.error as? CBError)?.code == .connectionTimeout, "connection \(i + 1)")
            case .local: Issue.record("connection \(i + 1) ended locally in the capture")
            }
        }
        #expect(Set(ends.prefix(5).map { $0?.side }) == [.remote, .linkLoss])
    }

    /// The GAP Device Name, when the capture read it (reconnect_storm reads 0x2A00 on every
    /// connection), names the peripheral.
    @Test func theCapturedDeviceNameNamesThePeripheral() throws {
        let replay = try Self.replay("reconnect_storm.central.btsnoop")
        let peer = try #require(replay.replayedPeers().first)
        let db = try #require(peer.models.last?.connection.summary.remoteDatabase)
        let h = try #require(db.characteristics.first { $0.uuid == CBUUID(string: "2A00").bluetoothUUID }?.valueHandle)
        guard case .value(let v)? = peer.reads[h]?.first else {
            Issue.record("no Device Name read in the capture")
            return
        }
        #expect(peer.reads[h]?.count == peer.models.count)
        #expect(peer.peripheral.name == String(decoding: v, as: UTF8.self))
        #expect(peer.peripheral.name == "PulseBelt HR")
    }

    /// The peripheral's handlers hold the replay state, never the other way round: nothing
    /// outlives the world and the app, whether the app disconnected first or not.
    @Test(arguments: [true, false])
    func nothingOutlivesTheWorld(disconnectFirst: Bool) throws {
        let replay = try Self.replay("clean_heart_rate.central.btsnoop")
        weak var peripheral: SimulatedPeripheral?
        weak var world: SimulatedWorld?
        do {
            let w = SimulatedWorld()
            peripheral = replay.install(into: w).first
            let app = RecordingCentral(
                world: w, scanFor: [Self.heartRate], discover: nil, subscribe: [Self.measurement])
            w.run(for: .seconds(3))
            #expect(app.connections == 1)
            #expect(!app.values(Self.measurement).isEmpty)
            if disconnectFirst {
                app.central.cancelPeripheralConnection(try #require(app.peripheral))
                w.run(for: .seconds(1))
            }
            world = w
        }
        #expect(world == nil)
        #expect(peripheral == nil)
    }

    @Test func onePeripheralPerPeerWithItsOwnDatabase() throws {
        let replay = try Self.replay("two_peripherals_concurrent.central.btsnoop")
        let peers = replay.replayedPeers()
        #expect(peers.count == 2)
        #expect(Set(peers.map(\.peripheral.address)).count == 2)
        // Same handle 0x0010, different characteristics: each peer's database is its own.
        let uuids = peers.map { peer in
            peer.models.last!.connection.summary.remoteDatabase.characteristics.first { $0.valueHandle == 0x0010 }?.uuid
        }
        #expect(uuids[0] != nil && uuids[1] != nil && uuids[0] != uuids[1])
        for (peer, uuid) in zip(peers, uuids) {
            #expect(peer.peripheral.characteristic(CBUUID(uuid!))?.valueHandle == 0x0010)
        }
        // A peripheral-side capture has no captured peripheral (its peer was the central).
        let other = try Self.replay("two_peripherals_concurrent.peripheral.btsnoop")
        #expect(other.simulatedPeripherals().isEmpty)
    }
}

/// Every central-side Bumble capture installs without a trap, each peer's database laid out
/// with exactly the captured handles, and Core Bluetooth discovery finds every captured
/// characteristic at its captured value handle with its captured properties.
@Suite struct CaptureInstallCorpusTests {
    static let captures = BumbleReplayTests.captures.filter { $0.hasSuffix(".central.btsnoop") }

    @Test(arguments: captures)
    func discoveryFindsTheCapturedDatabase(_ path: String) throws {
        let replay = try CaptureReplay(path: path)
        let world = SimulatedWorld()
        let peers = replay.replayedPeers()
        #expect(!peers.isEmpty)
        var apps: [(RecordingCentral, ReplayedPeer)] = []
        for peer in peers {
            world.add(peer.peripheral)
            #expect(peer.peripheral.ignoredHandles.isEmpty, "\(peer.peripheral.address)")
            #expect(peer.peripheral.omittedAttributeCount == 0)
            let app = RecordingCentral(world: world, scanFor: nil, discover: nil)
            app.only = peer.peripheral.identifier
            apps.append((app, peer))
        }
        world.run(for: .seconds(5))
        for (app, peer) in apps {
            let db = peer.models.last!.connection.summary.remoteDatabase
            func inService(_ h: UInt16) -> Bool { db.services.contains { $0.startHandle <= h && h <= $0.endHandle } }
            let captured = Set(
                db.characteristics.filter { inService($0.valueHandle) }
                    .map { "\(CBUUID($0.uuid)) @\($0.valueHandle) 0x\(String($0.properties, radix: 16))" })
            let found = Set(
                // What discovery found: a peer that disconnects within the run (reconnect_storm)
                // leaves `services` nil, as Core Bluetooth does.
                app.discoveredServices.flatMap { $0.characteristics ?? [] }
                    .filter { $0.uuid.bluetoothUUID.high >> 32 != ReplayAttribute.inferredServiceType.high >> 32 }
                    .map { "\($0.uuid) @\($0.handle) 0x\(String($0.properties.declarationBits, radix: 16))" })
            #expect(!captured.isEmpty)
            #expect(found == captured, "\(peer.peripheral.address)")
        }
    }
}
