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

    public static let entries: [Entry] = [
        Entry(code: 0x01, name: "Pairing Request", parameterLength: 6, describe: d(SMPPairingRequest.self)),
        Entry(code: 0x02, name: "Pairing Response", parameterLength: 6, describe: d(SMPPairingResponse.self)),
        Entry(code: 0x03, name: "Pairing Confirm", parameterLength: 16, describe: d(SMPPairingConfirm.self)),
        Entry(code: 0x04, name: "Pairing Random", parameterLength: 16, describe: d(SMPPairingRandom.self)),
        Entry(code: 0x05, name: "Pairing Failed", parameterLength: 1, describe: d(SMPPairingFailed.self)),
        Entry(
            code: 0x06, name: "Encryption Information", parameterLength: 16,
            describe: d(SMPEncryptionInformation.self)),
        Entry(
            code: 0x07, name: "Central Identification", parameterLength: 10,
            describe: d(SMPCentralIdentification.self)),
        Entry(code: 0x08, name: "Identity Information", parameterLength: 16, describe: d(SMPIdentityInformation.self)),
        Entry(
            code: 0x09, name: "Identity Address Information", parameterLength: 7,
            describe: d(SMPIdentityAddressInformation.self)),
        Entry(code: 0x0A, name: "Signing Information", parameterLength: 16, describe: d(SMPSigningInformation.self)),
        Entry(code: 0x0B, name: "Security Request", parameterLength: 1, describe: d(SMPSecurityRequest.self)),
        Entry(code: 0x0C, name: "Pairing Public Key", parameterLength: 64, describe: d(SMPPairingPublicKey.self)),
        Entry(code: 0x0D, name: "Pairing DHKey Check", parameterLength: 16, describe: d(SMPPairingDHKeyCheck.self)),
        Entry(
            code: 0x0E, name: "Pairing Keypress Notification", parameterLength: 1,
            describe: d(SMPPairingKeypressNotification.self)),
    ]

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

/// A decoded SMP PDU: one case per command, unknown codes and short PDUs kept raw.
public enum SMPPDU: @unchecked Sendable {
    case pairingRequest(SMPPairingRequest)
    case pairingResponse(SMPPairingResponse)
    case pairingConfirm(SMPPairingConfirm)
    case pairingRandom(SMPPairingRandom)
    case pairingFailed(SMPPairingFailed)
    case encryptionInformation(SMPEncryptionInformation)
    case centralIdentification(SMPCentralIdentification)
    case identityInformation(SMPIdentityInformation)
    case identityAddressInformation(SMPIdentityAddressInformation)
    case signingInformation(SMPSigningInformation)
    case securityRequest(SMPSecurityRequest)
    case pairingPublicKey(SMPPairingPublicKey)
    case pairingDHKeyCheck(SMPPairingDHKeyCheck)
    case pairingKeypressNotification(SMPPairingKeypressNotification)
    case unknown(code: UInt8, raw: ByteView)
    case malformed(code: UInt8?, raw: ByteView, note: StaticString)

    public init(_ pdu: ByteView) {
        guard let code = pdu.u8(0) else {
            self = .malformed(code: nil, raw: pdu, note: "empty SMP PDU")
            return
        }
        let p = pdu.suffix(from: 1)!
        func m<T>(_ v: T?, _ wrap: (T) -> SMPPDU) -> SMPPDU {
            v.map(wrap) ?? .malformed(code: code, raw: pdu, note: "SMP PDU too short for its code")
        }
        switch code {
        case 0x01: self = m(SMPPairingRequest(parameters: p), SMPPDU.pairingRequest)
        case 0x02: self = m(SMPPairingResponse(parameters: p), SMPPDU.pairingResponse)
        case 0x03: self = m(SMPPairingConfirm(parameters: p), SMPPDU.pairingConfirm)
        case 0x04: self = m(SMPPairingRandom(parameters: p), SMPPDU.pairingRandom)
        case 0x05: self = m(SMPPairingFailed(parameters: p), SMPPDU.pairingFailed)
        case 0x06: self = m(SMPEncryptionInformation(parameters: p), SMPPDU.encryptionInformation)
        case 0x07: self = m(SMPCentralIdentification(parameters: p), SMPPDU.centralIdentification)
        case 0x08: self = m(SMPIdentityInformation(parameters: p), SMPPDU.identityInformation)
        case 0x09: self = m(SMPIdentityAddressInformation(parameters: p), SMPPDU.identityAddressInformation)
        case 0x0A: self = m(SMPSigningInformation(parameters: p), SMPPDU.signingInformation)
        case 0x0B: self = m(SMPSecurityRequest(parameters: p), SMPPDU.securityRequest)
        case 0x0C: self = m(SMPPairingPublicKey(parameters: p), SMPPDU.pairingPublicKey)
        case 0x0D: self = m(SMPPairingDHKeyCheck(parameters: p), SMPPDU.pairingDHKeyCheck)
        case 0x0E: self = m(SMPPairingKeypressNotification(parameters: p), SMPPDU.pairingKeypressNotification)
        default: self = .unknown(code: code, raw: pdu)
        }
    }

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
