import BLEBytes
import BLECrypto

/// IO Capability (Core 5.4 Vol 3 Part H 3.5.1, Table 3.4).
public enum SMPIOCapability {
    public static func name(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "DisplayOnly"
        case 0x01: "DisplayYesNo"
        case 0x02: "KeyboardOnly"
        case 0x03: "NoInputNoOutput"
        case 0x04: "KeyboardDisplay"
        default: nil
        }
    }
}

/// AuthReq (Vol 3 Part H 3.5.1, Figure 3.3): Bonding_Flags (bits 0–1, 0b01 Bonding), MITM
/// (2), SC (3), Keypress (4), CT2 (5), RFU (6–7).
public struct SMPAuthReq: RawRepresentable, Sendable, Equatable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public var bondingFlags: UInt8 { rawValue & 0b11 }
    public var bonding: Bool { bondingFlags == 0b01 }
    public var mitm: Bool { rawValue & 0x04 != 0 }
    public var secureConnections: Bool { rawValue & 0x08 != 0 }
    public var keypress: Bool { rawValue & 0x10 != 0 }
    public var ct2: Bool { rawValue & 0x20 != 0 }

    public static let flagNames = FlagNames(["Bonding", nil, "MITM", "SC", "Keypress", "CT2", nil, nil])

    func describe(into sink: FieldSink) {
        sink.field("auth_req", .flags(UInt64(rawValue), digits: 2, names: Self.flagNames))
        // 0b10 and 0b11 are reserved bonding values.
        if bondingFlags > 0b01 { sink.note("reserved bonding flags") }
    }
}

/// Initiator/Responder Key Distribution (Vol 3 Part H 3.6.1, Figure 3.11): EncKey (0), IdKey
/// (1), SignKey (2), LinkKey (3), RFU (4–7).
public struct SMPKeyDistribution: RawRepresentable, Sendable, Equatable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public var encryptionKey: Bool { rawValue & 0x01 != 0 }
    public var identityKey: Bool { rawValue & 0x02 != 0 }
    public var signingKey: Bool { rawValue & 0x04 != 0 }
    public var linkKey: Bool { rawValue & 0x08 != 0 }

    public static let flagNames = FlagNames(["EncKey", "IdKey", "SignKey", "LinkKey", nil, nil, nil, nil])
}

// The command types (fields, decoders, encoders, describers) are generated from
// scripts/pdu/smp_pdus.py into SMPPDU+Generated.swift; what follows is what they add.

extension SMPPairingFeatures {
    /// OOB data flag (Vol 3 Part H 3.5.1, Table 3.5).
    public static func oobDataFlagName(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "OOB Authentication data not present"
        case 0x01: "OOB Authentication data from remote device present"
        default: nil
        }
    }
}

extension SMPPairingConfirm {
    /// The confirm value as the number c1 computes (its octets least significant first).
    public var confirm: UInt128 { confirmValue.littleEndianUInt128(at: 0)! }
    /// The PDU carrying `confirm` (c1's or f4's value).
    public static func pdu(confirm: UInt128) -> [UInt8] { pdu128(confirm) }
}

extension SMPPairingRandom {
    /// The random value as a number (its octets least significant first).
    public var random: UInt128 { randomValue.littleEndianUInt128(at: 0)! }
    /// The PDU carrying `random`.
    public static func pdu(random: UInt128) -> [UInt8] { pdu128(random) }
}

extension SMPPairingFailed {
    public static func reasonName(_ r: UInt8) -> StaticString? {
        switch r {
        case 0x01: "Passkey Entry Failed"
        case 0x02: "OOB Not Available"
        case 0x03: "Authentication Requirements"
        case 0x04: "Confirm Value Failed"
        case 0x05: "Pairing Not Supported"
        case 0x06: "Encryption Key Size"
        case 0x07: "Command Not Supported"
        case 0x08: "Unspecified Reason"
        case 0x09: "Repeated Attempts"
        case 0x0A: "Invalid Parameters"
        case 0x0B: "DHKey Check Failed"
        case 0x0C: "Numeric Comparison Failed"
        case 0x0D: "BR/EDR pairing in progress"
        case 0x0E: "Cross-transport Key Derivation/Generation not allowed"
        case 0x0F: "Key Rejected"
        case 0x10: "Busy"
        default: nil
        }
    }
}

extension SMPPairingPublicKey {
    /// The PDU carrying a public key given as numbers, most significant octet first (how
    /// `P256.Number.bigEndianOctets` writes them); the PDU holds each least significant first.
    public static func pdu(xBigEndian x: [UInt8], yBigEndian y: [UInt8]) -> [UInt8] {
        [code] + x.reversed() + y.reversed()
    }
    /// X and Y as numbers, most significant octet first.
    public var xBigEndian: [UInt8] { x.toArray().reversed() }
    public var yBigEndian: [UInt8] { y.toArray().reversed() }
}

extension SMPPairingDHKeyCheck {
    /// Ea or Eb as a number (its octets least significant first).
    public var value: UInt128 { check.littleEndianUInt128(at: 0)! }
    /// The PDU carrying f6's `value`.
    public static func pdu(check: UInt128) -> [UInt8] { pdu128(check) }
}

extension SMPPairingKeypressNotification {
    /// Notification Type (Vol 3 Part H 3.5.8, Table 3.8).
    public static func typeName(_ t: UInt8) -> StaticString? {
        switch t {
        case 0: "Passkey entry started"
        case 1: "Passkey digit entered"
        case 2: "Passkey digit erased"
        case 3: "Passkey cleared"
        case 4: "Passkey entry completed"
        default: nil
        }
    }
}
