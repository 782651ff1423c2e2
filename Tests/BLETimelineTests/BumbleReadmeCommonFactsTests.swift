import BLEBytes
import BLEPackets
import BLETimeline
import TestSupport
import Testing

/// "Facts common to every file" of captures/bumble/README.md, for all 21 files.
@Suite struct BumbleReadmeCommonFactsTests {
    static let files = Fixtures.captures(in: "bumble").map {
        String($0.split(separator: "/").last!.dropLast(".btsnoop".count))
    }

    static let powerOnOpcodes: [UInt16] = [
        0x0C03, 0x1002, 0x1001, 0x2003, 0x1003, 0x0C01, 0x0C63, 0x2001, 0x1005, 0x2060, 0x2023, 0x2024, 0x1009, 0x2005,
    ]

    @Test func thereAreTwentyOneFiles() {
        #expect(Self.files.count == 21)
    }

    /// Frames 1–28 (3–30 in scan_before_init.central) are the power-on sequence, one command
    /// and its Command Complete each; the timeline's `controller.init_complete` gives what the
    /// controller said about itself.
    @Test(arguments: files)
    func powerOnSequence(_ name: String) throws {
        let w = try FrameWalk.bumble(name)
        let shift = name == "scan_before_init.central" ? 2 : 0
        for (i, op) in Self.powerOnOpcodes.enumerated() {
            #expect(w.opcode(1 + shift + 2 * i) == op, "\(name) frame \(1 + shift + 2 * i)")
            #expect(w.eventCode(2 + shift + 2 * i) == 0x0E, "\(name)")
        }
        // LE Read Suggested Default Data Length → 27/328 (frame 22 + shift).
        let suggested = try #require(w.events[22 + shift]).parameters
        #expect(Array(suggested[0...2]) == [1, 0x23, 0x20] && suggested[3] == 0)
        #expect(
            UInt16(suggested[4]) | UInt16(suggested[5]) << 8 == 27
                && UInt16(suggested[6]) | UInt16(suggested[7]) << 8 == 328)

        let t = try Timeline.bumble(name)
        let initEvent = try #require(t.of("controller.init_complete").first)
        #expect(initEvent.frame == 28 + shift)
        guard case .initComplete(let info) = initEvent.kind else {
            Issue.record("kind")
            return
        }
        #expect(info.resetFrame == 1 + shift && info.commands == 14 && info.failedCommands == 0)
        #expect(info.hciVersion == 9 && info.manufacturer == 0xFFFF)  // HCI 5.0, manufacturer 0xFFFF
        let features = try #require(info.leFeatures)
        // Data Length Extension (bit 5), 2M PHY (8), Coded PHY (11), Extended Advertising (12).
        for bit in [5, 8, 11, 12] { #expect(features & (1 << UInt64(bit)) != 0, "\(name) LE feature bit \(bit)") }
        #expect(info.aclMaxLength == 27 && info.aclPackets == 64)
        #expect(
            info.leACLMaxLength == 27 && info.leACLPackets == 64 && info.isoMaxLength == 960 && info.isoPackets == 64)
        #expect(info.suggestedMaxTxOctets == 251 && info.suggestedMaxTxTime == 2120)
        let identity =
            Self.identities[String(name.split(separator: ".").last!)]?[String(name.split(separator: ".").first!)]
            ?? Self.centralIdentity
        #expect(info.publicAddress == identity.public && info.randomAddress == identity.random, "\(name)")
        #expect(t.at(1 + shift, "controller.reset")?.outcome.responseFrame == 2 + shift)
    }

    /// Handles: 0x0001 everywhere except the second simultaneous link of scenario 7 central.
    /// Connection Complete is the legacy subevent 0x01 with interval 0x000C, latency 0, timeout
    /// 0x0048; LE Create Connection is the legacy command, scan 60/60 ms, interval 15–30 ms.
    @Test(arguments: files)
    func connectionsAndHandles(_ name: String) throws {
        let w = try FrameWalk.bumble(name)
        #expect(w.frames(ofSubevent: 0x0A).isEmpty && w.frames(ofCommand: 0x2043).isEmpty, "\(name)")
        let t = try Timeline.bumble(name)
        let completes = t.of("connection.complete")
        #expect(!completes.isEmpty)
        for c in completes {
            #expect(w.subevent(c.frame) == 0x01)
            guard case .connectionComplete(let info) = c.kind else { continue }
            let expectedHandle: UInt16 = name == "two_peripherals_concurrent.central" && c.connection == 2 ? 2 : 1
            #expect(info.handle == expectedHandle, "\(name) frame \(c.frame)")
            #expect(info.timing == ConnectionTiming(interval: 0x0C, latency: 0, supervisionTimeout: 0x48), "\(name)")
            #expect(info.role == (name.hasSuffix("central") ? 0 : 1))
            let peer = name.hasSuffix("central") ? nil : BDAddr("C0:FF:EE:00:00:01")
            if let peer { #expect(c.peer == peer && c.peerAddressType == 1) }
        }
        for create in t.of("connection.create") {
            guard case .connectionCreate(let info) = create.kind else { continue }
            #expect(!info.extended && info.scanInterval == 96 && info.scanWindow == 96 && info.phys == 0x01)
            #expect(
                info.intervalMin == 12 && info.intervalMax == 24 && info.latency == 0 && info.supervisionTimeout == 0x48
            )
        }
        // Connections are numbered by Connection Complete, not by handle.
        #expect(completes.map(\.connection) == completes.indices.map { $0 + 1 })
    }

    /// Scanning: extended parameters, active, 60/60 ms on 1M + Coded, duplicates not filtered;
    /// each advertising event gives two reports (0x0001 then 0x0008 with the same AD data), RSSI
    /// −50 dBm, TX power 0.
    @Test(arguments: files.filter { $0.hasSuffix("central") })
    func scanning(_ name: String) throws {
        let t = try Timeline.bumble(name)
        for s in t.of("scan.start") where s.outcome.name.description == "success" {
            guard case .scanStart(let p) = s.kind else { continue }
            #expect(
                p.extended && p.active && p.interval == 96 && p.window == 96 && p.phys == 0x05
                    && p.filterDuplicates == 0)
        }
        let ads = t.of("advertisement")
        #expect(ads.count % 2 == 0, "\(name)")
        for i in stride(from: 0, to: ads.count - 1, by: 2) {
            guard case .advertisement(let a) = ads[i].kind, case .advertisement(let b) = ads[i + 1].kind else {
                continue
            }
            #expect(a.eventType == 0x0001 && b.eventType == 0x0008, "\(name) frame \(ads[i].frame)")
            #expect(ads[i].peer == ads[i + 1].peer && ads[i].value == ads[i + 1].value)
            #expect(a.rssi == -50 && b.rssi == -50 && a.txPower == 0 && b.txPower == 0)
        }
    }

    /// Advertising: Set Extended Advertising Parameters (handle 0, properties 0x0013), Set
    /// Advertising Set Random Address, Set Extended Advertising Data, Enable; no scan response
    /// data; each LE Connection Complete is followed by LE Advertising Set Terminated.
    @Test(arguments: files.filter { !$0.hasSuffix("central") })
    func advertising(_ name: String) throws {
        let w = try FrameWalk.bumble(name)
        #expect([29, 31, 33, 35].map { w.opcode($0) } == [0x2036, 0x2035, 0x2037, 0x2039], "\(name)")
        let params = try #require(w.commands[29]).parameters
        #expect(params[0] == 0 && UInt16(params[1]) | UInt16(params[2]) << 8 == 0x0013)
        #expect(w.frames(ofCommand: 0x2038).isEmpty)
        let completes = w.frames(ofSubevent: 0x01)
        #expect(completes.first == 37)
        for f in completes {
            #expect(w.subevent(f + 1) == 0x12, "\(name) frame \(f + 1)")
            let p = try #require(w.events[f + 1]).parameters
            #expect(p[0] == 0 && p[1] == 0 && p[2] == 0x01 && p[3] == 0x00)  // status 0, set 0, handle 0x0001
        }
    }

    /// LE ACL data is fragmented to 27 bytes; TX starts with PB 0x00, RX with 0x02, the rest
    /// 0x01; one Number Of Completed Packets (count 1) per TX fragment.
    @Test(arguments: files)
    func aclFragmentation(_ name: String) throws {
        let w = try FrameWalk.bumble(name)
        #expect(w.acl.values.allSatisfy { $0.length <= 27 }, "\(name)")
        #expect(
            w.acl.values.allSatisfy {
                $0.boundary == .continuing || $0.boundary == ($0.sent ? .firstNonFlushable : .firstFlushable)
            })
        let tx = w.acl.values.filter(\.sent).count
        #expect(w.completedPackets.values.allSatisfy { $0 == 1 }, "\(name)")
        // Data still in flight at a disconnection is dropped without a completion, so count
        // completions per file and allow no more than the TX fragments.
        #expect(
            w.completedPackets.count <= tx && w.completedPackets.count >= tx - 2,
            "\(name): \(w.completedPackets.count) of \(tx)")
    }

    /// Exchange MTU: the server always answers 517, so ATT_MTU is the client's value; an ATT
    /// round trip takes about 18 ms (7.5 ms each way plus processing) as the client sees it,
    /// while the server answers within a few milliseconds of a request arriving.
    @Test(arguments: files)
    func mtuAndRoundTrip(_ name: String) throws {
        let t = try Timeline.bumble(name)
        for m in t.of("gatt.mtu") {
            guard case .mtuExchange(let client, let server, let effective, _) = m.kind else { continue }
            #expect(server == 517 && effective == client, "\(name) frame \(m.frame)")
        }
        let reads = t.of("gatt.read") + t.of("gatt.mtu") + t.of("gatt.discover.services")
        let latencies = reads.compactMap(\.outcome.latency)
        #expect(!latencies.isEmpty)
        if name.hasSuffix("central") {
            #expect(latencies.allSatisfy { $0 > 14_000 && $0 < 25_000 }, "\(name): \(latencies)")
        } else {
            #expect(latencies.allSatisfy { $0 < 5_000 }, "\(name): \(latencies)")
        }
    }

    /// A clean disconnect: HCI Disconnect 0x13, Command Status, Disconnection Complete 0x16 on
    /// the initiating side (0x13 on the other).
    @Test(arguments: files)
    func cleanDisconnects(_ name: String) throws {
        let w = try FrameWalk.bumble(name)
        for f in w.frames(ofCommand: 0x0406) {
            let p = try #require(w.commands[f]).parameters
            #expect(p[2] == 0x13, "\(name) frame \(f)")
            #expect(w.eventCode(f + 1) == 0x0F && w.disconnectReason(f + 2) == 0x16, "\(name) frame \(f)")
        }
        let t = try Timeline.bumble(name)
        for d in t.of("connection.disconnect") {
            guard case .disconnection(_, let reason, let side) = d.kind else { continue }
            switch reason {
            case 0x16: #expect(side == .local && w.opcode(d.frame - 2) == 0x0406)
            case 0x13: #expect(side == .remote)
            case 0x08: #expect(side == .linkLoss)
            default: Issue.record("\(name): unexpected reason \(reason)")
            }
        }
    }

    static let centralIdentity = (public: BDAddr("00:1B:DC:00:00:01")!, random: BDAddr("C0:FF:EE:00:00:01")!)
    /// The README's identity table: peripheral files by scenario.
    static let identities: [String: [String: (public: BDAddr, random: BDAddr)]] = {
        let hr = (public: BDAddr("00:1B:DC:00:0D:01")!, random: BDAddr("D8:0D:18:00:00:01")!)
        var p: [String: (public: BDAddr, random: BDAddr)] = [:]
        for s in [
            "clean_heart_rate", "nil_scan_all_services", "reconnect_storm", "two_peripherals_concurrent",
            "cached_reconnect", "hr_short_notification", "scan_before_init",
        ] { p[s] = hr }
        p["oversized_and_unchecked_writes"] = (BDAddr("00:1B:DC:00:C0:05")!, BDAddr("DC:C0:57:00:00:05")!)
        p["indications_and_errors"] = (BDAddr("00:1B:DC:00:5E:06")!, BDAddr("DD:5E:C0:00:00:06")!)
        p["long_notify_stream"] = (BDAddr("00:1B:DC:00:57:07")!, BDAddr("DE:57:4E:00:00:07")!)
        return [
            "peripheral": p,
            "peripheral_b": [
                "two_peripherals_concurrent": (BDAddr("00:1B:DC:00:E5:08")!, BDAddr("DF:E5:0B:00:00:08")!)
            ],
        ]
    }()
}
