/// Colours `TextReporter`'s text for a terminal, line by line, knowing its layout: each
/// capture's path (the line its indented lines follow) bold, a finding's severity in its
/// colour, an unreadable capture's "error" and a damaged one's "damaged" red. Colour off, the
/// text is returned untouched.
package enum LintTextColor {
    package static func apply(_ text: String, _ paint: Paint) -> String {
        guard paint.on else { return text }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var out = ""
        out.reserveCapacity(text.utf8.count + text.utf8.count / 8)
        for (i, line) in lines.enumerated() {
            if i > 0 { out += "\n" }
            out += Self.line(line, next: i + 1 < lines.count ? lines[i + 1] : nil, paint)
        }
        return out
    }

    private static func line(_ line: Substring, next: Substring?, _ paint: Paint) -> String {
        if !line.isEmpty, line.first != " ", next?.hasPrefix("  ") == true {
            return paint(line, Palette.header)
        }
        for (prefix, word) in [("  error: ", "error"), ("  damaged: ", "damaged")] where line.hasPrefix(prefix) {
            return "  " + paint(word, Palette.error) + line.dropFirst(2 + word.count)
        }
        if line.hasPrefix("    "), !line.hasPrefix("     ") {
            let rest = line.dropFirst(4)
            if let space = rest.firstIndex(of: " "), let code = Palette.severity(rest[..<space]),
                rest[space...].hasPrefix(" BLE")
            {
                return "    " + paint(rest[..<space], code) + rest[space...]
            }
        }
        return String(line)
    }
}
