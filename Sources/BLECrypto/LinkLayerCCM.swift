import BLEBytes

/// Which way a data PDU went: the CCM nonce's directionBit (Core 5.4 Vol 6 Part E 2.2) is 1
/// for central → peripheral, 0 for peripheral → central.
public enum LinkLayerDirection: Sendable, Hashable, CaseIterable {
    case centralToPeripheral
    case peripheralToCentral

    @inlinable public var directionBit: UInt8 { self == .centralToPeripheral ? 1 : 0 }
}

/// The encryption procedure's inputs as LL_ENC_REQ and LL_ENC_RSP carry them (Vol 6 Part B
/// 2.4.2.4/2.4.2.5): the central's SKDm and IVm, the peripheral's SKDs and IVs, each a
/// little-endian field read as a number. Rand and EDIV (which LTK the peripheral looks up) are
/// kept for the caller; the cipher does not use them.
public struct LinkLayerEncryptionParameters: Sendable, Hashable {
    public var rand: UInt64
    public var ediv: UInt16
    public var skdm: UInt64
    public var ivm: UInt32
    public var skds: UInt64
    public var ivs: UInt32

    public init(rand: UInt64 = 0, ediv: UInt16 = 0, skdm: UInt64, ivm: UInt32, skds: UInt64, ivs: UInt32) {
        self.rand = rand
        self.ediv = ediv
        self.skdm = skdm
        self.ivm = ivm
        self.skds = skds
        self.ivs = ivs
    }

    /// From the two control PDUs' payloads, opcode first: LL_ENC_REQ (0x03; Rand 8, EDIV 2,
    /// SKDm 8, IVm 4) and LL_ENC_RSP (0x04; SKDs 8, IVs 4). Nil unless both are whole.
    public init?(encReq: ByteView, encRsp: ByteView) {
        guard encReq.u8(0) == 0x03, encReq.count >= 23, encRsp.u8(0) == 0x04, encRsp.count >= 13,
            let rand = encReq.u64le(1), let ediv = encReq.u16le(9), let skdm = encReq.u64le(11),
            let ivm = encReq.u32le(19), let skds = encRsp.u64le(1), let ivs = encRsp.u32le(9)
        else { return nil }
        self.init(rand: rand, ediv: ediv, skdm: skdm, ivm: ivm, skds: skds, ivs: ivs)
    }

    /// SKD = SKDs || SKDm, SKDm the least significant half (Vol 6 Part B 5.1.3.1).
    @inlinable public var skd: UInt128 { UInt128(skds) << 64 | UInt128(skdm) }

    /// IV = IVs || IVm, IVm the least significant half: the nonce's last eight octets.
    @inlinable public var iv: UInt64 { UInt64(ivs) << 32 | UInt64(ivm) }
}

/// AES-CCM of LE data PDUs (Vol 6 Part E 1–2): the session key, the IV, and the per-packet
/// nonce and blocks. A value type with no buffers of its own: decrypt and encrypt write into the
/// caller's array (reused across frames, so no allocation per PDU once it has grown).
///
/// - Session key SK = e(LTK, SKD) (Vol 6 Part B 5.1.3.1). For a link encrypted right after
///   legacy pairing, the "LTK" is the STK.
/// - Nonce (13 octets, Part E 2.2): the 39-bit packetCounter least significant octet first, the
///   directionBit as the top bit of octet 4, then the IV least significant octet first.
/// - B0 = 0x49 ‖ nonce ‖ payload length (16 bits, most significant first): Adata present,
///   M = 4 (the MIC), L = 2. B1 = AAD length 0x0001 ‖ the header's first octet with NESN, SN
///   and MD cleared (mask 0xE3: they change on retransmission, so they cannot be authenticated)
///   ‖ zero padding. Then the payload, zero padded to whole blocks.
/// - A_i = 0x01 ‖ nonce ‖ i: S0 = e(SK, A0) masks the MIC, S1… the payload (counter mode).
public struct LinkLayerCipher: Sendable {
    /// The session key SK, as a number (most significant octet first into AES).
    public let sessionKey: UInt128
    /// IV = IVs || IVm.
    public let iv: UInt64
    @usableFromInline let aes: AES128

    /// Largest encrypted payload: 251 octets of plaintext + the 4-octet MIC (Part B 2.4).
    public static let maximumPlaintextLength = 251
    public static let micLength = 4
    /// The header bits the AAD keeps: LLID, CP, RFU. NESN (bit 2), SN (3) and MD (4) are cleared.
    public static let headerMask: UInt8 = 0xE3

    public init(sessionKey: UInt128, iv: UInt64) {
        self.sessionKey = sessionKey
        self.iv = iv
        self.aes = AES128(key: sessionKey)
    }

    /// SK = e(LTK, SKD) and IV from the encryption procedure's parameters.
    public init(ltk: UInt128, parameters p: LinkLayerEncryptionParameters) {
        self.init(sessionKey: SecurityFunction.e(ltk, p.skd), iv: p.iv)
    }

    /// The nonce in block octets 1…13 (A_i and B0 differ only in the first and last two octets).
    @inlinable func nonceField(counter: UInt64, direction: LinkLayerDirection) -> UInt128 {
        // Nonce octets 0…4: counter bits 0…38, directionBit at bit 39; octets 5…12: IV.
        let c = counter & 0x7F_FFFF_FFFF | UInt64(direction.directionBit) << 39
        var field: UInt128 = 0
        for j in 0..<5 { field |= UInt128(UInt8(truncatingIfNeeded: c >> (8 * UInt64(j)))) << (8 * (14 - j)) }
        for j in 0..<8 { field |= UInt128(UInt8(truncatingIfNeeded: iv >> (8 * UInt64(j)))) << (8 * (9 - j)) }
        return field
    }

    /// Up to 16 octets from `offset` as a block, zero padded, first octet most significant.
    @inlinable static func block(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt128 {
        var v: UInt128 = 0
        let end = Swift.min(offset + 16, bytes.count)
        var i = offset
        while i < end {
            v |= UInt128(bytes[i]) << (8 * (15 - (i - offset)))
            i += 1
        }
        return v
    }

    /// CBC-MAC over B0, B1 and the plaintext: the unmasked tag T (its top 4 octets are the MIC).
    @inlinable func tag(plaintext: UnsafeRawBufferPointer, header: UInt8, nonce: UInt128) -> UInt128 {
        let b0 = UInt128(0x49) << 120 | nonce | UInt128(UInt16(plaintext.count))
        let b1 = UInt128(0x0001) << 112 | UInt128(header & Self.headerMask) << 104
        var x = aes.encrypt(aes.encrypt(b0) ^ b1)
        var offset = 0
        while offset < plaintext.count {
            x = aes.encrypt(x ^ Self.block(plaintext, offset))
            offset += 16
        }
        return x
    }

    /// XORs the counter-mode keystream S1, S2, … over `bytes` in place.
    @inlinable func applyKeystream(_ bytes: UnsafeMutableRawBufferPointer, nonce: UInt128) {
        var offset = 0
        var i: UInt128 = 1
        while offset < bytes.count {
            let s = aes.encrypt(UInt128(0x01) << 120 | nonce | i)
            let end = Swift.min(offset + 16, bytes.count)
            for k in offset..<end { bytes[k] ^= UInt8(truncatingIfNeeded: s >> (8 * (15 - (k - offset)))) }
            offset += 16
            i += 1
        }
    }

    /// The MIC: T's first four octets masked with S0's, as an integer in transmission order
    /// (first octet most significant).
    @inlinable func mic(tag: UInt128, nonce: UInt128) -> UInt32 {
        let s0 = aes.encrypt(UInt128(0x01) << 120 | nonce)
        return UInt32(truncatingIfNeeded: (tag ^ s0) >> 96)
    }

    /// Decrypts an encrypted payload (ciphertext followed by the 4-octet MIC) into `plaintext`
    /// (replaced) and verifies the MIC. False, with `plaintext` emptied, when the payload is too
    /// short or too long to be an encrypted PDU, or the MIC does not match.
    public func decrypt(
        _ payload: ByteView, header: UInt8, counter: UInt64, direction: LinkLayerDirection,
        into plaintext: inout [UInt8]
    ) -> Bool {
        plaintext.removeAll(keepingCapacity: true)
        let length = payload.count - Self.micLength
        guard length >= 1, length <= Self.maximumPlaintextLength, let micBytes = payload.u32be(length) else {
            return false
        }
        plaintext.append(contentsOf: payload.base[0..<length])
        let nonce = nonceField(counter: counter, direction: direction)
        let valid = plaintext.withUnsafeMutableBytes { bytes -> Bool in
            applyKeystream(bytes, nonce: nonce)
            return mic(tag: tag(plaintext: UnsafeRawBufferPointer(bytes), header: header, nonce: nonce), nonce: nonce)
                == micBytes
        }
        if !valid { plaintext.removeAll(keepingCapacity: true) }
        return valid
    }

    /// Encrypts `plaintext` (1…251 octets) and appends ciphertext ‖ MIC to `output`: what the
    /// link layer transmits as the payload. False (nothing appended) for an empty or too long
    /// payload: empty PDUs are never encrypted (Part E 1).
    @discardableResult
    public func encrypt(
        _ plaintext: ByteView, header: UInt8, counter: UInt64, direction: LinkLayerDirection,
        appendingTo output: inout [UInt8]
    ) -> Bool {
        guard plaintext.count >= 1, plaintext.count <= Self.maximumPlaintextLength else { return false }
        let nonce = nonceField(counter: counter, direction: direction)
        let mic = mic(tag: tag(plaintext: plaintext.base, header: header, nonce: nonce), nonce: nonce)
        let start = output.count
        output.append(contentsOf: plaintext.base)
        output.withUnsafeMutableBytes { bytes in
            applyKeystream(UnsafeMutableRawBufferPointer(rebasing: bytes[start...]), nonce: nonce)
        }
        for k in 0..<4 { output.append(UInt8(truncatingIfNeeded: mic >> (8 * (3 - UInt32(k))))) }
        return true
    }

    /// Convenience for tests and one-off use (allocates).
    public func decrypt(_ payload: [UInt8], header: UInt8, counter: UInt64, direction: LinkLayerDirection)
        -> [UInt8]?
    {
        var out: [UInt8] = []
        let ok = payload.withByteView {
            decrypt($0, header: header, counter: counter, direction: direction, into: &out)
        }
        return ok ? out : nil
    }

    /// Convenience for tests and one-off use (allocates).
    public func encrypt(_ plaintext: [UInt8], header: UInt8, counter: UInt64, direction: LinkLayerDirection)
        -> [UInt8]?
    {
        var out: [UInt8] = []
        let ok = plaintext.withByteView {
            encrypt($0, header: header, counter: counter, direction: direction, appendingTo: &out)
        }
        return ok ? out : nil
    }
}
