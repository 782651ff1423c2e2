/// GitHub Actions workflow commands: one `::error|warning|notice file=…,title=…::message` per
/// finding, which the Actions UI shows as annotations.
public enum GitHubReporter {
    public static func render(_ reports: [CaptureReport]) -> String {
        var out = ""
        for r in reports {
            if let e = r.error ?? r.damage {
                out += "::error file=\(Escape.githubProperty(r.path)),title=blecap::\(Escape.githubData(e))\n"
            }
            for f in r.findings where !f.baselined {
                let level =
                    switch f.severity {
                    case .error: "error"
                    case .warning: "warning"
                    case .note: "notice"
                    }
                let title = "\(f.ruleID) \(f.slug)"
                let frames = f.frames.map(String.init).joined(separator: ", ")
                out += "::\(level) file=\(Escape.githubProperty(r.path)),title=\(Escape.githubProperty(title))::"
                out +=
                    Escape.githubData(
                        "\(f.message) (frames \(frames); \(f.evidence.label); behaviour of \(f.party.label))") + "\n"
            }
        }
        return out
    }
}
