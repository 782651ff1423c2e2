import BLEBytes
import BLEPackets
import FoundationEssentials

/// Which rules run and how: the config file (`.blecap.yml` or JSON) plus `--enable`/`--disable`.
///
/// ```yaml
/// rules:
///   oversized-write:
///     severity: warning
///   BLE004:
///     enabled: false
///   scan-left-running:
///     thresholds:
///       after_last_connection_s: 60
///   unfiltered-scan: off        # shorthand: off/false, on/true, or a severity
/// ```
/// JSON has the same shape: `{"rules": {"oversized-write": {"severity": "warning"}}}`.
public struct LintConfiguration: Sendable {
    public struct RuleOverride: Sendable, Equatable {
        public var enabled: Bool?
        public var severity: Severity?
        public var thresholds: [String: Double] = [:]
        public init(enabled: Bool? = nil, severity: Severity? = nil, thresholds: [String: Double] = [:]) {
            self.enabled = enabled
            self.severity = severity
            self.thresholds = thresholds
        }
    }

    /// By rule id.
    public var overrides: [String: RuleOverride] = [:]

    /// Keys for encrypted links of over-the-air captures (`--ltk`). Not a rule setting but an
    /// input to decoding: what the rules can see depends on it, so it travels with them.
    public var linkLayerKeys = LinkLayerKeys()

    /// The host platform to judge every input as (`--platform`); nil: detect it from each input.
    public var platform: Platform?

    public init() {}

    public struct ConfigError: Error, CustomStringConvertible {
        public var description: String
        init(_ d: String) { description = d }
    }

    /// Enables or disables a rule by id or slug (command-line flags, applied after the file).
    public mutating func set(_ name: String, enabled: Bool) throws(ConfigError) {
        guard let r = RuleRegistry.rule(named: name) else {
            throw ConfigError("unknown rule '\(name)' (see blecap rules)")
        }
        overrides[r.descriptor.id, default: RuleOverride()].enabled = enabled
    }

    /// The rules to run, with their effective settings, in id order.
    public var selectedRules: [(rule: any LintRule.Type, settings: RuleSettings)] {
        RuleRegistry.all.compactMap { r in
            let o = overrides[r.descriptor.id]
            if o?.enabled == false { return nil }
            return (
                r, RuleSettings(severity: o?.severity ?? r.descriptor.defaultSeverity, thresholds: o?.thresholds ?? [:])
            )
        }
    }

    public var disabledRules: [RuleDescriptor] {
        RuleRegistry.descriptors.filter { overrides[$0.id]?.enabled == false }
    }

    // MARK: loading

    /// Reads a config file: JSON if it starts with `{`, else the YAML subset.
    public static func load(path: String) throws(ConfigError) -> LintConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError("cannot read config file \(path)")
        }
        let text = String(decoding: data, as: UTF8.self)
        let tree: ConfigNode
        if text.drop(while: { $0.isWhitespace }).first == "{" {
            guard let node = try? JSONDecoder().decode(ConfigNode.self, from: data) else {
                throw ConfigError("\(path): not valid JSON")
            }
            tree = node
        } else {
            do { tree = try SimpleYAML.parse(text) } catch { throw ConfigError("\(path): \(error.description)") }
        }
        return try parse(tree, source: path)
    }

    static func parse(_ tree: ConfigNode, source: String) throws(ConfigError) -> LintConfiguration {
        var config = LintConfiguration()
        guard case .map(let top) = tree else { throw ConfigError("\(source): expected a mapping at the top") }
        for (key, value) in top {
            guard key == "rules" else { throw ConfigError("\(source): unknown key '\(key)' (expected 'rules')") }
            guard case .map(let rules) = value else { throw ConfigError("\(source): 'rules' must be a mapping") }
            for (name, body) in rules {
                guard let rule = RuleRegistry.rule(named: name) else {
                    throw ConfigError("\(source): unknown rule '\(name)'")
                }
                let d = rule.descriptor
                var o = config.overrides[d.id] ?? RuleOverride()
                switch body {
                case .scalar(let s):
                    if let b = bool(s) {
                        o.enabled = b
                    } else if let sev = Severity(name: s) {
                        o.severity = sev
                    } else {
                        throw ConfigError("\(source): rule '\(name)': expected on/off or a severity, got '\(s)'")
                    }
                case .map(let fields):
                    for (k, v) in fields {
                        switch (k, v) {
                        case ("enabled", .scalar(let s)):
                            guard let b = bool(s) else {
                                throw ConfigError("\(source): \(name).enabled: not a boolean: '\(s)'")
                            }
                            o.enabled = b
                        case ("severity", .scalar(let s)):
                            guard let sev = Severity(name: s) else {
                                throw ConfigError(
                                    "\(source): \(name).severity: expected error, warning or note, got '\(s)'")
                            }
                            o.severity = sev
                        case ("thresholds", .map(let ts)):
                            for (tk, tv) in ts {
                                guard d.thresholds.contains(where: { $0.name == tk }) else {
                                    throw ConfigError(
                                        "\(source): \(name) has no threshold '\(tk)' (has: \(d.thresholds.map(\.name).joined(separator: ", ")))"
                                    )
                                }
                                guard case .scalar(let s) = tv, let n = Double(s), n.isFinite, n >= 0 else {
                                    throw ConfigError("\(source): \(name).thresholds.\(tk): not a non-negative number")
                                }
                                o.thresholds[tk] = n
                            }
                        default:
                            throw ConfigError(
                                "\(source): \(name): unknown or malformed key '\(k)' (expected enabled, severity, thresholds)"
                            )
                        }
                    }
                }
                config.overrides[d.id] = o
            }
        }
        return config
    }

    /// `1`/`0` too: the JSON form always took them for booleans.
    static func bool(_ s: String) -> Bool? {
        switch s.lowercased() {
        case "true", "on", "yes", "1": true
        case "false", "off", "no", "0": false
        default: nil
        }
    }
}

/// A parsed config tree: mappings (ordered) of scalars.
indirect enum ConfigNode: Equatable {
    case scalar(String)
    case map([(String, ConfigNode)])

    static func == (a: ConfigNode, b: ConfigNode) -> Bool {
        switch (a, b) {
        case (.scalar(let x), .scalar(let y)): x == y
        case (.map(let x), .map(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }
}

/// The JSON form of the config file: objects become mappings (keys sorted), every other value a
/// scalar spelled as the YAML form would spell it (`true`, `60`, `0.5`, the string itself).
extension ConfigNode: Decodable {
    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            var entries: [(String, ConfigNode)] = []
            for key in object.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                entries.append((key.stringValue, try object.decode(ConfigNode.self, forKey: key)))
            }
            self = .map(entries)
            return
        }
        if var list = try? decoder.unkeyedContainer() {
            // No list is valid anywhere in the config: kept as a scalar that no key accepts.
            var items: [String] = []
            while !list.isAtEnd {
                if case .scalar(let s) = try list.decode(ConfigNode.self) {
                    items.append(s)
                } else {
                    items.append("{...}")
                }
            }
            self = .scalar("[" + items.joined(separator: ", ") + "]")
            return
        }
        let value = try decoder.singleValueContainer()
        if value.decodeNil() {
            self = .scalar("null")
        } else if let b = try? value.decode(Bool.self) {
            self = .scalar(b ? "true" : "false")
        } else if let i = try? value.decode(Int64.self) {
            self = .scalar(String(i))
        } else if let d = try? value.decode(Double.self) {
            self = .scalar(d.description)
        } else {
            self = .scalar(try value.decode(String.self))
        }
    }
}

/// The YAML subset blecap's config needs, without a YAML package: nested mappings by
/// indentation, `key: scalar`, `# comments`, quoted strings. No lists, anchors or flow style.
enum SimpleYAML {
    struct ParseError: Error { var description: String }

    /// `s` without leading and trailing tabs and space separators (Unicode category Zs): the
    /// set Foundation's `CharacterSet.whitespaces` trims, scalar by scalar.
    static func trimmingWhitespace(_ s: Substring) -> String {
        func isSpace(_ c: Unicode.Scalar) -> Bool { c == "\t" || c.properties.generalCategory == .spaceSeparator }
        let scalars = s.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    static func parse(_ text: String) throws(ParseError) -> ConfigNode {
        var lines: [(indent: Int, key: String, value: String?, number: Int)] = []
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(raw)
            if line.hasSuffix("\r") { line = line.dropLast() }
            if let hash = commentStart(line) { line = line[..<hash] }
            let trimmed = trimmingWhitespace(line)
            if trimmed.isEmpty || trimmed == "---" { continue }
            if line.contains("\t") {
                throw ParseError(description: "line \(i + 1): tabs are not allowed for indentation")
            }
            let indent = line.prefix(while: { $0 == " " }).count
            guard let colon = trimmed.firstIndex(of: ":") else {
                throw ParseError(description: "line \(i + 1): expected 'key: value'")
            }
            let key = unquote(trimmingWhitespace(trimmed[..<colon]))
            let rest = trimmingWhitespace(trimmed[trimmed.index(after: colon)...])
            if key.isEmpty { throw ParseError(description: "line \(i + 1): empty key") }
            if rest.hasPrefix("[") || rest.hasPrefix("{") || rest.hasPrefix("-") || rest.hasPrefix("&")
                || rest.hasPrefix("*")
            {
                throw ParseError(description: "line \(i + 1): only 'key: scalar' and nested mappings are supported")
            }
            lines.append((indent, key, rest.isEmpty ? nil : unquote(rest), i + 1))
        }
        var index = 0
        let node = try block(lines, &index, indent: lines.first?.indent ?? 0)
        if index < lines.count { throw ParseError(description: "line \(lines[index].number): unexpected indentation") }
        return node
    }

    private static func block(
        _ lines: [(indent: Int, key: String, value: String?, number: Int)], _ i: inout Int,
        indent: Int
    ) throws(ParseError) -> ConfigNode {
        var entries: [(String, ConfigNode)] = []
        while i < lines.count, lines[i].indent == indent {
            let l = lines[i]
            i += 1
            if entries.contains(where: { $0.0 == l.key }) {
                throw ParseError(description: "line \(l.number): duplicate key '\(l.key)'")
            }
            if let v = l.value {
                entries.append((l.key, .scalar(v)))
            } else if i < lines.count, lines[i].indent > indent {
                entries.append((l.key, try block(lines, &i, indent: lines[i].indent)))
            } else {
                entries.append((l.key, .map([])))
            }
        }
        if i < lines.count, lines[i].indent > indent {
            throw ParseError(description: "line \(lines[i].number): unexpected indentation")
        }
        return .map(entries)
    }

    /// `#` starts a comment unless inside quotes.
    private static func commentStart(_ s: Substring) -> Substring.Index? {
        var quote: Character?
        var previous: Character = " "
        for i in s.indices {
            let c = s[i]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "#", previous == " " {
                return i
            }
            previous = c
        }
        return nil
    }

    private static func unquote(_ s: String) -> String {
        if s.count >= 2, let f = s.first, f == "\"" || f == "'", s.last == f { return String(s.dropFirst().dropLast()) }
        return s
    }
}
