import Foundation
import Testing
import TestSupport

@Suite struct InfoCommandTests {
    @Test func summarizesTheCleanHeartRateSession() throws {
        let run = try CLIRunner.run(["info", "--format", "json", SharedFixtures.bundled("clean_heart_rate.central.btsnoop")])
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

    @Test func monitorCapturesCountTheirMetadataRecords() throws {
        let run = try CLIRunner.run(["info", SharedFixtures.shared("captures/public/btsnoop-btmon_batteread-header-only.btsnoop")])
        #expect(run.status == 0)
        #expect(run.stdout.contains("frames:        6"))
        #expect(run.stdout.contains("index_new"))
        #expect(run.stdout.contains("system_note"))
    }

    /// The nine containers of one session decode to the same packets (the monitor btsnoop has
    /// three leading metadata records, so its frames are shifted by 3).
    @Test func allContainersGiveTheSamePackets() throws {
        let dir = "captures/formats/clean_heart_rate.central."
        func packets(_ suffix: String, drop: Int = 0) throws -> [String] {
            let run = try CLIRunner.run(["packets", "--format", "jsonl", SharedFixtures.shared(dir + suffix)])
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
