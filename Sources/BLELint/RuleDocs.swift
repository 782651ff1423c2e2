/// The text of `blecap explain` and of docs/rules/<slug>.md, from the rule's descriptor, so the
/// docs cannot drift from the code.
public enum RuleDocs {
    public static func markdown(_ d: RuleDescriptor) -> String {
        var s = "# \(d.id) `\(d.slug)`: \(d.title)\n\n"
        s += "Default severity: **\(d.defaultSeverity.name)**. Evidence: \(d.evidence.map(\.label).joined(separator: ", ")).\n\n"
        s += d.summary + "\n\n## Guidance\n\n"
        for g in d.guidance { s += "- `\(g.file)`, \(g.section)\n" }
        if !d.thresholds.isEmpty {
            s += "\n## Thresholds\n\n| name | default | meaning |\n|---|---:|---|\n"
            for t in d.thresholds { s += "| `\(t.name)` | \(trim(t.defaultValue)) \(t.unit) | \(t.help) |\n" }
        }
        s += "\n## Fix\n\n```swift\n\(d.fix)\n```\n\n## Configure\n\n```yaml\nrules:\n  \(d.slug):\n    enabled: true\n    severity: \(d.defaultSeverity.name)\n"
        if !d.thresholds.isEmpty {
            s += "    thresholds:\n"
            for t in d.thresholds { s += "      \(t.name): \(trim(t.defaultValue))\n" }
        }
        s += "```\n"
        return s
    }

    public static func json(_ rules: [RuleDescriptor]) -> String {
        "[" + rules.map { d in
            "{\"id\":\(Escape.json(d.id)),\"slug\":\(Escape.json(d.slug)),\"title\":\(Escape.json(d.title)),"
                + "\"severity\":\"\(d.defaultSeverity.name)\",\"evidence\":[\(d.evidence.map { "\"\($0.rawValue)\"" }.joined(separator: ","))],"
                + "\"thresholds\":{\(d.thresholds.map { "\(Escape.json($0.name)):\(trim($0.defaultValue))" }.joined(separator: ","))},"
                + "\"docs\":\(Escape.json(d.docsPath))}"
        }.joined(separator: ",") + "]"
    }

    static func trim(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}
