/// Colours the text of `replay` and `serve` for a terminal, line by line: each connection's
/// heading ("#1 …") bold, a divergence and what cannot be reproduced red, a host operation
/// that was not the same yellow. Colour off, the text is returned untouched.
package enum ReplayTextColor {
    package static func apply(_ text: String, _ paint: Paint) -> String {
        guard paint.on else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            if line.hasPrefix("#") { return paint(line, Palette.header) }
            for word in ["first divergence", "cannot be reproduced"] where line.hasPrefix("    " + word) {
                return "    " + paint(word, Palette.error) + line.dropFirst(4 + word.count)
            }
            for word in ["reordered:", "different value:", "missing:", "extra:"] where line.hasPrefix("    " + word) {
                return "    " + paint(word.dropLast(), Palette.warning) + line.dropFirst(3 + word.count)
            }
            return String(line)
        }.joined(separator: "\n")
    }
}
