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

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, jsonl, markdown, fleet }

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
            let rows: any BatchRowFormat =
                format == .fleet
                ? FleetFormat(options: options, identifiers: try batch.identifierPolicy())
                : JSONLFormat(options: options)
            try BatchMode.run(paths: files, options: batch, format: rows)
            return
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

/// Renders verdicts as text, one JSON document, JSON lines or Markdown (docs/diagnose.md).
struct DiagnoseWriter {
    let out: OutputBuffer
    let format: DiagnoseCommand.Format
    /// Text only: the capture and each verdict's heading bold, its cause red.
    var paint = Paint(on: false)

    func write(_ results: [(path: String, verdicts: [Verdict])]) {
        switch format {
        case .json:
            let doc = JSONValue.object([
                .init("schema", .string(DiagnoseSchema.name)),
                .init("version", .int(Int64(DiagnoseSchema.version))),
                .init(
                    "captures",
                    .array(
                        results.map {
                            .object([
                                .init("file", .string($0.path)), .init("verdicts", .array($0.verdicts.map(value))),
                            ])
                        })),
            ])
            out.string(JSONDocumentEncoder(style: .pretty).write(doc))
            out.newline()
        case .jsonl:
            for r in results {
                for v in r.verdicts {
                    out.string(JSONDocumentEncoder().write(.object(Self.jsonlMembers(v, file: r.path))))
                    out.newline()
                }
            }
        case .fleet: preconditionFailure("the fleet format is written by BatchMode")
        case .text, .markdown:
            for (i, r) in results.enumerated() {
                if i > 0 { out.newline() }
                format == .text ? text(r.path, r.verdicts) : markdown(r.path, r.verdicts)
            }
        }
    }

    private func value(_ v: Verdict) -> JSONValue { Self.value(v) }

    static func value(_ v: Verdict) -> JSONValue {
        (try? JSONDocumentEncoder.value(of: v)) ?? .null
    }

    /// One `--format jsonl` line's members: `schema`, `version`, `file`, then the verdict's keys
    /// (`watch` writes the same after its own `verdict` key).
    static func jsonlMembers(_ v: Verdict, file: String) -> [JSONValue.Member] {
        var members: [JSONValue.Member] = [
            .init("schema", .string(DiagnoseSchema.name)),
            .init("version", .int(Int64(DiagnoseSchema.version))), .init("file", .string(file)),
        ]
        if case .object(let m) = value(v) { members += m }
        return members
    }

    private func title(_ v: Verdict) -> String {
        var t = v.kind == .loop ? "loop" : v.kind == .attempt && v.connection == nil ? "attempt" : "connection"
        if let n = v.connection { t += " #\(n)" }
        if let p = v.peer { t += "  peer \(p)" }
        if let r = v.role { t += "  \(r)" }
        t += "  frames \(v.startFrame)–\(v.endFrame.map(String.init) ?? "end")"
        return t
    }

    private func text(_ path: String, _ verdicts: [Verdict]) {
        out.string(paint(path, Palette.header))
        out.newline()
        if verdicts.isEmpty {
            out.ascii("  no connections and no connection attempts")
            out.newline()
        }
        for v in verdicts {
            out.ascii("  ")
            out.string(paint(title(v), Palette.header))
            out.newline()
            out.ascii("    verdict: ")
            out.string(v.summary)
            out.newline()
            out.ascii("    cause: ")
            out.string(paint(v.cause, Palette.error))
            out.ascii(" (")
            out.string(v.party)
            out.ascii(")  signature: ")
            out.string(v.signature)
            out.newline()
            for (i, s) in v.steps.enumerated() {
                out.ascii("    ")
                out.decimal(i + 1)
                out.ascii(". [")
                out.string(s.certainty.rawValue)
                out.ascii("] ")
                out.string(s.text)
                if !s.frames.isEmpty {
                    out.ascii("  (frame")
                    if s.frames.count > 1 { out.ascii("s") }
                    out.ascii(" ")
                    out.string(s.frames.map(String.init).joined(separator: ", "))
                    out.ascii(")")
                }
                out.newline()
            }
            if let b = v.budget {
                for line in BudgetText.lines(b) {
                    out.ascii("    ")
                    out.string(line)
                    out.newline()
                }
            }
        }
    }

    private func markdown(_ path: String, _ verdicts: [Verdict]) {
        out.ascii("## ")
        out.string(path)
        out.newline()
        out.newline()
        if verdicts.isEmpty {
            out.ascii("No connections and no connection attempts.")
            out.newline()
        }
        for v in verdicts {
            out.ascii("### ")
            out.string(title(v))
            out.newline()
            out.newline()
            out.ascii("**")
            out.string(v.summary)
            out.ascii("**")
            out.newline()
            out.newline()
            out.ascii("Cause `")
            out.string(v.cause)
            out.ascii("` (")
            out.string(v.party)
            out.ascii("), signature `")
            out.string(v.signature)
            out.ascii("`")
            out.newline()
            out.newline()
            out.ascii("| # | certainty | step | frames |")
            out.newline()
            out.ascii("|---|---|---|---|")
            out.newline()
            for (i, s) in v.steps.enumerated() {
                out.ascii("| ")
                out.decimal(i + 1)
                out.ascii(" | ")
                out.string(s.certainty.rawValue)
                out.ascii(" | ")
                out.string(String(s.text.flatMap { $0 == "|" ? ["\\", "|"] : [$0] }))
                out.ascii(" | ")
                out.string(s.frames.map(String.init).joined(separator: ", "))
                out.ascii(" |")
                out.newline()
            }
            out.newline()
            if let b = v.budget {
                for line in BudgetText.markdown(b) {
                    out.string(line)
                    out.newline()
                }
                out.newline()
            }
        }
    }
}
