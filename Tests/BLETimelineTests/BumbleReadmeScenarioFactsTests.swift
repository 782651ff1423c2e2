import BLEBytes
import BLEPackets
import BLETimeline
import TestSupport
import Testing

/// The per-scenario "Expected facts" of captures/bumble/README.md not already in
/// BumbleTimelineTests, central and peripheral files, section by section.
@Suite struct BumbleReadmeScenarioFactsTests {
    static let central = BDAddr("C0:FF:EE:00:00:01")!
    static let thermo = BDAddr("D9:09:18:00:00:02")!

    // MARK: 1. clean_heart_rate

    @Test func cleanHeartRateCentralAdvertisingAndDiscovery() throws {
        let t = try Timeline.bumble("clean_heart_rate.central")
        let w = try FrameWalk.bumble("clean_heart_rate.central")
        #expect(w.count == 123)
        #expect(w.opcode(29) == 0x2041 && w.opcode(31) == 0x2042)
        let ads = t.of("advertisement")
        // (flags, appearance, 16-bit UUIDs) of each report's AD data.
        func ad(_ e: TimelineEvent) -> (UInt8?, UInt16?, [BluetoothUUID]) {
            e.value.withView { v in
                let ad = AdvertisingData(v)
                return (ad.flags?.rawValue, ad.appearance, Array(ad.serviceUUIDs))
            }
        }
        for a in ads.prefix(4) {
            let (flags, appearance, uuids) = ad(a)
            #expect(flags == 0x06 && appearance == 0x0300 && uuids == [BluetoothUUID(uuid16: 0x1809)])
            #expect(a.value.withView { AdvertisingData($0).localName?.toArray() } == Array("Thermo-1".utf8))
        }
        for a in ads.suffix(2) {
            let (flags, appearance, uuids) = ad(a)
            #expect(
                flags == 0x06 && appearance == 0x0341
                    && uuids == [0x180D, 0x180F, 0x180A].map { BluetoothUUID(uuid16: $0) })
        }
        // The central never connects to the decoy.
        #expect(t.of("connection.create").map(\.peer) == [heartRatePeer])
        #expect(t.at(41, "connection.create")?.peerAddressType == 1)
        // Discovery by UUID: Find By Type Value for each service, Read By Type in each range.
        let services = t.of("gatt.discover.services").filter { $0.operation == nil }
        let filters = services.compactMap { e -> UInt16? in
            if case .discovery(let d, _) = e.kind { return d.filter?.uuid16 } else { return nil }
        }
        #expect(Set(filters) == [0x180D, 0x180F, 0x180A])
        #expect(services.allSatisfy { $0.frame >= 47 && $0.frame <= 82 })
        #expect(t.of("gatt.discover.characteristics").allSatisfy { $0.frame >= 47 && $0.frame <= 82 })
        // Frames 89–94: Find Information 0x0011–0x0011 finds the CCCD.
        let fi = try #require(t.at(89, "gatt.discover.descriptors"))
        guard case .discovery(let d, _) = fi.kind else { return }
        #expect(d.startHandle == 0x11 && d.endHandle == 0x11 && d.found == 1 && fi.outcome.responseFrame == 91)
        #expect(t.at(92, "gatt.subscribe")?.value.bytes == [0x01, 0x00])
    }

    @Test func cleanHeartRateCentralNotificationsAndDisconnect() throws {
        let t = try Timeline.bumble("clean_heart_rate.central")
        let w = try FrameWalk.bumble("clean_heart_rate.central")
        let notes = t.of("gatt.notification")
        // About 1.000 s apart, from t=0.735 s to t=19.768 s.
        #expect(
            abs(w.seconds[notes.first!.frame] - 0.735) < 0.001 && abs(w.seconds[notes.last!.frame] - 19.768) < 0.001)
        for (a, b) in zip(notes, notes.dropFirst()) {
            #expect(abs(w.seconds[b.frame] - w.seconds[a.frame] - 1.0) < 0.05)
        }
        // Flags 0x16, bpm, RR = int(60/bpm × 1024) little-endian.
        for n in notes {
            let bpm = Double(n.value[1]!)
            #expect(n.value[0] == 0x16 && n.value.u16le(2) == UInt16(60 / bpm * 1024), "frame \(n.frame)")
        }
        #expect(notes[0].value.u16le(2) == 877)
        // Frames 121–123: Disconnect handle 0x0001 reason 0x13, Command Status, Disconnection Complete 0x16.
        let disconnect = try #require(w.commands[121])
        #expect(disconnect.opcode == 0x0406 && disconnect.parameters == [0x01, 0x00, 0x13])
        #expect(w.eventCode(122) == 0x0F && w.disconnectReason(123) == 0x16)
    }

    @Test func cleanHeartRatePeripheral() throws {
        let t = try Timeline.bumble("clean_heart_rate.peripheral")
        let w = try FrameWalk.bumble("clean_heart_rate.peripheral")
        #expect(w.count == 136)
        // Advertising parameters: properties 0x0013, interval 100 ms (0x0000A0 × 0.625 ms).
        let p = try #require(w.commands[29]).parameters
        #expect(Array(p[3...5]) == [0xA0, 0, 0] && Array(p[6...8]) == [0xA0, 0, 0])
        let random = try #require(w.commands[31]).parameters
        // Advertising_Handle 0, then the address little-endian.
        #expect(random[0] == 0 && Array(random[1...6].reversed()) == [0xD8, 0x0D, 0x18, 0x00, 0x00, 0x01])
        let data = try #require(w.commands[33]).parameters
        #expect(data[3] == 29 && data.count == 4 + 29)  // Advertising_Data_Length 29
        let complete = try #require(t.at(37, "connection.complete"))
        #expect(complete.peer == Self.central && complete.peerAddressType == 1)
        // The ATT exchange mirrors the central: requests received, responses sent.
        #expect(
            t.of("gatt.read").allSatisfy { e in
                e.operation?.sent == false && e.outcome.responseFrame.map { w.acl[$0]?.sent == true } == true
            })
        let notes = t.of("gatt.notification")
        #expect(notes.count == 20 && notes.first?.frame == 90 && notes.last?.frame == 128)
        #expect(notes.allSatisfy { $0.operation?.sent == true && $0.operation?.handle == 0x10 })
        let end = try #require(t.at(136, "connection.disconnect"))
        if case .disconnection(_, let reason, let side) = end.kind { #expect(reason == 0x13 && side == .remote) }
    }

    // MARK: 2. nil_scan_all_services

    @Test func nilScanAllServicesCentral() throws {
        let t = try Timeline.bumble("nil_scan_all_services.central")
        let w = try FrameWalk.bumble("nil_scan_all_services.central")
        #expect(w.count == 600)
        let start = try #require(t.at(31, "scan.start"))
        #expect(abs(w.seconds[31] - 0.018) < 0.002 && start.outcome.name.description == "success")
        #expect(t.of("scan.stop").map(\.frame) == [599] && abs(w.seconds[599] - 12.403) < 0.002)
        let ads = t.of("advertisement")
        #expect(ads.count == 512 && w.frames(ofSubevent: 0x0D).count == 512)
        let connected = 425
        let disconnected = 570
        let advertisers: [(String, [Int])] = [
            ("D8:0D:18:00:00:01", [160, 160, 0, 0]), ("D9:09:18:00:00:02", [160, 104, 44, 12]),
            ("DA:1D:18:00:00:03", [116, 76, 30, 10]), ("DB:59:00:00:00:04", [76, 50, 20, 6]),
        ]
        for (address, counts) in advertisers {
            let mine = ads.filter { $0.peer == BDAddr(address) }
            let split = [
                mine.count, mine.filter { $0.frame < connected }.count,
                mine.filter { $0.frame > connected && $0.frame < disconnected }.count,
                mine.filter { $0.frame > disconnected }.count,
            ]
            #expect(split == counts, "\(address)")
            let connectable = mine.filter {
                if case .advertisement(let a) = $0.kind { a.eventType == 1 } else { false }
            }
            #expect(connectable.count * 2 == mine.count)
        }
        // Tag-42: manufacturer data of company 0x0059 with payload a1 b2 c3 d4, no UUIDs.
        let tag = try #require(ads.first { $0.peer == BDAddr("DB:59:00:00:00:04") })
        let m = try #require(
            tag.value.withView { AdvertisingData($0).manufacturerData.map { ($0.companyID, $0.data.toArray()) } })
        #expect(m.0 == 0x0059 && m.1 == [0xA1, 0xB2, 0xC3, 0xD4])
        #expect(tag.value.withView { Array(AdvertisingData($0).serviceUUIDs).isEmpty })
        let scale = try #require(ads.first { $0.peer == BDAddr("DA:1D:18:00:00:03") })
        #expect(scale.value.withView { AdvertisingData($0).appearance } == 0x0C80)
        let thermo = try #require(ads.first { $0.peer == Self.thermo })
        #expect(
            thermo.value.withView { Array(AdvertisingData($0).serviceUUIDs) } == [
                BluetoothUUID(uuid16: 0x1809), BluetoothUUID(uuid16: 0x180F),
            ])
        // Frame 419 (t=8.020 s): LE Create Connection with the scan still enabled.
        #expect(t.at(419, "connection.create") != nil && abs(w.seconds[419] - 8.020) < 0.002)
        #expect(t.of("scan.stop").allSatisfy { $0.frame > 419 })
        #expect(t.at(425, "connection.complete")?.connection == 1)
        // No MTU exchange: ATT_MTU 23.
        #expect(t.of("gatt.mtu").isEmpty && t.connections[0].mtu == 23)
        // Discovery of all services, characteristics and descriptors, no UUID filter.
        let services = t.of("gatt.discover.services")
        #expect(services.count == 3 && services.allSatisfy { $0.frame >= 426 && $0.frame <= 434 })
        if case .error(_, _, 0x0A, let h) = services.last!.outcome {
            #expect(h == 0x001D)
        } else {
            Issue.record("third request")
        }
        for e in t.events where e.type.description.hasPrefix("gatt.discover") {
            if case .discovery(let d, _) = e.kind { #expect(d.filter == nil, "frame \(e.frame)") }
        }
        let chars = t.of("gatt.discover.characteristics")
        #expect(chars.count == 10 && chars.allSatisfy { $0.frame >= 435 && $0.frame <= 472 })
        let descs = t.of("gatt.discover.descriptors")
        #expect(
            descs.compactMap { e -> UInt16? in if case .discovery(let d, _) = e.kind { d.startHandle } else { nil } }
                == [0x09, 0x11, 0x17])
        #expect(descs.allSatisfy { e in if case .discovery(let d, _) = e.kind { d.found == 1 } else { false } })
        #expect(descs.allSatisfy { $0.frame >= 473 && $0.frame <= 481 })
        // 16 requests and 16 responses in all, no reads or writes.
        let requests = t.events.filter { $0.type.description.hasPrefix("gatt.discover") }
        #expect(requests.count == 16 && requests.allSatisfy { $0.outcome.responseFrame != nil })
        #expect(t.of("gatt.read").isEmpty && t.of("gatt.write").isEmpty && t.of("gatt.subscribe").isEmpty)

        let db = t.connections[0].remoteDatabase
        #expect(
            db.services.map { [Int($0.uuid.uuid16!), Int($0.startHandle), Int($0.endHandle)] }
                == [
                    [0x1800, 1, 5], [0x1801, 6, 0x0D], [0x180D, 0x0E, 0x13], [0x180F, 0x14, 0x17],
                    [0x180A, 0x18, 0x1C],
                ])
        #expect(
            db.characteristics.map { [Int($0.valueHandle), Int($0.properties)] }
                == [
                    [3, 2], [5, 2], [8, 0x20], [0x0B, 0x0A], [0x0D, 2], [0x10, 0x10], [0x13, 2], [0x16, 0x12],
                    [0x1A, 2], [0x1C, 2],
                ])
        Self.expectGAPAndGATTLayout(db)
        #expect(
            db.descriptors.map(\.handle) == [0x09, 0x11, 0x17]
                && db.descriptors.allSatisfy { $0.uuid == AttributeRef.cccdUUID })
        #expect(db.attribute(at: 0x09, connection: 1)?.displayName == "Service Changed CCCD")
        #expect(db.attribute(at: 0x17, connection: 1)?.displayName == "Battery Level CCCD")
        // Frames 568–570 (t=11.393 s): Disconnect 0x13, Disconnection Complete 0x16.
        #expect(w.opcode(568) == 0x0406 && w.disconnectReason(570) == 0x16 && abs(w.seconds[568] - 11.393) < 0.002)
    }

    @Test func nilScanAllServicesPeripheral() throws {
        let t = try Timeline.bumble("nil_scan_all_services.peripheral")
        let w = try FrameWalk.bumble("nil_scan_all_services.peripheral")
        #expect(w.count == 87)
        #expect(Array(try #require(w.commands[29]).parameters[3...5]) == [0xA0, 0, 0])
        #expect(t.at(37, "connection.complete") != nil && abs(w.seconds[37] - 8.093) < 0.002 && w.subevent(38) == 0x12)
        let requests = t.events.filter { $0.type.description.hasPrefix("gatt.discover") }
        #expect(requests.count == 16 && requests.allSatisfy { $0.frame >= 39 && ($0.outcome.responseFrame ?? 0) <= 85 })
        #expect(requests.allSatisfy { if case .discovery(_, let sent) = $0.kind { !sent } else { false } })
        // The peer discovered this host's server: it is the local database here.
        #expect(t.connections[0].localDatabase.characteristics.count == 10)
        #expect(w.disconnectReason(87) == 0x13)
    }

    // MARK: 3. oversized_and_unchecked_writes

    @Test func oversizedAndUncheckedWritesCentral() throws {
        let t = try Timeline.bumble("oversized_and_unchecked_writes.central")
        let w = try FrameWalk.bumble("oversized_and_unchecked_writes.central")
        #expect(w.count == 483)
        let service = BluetoothUUID("F0A3C001-6C1E-4D5B-9A57-2B8E1A6B3C00")!
        let find = try #require(t.of("gatt.discover.services").first)
        if case .discovery(let d, _) = find.kind { #expect(d.filter == service && d.found == 1) }
        #expect(find.frame >= 32 && find.frame <= 52)
        // 4 Read By Type responses of one entry each (MTU 23), then Error 0x0A.
        let chars = t.of("gatt.discover.characteristics")
        #expect(
            chars.map { e -> Int in if case .discovery(let d, _) = e.kind { d.found } else { -1 } } == [1, 1, 1, 1, 0])
        if case .error(_, _, 0x0A, _) = chars.last!.outcome {} else { Issue.record("closing error") }
        let db = t.connections[0].remoteDatabase
        #expect(
            db.services.map(\.uuid) == [service] && db.services[0].startHandle == 0x0E
                && db.services[0].endHandle == 0x17)
        #expect(
            db.characteristics.map { [Int($0.declarationHandle), Int($0.valueHandle), Int($0.properties)] }
                == [[0x0F, 0x10, 0x02], [0x11, 0x12, 0x08], [0x13, 0x14, 0x04], [0x15, 0x16, 0x10]])
        #expect(db.characteristics.map { $0.uuid.description.suffix(4) } == ["3C01", "3C02", "3C03", "3C04"])
        #expect(db.descriptors.isEmpty)  // the CCCD at 0x0017 is never discovered
        #expect(t.of("gatt.mtu").isEmpty && t.connections[0].mtu == 23)
        // Frames 53/55: Read 0x0010 → "fw-1.4.2".
        let read = try #require(t.at(53, "gatt.read"))
        #expect(read.outcome.responseFrame == 55 && read.value.bytes == Array("fw-1.4.2".utf8))
        // (a) frames 56–57, 60: a 40-byte Write Request (43-byte PDU over MTU 23), 27 + 20 bytes of ACL.
        #expect(w.acl[56]?.length == 27 && w.acl[57]?.length == 20 && w.acl[56]?.boundary == .firstNonFlushable)
        let big = try #require(t.at(57, "gatt.write"))
        #expect(big.operation?.handle == 0x12 && big.value.count == 40 && big.value.count > Int(big.operation!.mtu) - 3)
        // (b) frames 61–72: three Prepare Writes (0/18, 18/18, 36/4) and Execute Write (flags 1).
        let prepares = t.of("gatt.write").filter { if case .write(_, .prepare) = $0.kind { true } else { false } }
        #expect(
            prepares.map { [Int($0.operation!.handle), Int($0.operation!.offset!), $0.value.count] }
                == [[0x12, 0, 18], [0x12, 18, 18], [0x12, 36, 4]])
        #expect(prepares.allSatisfy { $0.frame >= 61 && $0.frame <= 72 && $0.outcome.responseFrame != nil })
        let execute = try #require(
            t.of("gatt.write").first { if case .write(_, .execute) = $0.kind { true } else { false } })
        #expect(execute.operation?.offset == 1 && execute.frame <= 72 && execute.outcome.name.description == "success")
        // (c) frames 73/75: Write 00 01 to READ-only 0x0010 → Error 0x03 for request 0x12.
        let ro = try #require(t.at(73, "gatt.write"))
        #expect(
            ro.value.bytes == [0x00, 0x01] && ro.operation?.attribute?.properties == 0x02
                && ro.outcome.responseFrame == 75)
        // (d) frame 76: Write Command 42 42 42 42 to 0x0012 (Write, not Write Without Response).
        let cmd = try #require(t.at(76, "gatt.write"))
        guard case .write(let o, .command) = cmd.kind else {
            Issue.record("frame 76")
            return
        }
        #expect(o.opcode == 0x52 && o.handle == 0x12 && cmd.value.bytes == [0x42, 0x42, 0x42, 0x42])
        #expect(o.attribute?.properties == 0x08)
        // (e) frames 77–413: 200 Write Commands to 0x0014, 20 bytes, sequence 0…199, within 17 ms.
        let burst = t.of("gatt.write").filter { $0.operation?.handle == 0x14 }
        #expect(burst.count == 200 && burst.first!.frame >= 77 && burst.last!.frame <= 413)
        #expect(burst.allSatisfy { $0.value.count == 20 } && burst.map { Int($0.value.u16le(0)!) } == Array(0..<200))
        #expect(
            abs(w.seconds[burst.first!.frame] - 0.3633) < 0.0005 && abs(w.seconds[burst.last!.frame] - 0.3806) < 0.0005)
        // Flow control: 64 ACL packets (frame 76 and 63 more) before the first NOCP at frame 140,
        // then one packet per NOCP.
        let firstNOCP = w.completedPackets.keys.filter { $0 > 76 }.min()!
        #expect(firstNOCP == 140)
        #expect(w.acl.filter { $0.key >= 76 && $0.key < 140 && $0.value.sent }.count == 64)
        #expect(w.completedPackets.count == 217)
        // (f) frames 415/480: 01 00 to 0x0011, the WRITE characteristic's declaration (not a CCCD), success.
        let fake = try #require(t.at(415, "gatt.write"))
        #expect(
            fake.operation?.handle == 0x11 && fake.value.bytes == [0x01, 0x00]
                && fake.outcome.name.description == "success")
        #expect(t.of("gatt.unmatched_response").isEmpty)
        #expect(w.opcode(481) == 0x0406 && w.disconnectReason(483) == 0x16)
    }

    @Test func oversizedAndUncheckedWritesPeripheral() throws {
        let t = try Timeline.bumble("oversized_and_unchecked_writes.peripheral")
        let w = try FrameWalk.bumble("oversized_and_unchecked_writes.peripheral")
        #expect(w.count == 286)
        #expect(w.acl[63]?.boundary == .firstFlushable && w.acl[63]?.length == 27)
        #expect(w.acl[64]?.boundary == .continuing && w.acl[64]?.length == 20)
        let big = try #require(t.at(64, "gatt.write"))
        #expect(big.value.count == 40 && big.outcome.responseFrame == 65 && big.operation?.sent == false)
        #expect(t.events.first { if case .error(let f, _, 0x03, _) = $0.outcome { f == 80 } else { false } } != nil)
        let commands = t.of("gatt.write").filter { if case .write(_, .command) = $0.kind { true } else { false } }
        #expect(commands.count == 201 && commands.filter { $0.frame >= 82 && $0.frame <= 282 }.count == 201)
        #expect(t.at(283, "gatt.write")?.outcome.responseFrame == 284)
        #expect(w.disconnectReason(286) == 0x13)
    }

    // MARK: 4. reconnect_storm

    @Test func reconnectStormCentral() throws {
        let t = try Timeline.bumble("reconnect_storm.central")
        let w = try FrameWalk.bumble("reconnect_storm.central")
        #expect(w.count == 115)
        #expect(t.of("connection.create").map(\.frame) == [37, 59, 69, 79, 84, 94, 104])
        // Only the central's last link ends with its own HCI Disconnect (frame 113).
        #expect(w.frames(ofCommand: 0x0406) == [113])
        // Connection 2: last ACL at frame 67 (t=0.2188 s), timeout 0.721 s later at frame 68 (t=0.9399 s).
        #expect(w.acl.keys.filter { $0 < 68 }.max() == 67 && abs(w.seconds[67] - 0.2188) < 0.0005)
        #expect(abs(w.seconds[68] - 0.9399) < 0.0005 && abs(w.seconds[68] - w.seconds[67] - 0.721) < 0.001)
        // The cancel: 0.49 ms after the create, 0.14 ms after its Command Status (frame 80).
        #expect(
            abs(w.seconds[81] - w.seconds[79] - 0.00049) < 0.00005
                && abs(w.seconds[81] - w.seconds[80] - 0.00014) < 0.00005)
        let cancel = try #require(t.at(81, "connection.cancel"))
        #expect(cancel.outcome.name.description == "success" && cancel.outcome.responseFrame == 82)
        let failed = try #require(t.at(83, "connection.failed"))
        guard case .connectionFailed(let info) = failed.kind else { return }
        #expect(info.handle == 0 && info.timing?.interval == 0)
        // 6 successful completions, 1 failed, 7 creates.
        #expect(t.of("connection.complete").count == 6 && t.of("connection.failed").count == 1)
        // Each reconnect 0.6–1.4 ms after the previous Disconnection Complete.
        for (end, create) in [(58, 59), (68, 69), (78, 79), (93, 94), (103, 104)] {
            let gap = w.seconds[create] - w.seconds[end]
            #expect(gap >= 0.0006 && gap <= 0.0014, "\(end)→\(create): \(gap)")
        }
        // Every connection exchanges MTU 247 and reads Device Name (0x0003) = "PulseBelt HR";
        // only the first discovers it.
        #expect(t.of("gatt.mtu").count == 6 && t.connections.allSatisfy { $0.mtu == 247 })
        let reads = t.of("gatt.read")
        #expect(
            reads.count == 6
                && reads.allSatisfy { $0.operation?.handle == 0x03 && $0.value.bytes == Array("PulseBelt HR".utf8) })
        #expect(Set(reads.map(\.connection)) == Set(1...6))
        let discovery = t.events.filter { $0.type.description.hasPrefix("gatt.discover") }
        #expect(!discovery.isEmpty && discovery.allSatisfy { $0.connection == 1 })
        #expect(
            t.of("gatt.discover.services").allSatisfy { e in
                if case .discovery(let d, _) = e.kind { d.filter == BluetoothUUID(uuid16: 0x1800) } else { false }
            })
        // Connections 2… name the read from connection 1's database.
        #expect(reads.dropFirst().allSatisfy { $0.operation?.attribute?.carriedOver == true })
    }

    @Test func reconnectStormPeripheral() throws {
        let t = try Timeline.bumble("reconnect_storm.peripheral")
        let w = try FrameWalk.bumble("reconnect_storm.peripheral")
        #expect(w.count == 118)
        #expect(Array(try #require(w.commands[29]).parameters[3...5]) == [0x20, 0, 0])  // 20 ms
        #expect(w.frames(ofCommand: 0x0406) == [57, 81, 105])
        #expect([59, 83, 107].map { w.disconnectReason($0) } == [0x16, 0x16, 0x16])
        #expect([70, 94].map { w.disconnectReason($0) } == [0x08, 0x08] && w.disconnectReason(118) == 0x13)
        #expect(t.of("connection.disconnect").map(\.frame) == [59, 70, 83, 94, 107, 118])
        #expect(t.of("connection.complete").count == 6 && t.of("connection.failed").isEmpty)
        // Re-advertising: immediately after each drop but the last; frame 84 comes 11 ms late.
        let enables = w.frames(ofCommand: 0x2039).filter { $0 > 36 }
        #expect(enables.count == 5)
        for (drop, enable) in zip([59, 70, 83, 94, 107], enables) {
            let gap = w.seconds[enable] - w.seconds[drop]
            #expect(enable == 84 ? abs(gap - 0.011) < 0.002 : gap < 0.002, "\(drop)→\(enable)")
        }
        #expect(enables.contains(84))
    }

    // MARK: 5. indications_and_errors

    @Test func indicationsAndErrorsCentral() throws {
        let t = try Timeline.bumble("indications_and_errors.central")
        let w = try FrameWalk.bumble("indications_and_errors.central")
        #expect(w.count == 135)
        let mtu = try #require(t.at(32, "gatt.mtu"))
        #expect(mtu.outcome.responseFrame == 34 && t.connections[0].mtu == 185)
        let db = t.connections[0].remoteDatabase
        #expect(db.services.count == 3 && db.services[2].startHandle == 0x0E && db.services[2].endHandle == 0x13)
        #expect(db.services[2].uuid == BluetoothUUID("F0A3C005-6C1E-4D5B-9A57-2B8E1A6B3C50"))
        #expect(db.characteristics.count == 7)
        Self.expectGAPAndGATTLayout(db)
        #expect(
            db.characteristics.suffix(2).map { [Int($0.declarationHandle), Int($0.valueHandle), Int($0.properties)] }
                == [[0x0F, 0x10, 0x22], [0x12, 0x13, 0x02]])
        #expect(
            t.of("gatt.discover.characteristics").contains { e in
                if case .discovery(let d, _) = e.kind { e.outcome.responseFrame == 59 && d.found == 2 } else { false }
            })
        // Subscriptions: 0x0009 and 0x0011 with 02 00 (indications).
        let subs = t.of("gatt.subscribe")
        #expect(
            subs.map { $0.operation!.handle } == [0x09, 0x11] && subs.allSatisfy { $0.value.bytes == [0x02, 0x00] })
        #expect(subs[0].frame >= 63 && subs[0].frame <= 68 && subs[1].frame >= 69 && subs[1].frame <= 74)
        #expect(subs.map(\.attributeName) == ["Service Changed CCCD", "F0A3C005-6C1E-4D5B-9A57-2B8E1A6B3C51 CCCD"])
        // Indications: a0…a4 + "alarm" on 0x0010, 6 indications and 6 confirmations in total.
        let custom = t.of("gatt.indication").dropFirst()
        #expect(custom.map { $0.value.bytes } == (0xA0...0xA4).map { [UInt8($0)] + Array("alarm".utf8) })
        #expect(custom.allSatisfy { $0.operation?.handle == 0x10 && $0.outcome.name.description == "success" })
        // Errors: 0x01 for Read 0x0FFF, 0x0A for Read By Type 0x2A6E, 0x05 for Read 0x0013.
        if case .error(_, _, 0x01, let h) = t.at(93, "gatt.read")?.outcome {
            #expect(h == 0x0FFF)
        } else {
            Issue.record("93")
        }
        let byType = try #require(t.at(96, "gatt.read"))
        if case .read(let o, .byType) = byType.kind {
            #expect(o.attribute?.uuid == BluetoothUUID(uuid16: 0x2A6E))
        } else {
            Issue.record("96")
        }
        if case .error(_, _, 0x0A, let h) = byType.outcome { #expect(h == 0x0001) } else { Issue.record("96") }
        if case .error(_, _, 0x05, let h) = t.at(99, "gatt.read")?.outcome {
            #expect(h == 0x0013)
        } else {
            Issue.record("99")
        }
        // SMP: request 102 sent, response 104, Just Works, SC; both key distributions 0x03.
        let req = try #require(t.at(102, "smp.pairing_request"))
        guard case .pairingRequest(let p, true) = req.kind else {
            Issue.record("102")
            return
        }
        #expect(p.features.ioCapability == 3 && p.features.oobDataFlag == 0 && p.features.authReq.rawValue == 0x09)
        #expect(!p.features.authReq.mitm && p.features.maximumEncryptionKeySize == 16)
        #expect(
            p.features.initiatorKeyDistribution.rawValue == 0x03 && p.features.responderKeyDistribution.rawValue == 0x03
        )
        if case .pairingResponse(let r, _) = t.at(104, "smp.pairing_response")?.kind {
            #expect(r.features == p.features)
        }
        // 121/122: LE Enable Encryption (handle 0x0001, Rand 0, EDIV 0), Command Status; 123 Encryption Change on.
        let enc = try #require(w.commands[121])
        #expect(
            enc.opcode == 0x2019 && Array(enc.parameters[0...11]) == [0x01, 0x00] + [UInt8](repeating: 0, count: 10))
        #expect(w.eventCode(122) == 0x0F)
        if case .encryptionChange(let s, let on) = t.at(123, "connection.encryption")?.kind {
            #expect(s == 0 && on == 1)
        }
        // Key distribution: IRK + identity address from the peripheral (124/125), then from the central (126/127); no LTK/CSRK.
        let keys = t.of("smp.key").map { e -> [Int] in
            if case .keyDistribution(let k, let sent) = e.kind { [e.frame, Int(k.rawValue), sent ? 1 : 0] } else { [] }
        }
        let irk = Int(SMPDistributedKey.identityResolvingKey.rawValue)
        #expect(keys == [[124, irk, 0], [126, irk, 1]])
        let ids = t.of("smp.identity_address").map { e -> BDAddr? in
            if case .identityAddress(let a, 0, _) = e.kind { a } else { nil }
        }
        #expect(t.of("smp.identity_address").map(\.frame) == [125, 127])
        #expect(ids == [BDAddr("00:1B:DC:00:5E:06"), BDAddr("00:1B:DC:00:00:01")])
        // 130/132: the retried read succeeds; 133–135 disconnect.
        #expect(t.at(130, "gatt.read")?.outcome.responseFrame == 132)
        #expect(w.opcode(133) == 0x0406 && w.disconnectReason(135) == 0x16)
    }

    @Test func indicationsAndErrorsPeripheral() throws {
        let t = try Timeline.bumble("indications_and_errors.peripheral")
        let w = try FrameWalk.bumble("indications_and_errors.peripheral")
        #expect(w.count == 143)
        let errors = t.events.compactMap { e -> [Int]? in
            if case .error(let f, _, let code, _) = e.outcome, e.type.description == "gatt.read" {
                [f, Int(code)]
            } else {
                nil
            }
        }
        #expect(errors == [[102, 0x01], [105, 0x0A], [108, 0x05]])
        #expect(t.of("gatt.indication").count == 6 && t.of("gatt.indication").allSatisfy { $0.operation?.sent == true })
        // 130 LE Long Term Key Request (Rand 0, EDIV 0), 131 Reply, 132 Command Complete, 133 Encryption Change.
        #expect(w.subevent(130) == 0x05 && w.events[130]!.parameters[2...11].allSatisfy { $0 == 0 })
        #expect(w.opcode(131) == 0x201A && w.eventCode(132) == 0x0E)
        if case .encryptionChange(_, let on) = t.at(133, "connection.encryption")?.kind {
            #expect(on == 1)
        } else {
            Issue.record("133")
        }
        if case .pairingResponse(let p, true) = t.of("smp.pairing_response").first?.kind {
            #expect(p.method == .justWorks)
        } else {
            Issue.record("pairing response")
        }
        #expect(t.connections[0].identity == Self.centralPublic)
        #expect(t.at(140, "gatt.read")?.outcome.responseFrame == 141)
        #expect(w.disconnectReason(143) == 0x13)
    }

    static let centralPublic = BDAddr("00:1B:DC:00:00:01")!

    // MARK: 6. long_notify_stream

    @Test func longNotifyStreamCentral() throws {
        let t = try Timeline.bumble("long_notify_stream.central")
        let w = try FrameWalk.bumble("long_notify_stream.central")
        #expect(w.count == 28_602)
        #expect(t.at(32, "gatt.mtu")?.outcome.responseFrame == 34 && t.connections[0].mtu == 247)
        let req = try #require(t.at(35, "connection.parameter_request"))
        guard case .connectionParameterRequest(let id, let lo, let hi, let lat, let to, let sent, let result) = req.kind
        else { return }
        #expect(id == 1 && lo == 6 && hi == 9 && lat == 0 && to == 400 && !sent && result == 0)
        #expect(req.outcome.responseFrame == 36)
        if case .connectionParameterResponse(1, 0, true) = t.at(36, "connection.parameter_response")?.kind {
        } else {
            Issue.record("36")
        }
        let update = try #require(w.commands[37])
        #expect(update.opcode == 0x2013 && Array(update.parameters[0...9]) == [1, 0, 6, 0, 9, 0, 0, 0, 0x90, 0x01])
        #expect(w.eventCode(39) == 0x0F)
        if case .connectionUpdate(0, let timing) = t.at(40, "connection.update")?.kind {
            #expect(timing == ConnectionTiming(interval: 9, latency: 0, supervisionTimeout: 400))
        } else {
            Issue.record("40")
        }
        let sub = t.of("gatt.subscribe")
        #expect(sub.count == 1 && sub[0].operation?.handle == 0x11 && sub[0].value.bytes == [0x01, 0x00])
        #expect(sub[0].frame >= 41 && (sub[0].outcome.responseFrame ?? 99) <= 58)
        #expect(
            t.events.filter { $0.type.description.hasPrefix("gatt.discover") }.allSatisfy {
                $0.frame >= 41 && $0.frame <= 58
            })
        let notes = t.of("gatt.notification")
        #expect(notes.count == 5040 && notes.allSatisfy { $0.operation?.handle == 0x10 })
        #expect(notes.allSatisfy { $0.value.count >= 20 && $0.value.count <= 244 })
        let first = w.seconds[notes.first!.frame]
        let last = w.seconds[notes.last!.frame]
        #expect(abs(first - 0.266) < 0.001 && abs(last - 60.254) < 0.001 && abs(last - first - 59.99) < 0.01)
        #expect(abs(Double(notes.count) / (last - first) - 84.0) < 0.05)
        var perSecond = [Int](repeating: 0, count: 61)
        for n in notes { perSecond[Int(w.seconds[n.frame] - first)] += 1 }
        #expect(perSecond.dropLast().allSatisfy { $0 >= 83 && $0 <= 85 })
        let bytes = notes.reduce(0) { $0 + $1.value.count }
        #expect(bytes == 668_645 && bytes + 3 * notes.count == 683_765)
        #expect(abs(Double(bytes) / (last - first) - 11_146) < 10)
        // Sequence numbers 0…5039, then filler (seq + k) & 0xFF in the bytes kept.
        #expect(notes.map { Int($0.value.u16le(0)!) | Int($0.value.u16le(2)!) << 16 } == Array(0..<5040))
        #expect(
            notes.allSatisfy { n in
                let seq = Int(n.value.u16le(0)!)
                return (4..<n.value.storedCount).allSatisfy { i in n.value[i] == UInt8((seq + i - 4) & 0xFF) }
            })
        // 28,549 RX ACL packets: 5,048 starts (PB 0x02), 23,501 continuations.
        let rx = w.acl.values.filter { !$0.sent }
        #expect(rx.count == 28_549 && rx.filter { $0.boundary == .firstFlushable }.count == 5048)
        #expect(rx.filter { $0.boundary == .continuing }.count == 23_501)
        #expect(
            w.opcode(28_600) == 0x0406 && w.disconnectReason(28_602) == 0x16 && abs(w.seconds[28_600] - 60.258) < 0.001)
    }

    @Test func longNotifyStreamPeripheral() throws {
        let t = try Timeline.bumble("long_notify_stream.peripheral")
        let w = try FrameWalk.bumble("long_notify_stream.peripheral")
        #expect(w.count == 57_146)
        let req = try #require(t.at(42, "connection.parameter_request"))
        if case .connectionParameterRequest(_, _, _, _, _, true, 0) = req.kind {} else { Issue.record("42") }
        #expect(req.outcome.responseFrame == 44)
        let update = try #require(t.at(45, "connection.update"))
        if case .connectionUpdate(0, let timing) = update.kind {
            #expect(timing.interval == 9 && timing.supervisionTimeout == 400)
        }
        #expect(abs(w.seconds[45] - w.seconds[44] - 0.00025) < 0.0001)
        let notes = t.of("gatt.notification")
        #expect(notes.count == 5040 && notes.allSatisfy { $0.operation?.sent == true })
        let tx = w.acl.values.filter(\.sent)
        #expect(
            tx.filter { $0.boundary == .firstNonFlushable }.count == 5048
                && tx.filter { $0.boundary == .continuing }.count == 23_501)
        // Every ACL packet the peripheral sent is acknowledged by its own NOCP of count 1.
        #expect(
            tx.count == 28_549 && w.completedPackets.count == 28_549 && w.completedPackets.values.allSatisfy { $0 == 1 }
        )
        #expect(w.disconnectReason(57_146) == 0x13)
    }

    // MARK: 7. two_peripherals_concurrent (frame-87 facts are in BumbleTimelineTests)

    @Test func twoPeripheralsConcurrentCentral() throws {
        let t = try Timeline.bumble("two_peripherals_concurrent.central")
        let w = try FrameWalk.bumble("two_peripherals_concurrent.central")
        #expect(w.count == 118)
        #expect(t.of("scan.start").isEmpty && t.of("advertisement").isEmpty)
        #expect(t.of("connection.create").map(\.frame) == [29, 53])
        #expect(t.at(53, "connection.create")?.peer == BDAddr("DF:E5:0B:00:00:08"))
        // Link A: MTU 32/34, Find By Type Value 35/37 (→ 0x000E–0x0013) + 38/40 error, Read By Type 41/43 + 44/46, FI 47/49, CCCD 50/52.
        let a = t.events.filter { $0.connection == 1 && $0.frame <= 52 && $0.outcome.responseFrame != nil }
        #expect(
            a.map { [$0.frame, $0.outcome.responseFrame!] } == [
                [32, 34], [35, 37], [38, 40], [41, 43], [44, 46], [47, 49], [50, 52],
            ])
        let b = t.events.filter { $0.connection == 2 && $0.frame <= 77 && $0.outcome.responseFrame != nil }
        #expect(
            b.map { [$0.frame, $0.outcome.responseFrame!] } == [
                [56, 58], [59, 61], [62, 64], [65, 68], [69, 71], [72, 74], [75, 77],
            ])
        #expect(w.acl[67]?.boundary == .firstFlushable && w.acl[68]?.boundary == .continuing)
        let dbA = t.connections[0].remoteDatabase
        let dbB = t.connections[1].remoteDatabase
        #expect(
            dbA.characteristics.map { [Int($0.valueHandle), Int($0.properties), Int($0.uuid.uuid16 ?? 0)] } == [
                [0x10, 0x10, 0x2A37], [0x13, 0x02, 0x2A38],
            ])
        #expect(
            dbB.characteristics.map { [Int($0.valueHandle), Int($0.properties)] } == [[0x10, 0x12], [0x13, 0x0A]])
        #expect(dbB.services.map(\.uuid) == [BluetoothUUID("F0A3C007-6C1E-4D5B-9A57-2B8E1A6B3C70")!])
        #expect(dbA.descriptors.map(\.handle) == [0x11] && dbB.descriptors.map(\.handle) == [0x11])
        #expect(
            [52, 77].allSatisfy { f in
                t.events.contains { $0.type.description == "gatt.subscribe" && $0.outcome.responseFrame == f }
            })
        // Notification values: A's bpm, B's temperatures (sint16, 0.01 °C).
        let notes = t.of("gatt.notification")
        #expect(
            notes.filter { $0.connection == 1 }.map { Int($0.value[1]!) } == [75, 78, 76, 78, 76, 76, 75, 76, 75, 78])
        #expect(
            notes.filter { $0.connection == 2 }.map { Int($0.value.u16le(0)!) }
                == [2155, 2157, 2152, 2154, 2157, 2158, 2153, 2154, 2157, 2161])
        #expect(notes.first?.value.bytes == [0x16, 0x4B, 0x33, 0x03])
        // Frames 95/96 at once: 99 answers B's write, 100 A's read (01).
        #expect(t.at(96, "gatt.read")?.value.bytes == [0x01] && t.at(106, "gatt.read")?.outcome.responseFrame == 108)
        // Per connection: never more than one outstanding request, one MTU exchange each, every
        // notification after its own connection's CCCD write.
        for n in [1, 2] {
            let mine = t.events.filter {
                $0.connection == n && $0.outcome.responseFrame != nil && $0.type.description != "gatt.indication"
            }
            for (x, y) in zip(mine, mine.dropFirst()) {
                #expect(x.outcome.responseFrame! < y.frame, "connection \(n) frame \(y.frame)")
            }
            #expect(t.of("gatt.mtu").filter { $0.connection == n }.count == 1)
            let sub = t.of("gatt.subscribe").first { $0.connection == n }!.frame
            #expect(notes.filter { $0.connection == n }.allSatisfy { $0.frame > sub })
        }
        // 113–115: Disconnect handle 0x0002 (0x13), Command Status, Disconnection Complete 0x16; 116–118 the same for 0x0001.
        #expect(
            w.commands[113]?.parameters == [0x02, 0x00, 0x13] && w.eventCode(114) == 0x0F
                && w.disconnectReason(115) == 0x16)
        #expect(
            w.commands[116]?.parameters == [0x01, 0x00, 0x13] && w.eventCode(117) == 0x0F
                && w.disconnectReason(118) == 0x16)
    }

    @Test func twoPeripheralsConcurrentPeripherals() throws {
        let a = try Timeline.bumble("two_peripherals_concurrent.peripheral")
        let wa = try FrameWalk.bumble("two_peripherals_concurrent.peripheral")
        #expect(wa.count == 86)
        #expect(Array(try #require(wa.commands[29]).parameters[3...5]) == [0xA0, 0, 0])
        #expect(a.at(37, "connection.complete")?.peer == Self.central && wa.subevent(38) == 0x12)
        #expect(a.of("gatt.subscribe").map(\.frame) == [57] && a.of("gatt.subscribe")[0].outcome.responseFrame == 58)
        #expect(a.of("gatt.notification").map(\.frame) == [60, 62, 64, 69, 71, 73, 78, 80, 82, 84])
        #expect(a.of("gatt.read").map { [$0.frame, $0.outcome.responseFrame!] } == [[66, 67], [75, 76]])
        #expect(a.of("gatt.read").allSatisfy { $0.operation?.handle == 0x13 && $0.value.bytes == [0x01] })
        #expect(wa.disconnectReason(86) == 0x13)

        let b = try Timeline.bumble("two_peripherals_concurrent.peripheral_b")
        let wb = try FrameWalk.bumble("two_peripherals_concurrent.peripheral_b")
        #expect(wb.count == 91)
        let complete = try #require(b.at(37, "connection.complete"))
        #expect(abs(wb.seconds[37] - 0.308) < 0.001 && wb.subevent(38) == 0x12)
        if case .connectionComplete(let info) = complete.kind { #expect(info.handle == 1) }
        #expect(wb.acl[49]?.sent == true && wb.acl[50]?.boundary == .continuing)
        #expect(b.of("gatt.subscribe").map(\.frame) == [59])
        #expect(b.of("gatt.notification").map(\.frame) == [62, 64, 69, 71, 73, 78, 80, 82, 87, 89])
        #expect(
            b.at(66, "gatt.read")?.value.bytes == [0x6D, 0x08] && b.at(66, "gatt.read")?.outcome.responseFrame == 67)
        #expect(b.at(75, "gatt.write")?.value.bytes == [0x02] && b.at(75, "gatt.write")?.outcome.responseFrame == 76)
        #expect(b.at(84, "gatt.read")?.value.bytes == [0x02] && b.at(84, "gatt.read")?.outcome.responseFrame == 85)
        #expect(wb.disconnectReason(91) == 0x13)
    }

    // MARK: 8. cached_reconnect

    @Test func cachedReconnectCentral() throws {
        let t = try Timeline.bumble("cached_reconnect.central")
        let w = try FrameWalk.bumble("cached_reconnect.central")
        #expect(w.count == 126)
        #expect(t.at(29, "scan.start") == nil && w.opcode(29) == 0x2041 && t.at(31, "scan.start") != nil)
        #expect(
            t.of("advertisement").map(\.frame) == [33, 34]
                && t.of("advertisement").allSatisfy { $0.peer == heartRatePeer })
        #expect(t.of("scan.stop").map(\.frame) == [35] && t.of("scan.start").count == 1)
        #expect(t.of("connection.create").map(\.frame) == [37, 105])
        #expect(t.of("gatt.mtu").map(\.frame) == [40, 108] && t.connections.allSatisfy { $0.mtu == 185 })
        let all = try #require(t.at(43, "gatt.discover.services"))
        if case .discovery(let d, _) = all.kind {
            #expect(d.filter == nil && d.startHandle == 1 && d.endHandle == 0xFFFF && d.found == 5)
        }
        #expect(
            all.outcome.responseFrame == 46 && w.acl[45]?.boundary == .firstFlushable
                && w.acl[46]?.boundary == .continuing)
        if case .error(_, _, 0x0A, let h) = t.at(47, "gatt.discover.services")?.outcome {
            #expect(h == 0x1F)
        } else {
            Issue.record("47")
        }
        #expect(
            t.of("gatt.discover.characteristics").map { [$0.frame, $0.outcome.responseFrame!] }
                == [
                    [50, 52], [53, 55], [56, 58], [59, 61], [62, 64], [65, 67], [68, 70], [71, 73], [74, 76], [77, 79],
                ])
        #expect(
            t.of("gatt.discover.descriptors").map { [$0.frame, $0.outcome.responseFrame!] } == [
                [80, 82], [83, 85], [86, 88], [89, 91],
            ])
        let db = t.connections[0].remoteDatabase
        Self.expectGAPAndGATTLayout(db)
        #expect(
            db.services.map { [Int($0.uuid.uuid16!), Int($0.startHandle), Int($0.endHandle)] }
                == [
                    [0x1800, 1, 5], [0x1801, 6, 0x0D], [0x180D, 0x0E, 0x15], [0x180F, 0x16, 0x19],
                    [0x180A, 0x1A, 0x1E],
                ])
        #expect(
            db.characteristics.suffix(6).map { [Int($0.declarationHandle), Int($0.valueHandle), Int($0.properties)] }
                == [
                    [0x0F, 0x10, 0x10], [0x12, 0x13, 0x02], [0x14, 0x15, 0x08], [0x17, 0x18, 0x12], [0x1B, 0x1C, 0x02],
                    [0x1D, 0x1E, 0x02],
                ])
        #expect(db.attribute(at: 0x15, connection: 1)?.displayName == "Heart Rate Control Point")
        #expect(t.at(92, "gatt.subscribe")?.value.bytes == [0x01, 0x00])
        let notes = t.of("gatt.notification")
        #expect(notes.filter { $0.connection == 1 }.map(\.frame) == [95, 96, 97, 98])
        #expect(notes.map { Int($0.value[1]!) } == [71, 74, 73, 72, 74, 77, 76, 76])
        #expect(t.at(99, "gatt.read")?.value.bytes == [0x01])
        // 102–104 disconnect at t=3.575 s; 105 creates again 2.01 s later with no scan.
        #expect(w.opcode(102) == 0x0406 && w.disconnectReason(104) == 0x16 && abs(w.seconds[104] - 3.575) < 0.002)
        #expect(abs(w.seconds[105] - 5.586) < 0.002 && abs(w.seconds[105] - w.seconds[104] - 2.01) < 0.01)
        // Connection 2: 12 ATT PDUs, no discovery; the writes of 0x0015 = 01 and 0x0011 = 01 00.
        let second = t.events.filter { $0.connection == 2 }
        #expect(w.acl.filter { $0.key >= 107 }.count >= 12)
        #expect(
            second.filter { $0.type.description.hasPrefix("gatt") }.map { [$0.frame, $0.outcome.responseFrame ?? 0] }
                == [[108, 110], [111, 113], [114, 116], [117, 119], [120, 0], [121, 0], [122, 0], [123, 0]])
        #expect(t.at(111, "gatt.read")?.value.bytes == [0x01] && t.at(114, "gatt.write")?.value.bytes == [0x01])
        #expect(w.opcode(124) == 0x0406 && w.disconnectReason(126) == 0x16)
    }

    @Test func cachedReconnectPeripheral() throws {
        let t = try Timeline.bumble("cached_reconnect.peripheral")
        let w = try FrameWalk.bumble("cached_reconnect.peripheral")
        #expect(w.count == 131)
        #expect(t.at(37, "connection.complete")?.peer == Self.central && w.subevent(38) == 0x12)
        #expect(
            t.at(42, "gatt.discover.services")?.outcome.responseFrame == 44 && w.acl[43]?.sent == true
                && w.acl[44]?.boundary == .continuing)
        #expect(t.of("gatt.notification").map(\.frame) == [95, 97, 99, 101, 123, 125, 127, 129])
        #expect(w.disconnectReason(106) == 0x13 && w.opcode(107) == 0x2039)
        #expect(t.at(109, "connection.complete")?.connection == 2 && abs(w.seconds[109] - 5.594) < 0.002)
        #expect(t.at(111, "gatt.mtu") != nil && t.at(114, "gatt.read")?.operation?.handle == 0x13)
        #expect(t.at(117, "gatt.write")?.value.bytes == [0x01] && t.at(117, "gatt.write")?.operation?.handle == 0x15)
        // This host's own server, discovered by the peer on connection 1, names connection 2's handles.
        let sub = try #require(t.at(120, "gatt.subscribe"))
        #expect(sub.value.bytes == [0x01, 0x00] && sub.attributeName == "Heart Rate Measurement CCCD")
        #expect(sub.operation?.attribute?.carriedOver == true)
        #expect(w.disconnectReason(131) == 0x13)
    }

    // MARK: 9. hr_short_notification

    @Test func hrShortNotificationCentral() throws {
        let t = try Timeline.bumble("hr_short_notification.central")
        let w = try FrameWalk.bumble("hr_short_notification.central")
        #expect(w.count == 70)
        #expect(t.of("connection.create").map(\.frame) == [29] && t.at(31, "connection.complete") != nil)
        #expect(t.at(32, "gatt.mtu")?.outcome.responseFrame == 34 && t.connections[0].mtu == 247)
        #expect(
            t.events.filter { $0.type.description.hasPrefix("gatt.discover") }.allSatisfy {
                $0.frame >= 35 && $0.frame <= 49
            })
        let db = t.connections[0].remoteDatabase
        #expect(
            db.characteristics.map { [Int($0.valueHandle), Int($0.properties)] } == [[0x10, 0x10], [0x13, 0x02]])
        #expect(
            t.at(47, "gatt.discover.descriptors")?.outcome.responseFrame == 49 && db.descriptors.map(\.handle) == [0x11]
        )
        #expect(t.at(50, "gatt.subscribe")?.outcome.responseFrame == 52)
        let notes = t.of("gatt.notification")
        #expect(notes.map(\.frame) == Array(53...64))
        let values: [[UInt8]] = [
            [0x16, 0x4B, 0x33, 0x03], [0x16, 0x4D, 0x1D, 0x03], [0x16, 0x4D, 0x1D, 0x03], [0x16, 0x4B, 0x33, 0x03],
            [0x01],
            [0x16, 0x49, 0x49, 0x03], [0x16, 0x47, 0x61, 0x03], [0x16, 0x48, 0x55, 0x03], [0x01, 0x48],
            [0x16, 0x4B, 0x33, 0x03], [0x16, 0x4E, 0x13, 0x03], [0x16, 0x4C, 0x28, 0x03],
        ]
        #expect(notes.map { $0.value.bytes } == values)
        #expect(abs(w.seconds[53] - 0.246) < 0.001 && abs(w.seconds[64] - 11.274) < 0.001)
        for (x, y) in zip(notes, notes.dropFirst()) {
            #expect(abs(w.seconds[y.frame] - w.seconds[x.frame] - 1.0) < 0.05)
        }
        #expect(t.at(65, "gatt.read")?.value.bytes == [0x01] && t.at(65, "gatt.read")?.outcome.responseFrame == 67)
        #expect(w.opcode(68) == 0x0406 && w.disconnectReason(70) == 0x16)
    }

    @Test func hrShortNotificationPeripheral() throws {
        let t = try Timeline.bumble("hr_short_notification.peripheral")
        let w = try FrameWalk.bumble("hr_short_notification.peripheral")
        #expect(w.count == 87)
        let notes = t.of("gatt.notification")
        #expect(notes.map(\.frame) == Array(stride(from: 60, through: 82, by: 2)))
        #expect(
            notes.filter { $0.value.count < 4 }.map { [$0.frame] + $0.value.bytes.map(Int.init) } == [
                [68, 0x01], [76, 0x01, 0x48],
            ])
        #expect(w.disconnectReason(87) == 0x13)
    }

    // MARK: 10. scan_before_init

    @Test func scanBeforeInitCentral() throws {
        let t = try Timeline.bumble("scan_before_init.central")
        let w = try FrameWalk.bumble("scan_before_init.central")
        #expect(w.count == 75)
        #expect(w.commands[1]?.opcode == 0x2042 && w.commands[1]?.parameters == [0x01, 0x00, 0x00, 0x00, 0x00, 0x00])
        #expect(w.seconds[1] == 0 && w.events[2]?.parameters[3] == 0x0C)
        let early = try #require(t.at(1, "scan.start"))
        if case .error(2, _, 0x0C, _) = early.outcome {} else { Issue.record("frame 1 outcome \(early.outcome)") }
        // 31/32 parameters, 33/34 enable, both successful; 35–38 Thermo-1, 39–40 PulseBelt HR.
        #expect(w.opcode(31) == 0x2041 && w.events[32]?.parameters[3] == 0)
        let ads = t.of("advertisement")
        #expect(
            ads.prefix(4).allSatisfy { $0.peer == Self.thermo } && ads.suffix(2).allSatisfy { $0.peer == heartRatePeer }
        )
        #expect(t.at(43, "connection.create") != nil && abs(w.seconds[45] - 0.415) < 0.002)
        if case .connectionComplete(let info) = t.at(45, "connection.complete")?.kind { #expect(info.handle == 1) }
        #expect(t.at(46, "gatt.mtu")?.outcome.responseFrame == 48)
        #expect(
            t.events.filter {
                $0.type.description.hasPrefix("gatt.discover.s") || $0.type.description.hasPrefix("gatt.discover.c")
            }
            .allSatisfy { $0.frame >= 49 && $0.frame <= 60 })
        #expect(t.at(61, "gatt.discover.descriptors")?.outcome.responseFrame == 63)
        #expect(
            t.at(64, "gatt.subscribe")?.outcome.responseFrame == 66
                && t.at(64, "gatt.subscribe")?.value.bytes == [0x01, 0x00])
        let notes = t.of("gatt.notification")
        #expect(notes.allSatisfy { $0.operation?.handle == 0x10 })
        for (x, y) in zip(notes, notes.dropFirst()) {
            #expect(abs(w.seconds[y.frame] - w.seconds[x.frame] - 1.0) < 0.05)
        }
        #expect(t.at(70, "gatt.read")?.outcome.responseFrame == 72 && t.at(70, "gatt.read")?.value.bytes == [0x01])
        #expect(w.opcode(73) == 0x0406 && w.disconnectReason(75) == 0x16)
    }

    @Test func scanBeforeInitPeripheral() throws {
        let t = try Timeline.bumble("scan_before_init.peripheral")
        let w = try FrameWalk.bumble("scan_before_init.peripheral")
        #expect(w.count == 69)
        #expect(w.opcode(1) == 0x0C03 && t.of("scan.start").isEmpty)
        #expect(abs(w.seconds[29] - 0.307) < 0.002 && t.at(37, "connection.complete") != nil)
        #expect(t.of("gatt.notification").map(\.frame) == [60, 62, 64])
        #expect(t.at(66, "gatt.read")?.outcome.responseFrame == 67)
        #expect(w.disconnectReason(69) == 0x13)
    }

    // MARK: shared GATT layout

    /// GAP 0x1800 at 0x0001–0x0005 (Device Name 0x0002/0x0003, Appearance 0x0004/0x0005), GATT
    /// 0x1801 at 0x0006–0x000D (Service Changed 0x0007/0x0008 Indicate + CCCD 0x0009, Client
    /// Supported Features 0x000A/0x000B Read|Write, Database Hash 0x000C/0x000D Read).
    static func expectGAPAndGATTLayout(_ db: GATTDatabase, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            db.services.prefix(2).map { [Int($0.uuid.uuid16 ?? 0), Int($0.startHandle), Int($0.endHandle)] }
                == [[0x1800, 1, 5], [0x1801, 6, 0x0D]], sourceLocation: sourceLocation)
        #expect(
            db.characteristics.prefix(5).map {
                [Int($0.uuid.uuid16 ?? 0), Int($0.declarationHandle), Int($0.valueHandle), Int($0.properties)]
            }
                == [
                    [0x2A00, 2, 3, 0x02], [0x2A01, 4, 5, 0x02], [0x2A05, 7, 8, 0x20], [0x2B29, 0x0A, 0x0B, 0x0A],
                    [0x2B2A, 0x0C, 0x0D, 0x02],
                ],
            sourceLocation: sourceLocation)
        #expect(
            db.descriptors.first?.handle == 0x09 && db.descriptors.first?.uuid == AttributeRef.cccdUUID,
            sourceLocation: sourceLocation)
    }
}
