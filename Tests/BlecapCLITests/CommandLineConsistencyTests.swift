import Foundation
import TestSupport
import Testing

/// The command line behaves the same in every command: standard input, compressed input,
/// `--format` values, filters that match nothing, clear usage errors.
@Suite struct CommandLineConsistencyTests {
    static let clean = Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")

    /// Every command that reads one capture reads it from standard input as `-` and as
    /// /dev/stdin, and prints what it prints for the file.
    @Test(arguments: [
        ["packets"], ["info"], ["timeline"], ["gatt"], ["lint", "--fail-on", "never"], ["diagnose"], ["replay"],
        ["watch"],
    ])
    func standardInputIsReadLikeTheFile(command: [String]) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.clean))
        let fromFile = try CLIRunner.run(command + [Self.clean])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        for name in ["-", "/dev/stdin"] {
            let piped = try CLIRunner.run(command + [name], stdin: bytes)
            #expect(piped.status == 0, "\(name): \(piped.stderr)")
            // The capture's name differs (and lint's timing); the frames do not.
            let strip = { (s: String) in
                s.replacingOccurrences(of: Self.clean, with: "X").replacingOccurrences(of: "/dev/stdin", with: "X")
                    .replacingOccurrences(of: "standard input", with: "X")
                    .replacingOccurrences(of: "replay of - (", with: "replay of X (")
                    .replacingOccurrences(of: #"(?m)^-(:|$)"#, with: "X$1", options: .regularExpression)
                    .replacingOccurrences(of: #"(?m)^file: .*$"#, with: "file:", options: .regularExpression)
                    .replacingOccurrences(of: #", [0-9.]+ s"#, with: "", options: .regularExpression)
            }
            #expect(strip(piped.stdout) == strip(fromFile.stdout), "\(command) \(name)")
        }
    }

    /// A named pipe (mkfifo) is read like the file too: nothing seeks back in it or opens it
    /// twice (a second open would wait for a writer that never comes). The writer is `cat` in the
    /// shell that then runs blecap, so a reader that stopped early would show as cat's failure.
    @Test(arguments: [
        ["packets"], ["info"], ["timeline"], ["gatt"], ["lint", "--fail-on", "never"], ["diagnose"], ["replay"],
        ["watch"],
    ])
    func aNamedPipeIsReadLikeTheFile(command: [String]) throws {
        let scratch = try Scratch()
        let fifo = scratch.file("capture.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let script = """
            cat "$1" > "$2" & writer=$!
            shift 2
            timeout 60 "$@"; status=$?
            wait $writer || { echo "the writer failed: blecap stopped reading early" >&2; exit 99; }
            exit $status
            """
        let fromPipe = try CLIRunner.run(
            ["-c", script, "sh", Self.clean, fifo, CLIRunner.executable.path] + command + [fifo],
            executable: URL(fileURLWithPath: "/bin/sh"))
        let fromFile = try CLIRunner.run(command + [Self.clean])
        #expect(fromPipe.status == 0, "\(command): \(fromPipe.stderr)")
        let strip = { (s: String) in
            s.replacingOccurrences(of: Self.clean, with: "X").replacingOccurrences(of: fifo, with: "X")
                .replacingOccurrences(of: #", [0-9.]+ s"#, with: "", options: .regularExpression)
        }
        #expect(strip(fromPipe.stdout) == strip(fromFile.stdout), "\(command)")
    }

    @Test func reportReadsStandardInput() throws {
        let scratch = try Scratch()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.clean))
        let page = scratch.file("page.html")
        let run = try CLIRunner.run(["report", "-o", page, "-"], stdin: bytes)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: page, encoding: .utf8).contains("123"))
    }

    @Test func watchReadsACompressedFileOnceAndRefusesToFollowIt() throws {
        let scratch = try Scratch()
        let gz = scratch.file("c.btsnoop.gz")
        try ArchiveWriter.write(
            .gzip, to: gz, entries: [("c", try Fixtures.bytes("bumble/clean_heart_rate.central.btsnoop"))])
        let plain = try CLIRunner.run(["watch", "--format", "jsonl", Self.clean])
        let once = try CLIRunner.run(["watch", "--format", "jsonl", gz])
        #expect(once.status == 0, "\(once.stderr)")
        // Verdict lines name their input (`file`): the same lines, each naming its own.
        #expect(
            once.stdout
                == plain.stdout.replacingOccurrences(of: "\"file\":\"\(Self.clean)\"", with: "\"file\":\"\(gz)\""))
        #expect(once.stdout.contains("\"verdict\":"))
        let follow = try CLIRunner.run(["watch", "--follow", gz])
        #expect(follow.status == 2)
        #expect(follow.stderr.contains("cannot be followed"))
    }

    /// Help lists only the values a command takes.
    @Test(arguments: [
        ("timeline", ["text", "jsonl"], "json"), ("watch", ["text", "jsonl"], "json"),
        ("gatt", ["text", "json"], "jsonl"),
        ("replay", ["text", "json"], "jsonl"),
    ])
    func everyListedFormatIsAccepted(command: String, listed: [String], rejected: String) throws {
        let help = try CLIRunner.run([command, "--help"], environment: ["COLUMNS": "200"])
        let values = help.stdout.split(separator: "\n").first {
            $0.contains("--format <format>") && $0.contains("values:")
        }
        #expect(values?.contains("values: \(listed.joined(separator: ", "));") == true, "\(values ?? "")")
        for format in listed {
            let run = try CLIRunner.run([command, "-f", format, Self.clean])
            #expect(run.status == 0, "\(command) -f \(format): \(run.stderr)")
        }
        let bad = try CLIRunner.run([command, "-f", rejected, Self.clean])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("'\(rejected)' is invalid"))
    }

    @Test(arguments: [
        ("gatt.writes", "gatt.writes: no such event type; did you mean gatt.write?"),
        ("GATT.*", "GATT.*: matches no event type; did you mean gatt.*?"),
        ("conection.complete", "did you mean connection.complete?"),
    ])
    func anUnknownEventTypeSuggestsTheNearest(type: String, message: String) throws {
        let run = try CLIRunner.run(["timeline", "--type", type, Self.clean])
        #expect(run.status == 2)
        #expect(run.stderr.contains(message))
        #expect(run.stdout.isEmpty)
    }

    @Test func everyEventTypeOfTheShippedCapturesIsKnown() throws {
        // The list --type is checked against must hold every type the timeline writes.
        var seen: Set<String> = []
        for name in [
            "two_peripherals_concurrent.central", "indications_and_errors.central", "cached_reconnect.central",
        ] {
            let run = try CLIRunner.run(["timeline", "-f", "jsonl", Fixtures.capture("bumble/\(name).btsnoop")])
            for line in try CLIRunner.jsonLines(run.stdout) { seen.insert(line["type"] as? String ?? "?") }
        }
        #expect(seen.count > 10)
        for type in seen {
            let run = try CLIRunner.run(["timeline", "--type", type, Self.clean])
            #expect(run.status == 0 || !run.stderr.contains("no such event type"), "\(type)")
        }
    }

    @Test(arguments: [["--connection", "99999"], ["--type", "smp.pairing_failed"], ["--peer", "00:11:22:33:44:55"]])
    func aFilterThatMatchesNothingSaysSo(filter: [String]) throws {
        let run = try CLIRunner.run(["timeline"] + filter + [Self.clean])
        #expect(run.status == 0)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("no event matches \(filter[0])"))
        let strict = try CLIRunner.run(["timeline", "--fail-on-empty"] + filter + [Self.clean])
        #expect(strict.status == 1)
        // A filter that matches prints no note and passes --fail-on-empty.
        let some = try CLIRunner.run(["timeline", "--fail-on-empty", "--type", "gatt.*", Self.clean])
        #expect(some.status == 0 && !some.stdout.isEmpty && some.stderr.isEmpty)
    }

    @Test func watchDashFIsTheFormatAndSaysSo() throws {
        // Users of tail -f reach for -f; here, as in every command, it is --format.
        let run = try CLIRunner.run(["watch", "-f", Self.clean])
        #expect(run.status == 2)
        #expect(run.stderr.contains("is invalid for '-f <format>'"))
        #expect(run.stderr.contains("--follow has no short name"))
    }

    /// Help examples are copied into shells: each line fits 80 columns, so no terminal wraps
    /// one mid-command (long ones continue with a backslash).
    @Test(arguments: ["packets", "info", "timeline", "lint", "report", "replay", "serve", "watch"])
    func helpExamplesFit80Columns(command: String) throws {
        let help = try CLIRunner.run([command, "--help"], environment: ["COLUMNS": "200"])
        let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "Examples:") else {
            Issue.record("\(command): no examples")
            return
        }
        let examples = lines[(start + 1)...].prefix { !$0.isEmpty }
        #expect(!examples.isEmpty)
        for line in examples { #expect(line.count <= 80, "\(command): \(line)") }
    }

    @Test func aNegativeJobCountIsAClearError() throws {
        let run = try CLIRunner.run(["lint", "--jobs", "-1", Self.clean])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--jobs takes a positive number"))
        #expect(!run.stderr.contains("Missing value"))
    }

    @Test func writeBaselineAcceptsTheFindingsItWrites() throws {
        let scratch = try Scratch()
        let capture = Fixtures.capture("bumble/oversized_and_unchecked_writes.central.btsnoop")
        let baseline = scratch.file("baseline.json")
        let run = try CLIRunner.run(["lint", "--write-baseline", baseline, capture])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: baseline))
        let again = try CLIRunner.run(["lint", "--baseline", baseline, capture])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try CLIRunner.run(["lint", capture]).status == 1)
    }
}
