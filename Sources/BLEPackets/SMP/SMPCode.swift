import BLEBytes
import BLECrypto

/// A typed SMP command (Core 5.4 Vol 3 Part H 3.3). `init?(parameters:)` parses the bytes
/// after the code and fails when they are shorter than the command's fixed size.
public protocol SMPCommandType: SendableMetatype {
    static var code: UInt8 { get }
    init?(parameters: ByteView)
    func describe(into sink: FieldSink)
}

extension SMPCommandType {
    /// Parses a whole SMP PDU (code byte included).
    public init?(pdu: ByteView) {
        guard pdu.u8(0) == Self.code, let p = pdu.suffix(from: 1) else { return nil }
        self.init(parameters: p)
    }
}

extension SMPCommandType {
    /// Parses a whole SMP PDU that is exactly its command's size (code and parameters, Vol 3
    /// Part H 3.3, Table 3.1): what a pairing device acts on; nil for another code or length.
    public init?(exactPDU pdu: ByteView) {
        guard let e = SMPCode.entry(Self.code), pdu.count == 1 + e.parameterLength else { return nil }
        self.init(pdu: pdu)
    }
}

/// An SMP command a pairing device sends (the virtual controller's captured peer, `RadioHost`):
/// its code, then its parameters (Vol 3 Part H 3.3, Figure 3.1).
public protocol SMPCommandEncodable: ByteEncodable {
    static var code: UInt8 { get }
    func appendParameters(to w: inout ByteWriter)
}

extension SMPCommandEncodable {
    public func append(to w: inout ByteWriter) {
        w.appendUInt8(Self.code)
        appendParameters(to: &w)
    }
}

extension SMPCommandType {
    /// The PDU of a command whose parameters are one 128-bit value, its octets least
    /// significant first (Pairing Confirm and Random, DHKey Check, the distributed keys).
    static func pdu128(_ value: UInt128) -> [UInt8] { [code] + value.littleEndianOctets }
}

extension SMPCode {
    /// The command code of an SMP PDU (its first octet), nil when it is empty.
    @inlinable public static func code(of pdu: ByteView) -> UInt8? { pdu.u8(0) }
}

/// SMP command codes (Vol 3 Part H 3.3, Table 3.1): name, exact parameter size, decoder.
extension SMPCode {
    public struct Entry: Sendable {
        public let code: UInt8
        /// The Core 5.4 name (tshark 4.0 still says "Master Identification" for 0x07).
        public let name: StaticString
        public let parameterLength: Int
        let describe: @Sendable (ByteView, FieldSink) -> Bool
    }

    static func d<T: SMPCommandType>(_: T.Type) -> @Sendable (ByteView, FieldSink) -> Bool {
        { p, sink in
            guard let c = T(parameters: p) else { return false }
            c.describe(into: sink)
            return true
        }
    }

    // `entries`, one row per code: SMPPDU+Generated.swift, from scripts/pdu/smp_pdus.py.

    public static func entry(_ code: UInt8) -> Entry? {
        let i = Int(code) - 1
        return i >= 0 && i < entries.count ? entries[i] : nil
    }

    public static func name(_ code: UInt8) -> StaticString { entry(code)?.name ?? "Unknown" }

    /// Whether the bytes are exactly one SMP command of a defined code (every SMP command has
    /// a fixed size).
    public static func isWellFormed(_ pdu: ByteView) -> Bool {
        guard let code = pdu.u8(0), let e = entry(code) else { return false }
        return pdu.count == 1 + e.parameterLength
    }
}

extension SMPPDU {
    /// Describes the PDU from its bytes through the code table; unknown codes and short PDUs
    /// keep their bytes, with a note.
    public static func describe(_ pdu: ByteView, into sink: FieldSink) {
        guard let code = pdu.u8(0) else {
            sink.note("empty SMP PDU")
            return
        }
        sink.field("code", .code(UInt64(code), digits: 2, name: SMPCode.name(code)))
        let p = pdu.suffix(from: 1)!
        guard let e = SMPCode.entry(code) else {
            sink.note("unknown SMP code")
            sink.field("parameters", .bytes(p))
            return
        }
        guard e.describe(p, sink) else {
            sink.note("SMP PDU too short for its code")
            sink.field("parameters", .bytes(p))
            return
        }
        if p.count > e.parameterLength {
            sink.note("bytes after the PDU's fields")
            sink.field("trailing", .bytes(p.suffix(from: e.parameterLength)!))
        }
    }
}
