import BLEBytes
import BLECrypto

// The key distribution commands (Core 5.4 Vol 3 Part H 3.6.2-3.6.6) are generated from
// scripts/pdu/smp_pdus.py into SMPPDU+Generated.swift; what follows is what they add.

extension SMPEncryptionInformation {
    /// The key as a number (its octets least significant first).
    public var key: UInt128 { longTermKey.littleEndianUInt128(at: 0)! }
    /// The PDU carrying `ltk`.
    public static func pdu(longTermKey ltk: UInt128) -> [UInt8] { pdu128(ltk) }
}

extension SMPIdentityInformation {
    /// The PDU carrying `irk`.
    public static func pdu(identityResolvingKey irk: UInt128) -> [UInt8] { pdu128(irk) }
}

extension SMPIdentityAddressInformation {
    /// AddrType (Vol 3 Part H 3.6.5).
    public static func addressTypeName(_ t: UInt8) -> StaticString? {
        switch t {
        case 0x00: "Public"
        case 0x01: "Random Static"
        default: nil
        }
    }
}

extension SMPSigningInformation {
    /// The PDU carrying `csrk`.
    public static func pdu(signatureKey csrk: UInt128) -> [UInt8] { pdu128(csrk) }
}
