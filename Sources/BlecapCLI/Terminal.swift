import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

/// When to colour text output. `auto` colours only a terminal, honours NO_COLOR
/// (https://no-color.org: any non-empty value turns colour off) and CLICOLOR_FORCE (any
/// non-empty value but "0" turns it on where no terminal is); NO_COLOR wins over CLICOLOR_FORCE,
/// and `--color always|never` over both.
public enum ColorChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case auto, always, never

    public func enabled(fd: Int32 = 1) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto:
            if let v = getenv("NO_COLOR"), v.pointee != 0 { return false }
            if let v = getenv("CLICOLOR_FORCE"), v.pointee != 0, String(cString: v) != "0" { return true }
            // A pager started on a terminal took standard output's place: it shows colours
            // (LESS=R), as git's output through its pager does.
            return isatty(fd) == 1 || (fd == 1 && Pager.child != 0)
        }
    }
}

/// The one declaration of `--color` for the commands whose text output colours.
struct ColorOption: ParsableArguments {
    @Option(
        name: .long,
        help:
            "Colour: auto (only on a terminal; NO_COLOR turns it off, CLICOLOR_FORCE on), always or never.")
    var color: ColorChoice = .auto

    /// Whether to colour standard output. Ask after `Pager.start`: a pager on a terminal
    /// keeps `auto` colouring.
    var enabled: Bool { color.enabled() }

    /// The painter for standard output, off unless `text` and colour is enabled.
    func paint(text: Bool = true) -> Paint { Paint(on: text && enabled) }
}

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
enum Palette {
    static let header = ANSI.bold
    static let error = ANSI.red
    static let warning = ANSI.yellow
    static let note = ANSI.cyan
    static let quiet = ANSI.dim
    static let hciCommand = ANSI.blue
    static let hciEvent = ANSI.magenta
    static let att = ANSI.green
    static let smp = ANSI.yellow
    static let linkLayer = ANSI.cyan

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
    static func severity(_ name: some StringProtocol) -> StaticString? {
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
struct Paint: Sendable {
    let on: Bool

    func callAsFunction(_ text: some StringProtocol, _ code: StaticString?) -> String {
        guard on, let code, !text.isEmpty else { return String(text) }
        return "\(code)\(text)\(ANSI.reset)"
    }
}

/// Output formats shared by the decoding commands.
public enum OutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case text, json, jsonl
}

/// `--format` of the commands that write one JSON document (gatt, replay, serve): help lists
/// only the values they accept.
public enum TextOrJSON: String, ExpressibleByArgument, CaseIterable, Sendable {
    case text, json
}

/// `--format` of the commands that stream one JSON object per line (timeline, watch).
public enum TextOrJSONL: String, ExpressibleByArgument, CaseIterable, Sendable {
    case text, jsonl
}

/// Writes a message to standard error, prefixed "blecap: ".
func printError(_ message: String) {
    writeStandardError("blecap: " + message + "\n")
}

/// Writes raw text to file descriptor 2 (no stdio: `stderr` is shared mutable state in Swift 6).
func writeStandardError(_ text: String) {
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
