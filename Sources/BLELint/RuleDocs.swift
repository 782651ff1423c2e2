import BLEBytes

/// The text of `blecap explain` and of docs/rules/<slug>.md, from the rule's descriptor, so the
/// docs cannot drift from the code.
public enum RuleDocs {
    /// `platform`: `.android` puts the Android advice in place of Core Bluetooth's fix (`blecap
    /// explain --platform android`), another platform leaves the Android advice out; nil gives
    /// the whole page (docs/rules).
    public static func markdown(_ d: RuleDescriptor, platform: Platform? = nil) -> String {
        var s = "# \(d.id) `\(d.slug)`: \(d.title)\n\n"
        s +=
            "Default severity: **\(d.defaultSeverity.name)**. Evidence: \(d.evidence.map(\.label).joined(separator: ", ")).\n\n"
        if d.android != nil {
            // Pages revised for platform-aware advice also say whose behaviour findings report.
            s += "Whose behaviour: **\(d.party.label)** (`\(d.party.rawValue)`) unless a finding says otherwise.\n\n"
        }
        // Every reference is public: an API a reader can look up in Apple's or Android's
        // documentation, or a section of the Core Specification.
        s += d.summary + "\n\n## What it enforces\n\n"
        // On Android, what its stack does in place of what Core Bluetooth enforces.
        let points = platform == .android ? (d.android?.enforces ?? d.enforces) : d.enforces
        for point in points { s += "- \(point)\n" }
        s += "\n## References\n\nThe public documentation these points rest on:\n\n"
        for r in d.references(for: platform) { s += "- \(r.markdown)\n" }
        if !d.thresholds.isEmpty {
            s += "\n## Thresholds\n\n| name | default | meaning |\n|---|---:|---|\n"
            for t in d.thresholds { s += "| `\(t.name)` | \(trim(t.defaultValue)) \(t.unit) | \(t.help) |\n" }
        }
        if platform == .android, let a = d.android {
            s += "\n## Fix on Android\n\n\(a.text)\n"
            if !a.fix.isEmpty { s += "\n```kotlin\n\(a.fix)\n```\n" }
            s += "\n## Configure"
        } else {
            s += "\n## Fix\n\n```swift\n\(d.fix)\n```\n"
            if platform == nil, let a = d.android {
                s += "\n## On Android\n\n\(a.text)\n"
                if !a.fix.isEmpty { s += "\n```kotlin\n\(a.fix)\n```\n" }
            }
            s += "\n## Configure"
        }
        s +=
            "\n\n```yaml\nrules:\n  \(d.slug):\n    enabled: true\n    severity: \(d.defaultSeverity.name)\n"
        if !d.thresholds.isEmpty {
            s += "    thresholds:\n"
            for t in d.thresholds { s += "      \(t.name): \(trim(t.defaultValue))\n" }
        }
        s += "```\n"
        return s
    }

    /// `blecap rules --format json`: one object per rule (no final newline).
    public static func json(_ rules: [RuleDescriptor]) -> String {
        String(JSONDocument.render(rules.map(Entry.init), style: .compact).dropLast())
    }

    struct Entry: Encodable {
        var id: String
        var slug: String
        var title: String
        var severity: String
        var evidence: [String]
        /// Name → default, in the descriptor's order; whole numbers as integers.
        var thresholds: JSONValue
        var docs: String
        /// Whose behaviour the rule's findings report by default.
        var party: String
        /// The platforms whose API the rule's advice names besides Core Bluetooth's.
        var advice: [String]

        init(_ d: RuleDescriptor) {
            id = d.id
            slug = d.slug
            title = d.title
            severity = d.defaultSeverity.name
            evidence = d.evidence.map(\.rawValue)
            thresholds = .object(
                d.thresholds.map { t in
                    let v = t.defaultValue
                    return .init(t.name, v == v.rounded() && abs(v) < 1e15 ? .int(Int64(v)) : .double(v))
                })
            docs = d.docsPath
            party = d.party.rawValue
            advice = d.android == nil ? ["apple"] : ["apple", "android"]
        }
    }

    static func trim(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}
