#if canImport(Glibc)
    import Glibc
#endif

/// ANSI SGR sequences, written only when colour is on.
public enum ANSI {
    public static let reset: StaticString = "\u{1B}[0m"
    public static let dim: StaticString = "\u{1B}[2m"
    public static let bold: StaticString = "\u{1B}[1m"
    public static let red: StaticString = "\u{1B}[31m"
    public static let green: StaticString = "\u{1B}[32m"
    public static let yellow: StaticString = "\u{1B}[33m"
    public static let blue: StaticString = "\u{1B}[34m"
    public static let magenta: StaticString = "\u{1B}[35m"
    public static let cyan: StaticString = "\u{1B}[36m"
}

/// What each colour means, the same in every text output: the protocol families as
/// `packets` tags them (and `timeline` its event types), severities as lint reports them.
package enum Palette {
    package static let header = ANSI.bold
    package static let error = ANSI.red
    package static let warning = ANSI.yellow
    package static let note = ANSI.cyan
    static let quiet = ANSI.dim
    package static let hciCommand = ANSI.blue
    package static let hciEvent = ANSI.magenta
    package static let att = ANSI.green
    package static let smp = ANSI.yellow
    package static let linkLayer = ANSI.cyan

    /// A timeline event type's colour by its family: controller.* the HCI commands that set
    /// the controller up, connection.* what HCI events report, gatt.* ATT, smp.* SMP, ll.* the
    /// Link Layer (ll.control as `packets` tags LL_CTRL); a failed connection or pairing red; other families stay plain.
    static func family(ofEventType type: StaticString) -> StaticString? {
        let p = type.utf8Start
        func starts(_ prefix: StaticString) -> Bool {
            prefix.utf8CodeUnitCount <= type.utf8CodeUnitCount
                && memcmp(p, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0
        }
        guard type.hasPointerRepresentation else { return nil }
        if starts("connection.failed") || starts("smp.pairing_failed") { return error }
        if starts("gatt.") { return att }
        if starts("connection.") { return hciEvent }
        if starts("controller.") { return hciCommand }
        if starts("smp.") { return smp }
        if starts("ll.control") { return hciCommand }  // packets' LL_CTRL
        if starts("ll.") { return linkLayer }
        return nil
    }

    /// A lint severity's colour: error red, warning yellow, note cyan.
    package static func severity(_ name: some StringProtocol) -> StaticString? {
        switch name {
        case "error": return error
        case "warning": return warning
        case "note": return note
        default: return nil
        }
    }
}

/// Colours pieces of text built as Strings; with colour off it returns them as they are, so
/// the coloured output without its escapes is byte for byte the plain one.
package struct Paint: Sendable {
    package let on: Bool

    package init(on: Bool) { self.on = on }

    package func callAsFunction(_ text: some StringProtocol, _ code: StaticString?) -> String {
        guard on, let code, !text.isEmpty else { return String(text) }
        return "\(code)\(text)\(ANSI.reset)"
    }
}

/// Output formats shared by the decoding commands.
public enum OutputFormat: String, CaseIterable, Sendable {
    case text, json, jsonl
}

/// Writes raw text to file descriptor 2 (no stdio: `stderr` is shared mutable state in Swift 6).
package func writeStandardError(_ text: String) {
    var text = text
    text.withUTF8 { buf in
        var off = 0
        while off < buf.count {
            let n = write(2, buf.baseAddress! + off, buf.count - off)
            if n <= 0 { break }
            off += n
        }
    }
}
