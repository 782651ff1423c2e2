import ArgumentParser
import BLEBytes
import BLEDiagnose
import BLEFleet
import BLELint
import BLEOutput
import BLEPass
import BLETimeline
import CaptureIO

/// `blecap diagnose CAPTURE…`: why each connection ended and why each attempt failed.
struct DiagnoseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diagnose",
        abstract: "Say why each connection ended, dropped or failed, with the frames behind every step.",
        discussion: """
            One verdict per connection and per connection attempt that never became one: how it \
            ended (which side, the reason code in words), the cause the capture shows before \
            the end (supervision timeout, ATT transaction timeout, failed pairing, a missing \
            key, a disconnect right after a GATT error or a Security Request, a cancelled or \
            failed create-connection), and the GATT errors met on the way with what the \
            requester did next. Every step cites its frames and says whether a frame shows it \
            (observed) or it is reasoned from them (inferred). What the capture cannot tell is \
            said to be unknown. Each connection's budget gives, for every busy stretch (a \
            transfer, a notification stream), the payload rate reached, the ceiling its \
            parameters allow, what bounds it and the one setting that would raise it most, in \
            the platform's API (lint's platform detection; --platform forces it); and the \
            latency of each request type. JSON is a versioned contract: docs/diagnose.md.

            \(ExitStatusTable.text)
            """)

    typealias Format = DiagnoseFormat

    @Argument(
        help:
            "Capture files (btsnoop, pcap, pcapng, PacketLogger, archives), '-' for standard input, or directories (batch mode)."
    )
    var files: [String] = []

    @Option(name: .long, help: "The capture to read inside an archive: its path there, or its file name.")
    var member: String?

    @OptionGroup var decryption: LinkLayerKeyOptions

    @Option(
        name: .shortAndLong,
        help: "Output format: text, json, jsonl or markdown; batch mode: jsonl (a line per capture) or fleet.")
    var format: Format = .text

    @OptionGroup var pager: PagerOptions

    @OptionGroup var color: ColorOption

    @OptionGroup var platform: PlatformJudgement

    @OptionGroup var batch: BatchOptions

    /// Batch mode: `--files-from`, a directory, the fleet format or a batch option.
    var isBatch: Bool { batch.asked || format == .fleet || BatchMode.namesDirectory(files) }

    func validate() throws {
        if files.isEmpty && batch.filesFrom == nil { throw ValidationError("Missing expected argument '<files> ...'") }
        if isBatch && format != .jsonl && format != .fleet {
            throw ValidationError("batch mode (--files-from, directories) needs --format jsonl or fleet")
        }
        if isBatch && member != nil { throw ValidationError("--member names one capture; batch mode reads them all") }
    }

    func run() throws {
        if isBatch {
            var configuration = LintConfiguration()
            configuration.linkLayerKeys = decryption.keys
            configuration.platform = platform.forced
            let options = AnalysisOptions(command: .diagnose, configuration: configuration)
            return try batch.run(files, options, fleet: format == .fleet)
        }
        var results: [(path: String, verdicts: [Verdict])] = []
        var damaged = false
        for file in files {
            let input = try CaptureInput.open(file, member: member)
            results.append((input.path, diagnose(input)))
            do { try input.finish() } catch { damaged = true }
        }
        Pager.start(pager, text: format == .text)
        let out = OutputBuffer(fd: 1)
        DiagnoseWriter(out: out, format: format, paint: color.paint(text: format == .text)).write(results)
        out.flush()
        if damaged { throw BlecapExit.damaged.exitCode }
    }

    /// One capture pass: lint's, with no rule enabled, for the platform it detects (the
    /// budget's advice names that platform's API), the diagnoser observing its events.
    private func diagnose(_ input: CaptureInput) -> [Verdict] {
        let diagnoser = Diagnoser()
        var configuration = LintConfiguration()
        for d in RuleRegistry.descriptors { configuration.overrides[d.id] = .init(enabled: false) }
        configuration.linkLayerKeys = decryption.keys
        configuration.platform = platform.forced
        let report = CaptureLinter.lint(
            reader: input.reader, name: input.path, reopen: nil, configuration: configuration,
            observer: LintPassObserver(
                frame: { _ in }, event: { diagnoser.observe($0) }, connectionEnded: { diagnoser.connectionEnded($0) }))
        for n in report.notes { printError(n) }
        diagnoser.platform = report.facts.platform.platform
        return diagnoser.finish()
    }
}

extension DiagnoseFormat: ExpressibleByArgument {}
