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
