/// Machine-readable report: one object with every capture, its findings and what could not be
/// evaluated. Keys in a fixed order so the output is diffable.
public enum JSONReporter {
    public static func render(_ reports: [CaptureReport]) -> String {
        var out = "{\"tool\":\"blecap\",\"captures\":["
        out += reports.map(capture).joined(separator: ",")
        return out + "]}\n"
    }

    static func capture(_ r: CaptureReport) -> String {
        var s = "{\"path\":\(Escape.json(r.path))"
        if let f = r.format { s += ",\"format\":\(Escape.json(f))" }
        s += ",\"frames\":\(r.frames)"
        if let e = r.error { s += ",\"error\":\(Escape.json(e))" }
        if let d = r.damage { s += ",\"damage\":\(Escape.json(d))" }
        s += ",\"findings\":[" + r.findings.map(finding).joined(separator: ",") + "]"
        s += ",\"not_evaluated\":[" + r.notEvaluated.map { n in
            "{\"rule\":\(Escape.json(n.ruleID)),\"slug\":\(Escape.json(n.slug)),\"whole\":\(n.whole),\"reason\":\(Escape.json(n.reason))}"
        }.joined(separator: ",") + "]"
        return s + "}"
    }

    static func finding(_ f: Finding) -> String {
        var s = "{\"rule\":\(Escape.json(f.ruleID)),\"slug\":\(Escape.json(f.slug)),\"severity\":\"\(f.severity.name)\""
        s += ",\"message\":\(Escape.json(f.message))"
        if let c = f.connection { s += ",\"connection\":\(c)" }
        if let p = f.peer { s += ",\"peer\":\(Escape.json(p))" }
        if let h = f.handle { s += ",\"handle\":\(h)" }
        s += ",\"time_us\":\(f.time),\"frames\":[\(f.frames.map(String.init).joined(separator: ","))]"
        s += ",\"evidence\":\"\(f.evidence.rawValue)\""
        if let o = f.byteOffset, let l = f.byteLength { s += ",\"byte_offset\":\(o),\"byte_length\":\(l)" }
        s += ",\"fingerprint\":\"\(f.fingerprint)\",\"baselined\":\(f.baselined)}"
        return s
    }
}
