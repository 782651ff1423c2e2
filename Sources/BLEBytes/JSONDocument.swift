/// A JSON value whose objects keep their keys in the order they were written.
///
/// The whole-document writers (lint JSON and SARIF, the baseline, the replay report, the
/// simulator trace, the HTML report's data) build one of these from `Encodable` models through
/// `JSONDocumentEncoder` and print it with `JSONQuoting`. Foundation's `JSONEncoder` on Linux
/// writes object keys in hash order, which changes from run to run; documents that people diff
/// (and the trace, whose first key must be `seq`) need a fixed order: the order `encode(to:)`
/// wrote them, which for synthesized conformances is the declaration order.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    /// Written as Swift prints it (`0.5`, `1e-07`); never NaN or infinite.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([Member])

    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSONValue
        public init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }
}

/// `Encodable` → `JSONValue` → text, keys in encoding order.
public struct JSONDocumentEncoder: Sendable {
    public enum Style: Sendable {
        /// One line, no spaces (`{"a":1,"b":[2,3]}`).
        case compact
        /// Two-space indentation, `"key": value`, empty arrays and objects as `[]`/`{}`.
        case pretty
    }

    public var style: Style

    public init(style: Style = .compact) { self.style = style }

    /// The document's text, without a final newline.
    public func encode(_ value: some Encodable) throws(EncodingError) -> String {
        write(try Self.value(of: value))
    }

    /// The text of an already built value.
    public func write(_ value: JSONValue) -> String {
        var out = ""
        switch style {
        case .compact: Self.compact(value, into: &out)
        case .pretty: Self.pretty(value, indent: 0, into: &out)
        }
        return out
    }

    /// The tree `value` encodes to.
    public static func value(of value: some Encodable) throws(EncodingError) -> JSONValue {
        let root = TreeNode()
        do {
            try value.encode(to: TreeEncoder(node: root, codingPath: []))
        } catch let e as EncodingError {
            throw e
        } catch {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "\(error)"))
        }
        return root.value
    }

    static func compact(_ v: JSONValue, into out: inout String) {
        switch v {
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                compact(item, into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, m) in members.enumerated() {
                if i > 0 { out += "," }
                out += JSONQuoting.quoted(m.key)
                out += ":"
                compact(m.value, into: &out)
            }
            out += "}"
        default: scalar(v, into: &out)
        }
    }

    static func pretty(_ v: JSONValue, indent: Int, into out: inout String) {
        let inner = String(repeating: " ", count: indent + 2)
        switch v {
        case .array(let items) where !items.isEmpty:
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += inner
                pretty(item, indent: indent + 2, into: &out)
                out += i == items.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: " ", count: indent) + "]"
        case .object(let members) where !members.isEmpty:
            out += "{\n"
            for (i, m) in members.enumerated() {
                out += inner + JSONQuoting.quoted(m.key) + ": "
                pretty(m.value, indent: indent + 2, into: &out)
                out += i == members.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: " ", count: indent) + "}"
        case .array: out += "[]"
        case .object: out += "{}"
        default: scalar(v, into: &out)
        }
    }

    private static func scalar(_ v: JSONValue, into out: inout String) {
        switch v {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .uint(let u): out += String(u)
        case .double(let d): out += d.description
        case .string(let s): out += JSONQuoting.quoted(s)
        case .array, .object: break
        }
    }
}

// MARK: - the Encoder

/// A node of the tree being encoded: a reference, so nested containers can fill it later.
final class TreeNode {
    enum Content {
        case empty
        case scalar(JSONValue)
        case object(keys: [String], nodes: [TreeNode])
        case array([TreeNode])
    }

    var content: Content = .empty

    var value: JSONValue {
        switch content {
        // An `encode(to:)` that wrote nothing is an empty object, as with JSONEncoder.
        case .empty: .object([])
        case .scalar(let v): v
        case .object(let keys, let nodes): .object(zip(keys, nodes).map { JSONValue.Member($0, $1.value) })
        case .array(let nodes): .array(nodes.map(\.value))
        }
    }

    /// The child for `key`, created at the end on first use (a second write replaces the value
    /// in place).
    func child(_ key: String) -> TreeNode {
        if case .object(var keys, var nodes) = content {
            if let i = keys.firstIndex(of: key) { return nodes[i] }
            let n = TreeNode()
            content = .empty
            keys.append(key)
            nodes.append(n)
            content = .object(keys: keys, nodes: nodes)
            return n
        }
        let n = TreeNode()
        content = .object(keys: [key], nodes: [n])
        return n
    }

    func makeObject() { if case .object = content {} else { content = .object(keys: [], nodes: []) } }
    func makeArray() { if case .array = content {} else { content = .array([]) } }

    func append() -> TreeNode {
        let n = TreeNode()
        if case .array(var nodes) = content {
            content = .empty
            nodes.append(n)
            content = .array(nodes)
        } else {
            content = .array([n])
        }
        return n
    }

    var count: Int { if case .array(let nodes) = content { nodes.count } else { 0 } }
}

struct TreeEncoder: Encoder {
    let node: TreeNode
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(KeyedTree<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArray()
        return UnkeyedTree(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleTree(node: node, codingPath: codingPath) }
}

/// Scalars as `JSONValue`s; everything else through its own `encode(to:)`.
func encodeValue(_ value: some Encodable, into node: TreeNode, codingPath: [any CodingKey]) throws {
    switch value {
    case let v as String: node.content = .scalar(.string(v))
    case let v as Bool: node.content = .scalar(.bool(v))
    case let v as Int: node.content = .scalar(.int(Int64(v)))
    case let v as Int64: node.content = .scalar(.int(v))
    case let v as Int32: node.content = .scalar(.int(Int64(v)))
    case let v as Int16: node.content = .scalar(.int(Int64(v)))
    case let v as Int8: node.content = .scalar(.int(Int64(v)))
    case let v as UInt: node.content = .scalar(.uint(UInt64(v)))
    case let v as UInt64: node.content = .scalar(.uint(v))
    case let v as UInt32: node.content = .scalar(.int(Int64(v)))
    case let v as UInt16: node.content = .scalar(.int(Int64(v)))
    case let v as UInt8: node.content = .scalar(.int(Int64(v)))
    case let v as Double: node.content = .scalar(try finite(v, codingPath))
    case let v as Float: node.content = .scalar(try finite(Double(v), codingPath))
    case let v as JSONValue: node.content = .scalar(v)
    default: try value.encode(to: TreeEncoder(node: node, codingPath: codingPath))
    }
}

private func finite(_ d: Double, _ codingPath: [any CodingKey]) throws -> JSONValue {
    guard d.isFinite else {
        throw EncodingError.invalidValue(
            d, .init(codingPath: codingPath, debugDescription: "\(d) is not a JSON number"))
    }
    return .double(d)
}

struct KeyedTree<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: TreeNode
    var codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.child(key.stringValue).content = .scalar(.null) }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try encodeValue(value, into: node.child(key.stringValue), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = node.child(key.stringValue)
        child.makeObject()
        return KeyedEncodingContainer(KeyedTree<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.child(key.stringValue)
        child.makeArray()
        return UnkeyedTree(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { TreeEncoder(node: node.child("super"), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        TreeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key])
    }
}

struct UnkeyedTree: UnkeyedEncodingContainer {
    let node: TreeNode
    var codingPath: [any CodingKey]
    var count: Int { node.count }

    mutating func encodeNil() throws { node.append().content = .scalar(.null) }
    mutating func encode(_ value: some Encodable) throws {
        try encodeValue(value, into: node.append(), codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        let child = node.append()
        child.makeObject()
        return KeyedEncodingContainer(KeyedTree<NestedKey>(node: child, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = node.append()
        child.makeArray()
        return UnkeyedTree(node: child, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder { TreeEncoder(node: node.append(), codingPath: codingPath) }
}

struct SingleTree: SingleValueEncodingContainer {
    let node: TreeNode
    var codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .scalar(.null) }
    mutating func encode(_ value: some Encodable) throws { try encodeValue(value, into: node, codingPath: codingPath) }
}

extension JSONValue: Encodable {
    public func encode(to encoder: any Encoder) throws {
        // Reached only through encoders other than `JSONDocumentEncoder` (which stores the value
        // as is).
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .int(let i):
            var c = encoder.singleValueContainer()
            try c.encode(i)
        case .uint(let u):
            var c = encoder.singleValueContainer()
            try c.encode(u)
        case .double(let d):
            var c = encoder.singleValueContainer()
            try c.encode(d)
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for i in items { try c.encode(i) }
        case .object(let members):
            var c = encoder.container(keyedBy: AnyKey.self)
            for m in members { try c.encode(m.value, forKey: AnyKey(m.key)) }
        }
    }
}

/// A coding key spelled at run time.
public struct AnyKey: CodingKey, Sendable {
    public var stringValue: String
    public var intValue: Int? { nil }
    public init(_ s: String) { stringValue = s }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}

/// Whole documents from models that hold no floating-point numbers (the only values
/// `JSONDocumentEncoder` can refuse: NaN and infinities).
public enum JSONDocument {
    /// `model`'s text and a final newline.
    public static func render(_ model: some Encodable, style: JSONDocumentEncoder.Style) -> String {
        do {
            return try JSONDocumentEncoder(style: style).encode(model) + "\n"
        } catch {
            preconditionFailure("\(type(of: model)) holds a value JSON cannot represent: \(error)")
        }
    }
}

extension JSONValue: Decodable {
    /// Any JSON value. Object members come in the decoder's order (Foundation's JSONDecoder
    /// does not keep the document's).
    public init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            self = .object(
                try object.allKeys.map { .init($0.stringValue, try object.decode(JSONValue.self, forKey: $0)) })
        } else if var list = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !list.isAtEnd { items.append(try list.decode(JSONValue.self)) }
            self = .array(items)
        } else {
            let v = try decoder.singleValueContainer()
            if v.decodeNil() {
                self = .null
            } else if let b = try? v.decode(Bool.self) {
                self = .bool(b)
            } else if let i = try? v.decode(Int64.self) {
                self = .int(i)
            } else if let u = try? v.decode(UInt64.self) {
                self = .uint(u)
            } else if let d = try? v.decode(Double.self) {
                self = .double(d)
            } else {
                self = .string(try v.decode(String.self))
            }
        }
    }
}
