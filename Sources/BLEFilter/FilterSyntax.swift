/// A filter expression that could not be compiled: what is wrong and where (1-based column).
public struct FilterError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public let column: Int
    public let expression: String

    /// The message, then the expression with a caret under the column.
    public var description: String {
        let pad = String(repeating: " ", count: max(0, column - 1))
        return "\(message)\n  \(expression)\n  \(pad)^"
    }
}

/// One token of an expression and the column it starts at.
struct FilterToken: Equatable {
    enum Kind: Equatable {
        case lparen, rparen, lbrace, rbrace, comma, range
        case op(FilterOperator)
        case and, or, not
        /// A field name, number, UUID, address or bare name; read by what it is compared with.
        case word(String)
        case string(String)
        case end
    }
    let kind: Kind
    let column: Int
}

public enum FilterOperator: String, Sendable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case glob = "~"
}

/// Splits an expression into tokens. Words run over letters, digits and `_ . : -` (field names,
/// hex numbers, UUIDs, addresses) but stop at `..`, the range operator.
enum FilterLexer {
    static func tokens(_ text: String) throws(FilterError) -> [FilterToken] {
        let s = Array(text.unicodeScalars)
        var out: [FilterToken] = []
        var i = 0
        func fail(_ message: String, _ at: Int) -> FilterError {
            FilterError(message: message, column: at + 1, expression: text)
        }
        func isWord(_ c: Unicode.Scalar) -> Bool {
            c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" || c == "." || c == ":" || c == "-"
        }
        while i < s.count {
            let c = s[i]
            let start = i
            func next(_ k: FilterToken.Kind, _ n: Int) {
                out.append(FilterToken(kind: k, column: start + 1))
                i += n
            }
            let c2: Unicode.Scalar? = i + 1 < s.count ? s[i + 1] : nil
            switch c {
            case " ", "\t", "\n", "\r": i += 1
            case "(": next(.lparen, 1)
            case ")": next(.rparen, 1)
            case "{": next(.lbrace, 1)
            case "}": next(.rbrace, 1)
            case ",": next(.comma, 1)
            case "~": next(.op(.glob), 1)
            case "=":
                guard c2 == "=" else { throw fail("'=' is not an operator; use ==", start) }
                next(.op(.equal), 2)
            case "!": c2 == "=" ? next(.op(.notEqual), 2) : next(.not, 1)
            case "<": c2 == "=" ? next(.op(.lessOrEqual), 2) : next(.op(.less), 1)
            case ">": c2 == "=" ? next(.op(.greaterOrEqual), 2) : next(.op(.greater), 1)
            case "&":
                guard c2 == "&" else { throw fail("'&' is not an operator; use &&", start) }
                next(.and, 2)
            case "|":
                guard c2 == "|" else { throw fail("'|' is not an operator; use ||", start) }
                next(.or, 2)
            case "\"", "'":
                var j = i + 1
                var value = String.UnicodeScalarView()
                while j < s.count, s[j] != c {
                    if s[j] == "\\", j + 1 < s.count { j += 1 }
                    value.append(s[j])
                    j += 1
                }
                guard j < s.count else { throw fail("unterminated string", start) }
                out.append(FilterToken(kind: .string(String(value)), column: start + 1))
                i = j + 1
            case "." where c2 == ".": next(.range, 2)
            default:
                guard isWord(c) else { throw fail("unexpected character '\(c)'", start) }
                var j = i
                var word = String.UnicodeScalarView()
                while j < s.count, isWord(s[j]), !(s[j] == "." && j + 1 < s.count && s[j + 1] == ".") {
                    word.append(s[j])
                    j += 1
                }
                let w = String(word)
                switch w {
                case "and": out.append(FilterToken(kind: .and, column: start + 1))
                case "or": out.append(FilterToken(kind: .or, column: start + 1))
                case "not": out.append(FilterToken(kind: .not, column: start + 1))
                default: out.append(FilterToken(kind: .word(w), column: start + 1))
                }
                i = j
            }
        }
        out.append(FilterToken(kind: .end, column: s.count + 1))
        return out
    }
}
