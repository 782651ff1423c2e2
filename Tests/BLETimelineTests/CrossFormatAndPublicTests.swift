import BLEBytes
import BLEPackets
import BLETimeline
import TestSupport
import Testing

@Suite struct CrossFormatAndPublicTests {
    /// One line per event, with the frame shifted so every container compares equal.
    static func signature(_ t: Timeline, shift: Int) -> [String] {
        t.events.filter { !$0.type.description.hasPrefix("controller.index") && $0.type.description != "annotation" }
            .map { e in
                "\(e.frame - shift) \(e.time) \(e.type) \(e.connection ?? 0) \(e.peer?.description ?? "-") "
                    + "\(e.operation?.handle ?? 0) \(e.attributeName ?? "-") \(e.value.bytes) \(e.outcome.name) "
                    + "\(e.outcome.responseFrame.map { $0 - shift } ?? 0) \(e.outcome.latency ?? -1)"
            }
    }

    /// The nine containers of formats/ give the same timeline; the Linux-monitor btsnoop has
    /// three leading index/note records, so its frames are shifted by 3.
    @Test func nineContainersSameTimeline() throws {
        let original = Self.signature(
            try Timeline(Fixtures.capture("formats/clean_heart_rate.central.h4.btsnoop")), shift: 0)
        #expect(original.count > 50)
        let files = Fixtures.captures(in: "formats")
        #expect(files.count == 9)
        for f in files {
            let t = try Timeline(f)
            let shift = f.hasSuffix("monitor.btsnoop") ? 3 : 0
            let s = Self.signature(t, shift: shift)
            #expect(s == original, "\(f)")
            if shift == 3 {
                #expect(t.events.contains { $0.frame <= 3 && $0.type.description.hasPrefix("controller.index") })
            }
        }
    }

    /// LE Connection Complete (subevents 0x01, 0x0A, 0x29, any status) and Disconnection
    /// Complete counts, from tshark 4.0.17 (`make conformance` compares them with tshark live on
    /// every capture of the larger corpus, including those we may not redistribute):
    ///   tshark -r F -Y "bthci_evt.le_meta_subevent == 0x01 || bthci_evt.le_meta_subevent == 0x0a
    ///                   || bthci_evt.le_meta_subevent == 0x29" | wc -l
    ///   tshark -r F -Y "bthci_evt.code == 0x05" | wc -l
    static let tsharkCounts: [String: (le: Int, disconnections: Int)] = [
        "btsnoop-android_domyos-treadmill-ftms.log": (1, 1),
        "btsnoop-android_revcar-acl-only.log": (0, 0),
        "btsnoop-btmon_rgbctf2020-magicintheair": (1, 0),
        "pklg-be_hciparse-test00-macos.pklg": (62, 0),
        "pklg-be_ios-sysdiagnose-bafang-ebike.pklg": (91, 20),
    ]

    /// Link-layer (sniffer) captures: no HCI events to count (LinkLayerTimelineTests has
    /// theirs). Their names say their link type.
    static func isLinkLayer(_ name: String) -> Bool {
        ["lell25", "nordic272", "ppi192", "user157"].contains { name.contains($0) }
    }

    @Test(arguments: Fixtures.captures(in: "public"))
    func publicCaptureCounts(_ path: String) throws {
        let name = String(path.split(separator: "/").last!)
        if name.hasPrefix("unknown-") {
            #expect(throws: (any Error).self) { try Timeline(path) }
            return
        }
        if Self.isLinkLayer(name) {
            _ = try Timeline(path)  // reads to the end
            return
        }
        let expected = try #require(Self.tsharkCounts[name], "no tshark counts recorded for \(name)")
        let t = try Timeline(path)
        let le = t.events.filter { e in
            switch e.kind {
            case .connectionComplete(let c), .connectionFailed(let c): c.isLE
            default: false
            }
        }
        #expect(le.count == expected.le, "\(name)")
        #expect(t.of("connection.disconnect").count == expected.disconnections, "\(name)")
        #expect(zip(t.events, t.events.dropFirst()).allSatisfy { $0.frame <= $1.frame }, "\(name)")
    }
}

@Suite struct CCCDWriteCommandTests {
    /// domyos frame 388 (tshark): Write Command (0x52) to handle 0x0053, the CCCD of value 0x0052
    /// (Find Information at 381 → 0x2902), value 01 00. A Write Command is not the GATT
    /// procedure for a descriptor (Vol 3 Part G 4.12.3), but the server applies it: it is a
    /// subscription, and value 0x0052 notifies from 395 on.
    @Test func writeCommandToCCCDIsASubscription() throws {
        let t = try Timeline(Fixtures.capture("public/btsnoop-android_domyos-treadmill-ftms.log"))
        let e = try #require(t.at(388, "gatt.subscribe"))
        guard case .subscribe(let op, let config) = e.kind else {
            Issue.record("not a subscription")
            return
        }
        #expect(op.opcode == 0x52)
        #expect(op.handle == 0x0053)
        #expect(op.attribute?.characteristicValueHandle == 0x0052)
        #expect(config == 0x0001)
        #expect(t.at(395, "gatt.notification") != nil)
    }
}
