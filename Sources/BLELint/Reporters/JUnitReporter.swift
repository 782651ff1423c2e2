/// JUnit XML as CI systems read it: one `<testsuite>` per capture, one `<testcase>` per rule,
/// one `<failure>` per finding; rules that could not be evaluated are `<skipped>`, an
/// unreadable capture is an `<error>`.
public enum JUnitReporter {
    public static func render(_ reports: [CaptureReport], rules: [RuleDescriptor] = RuleRegistry.descriptors) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"blecap lint\">\n"
        for r in reports {
            let failures = r.findings.filter { !$0.baselined }.count
            let skipped = rules.filter { d in r.notEvaluated.contains { $0.ruleID == d.id && $0.whole } }.count
            let errors = r.isUnreadable ? 1 : 0
            out += "  <testsuite name=\"\(Escape.xml(r.path))\" tests=\"\(rules.count + errors)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\" time=\"\(SummaryLine.format3(r.seconds))\">\n"
            if r.isUnreadable {
                out += "    <testcase classname=\"blecap.capture\" name=\"read\"><error message=\"\(Escape.xml(r.error ?? r.damage ?? ""))\"/></testcase>\n"
            }
            for d in rules {
                out += "    <testcase classname=\"blecap.lint\" name=\"\(d.id) \(d.slug)\" file=\"\(Escape.xml(r.path))\""
                let mine = r.findings.filter { $0.ruleID == d.id && !$0.baselined }
                let why = r.notEvaluated.first { $0.ruleID == d.id && $0.whole }
                if mine.isEmpty && why == nil { out += "/>\n"; continue }
                out += ">\n"
                if let why { out += "      <skipped message=\"\(Escape.xml("not evaluable: " + why.reason))\"/>\n" }
                for f in mine {
                    out += "      <failure type=\"\(f.severity.name)\" message=\"\(Escape.xml(f.message))\">"
                    out += Escape.xml("\(f.severity.name) \(f.ruleID) \(f.slug): \(f.message)\nframes: \(f.frames.map(String.init).joined(separator: ", ")) (\(f.evidence.label))\n" + (f.connection.map { "connection #\($0)" } ?? "") + (f.peer.map { " peer \($0)" } ?? ""))
                    out += "</failure>\n"
                }
                out += "    </testcase>\n"
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }
}
