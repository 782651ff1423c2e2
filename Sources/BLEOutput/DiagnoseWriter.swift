import BLEBytes
import BLEDiagnose
import BLETimeline

/// `diagnose --format`: text, one JSON document, JSON lines, Markdown, or batch mode's fleet
/// tables (written by BLEFleet, not here).
public enum DiagnoseFormat: String, CaseIterable, Sendable { case text, json, jsonl, markdown, fleet }

/// Renders verdicts as text, one JSON document, JSON lines or Markdown (docs/diagnose.md).
package struct DiagnoseWriter {
    package let out: OutputBuffer
    package let format: DiagnoseFormat
    /// Text only: the capture and each verdict's heading bold, its cause red.
    package var paint = Paint(on: false)

    package init(out: OutputBuffer, format: DiagnoseFormat, paint: Paint = Paint(on: false)) {
        self.out = out
        self.format = format
        self.paint = paint
    }

    package func write(_ results: [(path: String, verdicts: [Verdict])]) {
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

    package static func value(_ v: Verdict) -> JSONValue {
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
