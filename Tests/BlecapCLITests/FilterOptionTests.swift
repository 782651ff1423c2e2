import Foundation
import TestSupport
import Testing

/// End-to-end: `-Y`/`--filter` and its shortcuts on packets, timeline and watch.
@Suite struct FilterOptionTests {
    let cleanHR = Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")
    let two = Fixtures.capture("bumble/two_peripherals_concurrent.central.btsnoop")

    @Test func packetsKeepsWhatTheExpressionMatches() throws {
        let run = try CLIRunner.run(["packets", "-Y", "conn == 2 && att.opcode == 0x12", two])
        #expect(run.status == 0)
        #expect(run.lines.map { $0.prefix(7) } == ["     75", "     95"])
        // Times still count from the capture's first frame, not the first frame shown.
        let all = try CLIRunner.run(["packets", "--frames", "75", two])
        #expect(all.lines == [run.lines[0]])
    }

    @Test func shortcutsEqualTheirExpressions() throws {
        let short = try CLIRunner.run(["packets", "-f", "jsonl", "--connection", "2", "--frames", "60-80", two])
        let long = try CLIRunner.run(["packets", "-f", "jsonl", "-Y", "conn == 2 && frame in 60..80", two])
        #expect(short.status == 0)
        #expect(!short.stdout.isEmpty)
        #expect(short.stdout == long.stdout)
        let peer = try CLIRunner.run([
            "timeline", "-f", "jsonl", "--peer", "D8:0D:18:00:00:01", "-Y", "type ~ 'gatt.*'", cleanHR,
        ])
        let same = try CLIRunner.run([
            "timeline", "-f", "jsonl", "-Y", "peer == D8:0D:18:00:00:01 && type ~ \"gatt.*\"", cleanHR,
        ])
        #expect(peer.stdout == same.stdout)
        #expect(try CLIRunner.jsonLines(peer.stdout).count > 20)
    }

    @Test func packetsPeerIsTheJSONLPeer() throws {
        // The second link (handle 2) opened to DF:E5:0B:00:00:08 at frame 55: `--peer` keeps its
        // L2CAP frames, the ones whose JSONL line names that peer, and nothing else.
        let all = try CLIRunner.jsonLines(try CLIRunner.run(["packets", "-f", "jsonl", two]).stdout)
        let expected = all.filter { $0["peer"] as? String == "DF:E5:0B:00:00:08" }.compactMap { $0["frame"] as? Int }
        let run = try CLIRunner.run(["packets", "-f", "jsonl", "--peer", "DF:E5:0B:00:00:08", two])
        #expect(run.status == 0)
        let frames = try CLIRunner.jsonLines(run.stdout).compactMap { $0["frame"] as? Int }
        #expect(frames == expected)
        #expect(frames.count > 20 && frames.first == 56)
        let same = try CLIRunner.run(["packets", "-f", "jsonl", "-Y", "peer == DF:E5:0B:00:00:08", two])
        #expect(same.stdout == run.stdout)
        let random = try CLIRunner.run(["packets", "-f", "jsonl", "-Y", "peer_type == random && conn == 1", two])
        #expect(try CLIRunner.jsonLines(random.stdout).allSatisfy { $0["peer"] as? String == "D8:0D:18:00:00:01" })
        let bad = try CLIRunner.run(["packets", "--peer", "nope", two])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--peer: not an address: nope"))
    }

    @Test func aBadExpressionIsAUsageErrorPointingAtTheColumn() throws {
        let run = try CLIRunner.run(["packets", "-Y", "att.opcod == 0x12", cleanHR])
        #expect(run.status == 2)
        #expect(run.stderr.contains("unknown field 'att.opcod'; did you mean att.opcode?\n  att.opcod == 0x12\n  ^"))
        let timeline = try CLIRunner.run(["timeline", "-Y", "uuid == 2A3", cleanHR])
        #expect(timeline.status == 2)
        #expect(timeline.stderr.contains("  uuid == 2A3\n          ^"))
        let watch = try CLIRunner.run(["watch", "--filter", "frame >", cleanHR])
        #expect(watch.status == 2)
    }

    @Test func emptyResultsAreSaidAndFailOnEmptyExits1() throws {
        for command in ["packets", "timeline", "watch"] {
            let run = try CLIRunner.run([command, "-Y", "frame > 100000", cleanHR])
            #expect(run.status == 0, "\(command)")
            #expect(run.stderr.contains("matches --filter 'frame > 100000'"), "\(command)")
            let strict = try CLIRunner.run([command, "--fail-on-empty", "-Y", "frame > 100000", cleanHR])
            #expect(strict.status == 1, "\(command)")
            let some = try CLIRunner.run([command, "--fail-on-empty", "-Y", "frame < 100", cleanHR])
            #expect(some.status == 0, "\(command)")
            #expect(!some.stderr.contains("matches"), "\(command)")
        }
    }

    @Test func watchFiltersItsTimelineLines() throws {
        let run = try CLIRunner.run(["watch", "-f", "jsonl", "-Y", "type == \"gatt.notification\"", cleanHR])
        #expect(run.status == 0)
        let events = try CLIRunner.jsonLines(run.stdout).filter { $0["type"] != nil }
        #expect(events.count == 20)
        #expect(events.allSatisfy { $0["type"] as? String == "gatt.notification" })
    }
}

/// Unknown opcodes keep their code beside the name, as tshark writes them.
@Suite struct UnknownOpcodeTextTests {
    @Test func unknownCommandsAndLLControlPDUsShowTheirCode() throws {
        let pklg = try CLIRunner.run(
            ["packets", "-Y", "frame in 32..33", Fixtures.capture("public/pklg-be_ios-sysdiagnose-bafang-ebike.pklg")])
        #expect(pklg.lines.count == 2)
        #expect(pklg.lines[0].hasSuffix("sent HCI_CMD Unknown 0x207F"))
        #expect(pklg.lines[1].hasSuffix("HCI_EVT Command Complete (Unknown 0x207F)"))
        let ll = try CLIRunner.run(
            [
                "packets", "--frames", "61",
                Fixtures.capture("public/pcapng-lell256_crackle-le-secure-connections.pcapng"),
            ])
        #expect(ll.lines.first?.contains("LL_CTRL LL_UNKNOWN_OPCODE 0xFF") == true)
    }
}
