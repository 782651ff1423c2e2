import ArgumentParser
import BLEOutput

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

/// Raw-valued option enums hand ArgumentParser their raw values directly, instead of its defaults'
/// key path and dynamic casts on each of a start's argument-set rebuilds (docs/performance.md).
extension ExpressibleByArgument where Self: CaseIterable & RawRepresentable, RawValue == String {
    public static var allValueStrings: [String] { allCases.map { $0.rawValue } }
    public var defaultValueDescription: String { rawValue }
    /// ArgumentParser's rule: a value's description only where it differs from the value.
    public static var allValueDescriptions: [String: String] {
        allCases.reduce(into: [:]) { d, v in
            if v.defaultValueDescription != v.rawValue { d[v.rawValue] = v.defaultValueDescription }
        }
    }
}

extension OutputFormat: ExpressibleByArgument {}

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
