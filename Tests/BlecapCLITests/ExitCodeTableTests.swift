import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/exit-codes.md, row by row, for every command that reads captures: each status is
/// produced by a real input (a clean capture, one cut short, a missing file, an archive that
/// climbs out of itself, a full device) and the run is checked for the code and its message.
@Suite struct ExitCodeTableTests {
    static let clean = Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")
    /// A capture with lint findings (an oversized write, unchecked writes).
    static let withFindings = Fixtures.capture("bumble/oversized_and_unchecked_writes.central.btsnoop")

    /// The commands that read one capture, each with the arguments that run it on `file`
    /// without writing anywhere but standard output (report: into `scratch`).
    enum Command: String, CaseIterable, CustomTestStringConvertible {
        case packets, info, timeline, gatt, lint, diagnose, report, replay, watch

        var testDescription: String { rawValue }

        func arguments(_ file: String, in scratch: Scratch, extra: [String] = []) -> [String] {
            switch self {
            case .lint: ["lint", "--fail-on", "never"] + extra + [file]
            case .report: ["report", "-o", scratch.file("page.html")] + extra + [file]
            default: [rawValue] + extra + [file]
            }
        }
    }

    static func damagedCapture(in scratch: Scratch) throws -> String {
        // The last record cut by 3 bytes: frames 1-122 are whole.
        let bytes = try Fixtures.bytes("bumble/clean_heart_rate.central.btsnoop")
        return try scratch.write("cut.btsnoop", Array(bytes.dropLast(3)))
    }

    // MARK: 0 success

    @Test(arguments: Command.allCases)
    func successIs0(command: Command) throws {
        let scratch = try Scratch()
        let run = try CLIRunner.run(command.arguments(Self.clean, in: scratch))
        #expect(run.status == 0, "\(run.stderr)")
    }

    // MARK: 1 findings at or above --fail-on

    static let thresholds: [([String], Int32)] = [
        (["lint", withFindings], 1),
        (["lint", "--fail-on", "never", withFindings], 0),
        (["lint", "--fail-on", "error", clean], 0),
        (["watch", "--fail-on", "warning", withFindings], 1),
        (["watch", withFindings], 0),
        (["watch", "--fail-on", "note", clean], 0),
    ]

    @Test(arguments: thresholds)
    func findingsAtTheThresholdAre1(arguments: [String], status: Int32) throws {
        let run = try CLIRunner.run(arguments)
        #expect(run.status == status, "\(run.stderr)")
    }

    // MARK: 2 usage error

    @Test(arguments: Command.allCases)
    func usageErrorIs2(command: Command) throws {
        let scratch = try Scratch()
        let run = try CLIRunner.run(command.arguments(Self.clean, in: scratch, extra: ["--no-such-option"]))
        #expect(run.status == 2)
        #expect(run.stderr.contains("--no-such-option"))
        #expect(run.stdout.isEmpty)
    }

    @Test(arguments: [["explain", "--no-such-option"], ["rules", "--no-such-option"], ["serve", Self.clean]])
    func usageErrorIs2ForTheOtherCommands(arguments: [String]) throws {
        #expect(try CLIRunner.run(arguments).status == 2)
    }

    // MARK: 3 damaged input

    @Test(arguments: Command.allCases)
    func damagedInputIs3(command: Command) throws {
        let scratch = try Scratch()
        let run = try CLIRunner.run(command.arguments(try Self.damagedCapture(in: scratch), in: scratch))
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains("frame 123"))
    }

    @Test func lintOfADamagedCaptureWithFindingsIs3() throws {
        // Damage outranks findings: the findings may be incomplete.
        let scratch = try Scratch()
        let bytes = try Fixtures.bytes("bumble/oversized_and_unchecked_writes.central.btsnoop")
        let cut = try scratch.write("cut.btsnoop", Array(bytes.dropLast(3)))
        #expect(try CLIRunner.run(["lint", cut]).status == 3)
    }

    // MARK: 4 unreadable input

    @Test(arguments: Command.allCases)
    func missingInputIs4(command: Command) throws {
        let scratch = try Scratch()
        let run = try CLIRunner.run(command.arguments("/nonexistent/capture.btsnoop", in: scratch))
        #expect(run.status == 4, "\(run.stderr)")
        #expect(run.stderr.contains("/nonexistent/capture.btsnoop"))
    }

    @Test(arguments: Command.allCases)
    func unknownFormatIs4(command: Command) throws {
        let scratch = try Scratch()
        let junk = try scratch.write("notes.btsnoop", Array("these are not the frames you are looking for\n".utf8))
        let run = try CLIRunner.run(command.arguments(junk, in: scratch))
        #expect(run.status == 4, "\(run.stderr)")
        // lint reports an unreadable input among its results, on standard output.
        #expect((run.stderr + run.stdout).contains("unknown capture format"))
    }

    @Test func serveOfAMissingCaptureIs4() throws {
        let run = try CLIRunner.run(["serve", "/nonexistent/capture.btsnoop", "--transport", "pty"])
        #expect(run.status == 4, "\(run.stderr)")
    }

    @Test func lintSkipsEmptyAndOtherFilesInsideADirectory() throws {
        let scratch = try Scratch()
        _ = try scratch.write("empty.btsnoop", [])
        _ = try scratch.write("notes.txt", Array("hello".utf8))
        _ = try scratch.write("clean.btsnoop", try Fixtures.bytes("bumble/clean_heart_rate.central.btsnoop"))
        let run = try CLIRunner.run(["lint", scratch.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("clean.btsnoop"))
        #expect(!run.stdout.contains("empty.btsnoop"))
        // Named on the command line, an empty file counts: it is no capture.
        #expect(try CLIRunner.run(["lint", scratch.file("empty.btsnoop")]).status == 4)
    }

    // MARK: 5 refused by a safety limit

    @Test(arguments: Command.allCases)
    func refusedArchiveIs5(command: Command) throws {
        let scratch = try Scratch()
        let evil = scratch.file("evil.tar")
        try ArchiveWriter.write(
            .tar, to: evil,
            entries: [("../evil.btsnoop", try Fixtures.bytes("bumble/clean_heart_rate.central.btsnoop"))])
        let run = try CLIRunner.run(command.arguments(evil, in: scratch))
        #expect(run.status == 5, "\(run.stderr)")
        #expect((run.stderr + run.stdout).contains("path traversal"))
    }

    // MARK: 6 write error

    @Test(arguments: Command.allCases)
    func standardOutputOnAFullDeviceIs6(command: Command) throws {
        let scratch = try Scratch()
        var arguments = command.arguments(Self.clean, in: scratch)
        if command == .report { arguments = ["report", "-o", "-", Self.clean] }
        let run = try CLIRunner.run(arguments, standardOutput: "/dev/full")
        #expect(run.status == 6, "\(run.stderr)")
        #expect(run.stderr.contains("standard output: cannot write: No space left on device"))
    }

    @Test(arguments: [["explain", "BLE001"], ["rules"]])
    func standardOutputOnAFullDeviceIs6ForTheOtherCommands(arguments: [String]) throws {
        let run = try CLIRunner.run(arguments, standardOutput: "/dev/full")
        #expect(run.status == 6, "\(run.stderr)")
    }

    @Test(arguments: [
        ["report", "-o", "/dev/full", clean],
        ["lint", "-f", "sarif", "-o", "/dev/full", withFindings],
        ["lint", "-f", "junit", "--output", "/dev/full", clean],
        ["lint", "--write-baseline", "/dev/full", withFindings],
        ["replay", "--out", "/dev/full", clean],
    ])
    func outputFileOnAFullDeviceIs6(arguments: [String]) throws {
        let run = try CLIRunner.run(arguments)
        #expect(run.status == 6, "\(run.stderr)")
        #expect(run.stderr.contains("/dev/full: cannot write: No space left on device"))
        #expect(!run.stderr.contains("KiB;"))  // report's "written" line never appears
    }

    /// A directory nobody may write in: one of our own made read-only, or, for root (whom
    /// permissions do not stop), /sys, which refuses new files to everyone.
    static func unwritableDirectory(in scratch: Scratch) throws -> String {
        if geteuid() == 0 { return "/sys" }
        let dir = scratch.file("read-only")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        chmod(dir, 0o555)
        return dir
    }

    @Test(arguments: [
        ["report", "-o", "OUT/page.html", clean],
        ["lint", "-f", "sarif", "-o", "OUT/lint.sarif", withFindings],
        ["lint", "-f", "json", "-o", "OUT/lint.json", clean],
        ["replay", "--out", "OUT/replay.btsnoop", clean],
    ])
    func outputFileInAReadOnlyDirectoryIs6AndLeavesNothing(arguments: [String]) throws {
        let scratch = try Scratch()
        let dir = try Self.unwritableDirectory(in: scratch)
        defer { chmod(dir, 0o755) }
        let before = try FileManager.default.contentsOfDirectory(atPath: dir)
        let run = try CLIRunner.run(arguments.map { $0.replacingOccurrences(of: "OUT", with: dir) })
        #expect(run.status == 6, "\(run.stderr)")
        #expect(run.stderr.contains("cannot write"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == before)
    }

    @Test func outputFilesAreReplacedWholeAndNoPartialFileStays() throws {
        let scratch = try Scratch()
        let sarif = scratch.file("lint.sarif")
        try Data("previous".utf8).write(to: URL(fileURLWithPath: sarif))
        let run = try CLIRunner.run(["lint", "-f", "sarif", "-o", sarif, "--fail-on", "never", Self.withFindings])
        #expect(run.status == 0, "\(run.stderr)")
        let written = try String(contentsOfFile: sarif, encoding: .utf8)
        #expect(written.hasPrefix("{") && written.contains("\"version\""))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["lint.sarif"])
    }

    // MARK: the reader went away

    @Test func aClosedPipeEndsQuietlyBySIGPIPE() throws {
        // `--verbose` prints far more than a pipe holds, so blecap is still writing when head
        // has gone: the next write meets EPIPE.
        let script =
            "set -o pipefail; '\(CLIRunner.executable.path)' packets --verbose "
            + "'\(Fixtures.capture("bumble/long_notify_stream.central.btsnoop"))' | head -1"
        let run = try CLIRunner.run(["-c", script], executable: URL(fileURLWithPath: "/bin/bash"))
        #expect(run.status == 141, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        #expect(run.lines.count == 1)
    }
}
