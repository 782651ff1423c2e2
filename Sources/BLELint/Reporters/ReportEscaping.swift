import BLEBytes

/// String escaping shared by the reporters.
enum Escape {
    /// XML text and attribute values (XML 1.0: the five predefined entities; control
    /// characters other than tab/newline are not allowed in XML 1.0 and are dropped).
    static func xml(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            case "\t": out.unicodeScalars.append(u)
            case _ where u.value < 0x20: break
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// GitHub workflow-command data (`%`, CR, LF) and property values (also `:` and `,`).
    static func githubData(_ s: String) -> String {
        s.replacingAll("%", "%25").replacingAll("\r", "%0D").replacingAll("\n", "%0A")
    }

    static func githubProperty(_ s: String) -> String {
        githubData(s).replacingAll(":", "%3A").replacingAll(",", "%2C")
    }

    /// Markdown table cell: pipes escaped, newlines flattened.
    static func markdownCell(_ s: String) -> String {
        s.replacingAll("|", "\\|").replacingAll("\n", " ")
    }

    /// A file path as a URI reference for SARIF `artifactLocation.uri` (RFC 3986): absolute
    /// paths become file:// URIs, relative ones stay relative; unsafe bytes percent-encoded.
    static func uri(_ path: String) -> String {
        var out = path.hasPrefix("/") ? "file://" : ""
        for b in path.utf8 {
            let c = Character(Unicode.Scalar(b))
            // "!" is a sub-delim RFC 3986 allows in a path: it stays, so an archive member reads
            // as blecap names it (`bugreport.zip!FS/data/misc/bluetooth/logs/btsnoop_hci.log`).
            if c.isASCII, c.isLetter || c.isNumber || "-._~/!".contains(c) {
                out.append(c)
            } else {
                let h = String(b, radix: 16, uppercase: true)
                out += "%" + (h.count == 1 ? "0" + h : h)
            }
        }
        return out
    }
}

extension String {
    func replacingAll(_ target: Character, _ replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}

/// Findings ordered for people: worst first, then by frame.
func worstFirst(_ a: Finding, _ b: Finding) -> Bool {
    if a.severity != b.severity { return a.severity > b.severity }
    return (a.firstFrame, a.ruleID) < (b.firstFrame, b.ruleID)
}
