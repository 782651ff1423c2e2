/// The LE legacy security toolbox of Core 5.4 Vol 3 Part H 2.2: the functions a captured
/// legacy pairing is recomputed with. Every argument and result is a number as the
/// specification writes it (`UInt128`, most significant octet first into AES); the wire's
/// little-endian octets become numbers through `ByteView.littleEndianUInt128(at:)`/`littleEndianUInt56(at:)`/`littleEndianUInt48(at:)`.
public enum SecurityFunction {
    /// Security function e (2.2.1): AES-128 of `plaintext` under `key`.
    @inlinable public static func e(_ key: UInt128, _ plaintext: UInt128) -> UInt128 {
        AES128(key: key).encrypt(plaintext)
    }

    /// c1's first operand p1 = pres || preq || rat' || iat' (2.2.3): the two 56-bit pairing
    /// PDUs (little-endian octets read as numbers) and the address types, 0 public, 1 random.
    @inlinable public static func c1P1(preq: UInt64, pres: UInt64, iat: UInt8, rat: UInt8) -> UInt128 {
        let mask56: UInt64 = 0x00FF_FFFF_FFFF_FFFF
        return UInt128(pres & mask56) << 72 | UInt128(preq & mask56) << 16 | UInt128(rat & 1) << 8
            | UInt128(iat & 1)
    }

    /// c1's second operand p2 = padding || ia || ra (2.2.3), addresses as 48-bit numbers.
    @inlinable public static func c1P2(ia: UInt64, ra: UInt64) -> UInt128 {
        let mask48: UInt64 = 0xFFFF_FFFF_FFFF
        return UInt128(ia & mask48) << 48 | UInt128(ra & mask48)
    }

    /// Confirm value generation function c1 (2.2.3): e(k, e(k, r ⊕ p1) ⊕ p2). Mconfirm is
    /// c1(TK, Mrand, …), Sconfirm c1(TK, Srand, …).
    @inlinable public static func c1(
        k: UInt128, r: UInt128, preq: UInt64, pres: UInt64, iat: UInt8, ia: UInt64, rat: UInt8, ra: UInt64
    ) -> UInt128 {
        c1(k: k, r: r, p1: c1P1(preq: preq, pres: pres, iat: iat, rat: rat), p2: c1P2(ia: ia, ra: ra))
    }

    /// c1 with p1 and p2 already built: the brute force keeps them and varies k only.
    @inlinable public static func c1(k: UInt128, r: UInt128, p1: UInt128, p2: UInt128) -> UInt128 {
        let aes = AES128(key: k)
        return aes.encrypt(aes.encrypt(r ^ p1) ^ p2)
    }

    /// Key generation function s1 (2.2.4): e(k, r1' || r2'), r1' and r2' the least significant
    /// 64 bits of r1 and r2. The STK is s1(TK, Srand, Mrand).
    @inlinable public static func s1(k: UInt128, r1: UInt128, r2: UInt128) -> UInt128 {
        let low64: UInt128 = 0xFFFF_FFFF_FFFF_FFFF
        return e(k, (r1 & low64) << 64 | (r2 & low64))
    }

    /// The STK of LE legacy pairing, s1(TK, Srand, Mrand), cut to the negotiated key size in
    /// octets (2.3.4: the most significant octets zeroed).
    @inlinable public static func shortTermKey(tk: UInt128, srand: UInt128, mrand: UInt128, keySize: Int) -> UInt128 {
        let stk = s1(k: tk, r1: srand, r2: mrand)
        return keySize >= 16 ? stk : stk & ((UInt128(1) << (8 * max(0, keySize))) - 1)
    }

    /// Random address hash function ah (2.2.2): e(k, padding || r) mod 2^24, r the 24-bit prand
    /// of a resolvable private address, k an IRK.
    @inlinable public static func ah(k: UInt128, r: UInt32) -> UInt32 {
        UInt32(truncatingIfNeeded: e(k, UInt128(r & 0xFF_FFFF))) & 0xFF_FFFF
    }

    /// Whether a resolvable private address (48-bit number: hash in the low 24 bits, prand with
    /// its top bits 0b01 in the high 24) was generated from `irk` (Vol 6 Part B 1.3.2.3).
    @inlinable public static func resolves(address: UInt64, irk: UInt128) -> Bool {
        let prand = UInt32(truncatingIfNeeded: address >> 24) & 0xFF_FFFF
        guard prand >> 22 == 0b01 else { return false }
        return ah(k: irk, r: prand) == UInt32(truncatingIfNeeded: address) & 0xFF_FFFF
    }
}

// MARK: LE Secure Connections (2.2.5–2.2.7)

extension SecurityFunction {
    /// AES-CMAC (RFC 4493) of `message` (octets, most significant first as the specification
    /// writes m) under `key`: the MAC every LE Secure Connections function is built from.
    public static func aesCMAC(key: UInt128, _ message: [UInt8]) -> UInt128 {
        let aes = AES128(key: key)
        func shifted(_ v: UInt128) -> UInt128 { v << 1 ^ (v >> 127 == 1 ? 0x87 : 0) }
        let k1 = shifted(aes.encrypt(0))
        let k2 = shifted(k1)
        func block(_ start: Int, _ count: Int) -> UInt128 {
            var v: UInt128 = 0
            for i in 0..<16 {
                let octet: UInt8 = i < count ? message[start + i] : (i == count ? 0x80 : 0)
                v = v << 8 | UInt128(octet)
            }
            return v
        }
        let blocks = max(1, (message.count + 15) / 16)
        var x: UInt128 = 0
        for n in 0..<blocks - 1 { x = aes.encrypt(x ^ block(16 * n, 16)) }
        let lastStart = 16 * (blocks - 1)
        let lastCount = message.count - lastStart
        let last = lastCount == 16 ? block(lastStart, 16) ^ k1 : block(lastStart, lastCount) ^ k2
        return aes.encrypt(x ^ last)
    }

    /// Key generation function f5 (2.2.7): MacKey and LTK from the DHKey `w`, the two Pairing
    /// Random values (N1 the initiator's) and the addresses as 56-bit numbers: the address type
    /// (0 public, 1 random) in the top octet, then the 48-bit address.
    public static func f5(w: [UInt8], n1: UInt128, n2: UInt128, a1: UInt64, a2: UInt64) -> (
        macKey: UInt128, ltk: UInt128
    ) {
        let salt: UInt128 = 0x6C88_8391_AAF5_A538_6037_0BDB_5A60_83BE
        let t = aesCMAC(key: salt, w)
        func octets(_ v: UInt128) -> [UInt8] { (0..<16).map { UInt8(truncatingIfNeeded: v >> (120 - 8 * $0)) } }
        func octets56(_ v: UInt64) -> [UInt8] { (0..<7).map { UInt8(truncatingIfNeeded: v >> (48 - 8 * $0)) } }
        // Counter ‖ keyID "btle" ‖ N1 ‖ N2 ‖ A1 ‖ A2 ‖ Length 256.
        let body = [0x62, 0x74, 0x6C, 0x65] + octets(n1) + octets(n2) + octets56(a1) + octets56(a2) + [0x01, 0x00]
        return (aesCMAC(key: t, [0] + body), aesCMAC(key: t, [1] + body))
    }
}

extension SecurityFunction {
    /// Confirm value generation function f4 (2.2.6): AES-CMAC_X(U ‖ V ‖ Z), U and V the public
    /// keys' x coordinates (32 octets each, most significant first), Z one octet (0 for Just
    /// Works and Numeric Comparison).
    public static func f4(u: [UInt8], v: [UInt8], x: UInt128, z: UInt8) -> UInt128 {
        aesCMAC(key: x, u + v + [z])
    }

    /// Check value generation function f6 (2.2.8): AES-CMAC_W(N1 ‖ N2 ‖ R ‖ IOcap ‖ A1 ‖ A2).
    /// IOcap is AuthReq, OOB data flag and IO capability, most significant first (3 octets);
    /// A1 and A2 as in `f5` (the type in the top octet of 56 bits).
    public static func f6(
        w: UInt128, n1: UInt128, n2: UInt128, r: UInt128, ioCap: UInt32, a1: UInt64, a2: UInt64
    ) -> UInt128 {
        func octets(_ v: UInt128) -> [UInt8] { (0..<16).map { UInt8(truncatingIfNeeded: v >> (120 - 8 * $0)) } }
        func octets56(_ v: UInt64) -> [UInt8] { (0..<7).map { UInt8(truncatingIfNeeded: v >> (48 - 8 * $0)) } }
        let io = (0..<3).map { UInt8(truncatingIfNeeded: ioCap >> (16 - 8 * $0)) }
        return aesCMAC(key: w, octets(n1) + octets(n2) + octets(r) + io + octets56(a1) + octets56(a2))
    }
}
