import Foundation
import TestSupport
import Testing

/// `blecap gatt` end to end: the database per connection, as a text tree and as JSON.
@Suite struct GattCommandTests {
    static func bumble(_ name: String) -> String { Fixtures.capture("bumble/\(name).btsnoop") }

    static func json(_ name: String) throws -> [[String: Any]] {
        let run = try CLIRunner.run(["gatt", "--format", "json", bumble(name)])
        #expect(run.status == 0, "\(run.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        return try #require(doc["connections"] as? [[String: Any]])
    }

    static func characteristics(_ c: [String: Any], _ db: String = "remote_database") -> [[String: Any]] {
        ((c[db] as? [String: Any])?["characteristics"] as? [[String: Any]]) ?? []
    }

    /// Scenario 7: two databases on the same handles with other meanings, one per connection.
    @Test func twoPeripheralsHaveTheirOwnDatabases() throws {
        let conns = try Self.json("two_peripherals_concurrent.central")
        #expect(conns.map { $0["connection"] as? Int } == [1, 2])
        #expect(conns.map { $0["handle"] as? Int } == [1, 2])
        #expect(conns.map { $0["peer"] as? String } == ["D8:0D:18:00:00:01", "DF:E5:0B:00:00:08"])
        let a = Self.characteristics(conns[0])
        let b = Self.characteristics(conns[1])
        #expect(
            a.map { $0["value_handle"] as? Int } == [0x10, 0x13]
                && b.map { $0["value_handle"] as? Int } == [0x10, 0x13])
        #expect(a.map { $0["name"] as? String } == ["Heart Rate Measurement", "Body Sensor Location"])
        #expect(
            a.map { $0["properties"] as? Int } == [0x10, 0x02] && b.map { $0["properties"] as? Int } == [0x12, 0x0A])
        #expect(
            b.map { $0["uuid"] as? String } == [
                "F0A3C007-6C1E-4D5B-9A57-2B8E1A6B3C71", "F0A3C007-6C1E-4D5B-9A57-2B8E1A6B3C72",
            ])
        #expect(b[0]["property_names"] as? [String] == ["Read", "Notify"])
        let cccd = (a[0]["descriptors"] as? [[String: Any]])?.first
        #expect(cccd?["handle"] as? Int == 0x11 && cccd?["uuid"] as? String == "2902")
        #expect(conns.allSatisfy { $0["mtu"] as? Int == 247 && $0["role"] as? String == "central" })
    }

    /// Scenario 8: connection 2 inherits connection 1's database, marked carried over.
    @Test func cachedReconnectCarriesTheDatabaseOver() throws {
        let conns = try Self.json("cached_reconnect.central")
        #expect(conns.count == 2)
        let first = try #require(conns[0]["remote_database"] as? [String: Any])
        let second = try #require(conns[1]["remote_database"] as? [String: Any])
        #expect(first["carried_over_from"] == nil && second["carried_over_from"] as? Int == 1)
        #expect(Self.characteristics(conns[0]).count == 11 && Self.characteristics(conns[1]).count == 11)
        #expect(Self.characteristics(conns[0]).allSatisfy { $0["carried_over"] as? Bool == false })
        #expect(Self.characteristics(conns[1]).allSatisfy { $0["carried_over"] as? Bool == true })
        #expect((second["services"] as? [[String: Any]])?.count == 5)
        #expect(conns[1]["start_frame"] as? Int == 107 && conns[1]["end_frame"] as? Int == 126)
    }

    /// On the peripheral side the peer discovers this host's server: the local database.
    @Test func peripheralSeesItsOwnServer() throws {
        let conns = try Self.json("nil_scan_all_services.peripheral")
        #expect(conns.count == 1 && conns[0]["role"] as? String == "peripheral")
        #expect(Self.characteristics(conns[0]).isEmpty && Self.characteristics(conns[0], "local_database").count == 10)
    }

    @Test func textTreeNamesAndMarks() throws {
        let run = try CLIRunner.run(["gatt", Self.bumble("cached_reconnect.central")])
        #expect(run.status == 0)
        let lines = run.lines.map(String.init)
        #expect(
            lines.first?.hasPrefix(
                "Connection #1  peer D8:0D:18:00:00:01  handle 0x0001  central  frames 39–104  ATT_MTU 185") == true)
        let second = try #require(lines.firstIndex { $0.hasPrefix("Connection #2") })
        #expect(lines[second + 1] == "  peer's GATT server (carried over from connection #1)")
        #expect(
            lines.contains("      Characteristic 0x0014 value 0x0015  Heart Rate Control Point (2A39)  0x08 [Write]"))
        #expect(lines.contains("        Descriptor 0x0011  Client Characteristic Configuration (2902)"))
        #expect(lines[second...].dropFirst(2).allSatisfy { $0.hasSuffix("(carried over)") })
        #expect(lines[..<second].allSatisfy { !$0.contains("(carried over)") })
        let none = try CLIRunner.run(["gatt", Fixtures.capture("synthetic/monitor-metadata-only.btsnoop")])
        #expect(none.status == 0 && none.stdout == "no connections\n")
        let jsonl = try CLIRunner.run(["gatt", "--format", "jsonl", Self.bumble("cached_reconnect.central")])
        #expect(jsonl.status == 2)
    }
}

/// Member UUIDs (Assigned Numbers 3.11) name the company that registered them for a service;
/// on characteristics and descriptors they do not say what the attribute is.
@Suite struct MemberUUIDNamingTests {
    /// revcar's discovery with four UUIDs rewritten (each pattern occurs once in the file,
    /// checked with tshark `-x` on the Read By Group Type / Read By Type / Find Information
    /// responses): service 0x0015 FFE5 → FEC9 (Apple, Inc.), characteristic 0x0011 FFE4 → FFF3
    /// (FiRa Consortium), characteristic 0x0016 FFE9 → FFF2 (Aliro), descriptor 0x0013 2901 →
    /// FFF4 (FiRa Consortium).
    static func derived() throws -> String {
        var data = try Data(
            contentsOf: URL(fileURLWithPath: Fixtures.capture("public/btsnoop-android_revcar-acl-only.log")))
        for (from, to) in [
            ([0x15, 0x00, 0x18, 0x00, 0xE5, 0xFF], [0x15, 0x00, 0x18, 0x00, 0xC9, 0xFE]),
            ([0x11, 0x00, 0x10, 0x12, 0x00, 0xE4, 0xFF], [0x11, 0x00, 0x10, 0x12, 0x00, 0xF3, 0xFF]),
            ([0x16, 0x00, 0x0C, 0x17, 0x00, 0xE9, 0xFF], [0x16, 0x00, 0x0C, 0x17, 0x00, 0xF2, 0xFF]),
            ([0x13, 0x00, 0x01, 0x29], [0x13, 0x00, 0xF4, 0xFF]),
        ] as [([UInt8], [UInt8])] {
            let range = try #require(data.firstRange(of: Data(from)))
            data.replaceSubrange(range, with: to)
            #expect(data.firstRange(of: Data(from)) == nil)
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("member-uuids-\(UUID()).log").path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func textNamesServicesOnly() throws {
        let path = try Self.derived()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try CLIRunner.run(["gatt", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Primary Service 0x0015–0x0018  Apple, Inc. (FEC9)"))
        #expect(run.stdout.contains("value 0x0012  FFF3 (member UUID of FiRa Consortium)  0x10 [Notify]"))
        #expect(run.stdout.contains("value 0x0017  FFF2 (member UUID of Aliro)  0x0C"))
        #expect(run.stdout.contains("Descriptor 0x0013  FFF4 (member UUID of FiRa Consortium)"))
        #expect(!run.stdout.contains("FiRa Consortium (FFF"))
        #expect(!run.stdout.contains("Aliro (FFF2)"))
    }

    @Test func jsonNamesServicesOnly() throws {
        let path = try Self.derived()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try CLIRunner.run(["gatt", "--format", "json", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\"uuid\":\"FEC9\",\"name\":\"Apple, Inc.\""))
        #expect(!run.stdout.contains("FiRa"))
        #expect(!run.stdout.contains("Aliro"))
    }
}
