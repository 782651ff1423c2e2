import Foundation
import TestSupport
import Testing

/// End-to-end: the `blecap packets` executable on real captures.
@Suite struct PacketsCommandTests {
    let cleanHR = Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")

    @Test func textHasOneLinePerFrameWithATTDetails() throws {
        let run = try CLIRunner.run(["packets", cleanHR])
        #expect(run.status == 0)
        #expect(run.lines.count == 123)
        // Frame 92: the CCCD write that turns Heart Rate notifications on (bumble README).
        let line92 = try #require(run.lines.first { $0.hasPrefix("     92 ") })
        #expect(line92.contains("sent"))
        #expect(line92.contains("Write Request handle 0x0011 value 0100"))
        // Frame 95: the first of 20 notifications, 70 bpm, RR 877.
        let line95 = try #require(run.lines.first { $0.hasPrefix("     95 ") })
        #expect(line95.contains("rcvd"))
        #expect(line95.contains("Handle Value Notification handle 0x0010 value 16466d03"))
        // Frame 123: the central's own Disconnection Complete says 0x16.
        #expect(run.lines.last?.contains("reason 0x16 Connection Terminated By Local Host") == true)
        // Piped output is never coloured.
        #expect(!run.stdout.contains("\u{1B}["))
    }

    /// Every L2CAP line names its connection and the peer its Connection Complete (HCI) or
    /// CONNECT_IND (over the air) named; "unknown" when the capture starts mid-connection.
    @Test func l2capLinesNameConnectionAndPeer() throws {
        let two = try CLIRunner.run(["packets", Fixtures.capture("bumble/two_peripherals_concurrent.central.btsnoop")])
        let att = two.lines.filter { $0.contains(" ATT ") }
        #expect(att.filter { $0.contains("ATT     0x0001 D8:0D:18:00:00:01  ") }.count == 28)
        #expect(att.filter { $0.contains("ATT     0x0002 DF:E5:0B:00:00:08  ") }.count == 30)
        #expect(att.count == 58)
        let mid = try CLIRunner.run(["packets", Fixtures.capture("public/btsnoop-android_revcar-acl-only.log")])
        #expect(mid.lines[0].contains("ATT     0x0002 unknown            Read By Group Type Request"))
        #expect(!mid.stdout.contains(":"))  // no address anywhere: none was ever named
        let ota = try CLIRunner.run([
            "packets", Fixtures.capture("linklayer/nil_scan_all_services.central.nordic272.pcapng"),
        ])
        let l588 = try #require(ota.lines.first { $0.hasPrefix("    588 ") })
        #expect(l588.contains("ATT     0x0001 D8:0D:18:00:00:01  Read By Group Type Response"))
        let jsonl = try CLIRunner.jsonLines(CLIRunner.run(["packets", "--format", "jsonl", cleanHR]).stdout)
        #expect(jsonl[91]["peer"] as? String == "D8:0D:18:00:00:01")
        #expect(jsonl[91]["peer_type"] as? String == "random")
        #expect(jsonl[0]["peer"] == nil)
    }

    /// Each ATT response's summary, as tshark decodes the same frame, capped at 4 entries.
    @Test func attResponsesAreSummarised() throws {
        let lines = try CLIRunner.run(["packets", cleanHR]).lines
        func line(_ n: Int) throws -> Substring {
            try #require(lines.first { $0.hasPrefix(String(repeating: " ", count: 7 - String(n).count) + "\(n) ") })
        }
        #expect(try line(49).hasSuffix("Find By Type Value Response 0x000E..0x0013"))
        #expect(
            try line(55).hasSuffix(
                "Read By Type Response 0x000F props 0x10 value 0x0010 2A37 (Heart Rate Measurement), "
                    + "0x0012 props 0x02 value 0x0013 2A38 (Body Sensor Location)"))
        #expect(try line(85).hasSuffix("Read Response value 41636d652042696f6d657472696373 (15 bytes)"))
        #expect(try line(91).hasSuffix("Find Information Response 0x0011 2902 (Client Characteristic Configuration)"))
        #expect(
            try line(52).hasSuffix(
                "Error Response to Find By Type Value Request handle 0x0014 0x0A Attribute Not Found"))
        let cached = try CLIRunner.run(["packets", Fixtures.capture("bumble/cached_reconnect.central.btsnoop")]).lines
        let l46 = try #require(cached.first { $0.hasPrefix("     46 ") })
        #expect(
            l46.hasSuffix(
                "Read By Group Type Response 0x0001..0x0005 1800 (GAP), 0x0006..0x000D 1801 (GATT), "
                    + "0x000E..0x0015 180D (Heart Rate), 0x0016..0x0019 180F (Battery), … 1 more"))
    }

    @Test func jsonlResponsesListWhatTheTextSummarises() throws {
        let frames = try CLIRunner.jsonLines(try CLIRunner.run(["packets", "-f", "jsonl", cleanHR]).stdout)
        func att(_ n: Int) throws -> [String: Any] { try #require(frames[n - 1]["att"] as? [String: Any]) }
        func entries(_ n: Int) throws -> [[String: Any]] { try #require(try att(n)["entries"] as? [[String: Any]]) }
        #expect(try att(44)["mtu"] as? Int == 247)
        #expect(try att(46)["mtu"] as? Int == 517)
        let f47 = try att(47)
        #expect(f47["start_handle"] as? Int == 1 && f47["end_handle"] as? Int == 0xFFFF)
        #expect(f47["uuid"] as? String == "2800" && f47["value"] as? String == "0d18")
        let f49 = try entries(49)
        #expect(f49.count == 1 && f49[0]["handle"] as? Int == 0x0E && f49[0]["end_handle"] as? Int == 0x13)
        #expect(try att(53)["uuid"] as? String == "2803")
        let f55 = try entries(55)
        #expect(f55.map { $0["handle"] as? Int } == [0x0F, 0x12])
        #expect(f55.map { $0["value_handle"] as? Int } == [0x10, 0x13])
        #expect(f55.map { $0["uuid"] as? String } == ["2A37", "2A38"])
        #expect(f55.map { $0["properties"] as? Int } == [0x10, 0x02])
        #expect(f55[0]["value"] as? String == "101000372a")
        let f91 = try entries(91)
        #expect(f91.count == 1 && f91[0]["handle"] as? Int == 0x11 && f91[0]["uuid"] as? String == "2902")
        // Every entry, where the text line stops after four.
        let cached = try CLIRunner.jsonLines(
            try CLIRunner.run(["packets", "-f", "jsonl", Fixtures.capture("bumble/cached_reconnect.central.btsnoop")])
                .stdout)
        let f46 = try #require((cached[45]["att"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(f46.count == 5)
        #expect(f46.prefix(4).map { $0["uuid"] as? String } == ["1800", "1801", "180D", "180F"])
        #expect(f46[0]["handle"] as? Int == 1 && f46[0]["end_handle"] as? Int == 5)
    }

    @Test func jsonlFollowsTheDocumentedContract() throws {
        let run = try CLIRunner.run(["packets", "--format", "jsonl", cleanHR])
        #expect(run.status == 0)
        let frames = try CLIRunner.jsonLines(run.stdout)
        #expect(frames.count == 123)
        #expect(frames.map { $0["frame"] as? Int } == Array(1...123))
        let timePattern = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/
        for f in frames {
            let time = try #require(f["time"] as? String)
            #expect(time.wholeMatch(of: timePattern) != nil)
            #expect(["sent", "received"].contains(f["direction"] as? String))
        }
        let f92 = frames[91]
        #expect(f92["kind"] as? String == "acl")
        #expect(f92["connection_handle"] as? Int == 1)
        let att = try #require(f92["att"] as? [String: Any])
        #expect(att["opcode"] as? Int == 0x12)
        #expect(att["name"] as? String == "Write Request")
        #expect(att["handle"] as? Int == 0x11)
        #expect(att["value"] as? String == "0100")
        // Responses carry no handle of their own.
        let f94 = try #require(frames[93]["att"] as? [String: Any])
        #expect(f94["name"] as? String == "Write Response")
        #expect(f94["handle"] == nil)
        // 58 ATT frames and 20 notifications on 0x0010, as tshark finds.
        let atts = frames.compactMap { $0["att"] as? [String: Any] }
        #expect(atts.count == 58)
        #expect(atts.filter { $0["opcode"] as? Int == 0x1B && $0["handle"] as? Int == 0x10 }.count == 20)
        // Frame 1: HCI Reset; frame 2 answers it.
        let hci2 = try #require(frames[1]["hci"] as? [String: Any])
        #expect(hci2["command"] as? String == "Reset")
        #expect(hci2["status"] as? Int == 0)
    }

    @Test func jsonIsOneArrayWithFullDecodes() throws {
        let run = try CLIRunner.run(["packets", "--format", "json", cleanHR])
        #expect(run.status == 0)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(array.count == 123)
        // LE Connection Complete (frame 43) decodes its interval: 0x000C × 1.25 ms = 15 ms.
        let fields43 = try #require(array[42]["fields"] as? [[String: Any]])
        let flat = flatten(fields43)
        #expect(flat.contains { $0["name"] as? String == "connection_interval" && $0["value"] as? Int == 15000 })
        #expect(
            flat.contains { $0["name"] as? String == "peer_address" && $0["value"] as? String == "D8:0D:18:00:00:01" })
    }

    private func flatten(_ fields: [[String: Any]]) -> [[String: Any]] {
        fields.flatMap { f -> [[String: Any]] in
            if let nested = f["fields"] as? [[String: Any]] { return [f] + flatten(nested) }
            return [f]
        }
    }

    @Test func verboseShowsLayersUnderEachLine() throws {
        let run = try CLIRunner.run(["packets", "--verbose", cleanHR])
        #expect(run.status == 0)
        #expect(run.lines.count > 123 * 2)
        #expect(run.stdout.contains("Heart Rate"))  // the 0x180D UUID named in discovery
    }

    @Test func standardInputGivesTheSameOutputAsThePath() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: cleanHR))
        let fromPath = try CLIRunner.run(["packets", "--format", "jsonl", cleanHR])
        let fromStdin = try CLIRunner.run(["packets", "--format", "jsonl", "-"], stdin: data)
        #expect(fromStdin.status == 0)
        #expect(fromStdin.stdout == fromPath.stdout)
        let pcap = Fixtures.capture("formats/clean_heart_rate.central.h4phdr.pcapng")
        let pcapData = try Data(contentsOf: URL(fileURLWithPath: pcap))
        let pcapStdin = try CLIRunner.run(["packets", "--format", "jsonl", "-"], stdin: pcapData)
        #expect(pcapStdin.status == 0)
        #expect(try CLIRunner.jsonLines(pcapStdin.stdout).count == 123)
    }

    @Test func colourOnlyWhenAskedAndNotWithNoColor() throws {
        let always = try CLIRunner.run(["packets", "--color", "always", cleanHR])
        #expect(always.stdout.contains("\u{1B}["))
        let never = try CLIRunner.run(["packets", "--color", "never", cleanHR])
        #expect(!never.stdout.contains("\u{1B}["))
        // auto on a pipe: no colour, with or without NO_COLOR.
        let auto = try CLIRunner.run(["packets", cleanHR], environment: ["NO_COLOR": "1"])
        #expect(!auto.stdout.contains("\u{1B}["))
        #expect(!(try CLIRunner.run(["packets", cleanHR]).stdout.contains("\u{1B}[")))
    }

    /// CLICOLOR_FORCE colours a pipe under auto; NO_COLOR wins over it, --color over both.
    @Test(arguments: [
        ([String](), ["CLICOLOR_FORCE": "1"], true),
        ([], ["CLICOLOR_FORCE": "0"], false),
        ([], ["CLICOLOR_FORCE": "1", "NO_COLOR": "1"], false),
        (["--color", "never"], ["CLICOLOR_FORCE": "1"], false),
        (["--color", "always"], ["NO_COLOR": "1"], true),
    ])
    func colourFollowsTheEnvironment(options: [String], environment: [String: String], coloured: Bool) throws {
        let run = try CLIRunner.run(["packets"] + options + [cleanHR], environment: environment)
        #expect(run.status == 0)
        #expect(run.stdout.contains("\u{1B}[") == coloured)
    }
}
