import Foundation
import TestSupport
import Testing

/// `--color` on every text output (Terminal.swift): `always` colours, `never` and `auto` on a
/// pipe do not, NO_COLOR and CLICOLOR_FORCE steer `auto`, and the coloured text is the plain
/// text once its escapes are removed. Machine formats never carry escapes.
@Suite struct ColorTests {
    static let escape = "\u{1B}["
    static let timeout = Fixtures.capture("diagnose/att_transaction_timeout.btsnoop")
    static let ftms = Fixtures.capture("public/btsnoop-android_domyos-treadmill-ftms.log")

    /// Every command with a text output, on real captures (`packets` has its own tests).
    static let textCommands: [[String]] = [
        ["info", ftms], ["timeline", ftms], ["gatt", ftms], ["lint", timeout, ftms], ["diagnose", timeout],
        ["watch", timeout], ["explain", "BLE009"], ["rules"], ["replay", "--speed", "max", ftms],
    ]

    /// The text without SGR escapes, and without lint's run time ("…, 0.029 s"), which
    /// differs from run to run.
    static func plain(_ text: String) -> String {
        text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
            .replacingOccurrences(of: ", [0-9]+\\.[0-9]+ s\n", with: ", T s\n", options: .regularExpression)
    }

    @Test(arguments: textCommands)
    func alwaysColoursAndIsThePlainTextUnderneath(_ command: [String]) throws {
        let always = try CLIRunner.run(command + ["--color", "always"])
        let never = try CLIRunner.run(command + ["--color", "never"])
        let piped = try CLIRunner.run(command)
        #expect(always.status == never.status && never.status == piped.status)
        #expect(always.stdout.contains(Self.escape))
        #expect(!never.stdout.contains(Self.escape))
        #expect(!piped.stdout.contains(Self.escape))
        #expect(Self.plain(always.stdout) == Self.plain(never.stdout))
        #expect(Self.plain(never.stdout) == Self.plain(piped.stdout))
        #expect(!always.stderr.contains(Self.escape))
    }

    /// CLICOLOR_FORCE colours a pipe under auto; NO_COLOR wins over it; --color over both.
    @Test(arguments: textCommands)
    func autoFollowsTheEnvironment(_ command: [String]) throws {
        let cases: [([String], [String: String], Bool)] = [
            ([], ["CLICOLOR_FORCE": "1"], true),
            ([], ["CLICOLOR_FORCE": "0"], false),
            ([], ["CLICOLOR_FORCE": "1", "NO_COLOR": "1"], false),
            (["--color", "never"], ["CLICOLOR_FORCE": "1"], false),
            (["--color", "always"], ["NO_COLOR": "1"], true),
        ]
        for (options, environment, coloured) in cases {
            let run = try CLIRunner.run(command + options, environment: environment)
            #expect(run.stdout.contains(Self.escape) == coloured, "\(options) \(environment)")
        }
    }

    /// JSON, JSONL, SARIF, JUnit, GitHub annotations, Markdown and HTML: no escapes, whatever
    /// --color or the environment say.
    @Test(arguments: [
        ["info", "-f", "json", ftms], ["timeline", "-f", "jsonl", ftms], ["gatt", "-f", "json", ftms],
        ["lint", "-f", "json", timeout], ["lint", "-f", "sarif", timeout], ["lint", "-f", "junit", timeout],
        ["lint", "-f", "github", timeout], ["lint", "-f", "markdown", timeout], ["lint", "-f", "html", timeout],
        ["diagnose", "-f", "json", timeout], ["diagnose", "-f", "jsonl", timeout],
        ["diagnose", "-f", "markdown", timeout], ["watch", "-f", "jsonl", timeout], ["rules", "-f", "json"],
        ["replay", "--speed", "max", "-f", "json", ftms], ["packets", "-f", "jsonl", timeout],
    ])
    func machineFormatsNeverCarryEscapes(_ command: [String]) throws {
        let run = try CLIRunner.run(command + ["--color", "always"], environment: ["CLICOLOR_FORCE": "1"])
        #expect(!run.stdout.isEmpty)
        #expect(!run.stdout.contains(Self.escape))
    }

    /// What a reader scans for gets the palette's colour: severities, a verdict's cause,
    /// headings, event types by family (gatt.* green as `packets` tags ATT).
    @Test func theScannedPartsAreColoured() throws {
        let lint = try CLIRunner.run(["lint", "--color", "always", Self.timeout]).stdout
        #expect(lint.contains("    \u{1B}[33mwarning\u{1B}[0m BLE009 att-protocol:"))
        #expect(lint.hasPrefix("\u{1B}[1m\(Self.timeout)\u{1B}[0m\n"))
        let watch = try CLIRunner.run(["watch", "--color", "always", Self.timeout]).stdout
        #expect(watch.contains("\u{1B}[33mwarning\u{1B}[0m BLE009"))
        #expect(watch.contains("verdict \u{1B}[31matt_transaction_timeout\u{1B}[0m (peer)"))
        let diagnose = try CLIRunner.run(["diagnose", "--color", "always", Self.timeout]).stdout
        #expect(diagnose.contains("    cause: \u{1B}[31matt_transaction_timeout\u{1B}[0m (peer)"))
        let timeline = try CLIRunner.run(["timeline", "--color", "always", Self.timeout]).stdout
        #expect(timeline.contains("\u{1B}[32mgatt.read\u{1B}[0m"))
        #expect(timeline.contains("\u{1B}[34mcontroller.reset\u{1B}[0m"))
        let info = try CLIRunner.run(["info", "--color", "always", Self.timeout]).stdout
        #expect(info.contains("\n\u{1B}[1mrecords by kind\u{1B}[0m\n"))
        let rules = try CLIRunner.run(["rules", "--color", "always"]).stdout
        #expect(rules.contains("\u{1B}[31merror\u{1B}[0m"))
    }

    /// On a terminal, paged output keeps its colours under auto (the pager stands where the
    /// terminal was, as with git); replay and serve's reports are paged like the others.
    @Test func pagedOutputOnATerminalIsColoured() throws {
        try #require(FileManager.default.isExecutableFile(atPath: PagerTests.script.path))
        let rules = try PagerTests.onTerminal("rules", ["BLECAP_PAGER": PagerTests.recorder])
        #expect(rules.stdout.hasPrefix("PAGED"))
        #expect(rules.stdout.contains(Self.escape))
        let plain = try PagerTests.onTerminal("rules", ["BLECAP_PAGER": PagerTests.recorder, "NO_COLOR": "1"])
        #expect(plain.stdout.hasPrefix("PAGED") && !plain.stdout.contains(Self.escape))
        let replay = try PagerTests.onTerminal(
            "replay --speed max \(Self.ftms)", ["BLECAP_PAGER": PagerTests.recorder])
        #expect(replay.stdout.hasPrefix("PAGED"))
        #expect(replay.stdout.contains("replay: 1 connection, 0 diverged"))
        let unpaged = try PagerTests.onTerminal(
            "replay --no-pager --speed max \(Self.ftms)", ["BLECAP_PAGER": PagerTests.recorder])
        #expect(!unpaged.stdout.contains("PAGED") && unpaged.stdout.contains("replay: 1 connection"))
    }

    /// Every command with text output that can be long accepts --no-pager and --color; serve
    /// too (its report), checked through its help since a session needs a host.
    @Test func everyTextCommandTakesNoPagerAndColor() throws {
        for command in Self.textCommands where command[0] != "watch" {
            let run = try CLIRunner.run(command + ["--no-pager", "--color", "never"])
            #expect(!run.stderr.contains("Unknown option"), "\(command[0])")
            #expect(!run.stdout.isEmpty, "\(command[0])")
        }
        let serve = try CLIRunner.run(["serve", "--help"]).stdout
        #expect(serve.contains("--no-pager") && serve.contains("--color <color>"))
    }
}
