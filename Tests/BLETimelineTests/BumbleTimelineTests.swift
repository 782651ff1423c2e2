import BLEBytes
import BLEPackets
import BLETimeline
import Testing

/// Facts of captures/bumble/README.md, asserted from the timeline.
@Suite struct BumbleTimelineTests {
    @Test func cleanHeartRateConnectionScanAndMTU() throws {
        let t = try Timeline.bumble("clean_heart_rate.central")
        // Frames 29–32: extended active scan 60/60 ms, 1M + Coded, duplicates not filtered.
        let start = try #require(t.at(31, "scan.start"))
        guard case .scanStart(let s) = start.kind else {
            Issue.record("kind")
            return
        }
        #expect(s.extended && s.active && s.parametersKnown)
        #expect(s.interval == 96 && s.window == 96 && s.phys == 0x05 && s.filterDuplicates == 0)
        #expect(start.outcome.responseFrame == 32)
        #expect(t.at(39, "scan.stop") != nil)
        // Frames 33–38: four decoy reports, two from the heart-rate sensor.
        let ads = t.of("advertisement")
        #expect(ads.map(\.frame) == [33, 34, 35, 36, 37, 38])
        #expect(ads.prefix(4).allSatisfy { $0.peer == BDAddr("D9:09:18:00:00:02") })
        #expect(ads.suffix(2).allSatisfy { $0.peer == heartRatePeer })
        if case .advertisement(let a) = ads[4].kind { #expect(a.eventType == 0x0001 && a.rssi == -50) }
        if case .advertisement(let a) = ads[5].kind { #expect(a.eventType == 0x0008) }
        #expect(
            ads[4].value.withView { AdvertisingData($0).localName?.elementsEqual(Array("PulseBelt HR".utf8)) } == true)

        let create = try #require(t.at(41, "connection.create"))
        #expect(create.peer == heartRatePeer && create.outcome.responseFrame == 42)
        let complete = try #require(t.at(43, "connection.complete"))
        #expect(complete.connection == 1 && complete.peer == heartRatePeer)
        guard case .connectionComplete(let c) = complete.kind else {
            Issue.record("kind")
            return
        }
        #expect(
            c.handle == 1 && c.role == 0
                && c.timing == ConnectionTiming(interval: 12, latency: 0, supervisionTimeout: 72))

        let mtu = try #require(t.at(44, "gatt.mtu"))
        guard case .mtuExchange(let client, let server, let effective, let sent) = mtu.kind else { return }
        #expect(client == 247 && server == 517 && effective == 247 && sent)
        #expect(mtu.outcome.responseFrame == 46)

        let disc = try #require(t.at(123, "connection.disconnect"))
        guard case .disconnection(let status, let reason, let side) = disc.kind else { return }
        #expect(status == 0 && reason == 0x16 && side == .local && disc.connection == 1)
        #expect(t.connections.count == 1 && t.connections[0].mtu == 247 && t.connections[0].endFrame == 123)
        // Time order: every event's frame is at or after the previous one's.
        #expect(zip(t.events, t.events.dropFirst()).allSatisfy { $0.frame <= $1.frame })
    }

    @Test func cleanHeartRateDatabase() throws {
        let t = try Timeline.bumble("clean_heart_rate.central")
        let db = try #require(t.connections.first).remoteDatabase
        #expect(db.services.map { [$0.startHandle, $0.endHandle] } == [[0x0E, 0x13], [0x14, 0x17], [0x18, 0x1C]])
        #expect(db.services.map(\.uuid) == [0x180D, 0x180F, 0x180A].map { BluetoothUUID(uuid16: $0) })
        #expect(db.services.allSatisfy { $0.isPrimary })
        let table = db.characteristics.map {
            [Int($0.declarationHandle), Int($0.valueHandle), Int($0.properties), Int($0.uuid.uuid16 ?? 0)]
        }
        #expect(
            table == [
                [0x0F, 0x10, 0x10, 0x2A37], [0x12, 0x13, 0x02, 0x2A38], [0x15, 0x16, 0x12, 0x2A19],
                [0x19, 0x1A, 0x02, 0x2A29], [0x1B, 0x1C, 0x02, 0x2A24],
            ])
        // The Battery Level CCCD (0x0017) is never discovered; the Heart Rate Measurement one is.
        #expect(db.descriptors.map(\.handle) == [0x11])
        #expect(db.attribute(at: 0x11, connection: 1)?.displayName == "Heart Rate Measurement CCCD")
        #expect(db.attribute(at: 0x17, connection: 1) == nil)
        // Every discovery step ends with Attribute Not Found: 6 times.
        let notFound = t.events.filter { if case .error(_, _, 0x0A, _) = $0.outcome { true } else { false } }
        #expect(notFound.count == 6)
        #expect(
            t.of("gatt.discover.services").allSatisfy {
                if case .discovery(let d, _) = $0.kind { d.filter != nil } else { false }
            })
    }

    @Test func cleanHeartRateReadsSubscriptionNotifications() throws {
        let t = try Timeline.bumble("clean_heart_rate.central")
        let reads = t.of("gatt.read")
        #expect(reads.map(\.frame) == [83, 86, 115, 118])
        #expect(reads.map(\.outcome.responseFrame) == [85, 88, 117, 120])
        #expect(reads[0].value.bytes == Array("Acme Biometrics".utf8))
        #expect(reads[1].value.bytes == Array("HRM-200".utf8))
        #expect(reads[2].value.bytes == [0x57] && reads[2].attributeName == "Battery Level")
        #expect(reads[3].value.bytes == [0x01] && reads[3].attributeName == "Body Sensor Location")
        #expect(reads.allSatisfy { ($0.outcome.latency ?? 0) > 10_000 && ($0.outcome.latency ?? 0) < 30_000 })

        let sub = try #require(t.at(92, "gatt.subscribe"))
        guard case .subscribe(let o, let config) = sub.kind else { return }
        #expect(o.handle == 0x11 && config == 0x0001 && sub.outcome.responseFrame == 94)
        #expect(sub.attributeName == "Heart Rate Measurement CCCD")
        #expect(t.of("gatt.unsubscribe").isEmpty && t.of("gatt.write").isEmpty)

        let notes = t.of("gatt.notification")
        #expect(notes.map(\.frame) == Array(95...114))
        #expect(notes.allSatisfy { $0.operation?.handle == 0x10 && $0.attributeName == "Heart Rate Measurement" })
        #expect(
            notes.allSatisfy {
                $0.connection == 1 && $0.value.count == 4 && $0.operation?.attribute?.carriedOver == false
            })
        #expect(notes[0].value.bytes == [0x16, 0x46, 0x6D, 0x03])
        #expect(
            notes.map { Int($0.value[1]!) } == [
                70, 70, 69, 72, 74, 74, 75, 78, 80, 81, 79, 78, 78, 78, 80, 79, 82, 82, 84, 82,
            ])
    }

    /// Scenario 7: each handle is named from its own connection's database, and responses
    /// pair with their own connection's request (tshark gets frame 87 wrong).
    @Test func twoPeripheralsConcurrent() throws {
        let t = try Timeline.bumble("two_peripherals_concurrent.central")
        let envPeer = BDAddr("DF:E5:0B:00:00:08")!
        let b3C71 = "F0A3C007-6C1E-4D5B-9A57-2B8E1A6B3C71"
        let b3C72 = "F0A3C007-6C1E-4D5B-9A57-2B8E1A6B3C72"
        #expect(t.at(31, "connection.complete")?.connection == 1)
        #expect(t.at(55, "connection.complete")?.connection == 2)
        #expect(t.at(55, "connection.complete")?.peer == envPeer)

        let notes = t.of("gatt.notification")
        let a = notes.filter { $0.connection == 1 }
        let b = notes.filter { $0.connection == 2 }
        #expect(a.map(\.frame) == [78, 80, 82, 90, 92, 94, 102, 104, 109, 111])
        #expect(b.map(\.frame) == [79, 81, 89, 91, 93, 101, 103, 105, 110, 112])
        #expect(
            a.allSatisfy {
                $0.attributeName == "Heart Rate Measurement" && $0.value.count == 4 && $0.peer == heartRatePeer
            })
        #expect(b.allSatisfy { $0.attributeName == b3C71 && $0.value.count == 2 && $0.peer == envPeer })
        #expect(b.first?.value.bytes == [0x6B, 0x08])

        // Frames 83/84: one request outstanding on each link; 87 answers 83, 88 answers 84.
        let r83 = try #require(t.at(83, "gatt.read"))
        let r84 = try #require(t.at(84, "gatt.read"))
        #expect(r83.connection == 1 && r83.operation?.handle == 0x13 && r83.attributeName == "Body Sensor Location")
        #expect(r83.outcome.responseFrame == 87 && r83.value.bytes == [0x01])
        #expect(r84.connection == 2 && r84.operation?.handle == 0x10 && r84.attributeName == b3C71)
        #expect(r84.outcome.responseFrame == 88 && r84.value.bytes == [0x6D, 0x08])
        // The properties are those of each connection's own characteristic.
        #expect(r84.operation?.attribute?.properties == 0x12)
        let w95 = try #require(t.at(95, "gatt.write"))
        #expect(w95.connection == 2 && w95.attributeName == b3C72 && w95.operation?.attribute?.properties == 0x0A)
        #expect(w95.outcome.responseFrame == 99 && w95.value.bytes == [0x02])
        let r96 = try #require(t.at(96, "gatt.read"))
        #expect(r96.connection == 1 && r96.attributeName == "Body Sensor Location" && r96.outcome.responseFrame == 100)
        #expect(t.at(106, "gatt.read")?.value.bytes == [0x02])
        #expect(t.of("gatt.unmatched_response").isEmpty)

        let d = t.of("connection.disconnect")
        #expect(d.map(\.frame) == [115, 118] && d.map(\.connection) == [2, 1])
        #expect(t.connections.map(\.mtu) == [247, 247])
    }

    /// Scenario 8: names carry over to a reconnection that skips discovery.
    @Test func cachedReconnectCarriesNamesOver() throws {
        let t = try Timeline.bumble("cached_reconnect.central")
        #expect(t.at(39, "connection.complete")?.connection == 1)
        #expect(t.at(107, "connection.complete")?.connection == 2)
        #expect(t.at(107, "connection.complete")?.peer == heartRatePeer)
        let second = t.events.filter { $0.connection == 2 }
        #expect(!second.contains { $0.type.description.hasPrefix("gatt.discover") })
        #expect(t.connections[1].remoteCarriedOverFrom == 1)

        let read = try #require(t.at(111, "gatt.read"))
        #expect(read.attributeName == "Body Sensor Location" && read.operation?.attribute?.carriedOver == true)
        let write = try #require(t.at(114, "gatt.write"))
        #expect(write.attributeName == "Heart Rate Control Point" && write.operation?.attribute?.properties == 0x08)
        let sub = try #require(t.at(117, "gatt.subscribe"))
        #expect(sub.attributeName == "Heart Rate Measurement CCCD" && sub.operation?.attribute?.carriedOver == true)
        let notes = t.of("gatt.notification").filter { $0.connection == 2 }
        #expect(notes.map(\.frame) == [120, 121, 122, 123])
        #expect(
            notes.allSatisfy {
                $0.attributeName == "Heart Rate Measurement" && $0.operation?.attribute?.carriedOver == true
            })
        // Connection 1's own names are not marked carried over.
        #expect(
            t.of("gatt.notification").filter { $0.connection == 1 }.allSatisfy {
                $0.operation?.attribute?.carriedOver == false
            })
        #expect(t.connections[0].remoteDatabase.characteristics.count == 11)
        #expect(t.connections[0].remoteDatabase.descriptors.map(\.handle) == [0x09, 0x11, 0x19])
    }

    @Test func scanBeforeInit() throws {
        let t = try Timeline.bumble("scan_before_init.central")
        let early = try #require(t.events.first)
        #expect(early.frame == 1 && early.type.description == "scan.start")
        guard case .scanStart(let s) = early.kind else { return }
        #expect(!s.parametersKnown && s.extended && s.filterDuplicates == 0)
        guard case .error(let f, _, let code, _) = early.outcome else {
            Issue.record("outcome")
            return
        }
        #expect(f == 2 && code == 0x0C)
        #expect(t.at(3, "controller.reset") != nil)
        let real = try #require(t.at(33, "scan.start"))
        if case .scanStart(let s2) = real.kind { #expect(s2.parametersKnown && s2.active) }
        #expect(real.outcome.responseFrame == 34)
        if case .success = real.outcome {} else { Issue.record("frame 33 should succeed") }
        #expect(t.at(41, "scan.stop") != nil)
        #expect(t.of("advertisement").map(\.frame) == Array(35...40))
        #expect(t.at(45, "connection.complete")?.connection == 1)
        #expect(t.of("gatt.notification").map(\.frame) == [67, 68, 69])
    }

    @Test func reconnectStormEndings() throws {
        let t = try Timeline.bumble("reconnect_storm.central")
        #expect(t.of("connection.complete").map(\.frame) == [39, 61, 71, 86, 96, 106])
        #expect(t.of("connection.create").count == 7)
        let failed = try #require(t.at(83, "connection.failed"))
        if case .connectionFailed(let c) = failed.kind { #expect(c.status == 0x02) }
        #expect(failed.connection == nil && failed.peer == heartRatePeer)
        #expect(t.at(81, "connection.cancel")?.outcome.responseFrame == 82)
        let ends = t.of("connection.disconnect").map { e -> [Int] in
            guard case .disconnection(_, let reason, let side) = e.kind else { return [] }
            return [e.frame, e.connection ?? 0, Int(reason), Int(side.rawValue)]
        }
        let (l, r, x) = (
            Int(DisconnectionSide.local.rawValue), Int(DisconnectionSide.remote.rawValue),
            Int(DisconnectionSide.linkLoss.rawValue)
        )
        #expect(
            ends == [
                [58, 1, 0x13, r], [68, 2, 0x08, x], [78, 3, 0x13, r], [93, 4, 0x08, x],
                [103, 5, 0x13, r], [115, 6, 0x16, l],
            ])
        // Device Name is discovered on connection 1 only; later reads name it from the cache.
        #expect(t.of("gatt.read").allSatisfy { $0.attributeName == "Device Name" })
    }

    @Test func indicationsErrorsAndPairing() throws {
        let t = try Timeline.bumble("indications_and_errors.central")
        let ind = t.of("gatt.indication")
        #expect(ind.map(\.frame) == [75, 78, 81, 84, 87, 90])
        #expect(ind.map(\.outcome.responseFrame) == [76, 79, 82, 85, 88, 91])
        #expect(ind[0].attributeName == "Service Changed" && ind[0].value.bytes == [0x01, 0x00, 0xFF, 0xFF])
        #expect(
            t.of("gatt.subscribe").map { e -> UInt16 in if case .subscribe(_, let c) = e.kind { c } else { 0 } } == [
                2, 2,
            ])
        func error(_ frame: Int) -> UInt8? {
            let e = t.events.first { $0.frame == frame && $0.type.description == "gatt.read" }
            if case .error(_, _, let code, _) = e?.outcome { return code }
            return nil
        }
        #expect(error(93) == 0x01 && error(96) == 0x0A && error(99) == 0x05)
        #expect(t.at(130, "gatt.read")?.value.bytes == Array("secret:42".utf8))
        let rsp = try #require(t.at(104, "smp.pairing_response"))
        guard case .pairingResponse(let p, let sent) = rsp.kind else { return }
        #expect(!sent && p.method == .justWorks && p.secureConnections == true)
        #expect(t.at(123, "connection.encryption") != nil)
        #expect(t.connections[0].identity == BDAddr("00:1B:DC:00:5E:06"))
    }

    @Test func oversizedWritesAndFakeCCCD() throws {
        let t = try Timeline.bumble("oversized_and_unchecked_writes.central")
        let w = try #require(t.at(57, "gatt.write"))
        guard case .write(let o, .request) = w.kind else {
            Issue.record("kind")
            return
        }
        #expect(o.mtu == 23 && w.value.count == 40 && w.outcome.responseFrame == 60)
        #expect(t.of("gatt.write").filter { if case .write(_, .prepare) = $0.kind { true } else { false } }.count == 3)
        if case .error(_, _, let code, let h) = t.at(73, "gatt.write")?.outcome {
            #expect(code == 0x03 && h == 0x10)
        } else {
            Issue.record("frame 73 should fail")
        }
        #expect(
            t.of("gatt.write").filter { if case .write(_, .command) = $0.kind { true } else { false } }.count == 201)
        // Frame 415 writes 01 00 to a characteristic declaration, not a CCCD: a plain write,
        // answered by frame 480 (tshark mislabels that response).
        let fake = try #require(t.at(415, "gatt.write"))
        #expect(fake.operation?.attribute?.role == .characteristicDeclaration && fake.outcome.responseFrame == 480)
        #expect(t.of("gatt.subscribe").isEmpty)
    }
}
