import BLEBytes
import BLEPackets

/// Collects described fields as "name=value" lines ("{group", "}", "!note") for assertions;
/// shared by the ATT, SMP, signalling, L2CAP and HCI tests.
class RecordingSink: FieldSink {
    var lines: [String] = []
    func field(_ name: StaticString, _ value: FieldValue) { lines.append("\(name)=\(render(value))") }
    func begin(_ name: StaticString) { lines.append("{\(name)") }
    func end() { lines.append("}") }
    func note(_ text: StaticString) { lines.append("!\(text)") }
    var notes: [String] { lines.filter { $0.hasPrefix("!") } }

    /// The value of the first field called `name`.
    func value(_ name: String) -> String? {
        lines.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
    }

    func render(_ v: FieldValue) -> String {
        switch v {
        case .uint(let u): "\(u)"
        case .int(let i): "\(i)"
        case .hex(let u, let d): Hex.string(u, digits: d)
        case .bool(let b): "\(b)"
        case .code(let u, let d, let n): Hex.string(u, digits: d) + (n.map { " \($0)" } ?? "")
        case .flags(let u, let d, let names): renderFlags(u, digits: d, names)
        case .address(let a): a.description
        case .uuid(let u): u.description
        case .bytes(let b): Hex.string(b)
        case .key128(let b): Hex.string(Array(b.toArray().reversed()))
        case .text(let b): String(decoding: b.toArray(), as: UTF8.self)
        case .name(let n): "\(n)"
        case .cString(let p): String(cString: p)
        case .microseconds(let us): "\(us)us"
        case .dBm(let d): "\(d)dBm"
        }
    }

    /// "0x06 [A,B]": named set bits only.
    func renderFlags(_ u: UInt64, digits: Int, _ names: FlagNames) -> String {
        Hex.string(u, digits: digits) + " ["
            + names.names.enumerated().compactMap { i, n in n.flatMap { u & (1 << UInt64(i)) != 0 ? "\($0)" : nil } }
            .joined(separator: ",") + "]"
    }
}
