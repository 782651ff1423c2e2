/// SARIF 2.1.0 (OASIS, sarif-schema-2.1.0.json): one run, the rules as
/// `tool.driver.rules[]`, one result per finding located in the capture file by its record's
/// byte range, evidence frames in `properties.frames`, a stable `partialFingerprints` entry.
public enum SARIFReporter {
    public static let schema = "https://json.schemastore.org/sarif-2.1.0.json"
    public static let helpBase = "https://github.com/blecap/blecap/blob/main/"

    public static func render(_ reports: [CaptureReport], version: String = "0.1.0") -> String {
        let rules = RuleRegistry.descriptors
        var out = "{\n  \"$schema\": \(Escape.json(schema)),\n  \"version\": \"2.1.0\",\n  \"runs\": [{\n"
        out += "    \"tool\": {\"driver\": {\"name\": \"blecap\", \"version\": \(Escape.json(version)), "
        out += "\"informationUri\": \(Escape.json(helpBase + "README.md")), \"rules\": [\n"
        out += rules.map { d in
            "      {\"id\": \(Escape.json(d.id)), \"name\": \(Escape.json(d.slug)), "
                + "\"shortDescription\": {\"text\": \(Escape.json(d.title))}, "
                + "\"fullDescription\": {\"text\": \(Escape.json(d.summary))}, "
                + "\"help\": {\"text\": \(Escape.json(d.summary + "\n\nFix:\n" + d.fix)), \"markdown\": \(Escape.json(d.summary + "\n\n```swift\n" + d.fix + "\n```"))}, "
                + "\"helpUri\": \(Escape.json(helpBase + d.docsPath)), "
                + "\"defaultConfiguration\": {\"level\": \"\(d.defaultSeverity.name)\"}}"
        }.joined(separator: ",\n")
        out += "\n    ]}},\n"
        let readable = reports.filter { $0.error == nil }
        out += "    \"artifacts\": [" + readable.map { "{\"location\": {\"uri\": \(Escape.json(Escape.uri($0.path)))}}" }.joined(separator: ", ") + "],\n"
        var results: [String] = []
        for (ai, r) in readable.enumerated() {
            for f in r.findings {
                let ruleIndex = rules.firstIndex { $0.id == f.ruleID } ?? 0
                var region = ""
                if let o = f.byteOffset, let l = f.byteLength { region = ", \"region\": {\"byteOffset\": \(o), \"byteLength\": \(l)}" }
                var s = "      {\"ruleId\": \(Escape.json(f.ruleID)), \"ruleIndex\": \(ruleIndex), \"level\": \"\(f.severity.name)\", "
                s += "\"message\": {\"text\": \(Escape.json(f.message))}, "
                s += "\"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": \(Escape.json(Escape.uri(r.path))), \"index\": \(ai)}\(region)}}], "
                s += "\"partialFingerprints\": {\"blecapFingerprint/v1\": \"\(f.fingerprint)\"}"
                if f.baselined { s += ", \"baselineState\": \"unchanged\", \"suppressions\": [{\"kind\": \"external\", \"justification\": \"in the blecap baseline\"}]" }
                s += ", \"properties\": {\"frames\": [\(f.frames.map(String.init).joined(separator: ", "))], \"evidence\": \"\(f.evidence.rawValue)\""
                if let c = f.connection { s += ", \"connection\": \(c)" }
                if let p = f.peer { s += ", \"peer\": \(Escape.json(p))" }
                if let h = f.handle { s += ", \"handle\": \(h)" }
                s += "}}"
                results.append(s)
            }
        }
        out += "    \"results\": [\n" + results.joined(separator: ",\n") + (results.isEmpty ? "" : "\n") + "    ],\n"
        // Rules that could not run, as tool notifications (SARIF 3.58).
        var notes: [String] = []
        for r in readable {
            for n in r.notEvaluated where n.whole {
                notes.append("        {\"level\": \"note\", \"message\": {\"text\": \(Escape.json("\(n.ruleID) \(n.slug) not evaluable on \(r.path): \(n.reason)"))}, \"descriptor\": {\"id\": \(Escape.json(n.ruleID))}}")
            }
        }
        let failedToRead = reports.filter { $0.error != nil || $0.damage != nil }
        out += "    \"invocations\": [{\"executionSuccessful\": \(failedToRead.isEmpty), \"toolConfigurationNotifications\": [\n"
        out += notes.joined(separator: ",\n") + (notes.isEmpty ? "" : "\n") + "      ]"
        if !failedToRead.isEmpty {
            out += ", \"toolExecutionNotifications\": [" + failedToRead.map {
                "{\"level\": \"error\", \"message\": {\"text\": \(Escape.json("\($0.path): \($0.error ?? $0.damage ?? "")"))}}"
            }.joined(separator: ", ") + "]"
        }
        out += "}]\n  }]\n}\n"
        return out
    }
}
