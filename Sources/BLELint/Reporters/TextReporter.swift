/// Human text: per capture, the platform it was judged as, findings grouped by connection,
/// worst first, each with whose behaviour it is, each rule's fix shown once per capture (in the
/// platform's API); then one line naming the rules that could not be evaluated (each with its
/// reason when `verbose`) and a summary line.
public enum TextReporter {
    public static func render(_ reports: [CaptureReport], verbose: Bool = false) -> String {
        var out = ""
        for r in reports { out += render(r, verbose: verbose) }
        return out
    }

    public static func render(_ r: CaptureReport, verbose: Bool = false) -> String {
        var out = "\(r.path)\n"
        if let e = r.error { return out + "  error: \(e)\n" + SummaryLine.render(r) + "\n\n" }
        out += "  platform: \(platformLine(r.facts.platform))\n"
        let groups = Dictionary(grouping: r.findings) { $0.connection ?? 0 }
        var fixShown: Set<String> = []
        for key in groups.keys.sorted() {
            let list = groups[key]!.sorted(by: worstFirst)
            let peer = list.compactMap(\.peer).first
            out += key == 0 ? "  capture-wide\n" : "  connection #\(key)\(peer.map { " (\($0))" } ?? "")\n"
            for f in list {
                let frames =
                    f.frames.count == 1
                    ? "frame \(f.firstFrame)"
                    : "frame \(f.firstFrame) (related \(f.frames.dropFirst().map(String.init).joined(separator: ", ")))"
                out +=
                    "    \(f.severity.name) \(f.ruleID) \(f.slug)\(f.baselined ? " [baselined]" : ""): \(f.message)\n"
                out += "      \(frames); \(f.evidence.label); behaviour of \(f.party.label)\n"
                if !fixShown.contains(f.ruleID), let d = RuleRegistry.rule(named: f.ruleID)?.descriptor {
                    fixShown.insert(f.ruleID)
                    let fix = d.fix(for: r.facts.platform.platform)
                    out += fix.language == "swift" ? "      fix:\n" : "      fix (\(fix.language)):\n"
                    for line in fix.code.split(separator: "\n", omittingEmptySubsequences: false) {
                        out += "        \(line)\n"
                    }
                }
            }
        }
        if let d = r.damage { out += "  damaged: \(d)\n" }
        if verbose {
            for n in r.notEvaluated {
                out += "  not evaluated: \(n.ruleID) \(n.slug)\(n.whole ? "" : " (in part)"): \(n.reason)\n"
            }
        } else if let line = notEvaluatedLine(r.notEvaluated) {
            out += "  \(line)\n"
        }
        return out + SummaryLine.render(r) + "\n\n"
    }

    /// "Android (sent Android's vendor command … frame 14)" or "Android (set with --platform)".
    public static func platformLine(_ p: PlatformFact) -> String {
        "\(p.platform.label) (\(p.evidence))"
    }

    /// What could not be evaluated, in one line: "not evaluated: BLE005, BLE012 (no ACL data …);
    /// in part: BLE008; --verbose for the reasons". Rules that share a reason share it.
    static func notEvaluatedLine(_ list: [NotEvaluated]) -> String? {
        guard !list.isEmpty else { return nil }
        var wholeIDs: [String] = []
        var partIDs: [String] = []
        for n in list {
            if n.whole {
                if !wholeIDs.contains(n.ruleID) { wholeIDs.append(n.ruleID) }
            } else if !partIDs.contains(n.ruleID) && !wholeIDs.contains(n.ruleID) {
                partIDs.append(n.ruleID)
            }
        }
        var parts: [String] = []
        if !wholeIDs.isEmpty { parts.append(wholeIDs.joined(separator: ", ")) }
        if !partIDs.isEmpty { parts.append("in part: " + partIDs.joined(separator: ", ")) }
        return "not evaluated: " + parts.joined(separator: "; ") + " (--verbose for the reasons)"
    }
}

/// `path: 3 findings (1 error, 2 warnings, 0 notes), 1 rule not evaluable, 483 frames, 0.01 s`.
public enum SummaryLine {
    public static func render(_ r: CaptureReport) -> String {
        if let e = r.error { return "\(r.path): unreadable: \(e)" }
        let e = r.findings.filter { $0.severity == .error }.count
        let w = r.findings.filter { $0.severity == .warning }.count
        let n = r.findings.filter { $0.severity == .note }.count
        let b = r.findings.filter(\.baselined).count
        let ne = Set(r.notEvaluated.filter(\.whole).map(\.ruleID)).count
        var s =
            "\(r.path): \(r.findings.count) finding\(r.findings.count == 1 ? "" : "s") (\(e) error\(e == 1 ? "" : "s"), \(w) warning\(w == 1 ? "" : "s"), \(n) note\(n == 1 ? "" : "s")"
        if b > 0 { s += ", \(b) baselined" }
        s += "), \(ne) rule\(ne == 1 ? "" : "s") not evaluable, \(r.frames) frames"
        s += ", " + String(format3(r.seconds)) + " s"
        if r.damage != nil { s += ", DAMAGED" }
        return s
    }

    static func format3(_ x: Double) -> String {
        let ms = Int((x * 1000).rounded())
        let frac = String(ms % 1000)
        return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }
}
