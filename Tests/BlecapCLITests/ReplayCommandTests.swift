import BLEPackets
import CaptureIO
import Foundation
import TestSupport
import Testing

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
        let doc = try Self.json(
            [
                "--drop-link-at", "2", "--error", "0x0013=0x02", "--drop-notifications", "0.5",
                "--seed", "3", Self.bumble("clean_heart_rate.central"),
            ], status: 1)
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

    @Test func badArgumentsExitTwoAndUnreadableFilesFour() throws {
        #expect(try CLIRunner.run(["replay", "--speed", "fast", Self.bumble("clean_heart_rate.central")]).status == 2)
        #expect(
            try CLIRunner.run(["replay", "--error", "nonsense", Self.bumble("clean_heart_rate.central")]).status == 2)
        #expect(try CLIRunner.run(["replay", "--mtu", "10", Self.bumble("clean_heart_rate.central")]).status == 2)
        #expect(try CLIRunner.run(["replay", "/nonexistent.btsnoop"]).status == 4)
        // A pcap of Ethernet frames (link type 1): no Bluetooth to replay.
        var header: [UInt8] = [0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0]
        header += [UInt8](repeating: 0, count: 8) + [0xFF, 0xFF, 0, 0, 1, 0, 0, 0]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("replay-eth-\(getpid()).pcap")
        try Data(header).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try CLIRunner.run(["replay", file.path])
        #expect(run.status == 4)
        #expect(run.stderr.contains("carries no Bluetooth traffic"))
    }

    @Test func damagedCaptureReplaysItsValidPartAndExitsThree() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.bumble("clean_heart_rate.central")))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("replay-damaged-\(getpid()).btsnoop")
            .path
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

    static let bumbleCentrals = Fixtures.captures(in: "bumble").filter { $0.contains(".central.") }

    /// The ATT PDUs of a capture file as blecap's reader and decoder see them, in file order:
    /// direction (1 sent) and the whole PDU; and the time from the first record to the last.
    static func attExchange(_ path: String) throws -> (pdus: [[UInt8]], span: Int64) {
        let reader = try CaptureFile.open(path: path)
        let decoder = FrameDecoder()
        var pdus: [[UInt8]] = []
        var first: Int64?
        var last: Int64 = 0
        while let r = reader.next() {
            first = first ?? r.timestamp
            last = r.timestamp
            if let att = decoder.decode(r).attPayload { pdus.append([r.direction == .sent ? 1 : 0] + att.toArray()) }
        }
        #expect(reader.damage == nil)
        return (pdus, last - (first ?? last))
    }

    /// --speed max keeps the exchange on every Bumble central capture: exit 0, every
    /// connection's PDUs identical in the captured order, none unsent, each at its captured
    /// time put through the compressed clock (timing delta 0).
    @Test(arguments: bumbleCentrals)
    func maxSpeedKeepsTheCapturedExchange(_ path: String) throws {
        let doc = try Self.json(["--speed", "max", path])
        #expect(doc["speed"] as? String == "max")
        #expect(doc["identical"] as? Bool == true)
        let conns = try #require(doc["connections"] as? [[String: Any]])
        #expect(!conns.isEmpty)
        for c in conns {
            #expect(c["replayed"] as? Int == c["captured"] as? Int)
            #expect(c["matching"] as? Int == c["captured"] as? Int)
            #expect(c["ordered"] as? Bool == true)
            #expect(c["unsent_client_pdus"] as? Int == 0)
            #expect((c["timing"] as? [String: Any])?["max_delta_us"] as? Int == 0)
        }
    }

    /// --out at max speed: blecap reads the file back with the captured ATT exchange PDU for
    /// PDU (direction, opcode, handle, value, order, across connections too), and the session
    /// that took seconds fits in a few µs per record.
    @Test(arguments: bumbleCentrals)
    func maxSpeedOutCarriesTheCapturedExchange(_ path: String) throws {
        let out = FileManager.default.temporaryDirectory
            .appendingPathComponent("replay-max-\(getpid())-\(URL(fileURLWithPath: path).lastPathComponent)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try CLIRunner.run(["replay", "--speed", "max", "--out", out, path])
        #expect(run.status == 0, "\(run.stderr)")
        let captured = try Self.attExchange(path)
        let replayed = try Self.attExchange(out)
        #expect(!captured.pdus.isEmpty)
        #expect(replayed.pdus == captured.pdus)
        #expect(captured.span > 500_000)
        #expect(replayed.span < 20_000)
    }

    /// --drop-link-at is on the capture's clock at every speed: at max it cuts
    /// clean_heart_rate where it does at realtime (after the same PDU, link loss 0x08).
    @Test func dropLinkAtMaxSpeedCutsWhereRealtimeDoes() throws {
        let path = Self.bumble("clean_heart_rate.central")
        for at in ["2", "5.4", "12.95"] {
            let realtime = try #require(
                (try Self.json(["--drop-link-at", at, path], status: 1)["connections"] as? [[String: Any]])?.first)
            let atMax = try #require(
                (try Self.json(["--speed", "max", "--drop-link-at", at, path], status: 1)["connections"]
                    as? [[String: Any]])?.first)
            #expect((realtime["replayed"] as? Int ?? 0) < 58)
            for key in ["replayed", "matching", "unsent_client_pdus"] {
                #expect(atMax[key] as? Int == realtime[key] as? Int, "\(key) at \(at) s")
            }
            #expect((atMax["end"] as? [String: Any])?["reason"] as? Int == 8)
            #expect((atMax["end"] as? [String: Any])?["side"] as? String == "link_loss")
            // Compressed: the silence comes within µs of the start, not seconds.
            #expect((atMax["silent_from_us"] as? Int ?? .max) < 1_000)
        }
    }
}
