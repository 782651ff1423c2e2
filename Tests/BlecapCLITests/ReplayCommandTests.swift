import Foundation
import Testing
import TestSupport

/// `blecap replay` end to end: the fidelity report, exit codes, JSON, faults, --out, --lint.
@Suite struct ReplayCommandTests {
    static func bumble(_ name: String) -> String { Fixtures.capture("bumble/\(name).btsnoop") }

    static func json(_ arguments: [String], status: Int32 = 0) throws -> [String: Any] {
        let run = try CLIRunner.run(["replay", "--format", "json"] + arguments)
        #expect(run.status == status, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    @Test func faithfulReplayExitsZeroAndSaysSo() throws {
        let run = try CLIRunner.run(["replay", Self.bumble("hr_short_notification.central")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("#1  D8:0D:18:00:00:01  host central  interval 15 ms"))
        #expect(run.stdout.contains("ATT exchange: 28 captured, 28 replayed, 28 identical — no divergence"))
        #expect(run.stdout.contains("timing: max |Δt| 0 µs"))
        #expect(run.lines.last == "replay: 1 connection, 0 diverged")
    }

    @Test func jsonReportsEveryConnection() throws {
        let doc = try Self.json([Self.bumble("two_peripherals_concurrent.central")])
        #expect(doc["identical"] as? Bool == true)
        let conns = try #require(doc["connections"] as? [[String: Any]])
        #expect(conns.map { $0["peer"] as? String } == ["D8:0D:18:00:00:01", "DF:E5:0B:00:00:08"])
        #expect(conns.map { $0["captured"] as? Int } == conns.map { $0["replayed"] as? Int })
        #expect(conns.allSatisfy { ($0["matching"] as? Int) == ($0["captured"] as? Int) })
    }

    @Test func selectionByConnectionAndPeer() throws {
        let one = try Self.json(["--connection", "2", Self.bumble("two_peripherals_concurrent.central")])
        #expect((one["connections"] as? [[String: Any]])?.map { $0["connection"] as? Int } == [2])
        let peer = try Self.json(["--peer", "D8:0D:18:00:00:01", Self.bumble("two_peripherals_concurrent.central")])
        #expect((peer["connections"] as? [[String: Any]])?.map { $0["connection"] as? Int } == [1])
    }

    /// A divergence exits 1 and shows both sides: --mtu 23 changes the Exchange MTU Response.
    @Test func divergenceExitsOneAndShowsBothSides() throws {
        let run = try CLIRunner.run(["replay", "--mtu", "23", Self.bumble("hr_short_notification.central")])
        #expect(run.status == 1)
        #expect(run.stdout.contains("first divergence at PDU 2 (capture frame 34):"))
        #expect(run.stdout.contains("captured  +0.018486 s  rcvd  Exchange MTU Response  030502"))
        #expect(run.stdout.contains("replayed  +0.018486 s  rcvd  Exchange MTU Response  031700"))
    }

    @Test func faultsAppearInTheJSON() throws {
        let doc = try Self.json(["--drop-link-at", "2", "--error", "0x0013=0x02", "--drop-notifications", "0.5",
                                 "--seed", "3", Self.bumble("clean_heart_rate.central")], status: 1)
        let faults = try #require(doc["faults"] as? [String: Any])
        #expect(faults["drop_link_at_us"] as? Int == 2_000_000)
        #expect(faults["clock"] as? String == "capture")
        #expect(faults["errors"] as? [String: Int] == ["19": 2])
        let c = try #require((doc["connections"] as? [[String: Any]])?.first)
        let end = try #require(c["end"] as? [String: Any])
        #expect(end["reason"] as? Int == 8)
        #expect(end["side"] as? String == "link_loss")
    }

    @Test func outWritesACaptureBlecapReadsBack() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("replay-out-\(getpid()).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try CLIRunner.run(["replay", "--out", out, Self.bumble("indications_and_errors.central")])
        #expect(run.status == 0, "\(run.stderr)")
        // The replayed file replays identically in turn.
        let again = try CLIRunner.run(["replay", out])
        #expect(again.status == 0, "\(again.stdout)")
        #expect(again.stdout.contains("ATT exchange: 48 captured, 48 replayed, 48 identical"))
    }

    /// --lint runs the rules over the replayed session: the oversized writes are still there.
    @Test func lintFindsTheCapturedMistakesInTheReplay() throws {
        let run = try CLIRunner.run(["replay", "--lint", Self.bumble("oversized_and_unchecked_writes.central")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("BLE002"))
    }

    @Test func badArgumentsAndUnreadableFilesExitTwo() throws {
        #expect(try CLIRunner.run(["replay", "--speed", "fast", Self.bumble("clean_heart_rate.central")]).status == 2)
        #expect(try CLIRunner.run(["replay", "--error", "nonsense", Self.bumble("clean_heart_rate.central")]).status == 2)
        #expect(try CLIRunner.run(["replay", "--mtu", "10", Self.bumble("clean_heart_rate.central")]).status == 2)
        #expect(try CLIRunner.run(["replay", "/nonexistent.btsnoop"]).status == 2)
        let ll = Fixtures.capture("public/pcap-lell256_sniffle-gatt-discovery.pcap")
        let run = try CLIRunner.run(["replay", ll])
        #expect(run.status == 2)
        #expect(run.stderr.contains("link-layer capture"))
    }

    @Test func damagedCaptureReplaysItsValidPartAndExitsThree() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.bumble("clean_heart_rate.central")))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("replay-damaged-\(getpid()).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = FileManager.default.createFile(atPath: path, contents: bytes.prefix(bytes.count - 7))
        let run = try CLIRunner.run(["replay", path])
        #expect(run.status == 3)
        #expect(run.stdout.contains("no divergence"))
        #expect(run.stderr.contains("offset"))
    }

    @Test func speedFactorScalesTheTimeline() throws {
        let doc = try Self.json(["--speed", "2", Self.bumble("hr_short_notification.central")])
        #expect(doc["speed"] as? String == "2.0x")
        let c = try #require((doc["connections"] as? [[String: Any]])?.first)
        // Both sides on one clock: the same PDUs in the captured order, the captured end halved in time.
        #expect(c["identical"] as? Bool == true)
        #expect(c["ordered"] as? Bool == true)
        let end = try #require(c["end"] as? [String: Any])
        // Captured times go through the clock, rounded once to the µs (not once per interval).
        #expect(abs((end["offset_us"] as? Int ?? 0) - 11_187_069 / 2) <= 1)
    }
}
