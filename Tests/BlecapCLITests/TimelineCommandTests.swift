import Foundation
import TestSupport
import Testing

/// `blecap timeline` end to end: the text layout, the JSONL contract of docs/timeline.md and
/// the filters, on the Bumble captures.
@Suite struct TimelineCommandTests {
    static func bumble(_ name: String) -> String { Fixtures.capture("bumble/\(name).btsnoop") }

    static func jsonl(_ name: String, _ extra: [String] = []) throws -> [[String: Any]] {
        let run = try CLIRunner.run(["timeline", "--format", "jsonl"] + extra + [bumble(name)])
        #expect(run.status == 0, "\(run.stderr)")
        return try CLIRunner.jsonLines(run.stdout)
    }

    @Test func jsonlCommonFieldsAndOrder() throws {
        let events = try Self.jsonl("clean_heart_rate.central")
        #expect(events.count > 50)
        var previous = 0
        for e in events {
            let frame = try #require(e["frame"] as? Int)
            #expect(frame >= previous)
            previous = frame
            let time = try #require(e["time"] as? String)
            #expect(time.hasPrefix("2026-11-22T") && time.hasSuffix("Z") && time.count == 27)
            #expect(e["elapsed"] is Double || e["elapsed"] is Int)
            let type = try #require(e["type"] as? String)
            #expect(type.range(of: #"^[a-z_]+(\.[a-z_]+)*$"#, options: .regularExpression) != nil, "\(type)")
            if e["peer"] != nil { #expect(e["peer_address_type"] is Int) }
        }
        let types = Set(events.compactMap { $0["type"] as? String })
        #expect(
            types.isSuperset(of: [
                "controller.reset", "controller.init_complete", "scan.start", "advertisement", "scan.stop",
                "connection.create", "connection.complete", "gatt.mtu", "gatt.discover.services",
                "gatt.discover.characteristics", "gatt.discover.descriptors", "gatt.read",
                "gatt.subscribe", "gatt.notification", "connection.disconnect",
            ]))
        #expect(!types.contains("gatt.unmatched_response") && !types.contains("gatt.write"))
    }

    @Test func jsonlTypeSpecificFields() throws {
        let events = try Self.jsonl("clean_heart_rate.central")
        func at(_ frame: Int, _ type: String) -> [String: Any]? {
            events.first { $0["frame"] as? Int == frame && $0["type"] as? String == type }
        }
        let scan = try #require(at(31, "scan.start"))
        #expect(
            scan["scan_type"] as? String == "active" && scan["interval_ms"] as? Int == 60 && scan["phys"] as? Int == 5)
        #expect(
            scan["filter_duplicates"] as? Int == 0 && scan["outcome"] as? String == "success"
                && scan["response_frame"] as? Int == 32)
        let ad = try #require(at(37, "advertisement"))
        #expect(ad["peer"] as? String == "D8:0D:18:00:00:01" && ad["local_name"] as? String == "PulseBelt HR")
        #expect(ad["service_uuids"] as? [String] == ["180D", "180F", "180A"] && ad["rssi"] as? Int == -50)
        #expect(ad["appearance"] as? Int == 0x0341 && ad["event_type"] as? Int == 1)
        let complete = try #require(at(43, "connection.complete"))
        #expect(
            complete["connection"] as? Int == 1 && complete["handle"] as? Int == 1
                && complete["role"] as? String == "central")
        #expect(complete["interval_ms"] as? Int == 15 && complete["timeout_ms"] as? Int == 720)
        let create = try #require(at(41, "connection.create"))
        #expect(create["phys"] as? Int == 1 && create["extended"] as? Bool == false && create["connection"] == nil)
        let mtu = try #require(at(44, "gatt.mtu"))
        #expect(mtu["client_rx_mtu"] as? Int == 247 && mtu["server_rx_mtu"] as? Int == 517 && mtu["mtu"] as? Int == 247)
        let read = try #require(at(115, "gatt.read"))
        #expect(
            read["handle"] as? Int == 0x16 && read["name"] as? String == "Battery Level"
                && read["uuid"] as? String == "2A19")
        #expect(
            read["value"] as? String == "57" && read["length"] as? Int == 1 && read["response_frame"] as? Int == 117)
        let latency = try #require(read["latency_us"] as? Int)
        #expect(latency > 14_000 && latency < 25_000)
        let sub = try #require(at(92, "gatt.subscribe"))
        #expect(sub["name"] as? String == "Heart Rate Measurement CCCD" && sub["notifications"] as? Bool == true)
        #expect(sub["configuration"] as? Int == 1 && sub["direction"] as? String == "sent")
        let note = try #require(at(95, "gatt.notification"))
        #expect(note["value"] as? String == "16466d03" && note["length"] as? Int == 4 && note["outcome"] == nil)
        let end = try #require(at(123, "connection.disconnect"))
        #expect(end["reason"] as? Int == 0x16 && end["side"] as? String == "local")
        #expect(end["reason_name"] as? String == "Connection Terminated By Local Host")
        let initDone = try #require(events.first { $0["type"] as? String == "controller.init_complete" })
        #expect(
            initDone["public_address"] as? String == "00:1B:DC:00:00:01" && initDone["core_version"] as? String == "5.0"
        )
        #expect(initDone["le_acl_max_length"] as? Int == 27 && initDone["commands"] as? Int == 14)
    }

    @Test func errorsPairingKeysAndParameterUpdates() throws {
        let events = try Self.jsonl("indications_and_errors.central")
        let auth = try #require(events.first { $0["frame"] as? Int == 99 })
        #expect(auth["outcome"] as? String == "error" && auth["error"] as? Int == 5)
        #expect(auth["error_name"] as? String == "Insufficient Authentication" && auth["error_handle"] as? Int == 0x13)
        let rsp = try #require(events.first { $0["type"] as? String == "smp.pairing_response" })
        #expect(rsp["method"] as? String == "just_works" && rsp["pairing"] as? String == "secure_connections")
        #expect(
            events.filter { $0["type"] as? String == "smp.key" }.compactMap { $0["key"] as? String } == ["irk", "irk"])
        let ind = try #require(events.first { $0["type"] as? String == "gatt.indication" })
        #expect(ind["name"] as? String == "Service Changed" && ind["response_frame"] as? Int == 76)

        let stream = try Self.jsonl("long_notify_stream.central", ["--type", "connection.parameter_*"])
        #expect(stream.map { $0["frame"] as? Int } == [35, 36])
        #expect(stream[0]["result"] as? String == "accepted" && stream[0]["response_frame"] as? Int == 36)
        #expect(stream[0]["interval_max_ms"] as? Double == 11.25 && stream[0]["timeout_ms"] as? Int == 4000)
    }

    /// Scenario 7: each connection named from its own database; frame 87 answers frame 83.
    @Test func twoPeripheralsNamedPerConnection() throws {
        let events = try Self.jsonl("two_peripherals_concurrent.central", ["--type", "gatt.*"])
        let r83 = try #require(events.first { $0["frame"] as? Int == 83 })
        #expect(
            r83["connection"] as? Int == 1 && r83["handle"] as? Int == 0x13
                && r83["name"] as? String == "Body Sensor Location")
        #expect(r83["response_frame"] as? Int == 87 && r83["value"] as? String == "01")
        let r84 = try #require(events.first { $0["frame"] as? Int == 84 })
        #expect(r84["connection"] as? Int == 2 && r84["name"] as? String == "F0A3C007-6C1E-4D5B-9A57-2B8E1A6B3C71")
        #expect(r84["response_frame"] as? Int == 88 && r84["value"] as? String == "6d08")
        let notes = events.filter { $0["type"] as? String == "gatt.notification" }
        #expect(notes.count == 20 && notes.allSatisfy { $0["handle"] as? Int == 0x10 })
        for n in notes {
            let expected =
                n["connection"] as? Int == 1 ? "Heart Rate Measurement" : "F0A3C007-6C1E-4D5B-9A57-2B8E1A6B3C71"
            #expect(n["name"] as? String == expected, "frame \(n["frame"] ?? "")")
        }
        // No response is left unpaired, no event is named from the other link's database.
        #expect(!events.contains { $0["type"] as? String == "gatt.unmatched_response" })
    }

    /// Scenario 8: connection 2 has no discovery, and its names are marked carried over.
    @Test func cachedReconnectCarriesNamesOver() throws {
        let second = try Self.jsonl("cached_reconnect.central", ["--connection", "2"])
        #expect(!second.isEmpty && second.allSatisfy { $0["connection"] as? Int == 2 })
        #expect(!second.contains { ($0["type"] as? String)?.hasPrefix("gatt.discover") == true })
        let named = second.filter { ($0["type"] as? String)?.hasPrefix("gatt.") == true && $0["handle"] != nil }
        #expect(named.count == 7 && named.allSatisfy { $0["carried_over"] as? Bool == true && $0["name"] != nil })
        #expect(named.first { $0["frame"] as? Int == 114 }?["name"] as? String == "Heart Rate Control Point")
        #expect(named.first { $0["frame"] as? Int == 117 }?["type"] as? String == "gatt.subscribe")
        let first = try Self.jsonl("cached_reconnect.central", ["--connection", "1", "--type", "gatt.notification"])
        #expect(first.count == 4 && first.allSatisfy { $0["carried_over"] == nil })
    }

    @Test func filtersCombine() throws {
        let all = try Self.jsonl("nil_scan_all_services.central")
        let thermo = try Self.jsonl("nil_scan_all_services.central", ["--peer", "d9:09:18:00:00:02"])
        #expect(thermo.count == 160 && thermo.allSatisfy { $0["peer"] as? String == "D9:09:18:00:00:02" })
        let ads = try Self.jsonl("nil_scan_all_services.central", ["--type", "advertisement"])
        #expect(ads.count == 512 && ads.count == all.filter { $0["type"] as? String == "advertisement" }.count)
        let discover = try Self.jsonl(
            "nil_scan_all_services.central", ["--type", "gatt.discover.*", "--connection", "1"])
        #expect(discover.count == 16)
        let none = try Self.jsonl("nil_scan_all_services.central", ["--connection", "2"])
        #expect(none.isEmpty)
        let question = try Self.jsonl("nil_scan_all_services.central", ["--type", "scan.st??t"])
        #expect(question.map { $0["frame"] as? Int } == [31])
    }

    @Test func badArgumentsAreUsageErrors() throws {
        let peer = try CLIRunner.run(["timeline", "--peer", "nonsense", Self.bumble("clean_heart_rate.central")])
        #expect(peer.status == 2 && peer.stderr.contains("--peer"))
        let json = try CLIRunner.run(["timeline", "--format", "json", Self.bumble("clean_heart_rate.central")])
        #expect(json.status == 2)
        let missing = try CLIRunner.run(["timeline", "/nonexistent/file.btsnoop"])
        #expect(missing.status != 0 && missing.stdout.isEmpty)
    }

    /// Text: one line per event with the same facts as JSONL; columns line up (frame and
    /// seconds right-aligned, connection, peer, type), names instead of handles.
    @Test func textIsAlignedOneLinePerEvent() throws {
        let name = "two_peripherals_concurrent.central"
        let text = try CLIRunner.run(["timeline", Self.bumble(name)])
        #expect(text.status == 0)
        let events = try Self.jsonl(name)
        let lines = text.lines
        #expect(lines.count == events.count)
        for (line, e) in zip(lines, events) {
            let l = String(line)
            #expect(Int(l.prefix(7).trimmingCharacters(in: .whitespaces)) == e["frame"] as? Int)
            // The decimal point of the seconds is always in the same column.
            #expect(Array(l)[13] == ".", "\(l)")
            #expect(l.contains("  \(e["type"] as! String) ") || l.hasSuffix("  \(e["type"] as! String)"))
            if let c = e["connection"] as? Int { #expect(l.dropFirst(22).hasPrefix("#\(c)")) }
            if let p = e["peer"] as? String { #expect(l.dropFirst(27).hasPrefix(p), "\(l)") }
        }
        let read = try #require(lines.first { $0.hasPrefix("     83 ") })
        #expect(
            read.contains("gatt.read") && read.contains("name=\"Body Sensor Location\"")
                && read.contains("response_frame=87"))
        #expect(!text.stdout.contains("\u{1B}["))
    }

    /// Linux monitor and PacketLogger metadata: BlueZ management discovery paired with its
    /// Command Complete, user-logging lines split into ident and text, power-record states.
    @Test func managementPowerAndAnnotations() throws {
        func run(_ file: String, _ extra: [String]) throws -> [[String: Any]] {
            let r = try CLIRunner.run(["timeline", "--format", "jsonl"] + extra + [Fixtures.capture("public/" + file)])
            #expect(r.status == 0)
            return try CLIRunner.jsonLines(r.stdout)
        }
        let mgmt = try run("btsnoop-btmon_rgbctf2020-magicintheair", ["--type", "mgmt.*"])
        let start = try #require(mgmt.first)
        #expect(start["frame"] as? Int == 8 && start["type"] as? String == "mgmt.discovery_start")
        #expect(start["outcome"] as? String == "success" && start["response_frame"] as? Int == 17)
        #expect(start["service_filter"] as? Bool == false && start["address_types"] as? Int == 7)
        #expect(mgmt.first { $0["type"] as? String == "mgmt.discovering" }?["discovering"] as? Bool == true)
        // tshark's hci_mon: System Note "Linux version 5.5.0-kali2-amd64 (x86_64)" first; one
        // bluetoothd log line, "No cache for F6:3C:91:42:32:28".
        let logs = try run("btsnoop-btmon_rgbctf2020-magicintheair", ["--type", "annotation"])
        let line = try #require(logs.first { $0["source"] as? String == "user_logging" })
        #expect(
            line["ident"] as? String == "bluetoothd"
                && (line["text"] as? String)?.hasPrefix("No cache for F6:3C:91:42:32:28") == true)
        #expect(logs.first?["text"] as? String == "Linux version 5.5.0-kali2-amd64 (x86_64)")
        let power = try run("pklg-be_hciparse-test00-macos.pklg", ["--type", "controller.*"])
        #expect(power.first?["type"] as? String == "controller.power" && power.first?["state"] as? String == "OFF->ON+")
        #expect(power.contains { $0["type"] as? String == "controller.reset" })
    }

    /// `scan.filters` on the shipped Android capture (ScanFiltersTimelineTests has the bytes):
    /// at the scan of frame 247, index 1 all-pass (set up at 239), 3 (UUID FE2C, frames 167/169)
    /// and 10 (service data 2CFE00).
    @Test func scanFiltersOnDomyos() throws {
        let path = Fixtures.capture("public/btsnoop-android_domyos-treadmill-ftms.log")
        let run = try CLIRunner.run(["timeline", "--format", "jsonl", "--type", "scan.filters", path])
        #expect(run.status == 0, "\(run.stderr)")
        let events = try CLIRunner.jsonLines(run.stdout)
        let e = try #require(events.first { $0["frame"] as? Int == 247 })
        #expect(e["apcf"] as? String == "enabled")
        #expect(e["passes_everything"] as? Bool == true)
        #expect(e["all_pass_indices"] as? [Int] == [1])
        #expect(e["service_uuids"] as? [String] == ["FE2C"])
        #expect(e["complete"] as? Bool == true && e["max_filters"] as? Int == 16)
        let filters = try #require(e["filters"] as? [[String: Any]])
        #expect(filters.map { $0["index"] as? Int } == [1, 3, 10])
        #expect(filters.first?["all_pass"] as? Bool == true && filters.first?["frames"] as? [Int] == [239])
        #expect(filters[1]["features"] as? Int == 4 && filters[1]["service_uuids"] as? [String] == ["FE2C"])
        #expect(filters[2]["service_data"] as? [String] == ["2cfe00"])
        // Whose scan each index serves (issue 27): index 1 the app's all-pass, 3 and 10 Fast Pair's.
        #expect(filters.map { $0["owner"] as? String } == ["app_unfiltered", "system", "system"])
        #expect((filters[1]["system_scanner"] as? String)?.contains("Fast Pair") == true)
        let text = try CLIRunner.run(["timeline", "--type", "scan.filters", path])
        let line = try #require(text.stdout.split(separator: "\n").first { $0.hasPrefix("    247") })
        #expect(line.contains("passes_everything=true all_pass_indices=1 service_uuids=FE2C"))
        #expect(
            line.contains(
                "filters=\"1:all_pass,owner=app_unfiltered 3:features=0x0004,uuid=FE2C,owner=system "
                    + "10:features=0x0040,service_data=2cfe00,owner=system\""))
    }
}
