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
            if shift == 3 { #expect(t.events.contains { $0.frame <= 3 && $0.type.description.hasPrefix("controller.index") }) }
        }
    }

    /// LE Connection Complete (subevents 0x01, 0x0A, 0x29, any status) and Disconnection
    /// Complete counts, from tshark 4.0.17:
    ///   tshark -r F -Y "bthci_evt.le_meta_subevent == 0x01 || bthci_evt.le_meta_subevent == 0x0a
    ///                   || bthci_evt.le_meta_subevent == 0x29" | wc -l
    ///   tshark -r F -Y "bthci_evt.code == 0x05" | wc -l
    static let tsharkCounts: [String: (le: Int, disconnections: Int)] = [
        "btsnoop-android_bk300.log.last": (4, 1),
        "btsnoop-android_domyos-treadmill-ftms.log": (1, 1),
        "btsnoop-android_dsd6-fitness-band.log": (1, 1),
        "btsnoop-android_nexxtender-charger-pairing.log": (7, 2),
        "btsnoop-android_pogo-plus-pairing-1970clock.log": (6, 3),
        "btsnoop-android_rc-toy-ae01-writes.log": (1, 1),
        "btsnoop-android_revcar-acl-only.log": (0, 0),
        "btsnoop-android_sphero-large.log": (12, 11),
        "btsnoop-btmon_batteread-header-only.btsnoop": (0, 0),
        "btsnoop-btmon_blue2thprinting-intel-scan.snoop": (2, 1),
        "btsnoop-btmon_rgbctf2020-magicintheair": (1, 0),
        "btsnoop-samsung_nexxtender-charger.cfa": (5, 3),
        "pcap-h4phdr201-nsec_infocar-obd.pcap": (0, 0),
        "pcap-h4phdr201_beancounter-hci.pcap": (1, 0),
        "pcapng-h4phdr201_airbily-smartwatch.pcapng": (1, 1),
        "pklg-be_btstack-le-pairing.pklg": (1, 3),
        "pklg-be_hciparse-test00-macos.pklg": (62, 0),
        "pklg-be_ios-sysdiagnose-bafang-ebike.pklg": (91, 20),
    ]

    /// Link-layer (sniffer) captures and an unknown container: not HCI, refused at open.
    static let notHCI: Set<String> = [
        "pcap-lell256_ice9-hackrf-adv37.pcap", "pcap-lell256_sniffle-gatt-discovery.pcap",
        "pcap-lell256_whad-empty-header-only.pcap", "pcap-nordic272_sweyntooth-nxp-enc-start.pcapng",
        "pcap-ppi192_crackle-pairing-ltk.pcap", "pcapng-lell256_crackle-le-secure-connections.pcapng",
        "pcapng-lell256_whad-gatt-discovery.pcap", "unknown-cfa_btstack-gatt-counter.cfa",
    ]

    @Test(arguments: Fixtures.captures(in: "public"))
    func publicCaptureCounts(_ path: String) throws {
        let name = String(path.split(separator: "/").last!)
        if Self.notHCI.contains(name) {
            #expect(throws: (any Error).self) { try Timeline(path) }
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
