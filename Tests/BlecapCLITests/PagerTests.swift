import BLEOutput
import Foundation
import TestSupport
import Testing

@testable import BlecapCLI

/// The pager (BLEOutput's `Pager`; `--no-pager` in the CLI): used only when standard output is a
/// terminal and the output is text. The terminal is a pseudo-terminal from util-linux `script`;
/// the "pager" a small recorder that marks its output, so the test sees whether blecap went
/// through it.
@Suite struct PagerTests {
    static let script = URL(fileURLWithPath: "/usr/bin/script")
    static let recorder = "echo PAGED LESS=$LESS; cat"

    /// `blecap ARGS` run on a pseudo-terminal (`script -qec`), with `environment` set and LESS
    /// removed; what the terminal showed.
    static func onTerminal(_ args: String, _ environment: [String: String]) throws -> CLIRun {
        let command = "env -u LESS \(CLIRunner.executable.path) \(args)"
        return try CLIRunner.run(["-qec", command, "/dev/null"], environment: environment, executable: script)
    }

    @Test func textOnATerminalIsPagedWithLessOptions() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.script.path))
        let r = try Self.onTerminal("rules", ["BLECAP_PAGER": Self.recorder])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("PAGED LESS=FRX\r\n"))
        #expect(r.stdout.contains("oversized-write"))
    }

    @Test func notPagedOnAPipeWithNoPagerOrCatOrJSON() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.script.path))
        let piped = try CLIRunner.run(["rules"], environment: ["BLECAP_PAGER": Self.recorder])
        #expect(piped.status == 0 && !piped.stdout.contains("PAGED") && piped.stdout.contains("oversized-write"))
        let flag = try Self.onTerminal("rules --no-pager", ["BLECAP_PAGER": Self.recorder])
        #expect(flag.status == 0 && !flag.stdout.contains("PAGED") && flag.stdout.contains("oversized-write"))
        let json = try Self.onTerminal("rules --format json", ["BLECAP_PAGER": Self.recorder])
        #expect(json.status == 0 && !json.stdout.contains("PAGED") && json.stdout.contains("oversized-write"))
        // PAGER is the fallback; BLECAP_PAGER=cat (or empty) turns paging off.
        let fallback = try Self.onTerminal("rules", ["PAGER": Self.recorder])
        #expect(fallback.stdout.hasPrefix("PAGED"))
        for off in ["cat", ""] {
            let r = try Self.onTerminal("rules", ["BLECAP_PAGER": off, "PAGER": Self.recorder])
            #expect(r.status == 0 && !r.stdout.contains("PAGED") && r.stdout.contains("oversized-write"))
        }
    }

    /// A pager that quits before reading everything (the user pressed q) ends blecap quietly:
    /// no message, killed by SIGPIPE as with `| head`.
    @Test func quittingThePagerEndsBlecapQuietly() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.script.path))
        let capture = Fixtures.capture("bumble/long_notify_stream.central.btsnoop")
        let r = try Self.onTerminal("packets \(capture)", ["BLECAP_PAGER": "head -c 100 >/dev/null; echo QUIT"])
        #expect(r.stdout.contains("QUIT"))
        #expect(!r.stdout.contains("cannot write") && !r.stdout.contains("blecap:"))
    }

    @Test func pagerCommandFollowsGitsRule() {
        func pick(_ env: [String: String]) -> String? { Pager.command(environment: { env[$0] }) }
        #expect(pick([:]) == "less")
        #expect(pick(["PAGER": "more"]) == "more")
        #expect(pick(["PAGER": "more", "BLECAP_PAGER": "less -S"]) == "less -S")
        #expect(pick(["BLECAP_PAGER": "", "PAGER": "more"]) == nil)
        #expect(pick(["BLECAP_PAGER": " cat "]) == nil)
        #expect(pick(["PAGER": "cat"]) == nil)
    }
}
