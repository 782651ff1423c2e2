/// AES-128 block encryption (FIPS-197), the only cipher Bluetooth LE uses: the security
/// function `e` of Core 5.4 Vol 3 Part H 2.2.1 and the block cipher under the link layer's
/// AES-CCM (Vol 6 Part E 1).
///
/// Why our own and not OpenSSL's libcrypto: blecap only ever encrypts (CCM and the toolbox use
/// the forward cipher alone), the legacy-pairing brute force changes the key on every attempt
/// (a fresh key schedule each time, which libcrypto's EVP interface makes expensive), and a
/// system library would be one more `make deps` package and pkg-config target for ~150 lines.
/// This is the classic 32-bit T-table implementation: one table lookup per byte per round,
/// tables derived at first use from GF(2^8) arithmetic (no 256-entry literal to mistype),
/// verified against FIPS-197 Appendix C.1 and the Core specification's sample data.
/// Decryption is not implemented: nothing in Bluetooth LE needs it.
///
/// Values are `UInt128` in the specification's notation: the most significant octet is the
/// first byte AES sees (FIPS-197's `in[0]`), exactly as Vol 3 Part H 2.2 writes keys and blocks
/// ("0x4C68384139F574D836BCF34E9DFB01BF"). Bytes from the air are little-endian; convert with
/// `ByteView.littleEndianUInt128(at:)`.
///
/// No heap allocation and no array per key or per block: the eleven round keys are stored
/// properties (an array or `InlineArray` here cost a 176-octet copy per block in release builds,
/// two thirds of the brute force's time).
public struct AES128: Sendable {
    /// Round keys 0…10 (FIPS-197 5.2's w[4r…4r+3]), w[4r] in the top 32 bits.
    let k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10: UInt128

    public init(key: UInt128) {
        let t = AESTables.shared
        var w0 = UInt32(truncatingIfNeeded: key >> 96)
        var w1 = UInt32(truncatingIfNeeded: key >> 64)
        var w2 = UInt32(truncatingIfNeeded: key >> 32)
        var w3 = UInt32(truncatingIfNeeded: key)
        k0 = key
        // Rcon: x^(i-1) in GF(2^8), i = 1…10.
        k1 = t.nextRoundKey(&w0, &w1, &w2, &w3, rcon: 0x01)
        k2 = t.nextRoundKey(&w0, &w1, &w2, &w3, rcon: 0x02)
        k3 = t.nextRoundKey(&w0, &w1, &w2, &w3, rcon: 0x04)
        k4 = t.nextRoundKey(&w0, &w1, &w2, &w3, rcon: 0x08)
        k5 = t.nextRoundKey(&w0, &w1, &w2, &w3, rcon: 0x10)
        k6 = t.nextRoundKey(&w0, &w1, &w2, &w3, rcon: 0x20)
        k7 = t.nextRoundKey(&w0, &w1, &w2, &w3, rcon: 0x40)
        k8 = t.nextRoundKey(&w0, &w1, &w2, &w3, rcon: 0x80)
        k9 = t.nextRoundKey(&w0, &w1, &w2, &w3, rcon: 0x1B)
        k10 = t.nextRoundKey(&w0, &w1, &w2, &w3, rcon: 0x36)
    }

    /// One block: `encrypt(p)` is FIPS-197's Cipher(in, out, w) with in = p's octets, most
    /// significant first.
    public func encrypt(_ block: UInt128) -> UInt128 {
        let t = AESTables.shared
        let x = block ^ k0
        var s0 = UInt32(truncatingIfNeeded: x >> 96)
        var s1 = UInt32(truncatingIfNeeded: x >> 64)
        var s2 = UInt32(truncatingIfNeeded: x >> 32)
        var s3 = UInt32(truncatingIfNeeded: x)
        t.round(&s0, &s1, &s2, &s3, k1)
        t.round(&s0, &s1, &s2, &s3, k2)
        t.round(&s0, &s1, &s2, &s3, k3)
        t.round(&s0, &s1, &s2, &s3, k4)
        t.round(&s0, &s1, &s2, &s3, k5)
        t.round(&s0, &s1, &s2, &s3, k6)
        t.round(&s0, &s1, &s2, &s3, k7)
        t.round(&s0, &s1, &s2, &s3, k8)
        t.round(&s0, &s1, &s2, &s3, k9)
        // Round 10: no MixColumns, so the plain S-box.
        let o0 = t.shiftedSub(s0, s1, s2, s3)
        let o1 = t.shiftedSub(s1, s2, s3, s0)
        let o2 = t.shiftedSub(s2, s3, s0, s1)
        let o3 = t.shiftedSub(s3, s0, s1, s2)
        return (UInt128(o0) << 96 | UInt128(o1) << 64 | UInt128(o2) << 32 | UInt128(o3)) ^ k10
    }
}

/// The S-box and the four encryption T-tables, computed once, never freed (5 KiB).
struct AESTables: @unchecked Sendable {
    /// Te0…Te3, 256 words each, back to back.
    let te: UnsafePointer<UInt32>
    /// The S-box (FIPS-197 Figure 7).
    let sbox: UnsafePointer<UInt8>

    static let shared = AESTables()

    /// Multiplication by x (= 0x02) in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1.
    @inline(__always) static func xtime(_ a: UInt8) -> UInt8 { (a << 1) ^ (a & 0x80 != 0 ? 0x1B : 0) }

    private init() {
        // S-box: the multiplicative inverse followed by the affine map (FIPS-197 5.1.1). Walk
        // the field with the generator 3: p runs over 3^k, q over 3^-k, so q = p⁻¹ at each step.
        let sbox = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        var p: UInt8 = 1
        var q: UInt8 = 1
        repeat {
            p = p ^ AESTables.xtime(p)  // p · 3
            // q / 3: multiply by 3⁻¹ = 0xF6, written as the shift-xor chain 1 + x + x² + … .
            q ^= q << 1
            q ^= q << 2
            q ^= q << 4
            if q & 0x80 != 0 { q ^= 0x09 }
            let affine = q ^ Self.rotl(q, 1) ^ Self.rotl(q, 2) ^ Self.rotl(q, 3) ^ Self.rotl(q, 4)
            sbox[Int(p)] = affine ^ 0x63
        } while p != 1
        sbox[0] = 0x63  // 0 has no inverse; the affine map of 0
        let te = UnsafeMutablePointer<UInt32>.allocate(capacity: 1024)
        for x in 0..<256 {
            let s = sbox[x]
            let s2 = AESTables.xtime(s)
            let s3 = s2 ^ s
            // A column's contribution to MixColumns: (2s, s, s, 3s), top byte first.
            let word = UInt32(s2) << 24 | UInt32(s) << 16 | UInt32(s) << 8 | UInt32(s3)
            te[x] = word
            te[256 + x] = word >> 8 | word << 24
            te[512 + x] = word >> 16 | word << 16
            te[768 + x] = word >> 24 | word << 8
        }
        self.sbox = UnsafePointer(sbox)
        self.te = UnsafePointer(te)
    }

    @inline(__always) private static func rotl(_ v: UInt8, _ n: UInt8) -> UInt8 { v << n | v >> (8 - n) }

    /// Rounds 1…9: SubBytes, ShiftRows and MixColumns folded into the four T-tables (te[0…255]
    /// = Te0, te[256…] = Te1 = Te0 rotated by 8 bits, and so on), then AddRoundKey.
    @inline(__always) func round(
        _ s0: inout UInt32, _ s1: inout UInt32, _ s2: inout UInt32, _ s3: inout UInt32, _ k: UInt128
    ) {
        let t0 =
            te[Int(s0 >> 24)] ^ te[256 + Int((s1 >> 16) & 0xFF)] ^ te[512 + Int((s2 >> 8) & 0xFF)]
            ^ te[768 + Int(s3 & 0xFF)] ^ UInt32(truncatingIfNeeded: k >> 96)
        let t1 =
            te[Int(s1 >> 24)] ^ te[256 + Int((s2 >> 16) & 0xFF)] ^ te[512 + Int((s3 >> 8) & 0xFF)]
            ^ te[768 + Int(s0 & 0xFF)] ^ UInt32(truncatingIfNeeded: k >> 64)
        let t2 =
            te[Int(s2 >> 24)] ^ te[256 + Int((s3 >> 16) & 0xFF)] ^ te[512 + Int((s0 >> 8) & 0xFF)]
            ^ te[768 + Int(s1 & 0xFF)] ^ UInt32(truncatingIfNeeded: k >> 32)
        let t3 =
            te[Int(s3 >> 24)] ^ te[256 + Int((s0 >> 16) & 0xFF)] ^ te[512 + Int((s1 >> 8) & 0xFF)]
            ^ te[768 + Int(s2 & 0xFF)] ^ UInt32(truncatingIfNeeded: k)
        s0 = t0
        s1 = t1
        s2 = t2
        s3 = t3
    }

    /// The key schedule's next four words (FIPS-197 5.2): w[i] = w[i-4] ⊕ SubWord(RotWord(w[i-1]))
    /// ⊕ Rcon for the first, w[i-4] ⊕ w[i-1] for the others; returned as one round key. (A
    /// function with inout words, not a closure capturing them: a capturing closure boxes its
    /// variables on the heap in debug builds, once per key.)
    @inline(__always) func nextRoundKey(
        _ w0: inout UInt32, _ w1: inout UInt32, _ w2: inout UInt32, _ w3: inout UInt32, rcon: UInt32
    ) -> UInt128 {
        w0 ^= subWord((w3 << 8) | (w3 >> 24)) ^ (rcon << 24)
        w1 ^= w0
        w2 ^= w1
        w3 ^= w2
        return UInt128(w0) << 96 | UInt128(w1) << 64 | UInt128(w2) << 32 | UInt128(w3)
    }

    /// S-box applied to each byte of a word (the key schedule's SubWord).
    @inline(__always) func subWord(_ v: UInt32) -> UInt32 {
        UInt32(sbox[Int(v >> 24)]) << 24 | UInt32(sbox[Int((v >> 16) & 0xFF)]) << 16
            | UInt32(sbox[Int((v >> 8) & 0xFF)]) << 8 | UInt32(sbox[Int(v & 0xFF)])
    }

    /// The last round's column: SubBytes after ShiftRows takes byte 0 of a, 1 of b, 2 of c, 3 of d.
    @inline(__always) func shiftedSub(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32) -> UInt32 {
        UInt32(sbox[Int(a >> 24)]) << 24 | UInt32(sbox[Int((b >> 16) & 0xFF)]) << 16
            | UInt32(sbox[Int((c >> 8) & 0xFF)]) << 8 | UInt32(sbox[Int(d & 0xFF)])
    }
}
