import BLEBytes

/// What a record holds for one filter field. Names are the protocol tables' static strings, so
/// that reading a field allocates nothing.
public enum FilterValue {
    case int(Int64)
    case name(StaticString)
    case uuid(BluetoothUUID)
    case address(BDAddr)
    /// A protocol layer or flag with no value of its own (`att`, `malformed`): only "is it there".
    case present
}

/// The type of a field, which decides the literals and operators it takes.
public enum FilterFieldType: Sendable {
    case integer, name, uuid, address, presence

    var word: String {
        switch self {
        case .integer: "a number"
        case .name: "a name"
        case .uuid: "a UUID"
        case .address: "an address"
        case .presence: "a protocol (test it alone, or with !)"
        }
    }
}

/// One field a filter can name: its JSONL name, what it holds, and the tshark display-filter
/// field meaning the same (docs/filter.md lists both).
public struct FilterField: Sendable {
    public let name: String
    public let type: FilterFieldType
    /// The index the subject's `value(_:)` receives.
    public let id: Int
    public let tshark: String
    public let help: String
}

/// The fields of one kind of record (decoded frames, timeline events), with the aliases that
/// name the same field.
public struct FilterFieldTable: Sendable {
    public let fields: [FilterField]
    public let aliases: [String: String]

    public init(fields: [FilterField], aliases: [String: String] = [:]) {
        self.fields = fields
        self.aliases = aliases
    }

    public func field(named name: String) -> FilterField? {
        let real = aliases[name] ?? name
        return fields.first { $0.name == real }
    }

    /// The valid name nearest to a misspelt one, if any is near enough to be what was meant.
    public func nearest(to name: String) -> String? {
        let names = fields.map(\.name) + aliases.keys.sorted()
        guard let best = names.min(by: { Levenshtein.distance($0, name) < Levenshtein.distance($1, name) }) else {
            return nil
        }
        let d = Levenshtein.distance(best, name)
        if d <= max(2, name.count / 3) { return best }
        // A field named by its last part only (`opcode` for att.opcode) is still a fair guess.
        return fields.first { $0.name.hasSuffix("." + name) }?.name
    }
}

/// Edit distance between two short names.
public enum Levenshtein {
    public static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var row = Array(0...y.count)
        for i in 1...x.count {
            var previous = row[0]
            row[0] = i
            for j in 1...y.count {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (x[i - 1] == y[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[y.count]
    }
}

/// Shell-style glob: `*` any run, `?` one byte, everything else literal. No allocation.
public enum Glob {
    public static func matches<P: Collection<UInt8>, T: Collection<UInt8>>(_ pattern: P, _ text: T) -> Bool
    where P.Index == Int, T.Index == Int {
        var p = pattern.startIndex
        var t = text.startIndex
        var star = -1
        var mark = 0
        let star8 = UInt8(ascii: "*")
        let any8 = UInt8(ascii: "?")
        while t < text.endIndex {
            if p < pattern.endIndex, pattern[p] == any8 || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if p < pattern.endIndex, pattern[p] == star8 {
                star = p
                mark = t
                p += 1
            } else if star >= 0 {
                p = star + 1
                mark += 1
                t = mark
            } else {
                return false
            }
        }
        while p < pattern.endIndex, pattern[p] == star8 { p += 1 }
        return p == pattern.endIndex
    }
}
