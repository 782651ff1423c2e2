/// JUnit XML as CI systems read it: one `<testsuite>` per capture, one `<testcase>` per rule,
/// one `<failure>` per finding; rules that could not be evaluated are `<skipped>`, an
/// unreadable capture is an `<error>`.
public enum JUnitReporter {
    public static func render(_ reports: [CaptureReport], rules: [RuleDescriptor] = RuleRegistry.descriptors) -> String
    {
        XMLOutput.Document(root: document(reports, rules: rules)).text
    }

    /// The `<testsuites>` element.
    public static func document(_ reports: [CaptureReport], rules: [RuleDescriptor] = RuleRegistry.descriptors)
        -> XMLOutput.Element
    {
        XMLOutput.Element(
            "testsuites", ["name": "blecap lint"],
            children: reports.map { r in
                let failures = r.findings.filter { !$0.baselined }.count
                let skipped = rules.filter { d in r.notEvaluated.contains { $0.ruleID == d.id && $0.whole } }.count
                let errors = r.isUnreadable ? 1 : 0
                var cases: [XMLOutput.Element] = []
                if r.isUnreadable {
                    cases.append(
                        XMLOutput.Element(
                            "testcase", ["classname": "blecap.capture", "name": "read"], inline: true,
                            children: [
                                XMLOutput.Element("error", ["message": r.error ?? r.damage ?? ""])
                            ]))
                }
                for d in rules {
                    var children: [XMLOutput.Element] = []
                    if let why = r.notEvaluated.first(where: { $0.ruleID == d.id && $0.whole }) {
                        children.append(XMLOutput.Element("skipped", ["message": "not evaluable: " + why.reason]))
                    }
                    for f in r.findings where f.ruleID == d.id && !f.baselined {
                        let text =
                            "\(f.severity.name) \(f.ruleID) \(f.slug): \(f.message)\n"
                            + "frames: \(f.frames.map(String.init).joined(separator: ", ")) (\(f.evidence.label))\n"
                            + "behaviour of: \(f.party.label) (\(f.party.rawValue))\n"
                            + (f.connection.map { "connection #\($0)" } ?? "") + (f.peer.map { " peer \($0)" } ?? "")
                        children.append(
                            XMLOutput.Element("failure", ["type": f.severity.name, "message": f.message], text: text))
                    }
                    cases.append(
                        XMLOutput.Element(
                            "testcase", ["classname": "blecap.lint", "name": "\(d.id) \(d.slug)", "file": r.path],
                            children: children))
                }
                return XMLOutput.Element(
                    "testsuite",
                    [
                        "name": r.path, "tests": "\(rules.count + errors)", "failures": "\(failures)",
                        "errors": "\(errors)",
                        "skipped": "\(skipped)", "time": SummaryLine.format3(r.seconds),
                    ], children: cases)
            })
    }
}
