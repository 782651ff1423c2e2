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
            return isatty(fd) == 1
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

    /// Whether to colour standard output.
    var enabled: Bool { color.enabled() }
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
