import BLEBytes
import BLEPackets

/// Writes `FieldValue`s as text or JSON into an `OutputBuffer`.
enum FieldFormatting {
    static func text(_ value: FieldValue, to out: OutputBuffer) {
        switch value {
        case .uint(let v): out.decimal(v)
        case .int(let v): out.decimal(v)
        case .hex(let v, let digits): out.hex(v, digits: digits)
        case .bool(let b): out.ascii(b ? "true" : "false")
        case .code(let v, let digits, let name):
            out.hex(v, digits: digits)
            if let name {
                out.ascii(" (")
                out.ascii(name)
                out.byte(UInt8(ascii: ")"))
            }
        case .flags(let v, let digits, let names):
            out.hex(v, digits: digits)
            flagNames(v, names, to: out)
        case .address(let a): out.address(a)
        case .uuid(let u):
            out.string(u.description)
            if let name = GATTAssignedNumbers.name(for: u) {
                out.ascii(" (")
                out.ascii(name)
                out.byte(UInt8(ascii: ")"))
            }
        case .bytes(let b):
            if b.isEmpty { out.ascii("(empty)") } else { out.hexBytes(b) }
        case .key128(let b): out.hexBytesReversed(b)
        case .text(let t):
            out.byte(UInt8(ascii: "\""))
            out.sanitizedText(t)
            out.byte(UInt8(ascii: "\""))
        case .name(let n): out.ascii(n)
        case .cString(let p): out.cString(p)
        case .microseconds(let us):
            // Milliseconds with up to 3 decimals: 15 ms, 7.5 ms, 0.625 ms.
            let magnitude = us.magnitude
            if us < 0 { out.byte(UInt8(ascii: "-")) }
            out.decimal(magnitude / 1000)
            var frac = magnitude % 1000
            if frac != 0 {
                out.byte(UInt8(ascii: "."))
                var digits = 3
                while frac % 10 == 0 {
                    frac /= 10
                    digits -= 1
                }
                out.decimal(frac, width: digits)
            }
            out.ascii(" ms")
        case .dBm(let d):
            out.decimal(Int64(d))
            out.ascii(" dBm")
        }
    }

    /// " (A, B)" for the set bits of `v`, nothing when none is set.
    static func flagNames(_ v: UInt64, _ names: FlagNames, to out: OutputBuffer) {
        var first = true
        for bit in 0..<64 where v & (1 << UInt64(bit)) != 0 {
            out.ascii(first ? " (" : ", ")
            if bit < names.names.count, let name = names.names[bit] {
                out.ascii(name)
            } else {
                out.ascii("bit ")
                out.decimal(bit)
            }
            first = false
        }
        if !first { out.byte(UInt8(ascii: ")")) }
    }

    /// JSON: numbers stay numbers; names go into a sibling "meaning" key (written by the caller
    /// through `meaning(_:to:)`).
    static func json(_ value: FieldValue, to out: OutputBuffer) {
        switch value {
        case .uint(let v): out.decimal(v)
        case .int(let v): out.decimal(v)
        case .hex(let v, _), .code(let v, _, _), .flags(let v, _, _): out.decimal(v)
        case .bool(let b): out.ascii(b ? "true" : "false")
        case .address(let a):
            out.byte(0x22)
            out.address(a)
            out.byte(0x22)
        case .uuid(let u): out.jsonString(u.description)
        case .bytes(let b):
            out.byte(0x22)
            out.hexBytes(b)
            out.byte(0x22)
        case .key128(let b):
            out.byte(0x22)
            out.hexBytesReversed(b)
            out.byte(0x22)
        case .text(let t): out.jsonString(t)
        case .name(let n): out.jsonString(n)
        case .cString(let p):
            out.jsonString(ByteView(UnsafeRawBufferPointer(start: p, count: strlenSafe(p))))
        case .microseconds(let us): out.decimal(us)
        case .dBm(let d): out.decimal(Int64(d))
        }
    }

    /// Writes `,"meaning":"…"` for values that carry a name; nothing otherwise.
    static func jsonMeaning(_ value: FieldValue, to out: OutputBuffer) {
        switch value {
        case .code(_, _, let name?):
            out.ascii(",\"meaning\":")
            out.jsonString(name)
        case .flags(let v, _, let names):
            out.ascii(",\"meaning\":[")
            var first = true
            for (bit, name) in names.names.enumerated() where bit < 64 && v & (1 << UInt64(bit)) != 0 {
                if !first { out.byte(UInt8(ascii: ",")) }
                if let name { out.jsonString(name) } else { out.jsonString("bit \(bit)") }
                first = false
            }
            out.byte(UInt8(ascii: "]"))
        case .uuid(let u):
            if let name = GATTAssignedNumbers.name(for: u) {
                out.ascii(",\"meaning\":")
                out.jsonString(name)
            }
        case .microseconds:
            out.ascii(",\"unit\":\"us\"")
        case .dBm:
            out.ascii(",\"unit\":\"dBm\"")
        default: break
        }
    }

    static func strlenSafe(_ p: UnsafePointer<CChar>) -> Int {
        var n = 0
        while p[n] != 0 { n += 1 }
        return n
    }
}

/// Indented "name: value" lines, as btmon prints a decoded packet.
final class TextFieldSink: FieldSink {
    let out: OutputBuffer
    var depth: Int

    init(out: OutputBuffer, depth: Int) {
        self.out = out
        self.depth = depth
    }

    func field(_ name: StaticString, _ value: FieldValue) {
        out.spaces(depth * 2)
        out.ascii(name)
        out.ascii(": ")
        FieldFormatting.text(value, to: out)
        out.newline()
    }

    func begin(_ name: StaticString) {
        out.spaces(depth * 2)
        out.ascii(name)
        out.newline()
        depth += 1
    }

    func end() { depth = max(depth - 1, 0) }

    func note(_ text: StaticString) {
        out.spaces(depth * 2)
        out.ascii("! ")
        out.ascii(text)
        out.newline()
    }
}

/// The `fields` tree of `--format json`: an array of `{"name","value"[,"meaning"]}` entries,
/// groups as `{"name","fields":[…]}` and notes as `{"note":…}`, in decode order (an array, not
/// an object, because repeated names such as several advertising reports are normal).
final class JSONFieldSink: FieldSink {
    let out: OutputBuffer
    /// Whether the current array already has an element (needs a comma before the next).
    var hasElement: [Bool] = [false]

    init(out: OutputBuffer) { self.out = out }

    private func separator() {
        if hasElement[hasElement.count - 1] { out.byte(UInt8(ascii: ",")) }
        hasElement[hasElement.count - 1] = true
    }

    func field(_ name: StaticString, _ value: FieldValue) {
        separator()
        out.ascii("{\"name\":")
        out.jsonString(name)
        out.ascii(",\"value\":")
        FieldFormatting.json(value, to: out)
        FieldFormatting.jsonMeaning(value, to: out)
        out.byte(UInt8(ascii: "}"))
    }

    func begin(_ name: StaticString) {
        separator()
        out.ascii("{\"name\":")
        out.jsonString(name)
        out.ascii(",\"fields\":[")
        hasElement.append(false)
    }

    func end() {
        guard hasElement.count > 1 else { return }
        hasElement.removeLast()
        out.ascii("]}")
    }

    func note(_ text: StaticString) {
        separator()
        out.ascii("{\"note\":")
        out.jsonString(text)
        out.byte(UInt8(ascii: "}"))
    }

    /// Closes groups a decoder left open, so the JSON always balances.
    func closeAll() {
        while hasElement.count > 1 { end() }
        hasElement = [false]
    }
}
