/// Allocation-free hex digit helpers shared by the text and JSON writers.
public enum Hex {
    public static let upperDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
    public static let lowerDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends two uppercase hex digits to a String (for descriptions; not the hot path).
    public static func append(_ b: UInt8, to s: inout String) {
        s.unicodeScalars.append(Unicode.Scalar(upperDigits[Int(b >> 4)]))
        s.unicodeScalars.append(Unicode.Scalar(upperDigits[Int(b & 0xF)]))
    }

    /// "0x" followed by `digits` uppercase hex digits, e.g. `Hex.string(0x11, digits: 4)` → "0x0011".
    public static func string(_ value: UInt64, digits: Int) -> String {
        var s = "0x"
        var d = digits
        while d > 0 {
            d -= 1
            s.unicodeScalars.append(Unicode.Scalar(upperDigits[Int((value >> UInt64(4 * d)) & 0xF)]))
        }
        return s
    }

    /// Bytes as lowercase hex without separators ("16466d03"), as tshark prints values.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        var s = ""
        for b in bytes {
            s.unicodeScalars.append(Unicode.Scalar(lowerDigits[Int(b >> 4)]))
            s.unicodeScalars.append(Unicode.Scalar(lowerDigits[Int(b & 0xF)]))
        }
        return s
    }

    /// Parses "16 46 6d 03", "16466d03" or "16:46:6d:03" (test fixtures, CLI arguments).
    public static func bytes(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var high: UInt8? = nil
        for c in text.utf8 {
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
            case UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: "\n"), UInt8(ascii: "\t"):
                continue
            default: return nil
            }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return high == nil ? out : nil
    }
}
