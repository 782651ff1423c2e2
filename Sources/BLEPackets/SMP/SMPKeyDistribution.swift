import BLEBytes
import BLECrypto

/// Encryption Information (Core 5.4 Vol 3 Part H 3.6.2): the 128-bit LTK (legacy pairing).
public struct SMPEncryptionInformation: SMPCommandType, @unchecked Sendable {
    public let longTermKey: ByteView
    public init?(parameters p: ByteView) {
        guard let v = p.slice(0, 16) else { return nil }
        longTermKey = v
    }
    /// The key as a number (its octets least significant first).
    public var key: UInt128 { longTermKey.littleEndianUInt128(at: 0)! }
    /// The PDU carrying `ltk`.
    public static func pdu(longTermKey ltk: UInt128) -> [UInt8] { pdu128(ltk) }
    public func describe(into sink: FieldSink) { sink.field("long_term_key", .key128(longTermKey)) }
}

/// Central Identification (Vol 3 Part H 3.6.3; "Master Identification" before Core 5.3):
/// EDIV (u16) and Rand (u64) that identify the LTK.
public struct SMPCentralIdentification: SMPCommandType, SMPCommandEncodable, Sendable {
    public let ediv: UInt16
    public let rand: UInt64
    public init(ediv: UInt16, rand: UInt64) { (self.ediv, self.rand) = (ediv, rand) }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt16LE(ediv)
        w.appendUInt64LE(rand)
    }
    public init?(parameters p: ByteView) {
        guard let e = p.u16le(0), let r = p.u64le(2) else { return nil }
        ediv = e
        rand = r
    }
    public func describe(into sink: FieldSink) {
        sink.field("ediv", .hex(UInt64(ediv), digits: 4))
        sink.field("rand", .hex(rand, digits: 16))
    }
}

/// Identity Information (Vol 3 Part H 3.6.4): the 128-bit IRK.
public struct SMPIdentityInformation: SMPCommandType, @unchecked Sendable {
    public let identityResolvingKey: ByteView
    public init?(parameters p: ByteView) {
        guard let v = p.slice(0, 16) else { return nil }
        identityResolvingKey = v
    }
    /// The PDU carrying `irk`.
    public static func pdu(identityResolvingKey irk: UInt128) -> [UInt8] { pdu128(irk) }
    public func describe(into sink: FieldSink) { sink.field("identity_resolving_key", .bytes(identityResolvingKey)) }
}

/// Identity Address Information (Vol 3 Part H 3.6.5): AddrType (0x00 public, 0x01 random
/// static) and BD_ADDR.
public struct SMPIdentityAddressInformation: SMPCommandType, SMPCommandEncodable, Sendable {
    public let addressType: UInt8
    public let address: BDAddr
    public init(addressType: UInt8, address: BDAddr) { (self.addressType, self.address) = (addressType, address) }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt8(addressType)
        w.appendAddress(address)
    }
    public init?(parameters p: ByteView) {
        guard let t = p.u8(0), let a = BDAddr(littleEndian: p, at: 1) else { return nil }
        addressType = t
        address = a
    }
    public func describe(into sink: FieldSink) {
        let name: StaticString? = addressType == 0 ? "Public" : addressType == 1 ? "Random Static" : nil
        sink.field("address_type", .code(UInt64(addressType), digits: 2, name: name))
        sink.field("address", .address(address))
    }
}

/// Signing Information (Vol 3 Part H 3.6.6): the 128-bit CSRK.
public struct SMPSigningInformation: SMPCommandType, @unchecked Sendable {
    public let signatureKey: ByteView
    public init?(parameters p: ByteView) {
        guard let v = p.slice(0, 16) else { return nil }
        signatureKey = v
    }
    /// The PDU carrying `csrk`.
    public static func pdu(signatureKey csrk: UInt128) -> [UInt8] { pdu128(csrk) }
    public func describe(into sink: FieldSink) { sink.field("signature_key", .bytes(signatureKey)) }
}
