import BLEBytes

/// A record a filter reads: it answers each field of its table by id, nil when the record does
/// not have the field (a field a record lacks matches no comparison, as in Wireshark).
public protocol FilterSubject {
    func value(_ field: Int) -> FilterValue?
}

/// A filter expression compiled against one field table (docs/filter.md): parsed once, before
/// the capture is read, into a tree evaluated per record without allocating.
public struct Filter: Sendable {
    /// The expression as given (for messages).
    public let expression: String
    @usableFromInline let root: FilterNode

    /// Parses and type-checks `expression` against `table`.
    public init(_ expression: String, fields table: FilterFieldTable) throws(FilterError) {
        var parser = FilterParser(tokens: try FilterLexer.tokens(expression), text: expression, table: table)
        root = try parser.parse()
        self.expression = expression
    }

    init(expression: String, root: FilterNode) {
        self.expression = expression
        self.root = root
    }

    /// Both filters must match (`--connection` and `-Y` together).
    public func and(_ other: Filter) -> Filter {
        Filter(expression: "(\(expression)) && (\(other.expression))", root: .and(root, other.root))
    }

    /// Every filter of the list must match; nil for an empty list.
    public static func all(_ filters: [Filter]) -> Filter? {
        guard var f = filters.first else { return nil }
        for g in filters.dropFirst() { f = f.and(g) }
        return f
    }

    @inlinable
    public func matches<S: FilterSubject>(_ subject: S) -> Bool { root.evaluate(subject) }
}

/// One item of a set: a value or an inclusive range of numbers.
@usableFromInline
enum FilterSetItem: Sendable {
    case value(FilterLiteral)
    case range(Int64, Int64)
}

/// A literal read as the type of the field it is compared with.
@usableFromInline
enum FilterLiteral: Sendable {
    case int(Int64)
    case name([UInt8])
    case uuid(BluetoothUUID)
    case address(BDAddr)
}

@usableFromInline
indirect enum FilterNode: Sendable {
    case and(FilterNode, FilterNode)
    case or(FilterNode, FilterNode)
    case not(FilterNode)
    case present(Int)
    case compare(Int, FilterOperator, FilterLiteral)
    case member(Int, [FilterSetItem])

    // Inlinable, as `matches`: the command's module specialises the walk for its subject, so
    // each field is a direct call to its `value`, not a call through the protocol's witness
    // table with the subject boxed (docs/performance.md).
    @inlinable
    func evaluate<S: FilterSubject>(_ s: S) -> Bool {
        switch self {
        case .and(let a, let b): return a.evaluate(s) && b.evaluate(s)
        case .or(let a, let b): return a.evaluate(s) || b.evaluate(s)
        case .not(let a): return !a.evaluate(s)
        case .present(let f): return s.value(f) != nil
        case .compare(let f, let op, let literal):
            guard let v = s.value(f) else { return false }
            return Self.compare(v, op, literal)
        case .member(let f, let items):
            guard let v = s.value(f) else { return false }
            for item in items {
                switch item {
                case .value(let l): if Self.compare(v, .equal, l) { return true }
                case .range(let lo, let hi):
                    if case .int(let n) = v, n >= lo, n <= hi { return true }
                }
            }
            return false
        }
    }

    @inlinable
    static func compare(_ v: FilterValue, _ op: FilterOperator, _ l: FilterLiteral) -> Bool {
        switch (v, l) {
        case (.int(let a), .int(let b)):
            switch op {
            case .equal: return a == b
            case .notEqual: return a != b
            case .less: return a < b
            case .lessOrEqual: return a <= b
            case .greater: return a > b
            case .greaterOrEqual: return a >= b
            case .glob: return false
            }
        case (.name(let a), .name(let b)):
            return a.withUTF8Buffer { text in
                switch op {
                case .glob: return Glob.matches(b, text)
                case .notEqual: return !text.elementsEqual(b)
                default: return text.elementsEqual(b)
                }
            }
        case (.uuid(let a), .uuid(let b)): return op == .notEqual ? a != b : a == b
        case (.address(let a), .address(let b)): return op == .notEqual ? a != b : a == b
        default: return false
        }
    }
}

/// Recursive descent over the tokens: `||` binds loosest, then `&&`, then `!`.
struct FilterParser {
    let tokens: [FilterToken]
    let text: String
    let table: FilterFieldTable
    var at = 0

    init(tokens: [FilterToken], text: String, table: FilterFieldTable) {
        self.tokens = tokens
        self.text = text
        self.table = table
    }

    var current: FilterToken { tokens[at] }

    func fail(_ message: String, _ token: FilterToken? = nil) -> FilterError {
        FilterError(message: message, column: (token ?? current).column, expression: text)
    }

    mutating func parse() throws(FilterError) -> FilterNode {
        if current.kind == .end { throw fail("empty filter") }
        let node = try orExpression(depth: 0)
        guard current.kind == .end else { throw fail("expected && or || or the end of the filter") }
        return node
    }

    /// Nesting bound: a hostile expression cannot exhaust the stack.
    static let maximumDepth = 100

    mutating func orExpression(depth: Int) throws(FilterError) -> FilterNode {
        var node = try andExpression(depth: depth)
        while current.kind == .or {
            at += 1
            node = .or(node, try andExpression(depth: depth))
        }
        return node
    }

    mutating func andExpression(depth: Int) throws(FilterError) -> FilterNode {
        var node = try unary(depth: depth)
        while current.kind == .and {
            at += 1
            node = .and(node, try unary(depth: depth))
        }
        return node
    }

    mutating func unary(depth: Int) throws(FilterError) -> FilterNode {
        guard depth < Self.maximumDepth else { throw fail("filter nested too deeply") }
        switch current.kind {
        case .not:
            at += 1
            return .not(try unary(depth: depth + 1))
        case .lparen:
            let open = current
            at += 1
            let node = try orExpression(depth: depth + 1)
            guard current.kind == .rparen else { throw fail("expected ) to close the ( at column \(open.column)") }
            at += 1
            return node
        case .word(let name):
            let nameToken = current
            at += 1
            guard let field = table.field(named: name) else {
                let hint =
                    table.nearest(to: name).map { "; did you mean \($0)?" } ?? " (docs/filter.md lists the fields)"
                throw fail("unknown field '\(name)'\(hint)", nameToken)
            }
            return try test(field, nameToken)
        default:
            throw fail("expected a field name, ! or (")
        }
    }

    /// What follows a field: an operator and a value, `in` and a set or range, or nothing (the
    /// field is present).
    mutating func test(_ field: FilterField, _ nameToken: FilterToken) throws(FilterError) -> FilterNode {
        switch current.kind {
        case .op(let op):
            let opToken = current
            at += 1
            try check(op, on: field, opToken)
            let literal = try value(for: field, glob: op == .glob)
            return .compare(field.id, op, literal)
        case .word("in"):
            at += 1
            if field.type == .presence { throw fail("\(field.name) is \(field.type.word)", nameToken) }
            if current.kind == .lbrace {
                at += 1
                var items: [FilterSetItem] = []
                while current.kind != .rbrace {
                    items.append(try setItem(for: field))
                    if current.kind == .comma {
                        at += 1
                    } else if current.kind != .rbrace {
                        throw fail("expected , or } in the set")
                    }
                }
                at += 1
                if items.isEmpty { throw fail("empty set") }
                return .member(field.id, items)
            }
            let item = try setItem(for: field)
            guard case .range = item else { throw fail("expected a set {a, b} or a range A..B after in") }
            return .member(field.id, [item])
        default:
            return .present(field.id)
        }
    }

    func check(_ op: FilterOperator, on field: FilterField, _ token: FilterToken) throws(FilterError) {
        switch (field.type, op) {
        case (.presence, _):
            throw fail("\(field.name) is \(field.type.word); it takes no \(op.rawValue)", token)
        case (.integer, .glob):
            throw fail("~ matches names; \(field.name) is a number (use ==, <, in A..B)", token)
        case (.name, .equal), (.name, .notEqual), (.name, .glob): return
        case (.name, _):
            throw fail("\(field.name) is a name: it takes ==, != or ~", token)
        case (.uuid, .equal), (.uuid, .notEqual), (.address, .equal), (.address, .notEqual): return
        case (.uuid, _), (.address, _):
            throw fail("\(field.name) is \(field.type.word): it takes == or != (or in {…})", token)
        case (.integer, _): return
        }
    }

    mutating func setItem(for field: FilterField) throws(FilterError) -> FilterSetItem {
        let first = try value(for: field, glob: false)
        guard current.kind == .range else { return .value(first) }
        let rangeToken = current
        at += 1
        let second = try value(for: field, glob: false)
        guard case .int(let lo) = first, case .int(let hi) = second else {
            throw fail("a range A..B takes numbers; \(field.name) is \(field.type.word)", rangeToken)
        }
        guard lo <= hi else { throw fail("empty range: \(lo) is more than \(hi)", rangeToken) }
        return .range(lo, hi)
    }

    /// The literal at the current token, read as the field's type.
    mutating func value(for field: FilterField, glob: Bool) throws(FilterError) -> FilterLiteral {
        let token = current
        let text: String
        switch token.kind {
        case .word(let w): text = w
        case .string(let s): text = s
        default: throw fail("expected \(field.type.word) to compare \(field.name) with")
        }
        at += 1
        switch field.type {
        case .integer:
            guard let n = Self.integer(text) else {
                throw fail("not a number: \(text) (decimal, or hex as 0x1f)", token)
            }
            return .int(n)
        case .name:
            return .name(Array(text.utf8))
        case .uuid:
            guard let u = BluetoothUUID(text) else {
                throw fail("not a UUID: \(text) (16-bit 2A37, 32-bit, or 128-bit with dashes)", token)
            }
            return .uuid(u)
        case .address:
            guard let a = BDAddr(text) else { throw fail("not an address: \(text) (AA:BB:CC:DD:EE:FF)", token) }
            return .address(a)
        case .presence:
            throw fail("\(field.name) is \(field.type.word)", token)
        }
    }

    /// Decimal (optionally negative) or hex with 0x.
    static func integer(_ text: String) -> Int64? {
        if text.hasPrefix("0x") || text.hasPrefix("0X") { return Int64(text.dropFirst(2), radix: 16) }
        if text.hasPrefix("-0x") || text.hasPrefix("-0X") { return Int64(text.dropFirst(3), radix: 16).map { -$0 } }
        return Int64(text)
    }
}
