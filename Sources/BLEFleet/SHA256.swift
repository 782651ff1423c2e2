import CSHA256

/// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), in Swift: blecap links no crypto library,
/// and batch mode needs only these two (content hashes of inputs, keyed pseudonyms). On an x86
/// CPU with the SHA extensions the blocks go through them (CSHA256): the Swift compression was
/// 19 % of batch mode's instructions, about 70 a byte (docs/performance.md).
public struct SHA256: Sendable {
    /// Whether this CPU has the x86 SHA extensions (CPUID, asked once per process).
    public static let hardwareAvailable: Bool = blecap_sha256_hw_available() != 0

    /// Whether this hasher's blocks go through the SHA extensions.
    public let usesHardware: Bool
    private var h: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    private var block = [UInt8](repeating: 0, count: 64)
    private var blockCount = 0
    private var length: UInt64 = 0

    public init() { usesHardware = Self.hardwareAvailable }

    /// `hardware: false` keeps to the portable Swift code, which is what other CPUs run (the tests
    /// compare the two paths); `true` is honoured only where the CPU has the extensions.
    public init(hardware: Bool) { usesHardware = hardware && Self.hardwareAvailable }

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var i = 0
        if blockCount > 0 {
            while blockCount < 64 && i < bytes.count {
                block[blockCount] = bytes[i]
                blockCount += 1
                i += 1
            }
            if blockCount < 64 { return }
            block.withUnsafeBytes { Self.compress(&h, blocks: $0, hardware: usesHardware) }
            blockCount = 0
        }
        // Whole blocks are compressed where they lie: copying them a byte at a time into `block`
        // first cost batch mode 11 to 15 % of its CPU time in hashing its inputs (perf, 2,001
        // generated bug reports).
        let whole = (bytes.count - i) & ~63
        if whole > 0 {
            Self.compress(&h, blocks: UnsafeRawBufferPointer(rebasing: bytes[i..<(i + whole)]), hardware: usesHardware)
            i += whole
        }
        while i < bytes.count {
            block[blockCount] = bytes[i]
            blockCount += 1
            i += 1
        }
    }

    public mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    public mutating func finish() -> [UInt8] {
        let bits = length &* 8
        var pad: [UInt8] = [0x80]
        let used = (blockCount + 1) % 64
        pad += [UInt8](repeating: 0, count: used <= 56 ? 56 - used : 120 - used)
        for i in (0..<8).reversed() { pad.append(UInt8(truncatingIfNeeded: bits >> (UInt64(i) * 8))) }
        let saved = length
        update(pad)
        length = saved
        var out: [UInt8] = []
        for word in h { for s in [24, 16, 8, 0] { out.append(UInt8(truncatingIfNeeded: word >> UInt32(s))) } }
        return out
    }

    /// Whole 64-byte blocks into the state `h`: all of them in one call to the SHA extensions, or
    /// one by one in Swift.
    private static func compress(_ h: inout [UInt32], blocks: UnsafeRawBufferPointer, hardware: Bool) {
        guard let base = blocks.baseAddress, blocks.count >= 64 else { return }
        if hardware {
            h.withUnsafeMutableBufferPointer {
                blecap_sha256_hw_compress($0.baseAddress!, base.assumingMemoryBound(to: UInt8.self), blocks.count / 64)
            }
            return
        }
        var i = 0
        while i + 64 <= blocks.count {
            compress(&h, UnsafeRawBufferPointer(rebasing: blocks[i..<(i + 64)]))
            i += 64
        }
    }

    /// One 64-byte block into the state `h`; the message schedule lives on the stack.
    private static func compress(_ h: inout [UInt32], _ block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for i in 0..<16 {
                w[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self))
            }
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            k.withUnsafeBufferPointer { k in
                for i in 0..<64 {
                    let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                    let ch = (e & f) ^ (~e & g)
                    let t1 = hh &+ s1 &+ ch &+ k[i] &+ w[i]
                    let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                    let maj = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ maj
                    (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
            }
            h[0] &+= a
            h[1] &+= b
            h[2] &+= c
            h[3] &+= d
            h[4] &+= e
            h[5] &+= f
            h[6] &+= g
            h[7] &+= hh
        }
    }

    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

    /// The digest of `bytes` in one call.
    public static func hash(_ bytes: [UInt8], hardware: Bool = SHA256.hardwareAvailable) -> [UInt8] {
        var s = SHA256(hardware: hardware)
        s.update(bytes)
        return s.finish()
    }

    /// HMAC-SHA256 of `message` under `key` (RFC 2104; keys longer than a block are hashed).
    public static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        HMACSHA256(key: key).mac(message)
    }
}

/// HMAC-SHA256 under one key (RFC 2104), the key's two padded blocks hashed once: each MAC of a
/// short message then compresses two blocks, not four (a fleet row's pseudonyms are one MAC
/// each, and every row of a capture with a peer has one).
public struct HMACSHA256: Sendable {
    /// The states after the key XOR ipad block and after the key XOR opad block.
    let inner: SHA256
    let outer: SHA256

    public init(key: [UInt8]) {
        var k = key.count > 64 ? SHA256.hash(key) : key
        k += [UInt8](repeating: 0, count: 64 - k.count)
        var inner = SHA256()
        inner.update(k.map { $0 ^ 0x36 })
        var outer = SHA256()
        outer.update(k.map { $0 ^ 0x5c })
        self.inner = inner
        self.outer = outer
    }

    public func mac(_ message: [UInt8]) -> [UInt8] {
        var i = inner
        i.update(message)
        var o = outer
        o.update(i.finish())
        return o.finish()
    }
}

extension Array where Element == UInt8 {
    /// Lower-case hexadecimal, two digits a byte.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count * 2)
        for b in self {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
