import ArgumentParser
import BLEBytes
import BLEDiagnose
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
            said to be unknown. JSON is a versioned contract: docs/diagnose.md.

            \(ExitStatusTable.text)
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, jsonl, markdown }

    @Argument(help: "Capture files (btsnoop, pcap, pcapng, PacketLogger, archives), or '-' for standard input.")
    var files: [String]

    @Option(name: .long, help: "The capture to read inside an archive: its path there, or its file name.")
    var member: String?

    @OptionGroup var decryption: LinkLayerKeyOptions

    @Option(name: .shortAndLong, help: "Output format: text, json, jsonl or markdown.")
    var format: Format = .text

    func run() throws {
        var results: [(path: String, verdicts: [Verdict])] = []
        var damaged = false
        for file in files {
            let input = try CaptureInput.open(file, member: member)
            results.append((input.path, diagnose(input)))
            do { try input.finish() } catch { damaged = true }
        }
        let out = OutputBuffer(fd: 1)
        DiagnoseWriter(out: out, format: format).write(results)
        out.flush()
        if damaged { throw BlecapExit.damaged.exitCode }
    }

    /// One capture pass with the diagnoser as its consumer.
    private func diagnose(_ input: CaptureInput) -> [Verdict] {
        let diagnoser = Diagnoser()
        let pass = input.pass(keys: decryption.keys)
        pass.run(diagnoser)
        input.note(pass)
        return diagnoser.finish()
    }
}

/// Renders verdicts as text, one JSON document, JSON lines or Markdown (docs/diagnose.md).
struct DiagnoseWriter {
    let out: OutputBuffer
    let format: DiagnoseCommand.Format

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
                    var members: [JSONValue.Member] = [
                        .init("schema", .string(DiagnoseSchema.name)),
                        .init("version", .int(Int64(DiagnoseSchema.version))), .init("file", .string(r.path)),
                    ]
                    if case .object(let m) = value(v) { members += m }
                    out.string(JSONDocumentEncoder().write(.object(members)))
                    out.newline()
                }
            }
        case .text, .markdown:
            for (i, r) in results.enumerated() {
                if i > 0 { out.newline() }
                format == .text ? text(r.path, r.verdicts) : markdown(r.path, r.verdicts)
            }
        }
    }

    private func value(_ v: Verdict) -> JSONValue {
        (try? JSONDocumentEncoder.value(of: v)) ?? .null
    }

    private func title(_ v: Verdict) -> String {
        var t = v.kind == .attempt && v.connection == nil ? "attempt" : "connection"
        if let n = v.connection { t += " #\(n)" }
        if let p = v.peer { t += "  peer \(p)" }
        if let r = v.role { t += "  \(r)" }
        t += "  frames \(v.startFrame)–\(v.endFrame.map(String.init) ?? "end")"
        return t
    }

    private func text(_ path: String, _ verdicts: [Verdict]) {
        out.string(path)
        out.newline()
        if verdicts.isEmpty {
            out.ascii("  no connections and no connection attempts")
            out.newline()
        }
        for v in verdicts {
            out.ascii("  ")
            out.string(title(v))
            out.newline()
            out.ascii("    verdict: ")
            out.string(v.summary)
            out.newline()
            out.ascii("    cause: ")
            out.string(v.cause)
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
        }
    }
}
