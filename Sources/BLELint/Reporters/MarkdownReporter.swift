/// A Markdown summary for a CI step summary (`$GITHUB_STEP_SUMMARY`): a table of captures,
/// then each capture's findings, then what could not be evaluated.
public enum MarkdownReporter {
    public static func render(_ reports: [CaptureReport]) -> String {
        var out =
            "# blecap lint\n\n| capture | errors | warnings | notes | not evaluable | frames |\n|---|---:|---:|---:|---:|---:|\n"
        for r in reports {
            let c = { (s: Severity) in r.findings.filter { $0.severity == s && !$0.baselined }.count }
            let status = r.error != nil ? " (unreadable)" : r.damage != nil ? " (damaged)" : ""
            out +=
                "| `\(Escape.markdownCell(r.path))`\(status) | \(r.facts.platform.platform.rawValue) | \(c(.error)) | \(c(.warning)) | \(c(.note)) | \(Set(r.notEvaluated.filter(\.whole).map(\.ruleID)).count) | \(r.frames) |\n"
        }
        for r in reports where !r.findings.isEmpty {
            out +=
                "\n## `\(Escape.markdownCell(r.path))`\n\nPlatform: \(Escape.markdownCell(TextReporter.platformLine(r.facts.platform))).\n\n| severity | rule | party | connection | frames | message |\n|---|---|---|---|---|---|\n"
            for f in r.findings.sorted(by: worstFirst) {
                let conn = f.connection.map { "#\($0)" + (f.peer.map { " \($0)" } ?? "") } ?? "—"
                out +=
                    "| \(f.severity.name)\(f.baselined ? " (baselined)" : "") | \(f.ruleID) `\(f.slug)` | \(f.party.rawValue) | \(conn) | \(f.frames.map(String.init).joined(separator: ", ")) | \(Escape.markdownCell(f.message)) |\n"
            }
        }
        let ne = reports.flatMap { r in r.notEvaluated.filter(\.whole).map { (r.path, $0) } }
        if !ne.isEmpty {
            out += "\n<details><summary>Not evaluable (\(ne.count))</summary>\n\n"
            for (p, n) in ne {
                out += "- `\(Escape.markdownCell(p))`: \(n.ruleID) `\(n.slug)`: \(Escape.markdownCell(n.reason))\n"
            }
            out += "\n</details>\n"
        }
        return out
    }
}
