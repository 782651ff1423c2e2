/// What a command was asked to select: `--filter`/`-Y` and the shortcut options, each an
/// expression of the language (docs/filter.md gives the equivalences), all ANDed.
public struct FilterSelection: Sendable {
    /// Each option as given (`--connection 2`) and the expression it stands for.
    public private(set) var parts: [(option: String, expression: String)] = []

    public init() {}

    public var isEmpty: Bool { parts.isEmpty }

    public mutating func add(option: String, expression: String) { parts.append((option, expression)) }

    /// `--filter EXPR` / `-Y EXPR`.
    public mutating func add(filter: String?) {
        if let filter { add(option: "--filter '\(filter)'", expression: filter) }
    }

    /// `--connection N`: `conn == N` (the handle in packets, the connection number in timeline
    /// and watch, as each command's JSONL means it).
    public mutating func add(connection: Int?) {
        if let connection { add(option: "--connection \(connection)", expression: "conn == \(connection)") }
    }

    /// `--peer ADDR`: `peer == ADDR`.
    public mutating func add(peer: String?) {
        if let peer { add(option: "--peer \(peer)", expression: "peer == \(peer)") }
    }

    /// `--type GLOB`: `type ~ "GLOB"`.
    public mutating func add(type: String?) {
        if let type {
            var quoted = ""
            for c in type {
                if c == "\\" || c == "\"" { quoted.append("\\") }
                quoted.append(c)
            }
            add(option: "--type '\(type)'", expression: "type ~ \"\(quoted)\"")
        }
    }

    /// `--frames A-B` (also `N`, `A-` to the end, `-B` from the start): `frame in A..B`.
    public mutating func add(frames: String?) throws(FilterError) {
        guard let frames else { return }
        guard let (lo, hi) = Self.frameRange(frames) else {
            throw FilterError(
                message: "--frames: not a frame range: \(frames) (A-B, N, A- or -B; frames count from 1)",
                column: 1, expression: frames)
        }
        add(option: "--frames \(frames)", expression: "frame in \(lo)..\(hi)")
    }

    static func frameRange(_ text: String) -> (Int64, Int64)? {
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        func number(_ s: Substring, _ empty: Int64) -> Int64? {
            s.isEmpty ? empty : Int64(s).flatMap { $0 >= 1 ? $0 : nil }
        }
        if parts.count == 1 { return Int64(text).flatMap { $0 >= 1 ? ($0, $0) : nil } }
        guard !(parts[0].isEmpty && parts[1].isEmpty), let lo = number(parts[0], 1),
            let hi = number(parts[1], Int64.max), lo <= hi
        else { return nil }
        return (lo, hi)
    }

    /// The options as given, for "no frame matches …".
    public var described: String { parts.map(\.option).joined(separator: " ") }

    /// The compiled conjunction, or nil when nothing was asked (then nothing is evaluated).
    public func compile(_ table: FilterFieldTable) throws(FilterError) -> Filter? {
        var filters: [Filter] = []
        for p in parts {
            do { filters.append(try Filter(p.expression, fields: table)) } catch {
                // A shortcut's expression is not what the user typed: name the option.
                if p.option.hasPrefix("--filter") { throw error }
                throw FilterError(message: "\(p.option): \(error.message)", column: 1, expression: p.expression)
            }
        }
        return Filter.all(filters)
    }
}
