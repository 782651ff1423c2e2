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
