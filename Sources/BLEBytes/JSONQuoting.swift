/// JSON string literals for the writers that build Strings (reports, simulator traces); the
/// streaming per-frame writers use `OutputBuffer` instead.
public enum JSONQuoting {
    /// `s` as a JSON string literal, quotes included (RFC 8259 section 7: quote, backslash and
    /// control characters escaped).
    public static func quoted(_ s: String) -> String {
        // Most keys and values need no escape: then the literal is the string between quotes,
        // built in one go rather than a scalar at a time (which was a third of rendering a
        // report page's data).
        if !s.utf8.contains(where: { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 }) { return "\"" + s + "\"" }
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                out += "\\u00"
                Hex.append(UInt8(u.value), to: &out)
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}
