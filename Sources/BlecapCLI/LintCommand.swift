import ArgumentParser
import BLEFleet
import BLELint
import BLEOutput
import BLEReport
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// `blecap lint PATH...`: check captures against the Core Bluetooth rules, for people and CI.
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract:
            "Check captures against Core Bluetooth's rules; report as text, JSON, SARIF, JUnit, GitHub annotations or Markdown.",
        discussion: """
            A simulator trace (the JSONL of BLESimulator's SimulatorTrace) is linted like a \
            capture, from its API calls. Each finding names the rule, the connection and peer, \
            the frames that prove it and whether it was observed in HCI, inferred, or taken \
            from an API trace, and whose behaviour it is (party: app, os-stack, other-app, \
            peer). Each capture is judged as one platform's host (Android, iOS/macOS, Linux), \
            detected from its frames or set with --platform, and each rule's fix is given in \
            that platform's API. The rules that could not be evaluated are named on one line \
            per capture (--verbose: each with its reason; docs/lint-output.md). Directories are \
            walked for captures (detected by content; other files are skipped), linted in \
            parallel (--jobs N at most N at once; one per core by default), and reported in \
            sorted path order with a summary line per capture (on standard error for the machine \
            formats).

            Config file (--config, JSON or a YAML subset): \
            rules: { <id-or-slug>: { enabled: bool, severity: error|warning|note, thresholds: {name: number} } }. \
            Baseline (--baseline): findings whose fingerprint it lists are reported as baselined \
            and never fail; --write-baseline F writes the current findings' fingerprints.

            Exit status: 1 when a finding is at or above --fail-on (and none of 3, 4, 5 applies: \
            a damaged or unreadable input outranks findings); --write-baseline accepts the \
            findings it writes, so that run exits 0. Inside directories, files that are not \
            captures (empty ones too) are skipped; named on the command line they count.

            Examples:
              blecap lint captures/
              blecap lint --format sarif --output lint.sarif app.btsnoop
              blecap lint --fail-on error --disable unfiltered-scan \\
                --baseline .blecap-baseline.json logs/
              cat app.btsnoop | blecap lint -

            \(ExitStatusTable.text)
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, sarif, junit, github, markdown, html, jsonl, fleet

        /// The formats of batch mode: one line per capture as it finishes (docs/fleet.md).
        var isBatch: Bool { self == .jsonl || self == .fleet }
    }
    enum FailOn: String, ExpressibleByArgument, CaseIterable {
        case error, warning, note, never

        /// The lowest severity that fails the run; nil for never.
        var threshold: Severity? {
            switch self {
            case .never: nil
            case .note: .note
            case .warning: .warning
            case .error: .error
            }
        }
    }

    @Argument(help: "Capture files, simulator traces (JSONL) or directories.")
    var paths: [String] = []

    @Option(
        name: .shortAndLong,
        help:
            "Output format: text, json, sarif, junit, github, markdown, html (the `blecap report` page), jsonl or fleet (batch mode: a line per capture)."
    )
    var format: Format = .text

    @Option(name: .shortAndLong, help: "Write the report to this file instead of standard output.")
    var output: String?

    @OptionGroup var pager: PagerOptions

    @OptionGroup var color: ColorOption

    @Option(name: .long, help: "Lowest severity that makes the run fail (exit 1): error, warning, note or never.")
    var failOn: FailOn = .warning

    @Option(name: .long, help: "Config file (.blecap.yml or JSON): enable/disable rules, severities, thresholds.")
    var config: String?

    @Option(name: .long, help: "Baseline file of accepted finding fingerprints.")
    var baseline: String?

    @Option(name: .long, help: "Write the fingerprints of this run's findings to this baseline file.")
    var writeBaseline: String?

    @Option(name: .long, help: "Enable a rule (id or slug); repeatable.")
    var enable: [String] = []

    @Option(name: .long, help: "Disable a rule (id or slug); repeatable.")
    var disable: [String] = []

    @Option(
        name: .long,
        help: "Inside archives, lint only the capture with this name (its path in the archive, or its file name).")
    var member: String?

    // Parsed unconditionally so that `--jobs -1` reaches `validate` and its message, instead
    // of being taken for an option ("Missing value").
    @Option(
        name: .shortAndLong, parsing: .unconditional,
        help: "Captures linted at once (default: one per core); 1 lints them one after another.")
    var jobs: Int?

    @OptionGroup var platform: PlatformJudgement

    @Flag(name: .long, help: "List each rule that could not be evaluated, with its reason (text output).")
    var verbose = false

    @OptionGroup var decryption: LinkLayerKeyOptions

    @OptionGroup var batch: BatchOptions

    @Flag(
        name: .long,
        help:
            "With --format fleet: diagnose every capture in the same pass and add its verdict rows (those of `blecap diagnose --format fleet`), reading each capture once."
    )
    var diagnose = false

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs takes a positive number") }
        if paths.isEmpty && batch.filesFrom == nil { throw ValidationError("Missing expected argument '<paths> ...'") }
        if batch.asked && !format.isBatch {
            throw ValidationError("--files-from and the batch options need --format jsonl or fleet")
        }
        if diagnose && format != .fleet { throw ValidationError("--diagnose needs --format fleet") }
        if format.isBatch && (output != nil || writeBaseline != nil || member != nil) {
            throw ValidationError(
                "--format \(format.rawValue) writes to standard output and takes no --output, --write-baseline or --member"
            )
        }
    }

    func run() throws {
        var configuration = LintConfiguration()
        var accepted = Baseline()
        do {
            if let config { configuration = try LintConfiguration.load(path: config) }
            for r in enable { try configuration.set(r, enabled: true) }
            for r in disable { try configuration.set(r, enabled: false) }
            if let baseline { accepted = try Baseline.load(path: baseline) }
            configuration.linkLayerKeys = decryption.keys
            configuration.platform = platform.forced
        } catch {
            printError(error.description)
            throw BlecapExit.usage.exitCode
        }
        if format.isBatch {
            let options = AnalysisOptions(
                command: .lint, configuration: configuration, baseline: accepted, failOn: failOn.threshold,
                alsoDiagnose: diagnose)
            return try batch.run(paths, options, fleet: format == .fleet)
        }

        let (files, explicit, problems) = CaptureWalker.collect(paths)
        for p in problems { printError(p) }
        let work = LintRunner.jobs(files, member: member, explicit: explicit)
        // Exit statuses of archives that could not be linted (no capture inside: 4; refused: 5).
        let archiveExits = work.compactMap(CaptureInput.exit(for:))
        // html lints through the report builder: the same findings, aggregated in the same pass.
        let built =
            format == .html
            ? LintRunner.build(work, configuration: configuration, baseline: accepted, parallel: jobs) : []
        var reports =
            format == .html
            ? built.map(\.report)
            : LintRunner.lint(
                work, explicit: explicit, configuration: configuration, baseline: accepted, parallel: jobs)
        // Inside directories, captures blecap cannot lint (link-layer, other link types) are
        // skipped with a note; named on the command line they are an error.
        reports.removeAll { r in
            guard !explicit.contains(r.path), let e = r.error, r.unsupportedFormat else { return false }
            printError("\(r.path): skipped: \(e)")
            return true
        }

        let text: String
        switch format {
        case .text: text = TextReporter.render(reports, verbose: verbose)
        case .json: text = JSONReporter.render(reports)
        case .sarif: text = SARIFReporter.render(reports, version: Blecap.configuration.version)
        case .junit: text = JUnitReporter.render(reports)
        case .github: text = GitHubReporter.render(reports)
        case .markdown: text = MarkdownReporter.render(reports)
        case .html:
            let kept = Set(reports.map(\.path))
            text = HTMLReportRenderer.render(
                built.map(\.model).filter { kept.contains($0.header.path) && $0.header.error == nil })
        case .jsonl, .fleet: preconditionFailure("batch formats are written by BatchMode")
        }
        if format != .text || output != nil {
            for r in reports { printError(SummaryLine.render(r)) }
        }
        for r in reports {
            for n in r.notes { printError(n) }
            if let d = r.damage { printError("\(r.path): \(d)") }
        }
        if let output {
            OutputBuffer.writeFile(output, text: text)
        } else {
            Pager.start(pager, text: format == .text)
            let out = OutputBuffer(fd: 1)
            out.string(LintTextColor.apply(text, color.paint(text: format == .text)))
            out.flush()
        }
        if let writeBaseline {
            let all = reports.flatMap(\.findings)
            OutputBuffer.writeFile(writeBaseline, text: Baseline.render(all))
        }

        // Inputs that could not be read outrank damage, which outranks findings.
        let failed = reports.filter { $0.error != nil }
        if !problems.isEmpty || !failed.isEmpty {
            var codes = archiveExits
            if !problems.isEmpty || failed.count > archiveExits.count { codes.append(.unreadable) }
            throw (codes.max(by: { $0.rawValue < $1.rawValue }) ?? .unreadable).exitCode
        }
        if reports.contains(where: { $0.damage != nil }) { throw BlecapExit.damaged.exitCode }
        // The findings a baseline was just written from are accepted, not failures.
        if writeBaseline != nil { return }
        if reports.contains(where: { !$0.failing(at: failOn.threshold).isEmpty }) { throw BlecapExit.findings.exitCode }
    }
}

/// `--platform ios|android|linux|auto` (lint, report, watch, explain).
enum PlatformOption: String, ExpressibleByArgument, CaseIterable {
    case auto, ios, android, linux

    /// The platform to force, nil for `auto`.
    var platform: Platform? { self == .auto ? nil : Platform(option: rawValue) }
}

/// The one declaration of `--platform` for the commands that judge captures (lint, report,
/// watch): the platform every rule reads instead of the detected one. (`explain` has its own:
/// there it picks which fix to show.)
struct PlatformJudgement: ParsableArguments {
    @Option(
        name: .long,
        help:
            "Judge captures as this platform's host (ios, android, linux) instead of detecting it (auto): findings' advice names its API."
    )
    var platform: PlatformOption = .auto

    /// The platform to force, nil for `auto`.
    var forced: Platform? { platform.platform }
}
