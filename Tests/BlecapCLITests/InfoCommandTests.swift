import Foundation
import TestSupport
import Testing

@Suite struct InfoCommandTests {
    @Test func summarizesTheCleanHeartRateSession() throws {
        let run = try CLIRunner.run([
            "info", "--format", "json", Fixtures.capture("bumble/clean_heart_rate.central.btsnoop"),
        ])
        #expect(run.status == 0)
        let info = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(info["container"] as? String == "btsnoop")
        #expect(info["frames"] as? Int == 123)
        let kinds = try #require(info["kinds"] as? [String: Int])
        #expect(kinds == ["hci_command": 19, "hci_event": 46, "acl": 58])
        let att = try #require(info["att"] as? [[String: Any]])
        let notifications = att.first { $0["code"] as? Int == 0x1B }
        #expect(notifications?["count"] as? Int == 20)
        #expect(info["damage"] is NSNull)
        // 19.804817 s from the first to the last frame.
        #expect(info["duration_us"] as? Int == 19_804_817)
    }

    /// A CONNECT_IND the peripheral never answered is a failed attempt: reported, never counted
    /// as a connection (issue 28).
    @Test func aFailedConnectionAttemptIsReportedApart() throws {
        let path = Fixtures.capture("linklayer/procedures.unanswered_connect_ind.nordic272.pcapng")
        let json = try CLIRunner.run(["info", "--format", "json", path])
        let info = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(info["connection_count"] as? Int == 1 && info["failed_connection_attempts"] as? Int == 1)
        let conns = try #require(info["connections"] as? [[String: Any]])
        #expect(conns.map { $0["connection"] as? Int } == [1])
        let text = try CLIRunner.run(["info", path]).stdout
        #expect(text.contains("  1 failed connection attempt (connection.failed, not counted as connections)\n"))
        #expect(!text.contains("#2"))
    }

    /// Devices seen, connections and timeline counts, from the same pass.
    @Test func devicesConnectionsAndCounts() throws {
        let run = try CLIRunner.run([
            "info", "--format", "json", Fixtures.capture("bumble/nil_scan_all_services.central.btsnoop"),
        ])
        #expect(run.status == 0)
        let info = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let devices = try #require(info["devices"] as? [[String: Any]])
        #expect(
            devices.map { $0["address"] as? String } == [
                "D8:0D:18:00:00:01", "D9:09:18:00:00:02", "DA:1D:18:00:00:03", "DB:59:00:00:00:04",
            ])
        #expect(devices.map { $0["name"] as? String } == ["PulseBelt HR", "Thermo-1", "Scale-7", "Tag-42"])
        #expect(devices.map { $0["reports"] as? Int } == [160, 160, 116, 76])
        #expect(devices.allSatisfy { $0["address_type"] as? Int == 1 && $0["connectable"] as? Bool == true })
        #expect(info["unlisted_device_reports"] as? Int == 0 && info["connection_count"] as? Int == 1)
        let conns = try #require(info["connections"] as? [[String: Any]])
        #expect(conns.count == 1)
        let c = conns[0]
        #expect(
            c["connection"] as? Int == 1 && c["peer"] as? String == "D8:0D:18:00:00:01"
                && c["role"] as? String == "central")
        #expect(c["start_frame"] as? Int == 425 && c["end_frame"] as? Int == 570 && c["mtu"] as? Int == 23)
        #expect(c["end_reason"] as? Int == 0x16 && c["side"] as? String == "local")
        #expect(c["end_reason_name"] as? String == "Connection Terminated By Local Host")
        let duration = try #require(c["duration_us"] as? Int)
        #expect(duration > 3_200_000 && duration < 3_400_000)  // connected t=8.09 s, disconnected t=11.39 s
        let events = try #require(info["events"] as? [String: Int])
        #expect(
            events["advertisement"] == 512 && events["connection.complete"] == 1
                && events["gatt.discover.characteristics"] == 10)
        #expect(events["gatt.read"] == nil && events["scan.stop"] == 1)
    }

    @Test func connectionEndingsInText() throws {
        let run = try CLIRunner.run(["info", Fixtures.capture("bumble/reconnect_storm.central.btsnoop")])
        #expect(run.status == 0)
        let lines = run.lines.map(String.init)
        let start = try #require(lines.firstIndex(of: "connections"))
        let section = Array(lines[(start + 1)...].prefix { !$0.isEmpty })
        let conns = section.filter { $0.hasPrefix("  #") }
        #expect(conns.count == 6)
        // The LE Connection Complete with a non-zero status is an attempt, listed apart.
        #expect(section.last == "  1 failed connection attempt (connection.failed, not counted as connections)")
        #expect(conns.map { $0.contains("D8:0D:18:00:00:01") && $0.contains("central") }.allSatisfy { $0 })
        let endings = conns.map { l in ["0x13", "0x08", "0x16"].first { l.contains("ended \($0)") } }
        #expect(endings == ["0x13", "0x08", "0x13", "0x08", "0x13", "0x16"])
        #expect(
            conns[1].contains("Connection Timeout (link_loss)") && conns[5].contains("(local)")
                && conns[0].contains("(remote)"))
        #expect(conns[0].hasPrefix("  #1 ") && conns[0].contains("frames 39–58"))
        #expect(lines.contains { $0.contains("\"PulseBelt HR\"") && $0.contains("frames 33–34") })
        let counts = try #require(lines.firstIndex(of: "timeline events by type"))
        #expect(lines[counts + 1].hasSuffix("connection.create") && lines[counts + 1].contains("7"))
        #expect(
            lines.contains {
                $0.hasSuffix(" connection.failed") && $0.trimmingCharacters(in: .whitespaces).hasPrefix("1 ")
            })
    }

    @Test func monitorCapturesCountTheirMetadataRecords() throws {
        let run = try CLIRunner.run(["info", Fixtures.capture("synthetic/monitor-metadata-only.btsnoop")])
        #expect(run.status == 0)
        #expect(run.stdout.contains("frames:        3"))
        #expect(run.stdout.contains("index_new"))
        #expect(run.stdout.contains("system_note"))
    }

    /// The nine containers of one session decode to the same packets (the monitor btsnoop has
    /// three leading metadata records, so its frames are shifted by 3).
    @Test func allContainersGiveTheSamePackets() throws {
        let dir = "formats/clean_heart_rate.central."
        func packets(_ suffix: String, drop: Int = 0) throws -> [String] {
            let run = try CLIRunner.run(["packets", "--format", "jsonl", Fixtures.capture(dir + suffix)])
            #expect(run.status == 0, "\(suffix)")
            return try CLIRunner.jsonLines(run.stdout).dropFirst(drop).map { obj in
                var o = obj
                o["frame"] = (o["frame"] as! Int) - drop
                o.removeValue(forKey: "controller")
                let data = try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys])
                return String(decoding: data, as: UTF8.self)
            }
        }
        let reference = try packets("h4.btsnoop")
        #expect(reference.count == 123)
        for suffix in ["h1.btsnoop", "h4.pcap", "h4phdr.pcap", "h4phdr.pcapng", "monitor.pcap", "le.pklg", "be.pklg"] {
            #expect(try packets(suffix) == reference, "\(suffix)")
        }
        #expect(try packets("monitor.btsnoop", drop: 3) == reference)
    }
}
