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

/// The six feature-exchange fields shared by Pairing Request and Pairing Response (Vol 3 Part
/// H 3.5.1 and 3.5.2).
public struct SMPPairingFeatures: Sendable, Equatable {
    public let ioCapability: UInt8
    /// OOB data flag: 0x00 not present, 0x01 present.
    public let oobDataFlag: UInt8
    public let authReq: SMPAuthReq
    /// 7…16 octets.
    public let maximumEncryptionKeySize: UInt8
    public let initiatorKeyDistribution: SMPKeyDistribution
    public let responderKeyDistribution: SMPKeyDistribution

    public init(
        ioCapability: UInt8, oobDataFlag: UInt8, authReq: SMPAuthReq, maximumEncryptionKeySize: UInt8,
        initiatorKeyDistribution: SMPKeyDistribution, responderKeyDistribution: SMPKeyDistribution
    ) {
        (self.ioCapability, self.oobDataFlag, self.authReq, self.maximumEncryptionKeySize) = (
            ioCapability, oobDataFlag, authReq, maximumEncryptionKeySize
        )
        (self.initiatorKeyDistribution, self.responderKeyDistribution) = (
            initiatorKeyDistribution, responderKeyDistribution
        )
    }

    public func append(to w: inout ByteWriter) {
        w.appendUInt8(ioCapability)
        w.appendUInt8(oobDataFlag)
        w.appendUInt8(authReq.rawValue)
        w.appendUInt8(maximumEncryptionKeySize)
        w.appendUInt8(initiatorKeyDistribution.rawValue)
        w.appendUInt8(responderKeyDistribution.rawValue)
    }

    init?(_ p: ByteView) {
        guard p.count >= 6 else { return nil }
        ioCapability = p.u8(0)!
        oobDataFlag = p.u8(1)!
        authReq = SMPAuthReq(rawValue: p.u8(2)!)
        maximumEncryptionKeySize = p.u8(3)!
        initiatorKeyDistribution = SMPKeyDistribution(rawValue: p.u8(4)!)
        responderKeyDistribution = SMPKeyDistribution(rawValue: p.u8(5)!)
    }

    func describe(into sink: FieldSink) {
        sink.field("io_capability", .code(UInt64(ioCapability), digits: 2, name: SMPIOCapability.name(ioCapability)))
        let oob: StaticString? =
            oobDataFlag == 0
            ? "OOB Authentication data not present"
            : oobDataFlag == 1 ? "OOB Authentication data from remote device present" : nil
        sink.field("oob_data_flag", .code(UInt64(oobDataFlag), digits: 2, name: oob))
        authReq.describe(into: sink)
        sink.field("max_encryption_key_size", .uint(UInt64(maximumEncryptionKeySize)))
        if maximumEncryptionKeySize < 7 || maximumEncryptionKeySize > 16 {
            sink.note("maximum encryption key size outside 7…16")
        }
        sink.field(
            "initiator_key_distribution",
            .flags(UInt64(initiatorKeyDistribution.rawValue), digits: 2, names: SMPKeyDistribution.flagNames))
        sink.field(
            "responder_key_distribution",
            .flags(UInt64(responderKeyDistribution.rawValue), digits: 2, names: SMPKeyDistribution.flagNames))
    }
}

/// Pairing Request (Vol 3 Part H 3.5.1), sent by the initiator (central).
public struct SMPPairingRequest: SMPCommandType, SMPCommandEncodable, Sendable {
    public let features: SMPPairingFeatures
    public init(features: SMPPairingFeatures) { self.features = features }
    public init?(parameters p: ByteView) {
        guard let f = SMPPairingFeatures(p) else { return nil }
        features = f
    }
    public func appendParameters(to w: inout ByteWriter) { features.append(to: &w) }
    public func describe(into sink: FieldSink) { features.describe(into: sink) }
}

/// Pairing Response (Vol 3 Part H 3.5.2), the responder's features.
public struct SMPPairingResponse: SMPCommandType, SMPCommandEncodable, Sendable {
    public let features: SMPPairingFeatures
    public init(features: SMPPairingFeatures) { self.features = features }
    public init?(parameters p: ByteView) {
        guard let f = SMPPairingFeatures(p) else { return nil }
        features = f
    }
    public func appendParameters(to w: inout ByteWriter) { features.append(to: &w) }
    public func describe(into sink: FieldSink) { features.describe(into: sink) }
}

/// Pairing Confirm (Vol 3 Part H 3.5.3): 128-bit Confirm value (Mconfirm/Sconfirm).
public struct SMPPairingConfirm: SMPCommandType, @unchecked Sendable {
    public let confirmValue: ByteView
    public init?(parameters p: ByteView) {
        guard let v = p.slice(0, 16) else { return nil }
        confirmValue = v
    }
    /// The confirm value as the number c1 computes (its octets least significant first).
    public var confirm: UInt128 { confirmValue.littleEndianUInt128(at: 0)! }
    /// The PDU carrying `confirm` (c1's or f4's value).
    public static func pdu(confirm: UInt128) -> [UInt8] { pdu128(confirm) }
    public func describe(into sink: FieldSink) { sink.field("confirm_value", .bytes(confirmValue)) }
}

/// Pairing Random (Vol 3 Part H 3.5.4): 128-bit Random value (Mrand/Srand, Na/Nb).
public struct SMPPairingRandom: SMPCommandType, @unchecked Sendable {
    public let randomValue: ByteView
    public init?(parameters p: ByteView) {
        guard let v = p.slice(0, 16) else { return nil }
        randomValue = v
    }
    /// The random value as a number (its octets least significant first).
    public var random: UInt128 { randomValue.littleEndianUInt128(at: 0)! }
    /// The PDU carrying `random`.
    public static func pdu(random: UInt128) -> [UInt8] { pdu128(random) }
    public func describe(into sink: FieldSink) { sink.field("random_value", .bytes(randomValue)) }
}

/// Pairing Failed (Vol 3 Part H 3.5.5): Reason (Table 3.7).
public struct SMPPairingFailed: SMPCommandType, SMPCommandEncodable, Sendable {
    public let reason: UInt8
    public init(reason: UInt8) { self.reason = reason }
    public func appendParameters(to w: inout ByteWriter) { w.appendUInt8(reason) }
    public init?(parameters p: ByteView) {
        guard let r = p.u8(0) else { return nil }
        reason = r
    }
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
    public func describe(into sink: FieldSink) {
        sink.field("reason", .code(UInt64(reason), digits: 2, name: Self.reasonName(reason)))
    }
}

/// Pairing Public Key (Vol 3 Part H 3.5.6): P-256 public key X and Y, 32 bytes each,
/// little-endian.
public struct SMPPairingPublicKey: SMPCommandType, @unchecked Sendable {
    public let x: ByteView
    public let y: ByteView
    public init?(parameters p: ByteView) {
        guard let x = p.slice(0, 32), let y = p.slice(32, 32) else { return nil }
        self.x = x
        self.y = y
    }
    /// The PDU carrying a public key given as numbers, most significant octet first (how
    /// `P256.Number.bigEndianOctets` writes them); the PDU holds each least significant first.
    public static func pdu(xBigEndian x: [UInt8], yBigEndian y: [UInt8]) -> [UInt8] {
        [code] + x.reversed() + y.reversed()
    }
    /// X and Y as numbers, most significant octet first.
    public var xBigEndian: [UInt8] { x.toArray().reversed() }
    public var yBigEndian: [UInt8] { y.toArray().reversed() }
    public func describe(into sink: FieldSink) {
        sink.field("public_key_x", .bytes(x))
        sink.field("public_key_y", .bytes(y))
    }
}

/// Pairing DHKey Check (Vol 3 Part H 3.5.7): 128-bit Ea/Eb.
public struct SMPPairingDHKeyCheck: SMPCommandType, @unchecked Sendable {
    public let check: ByteView
    public init?(parameters p: ByteView) {
        guard let v = p.slice(0, 16) else { return nil }
        check = v
    }
    /// Ea or Eb as a number (its octets least significant first).
    public var value: UInt128 { check.littleEndianUInt128(at: 0)! }
    /// The PDU carrying f6's `value`.
    public static func pdu(check: UInt128) -> [UInt8] { pdu128(check) }
    public func describe(into sink: FieldSink) { sink.field("dhkey_check", .bytes(check)) }
}

/// Pairing Keypress Notification (Vol 3 Part H 3.5.8): Notification Type (Table 3.8).
public struct SMPPairingKeypressNotification: SMPCommandType, Sendable {
    public let notificationType: UInt8
    public init?(parameters p: ByteView) {
        guard let t = p.u8(0) else { return nil }
        notificationType = t
    }
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
    public func describe(into sink: FieldSink) {
        sink.field(
            "notification_type", .code(UInt64(notificationType), digits: 2, name: Self.typeName(notificationType)))
    }
}

/// Security Request (Vol 3 Part H 3.6.7): the peripheral asks the central to start pairing
/// or encryption, with its AuthReq.
public struct SMPSecurityRequest: SMPCommandType, SMPCommandEncodable, Sendable {
    public let authReq: SMPAuthReq
    public init(authReq: SMPAuthReq) { self.authReq = authReq }
    public func appendParameters(to w: inout ByteWriter) { w.appendUInt8(authReq.rawValue) }
    public init?(parameters p: ByteView) {
        guard let a = p.u8(0) else { return nil }
        authReq = SMPAuthReq(rawValue: a)
    }
    public func describe(into sink: FieldSink) { authReq.describe(into: sink) }
}
