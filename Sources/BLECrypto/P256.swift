/// NIST P-256 (secp256r1), just enough for LE Secure Connections' DHKey (Core 5.4 Vol 3 Part H
/// 2.3.5.6.1): a scalar times a point, the result's x coordinate.
///
/// Why here and not a library: blecap computes one DHKey per LE Secure Connections pairing made
/// with the debug key, whose private key the specification publishes; that is a few thousand
/// field multiplications once, where swift-crypto would add BoringSSL to every build. Nothing
/// here is secret or constant-time: the only private key it is used with is public.
///
/// Numbers are 256-bit, four 64-bit limbs least significant first. Field elements are kept in
/// Montgomery form (a·2^256 mod p); points in Jacobian coordinates (x = X/Z², y = Y/Z³), Z = 0
/// being the point at infinity, so the one inversion happens at the end.
public enum P256 {
    /// A 256-bit unsigned number.
    public struct Number: Sendable, Hashable {
        public var l0, l1, l2, l3: UInt64

        public init(_ l0: UInt64, _ l1: UInt64, _ l2: UInt64, _ l3: UInt64) {
            (self.l0, self.l1, self.l2, self.l3) = (l0, l1, l2, l3)
        }

        /// 32 octets, most significant first (how the specification writes keys); nil otherwise.
        public init?(bigEndian octets: [UInt8]) {
            guard octets.count == 32 else { return nil }
            func word(_ i: Int) -> UInt64 { octets[(3 - i) * 8..<(4 - i) * 8].reduce(0) { $0 << 8 | UInt64($1) } }
            self.init(word(0), word(1), word(2), word(3))
        }

        /// 32 octets, most significant first.
        public var bigEndianOctets: [UInt8] {
            [l3, l2, l1, l0].flatMap { w in (0..<8).map { UInt8(truncatingIfNeeded: w >> (56 - 8 * $0)) } }
        }

        subscript(i: Int) -> UInt64 {
            get {
                switch i {
                case 0: l0
                case 1: l1
                case 2: l2
                default: l3
                }
            }
            set {
                switch i {
                case 0: l0 = newValue
                case 1: l1 = newValue
                case 2: l2 = newValue
                default: l3 = newValue
                }
            }
        }

        static let zero = Number(0, 0, 0, 0)
        var isZero: Bool { l0 | l1 | l2 | l3 == 0 }
        func bit(_ i: Int) -> Bool { self[i / 64] >> UInt64(i % 64) & 1 == 1 }

        static func < (a: Number, b: Number) -> Bool {
            for i in stride(from: 3, through: 0, by: -1) where a[i] != b[i] { return a[i] < b[i] }
            return false
        }

        /// a + b and the carry out.
        static func add(_ a: Number, _ b: Number) -> (Number, Bool) {
            var r = Number.zero
            var carry: UInt64 = 0
            for i in 0..<4 {
                let (s1, o1) = a[i].addingReportingOverflow(b[i])
                let (s2, o2) = s1.addingReportingOverflow(carry)
                r[i] = s2
                carry = (o1 ? 1 : 0) + (o2 ? 1 : 0)
            }
            return (r, carry != 0)
        }

        /// a − b and the borrow out.
        static func subtract(_ a: Number, _ b: Number) -> (Number, Bool) {
            var r = Number.zero
            var borrow: UInt64 = 0
            for i in 0..<4 {
                let (d1, o1) = a[i].subtractingReportingOverflow(b[i])
                let (d2, o2) = d1.subtractingReportingOverflow(borrow)
                r[i] = d2
                borrow = (o1 ? 1 : 0) + (o2 ? 1 : 0)
            }
            return (r, borrow != 0)
        }
    }

    /// p = 2^256 − 2^224 + 2^192 + 2^96 − 1.
    static let p = Number(0xFFFF_FFFF_FFFF_FFFF, 0x0000_0000_FFFF_FFFF, 0, 0xFFFF_FFFF_0000_0001)
    /// b of y² = x³ − 3x + b.
    static let b = Number(0x3BCE_3C3E_27D2_604B, 0x651D_06B0_CC53_B0F6, 0xB3EB_BD55_7698_86BC, 0x5AC6_35D8_AA3A_93E7)
    /// The base point G.
    public static let gx = Number(
        0xF4A1_3945_D898_C296, 0x7703_7D81_2DEB_33A0, 0xF8BC_E6E5_63A4_40F2, 0x6B17_D1F2_E12C_4247)
    public static let gy = Number(
        0xCBB6_4068_37BF_51F5, 0x2BCE_3357_6B31_5ECE, 0x8EE7_EB4A_7C0F_9E16, 0x4FE3_42E2_FE1A_7F9B)

    /// −p⁻¹ mod 2^64 (Montgomery's n0′), by Newton's iteration on p's low limb.
    static let n0: UInt64 = {
        var inverse: UInt64 = 1
        for _ in 0..<6 { inverse = inverse &* (2 &- p[0] &* inverse) }
        return 0 &- inverse
    }()

    /// 2^512 mod p, to enter Montgomery form: 2^256 mod p doubled 256 times.
    static let rSquared: Number = {
        var r = Number.subtract(.zero, p).0  // 2^256 − p = 2^256 mod p (p > 2^255)
        for _ in 0..<256 { r = add(r, r) }
        return r
    }()

    // MARK: the field, in Montgomery form

    static func add(_ a: Number, _ b: Number) -> Number {
        let (s, carry) = Number.add(a, b)
        return carry || !(s < p) ? Number.subtract(s, p).0 : s
    }

    static func subtract(_ a: Number, _ b: Number) -> Number {
        let (d, borrow) = Number.subtract(a, b)
        return borrow ? Number.add(d, p).0 : d
    }

    /// a·b·2^−256 mod p (CIOS Montgomery multiplication).
    static func multiply(_ a: Number, _ b: Number) -> Number {
        var t = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        func get(_ i: Int) -> UInt64 {
            switch i {
            case 0: t.0
            case 1: t.1
            case 2: t.2
            case 3: t.3
            case 4: t.4
            default: t.5
            }
        }
        func set(_ i: Int, _ v: UInt64) {
            switch i {
            case 0: t.0 = v
            case 1: t.1 = v
            case 2: t.2 = v
            case 3: t.3 = v
            case 4: t.4 = v
            default: t.5 = v
            }
        }
        // x·y + c + d fits in 128 bits.
        func mulAdd(_ x: UInt64, _ y: UInt64, _ c: UInt64, _ d: UInt64) -> (high: UInt64, low: UInt64) {
            let (h, l) = x.multipliedFullWidth(by: y)
            let (l1, o1) = l.addingReportingOverflow(c)
            let (l2, o2) = l1.addingReportingOverflow(d)
            return (h &+ (o1 ? 1 : 0) &+ (o2 ? 1 : 0), l2)
        }
        for i in 0..<4 {
            var carry: UInt64 = 0
            for j in 0..<4 {
                let r = mulAdd(a[j], b[i], get(j), carry)
                set(j, r.low)
                carry = r.high
            }
            let (s, o) = get(4).addingReportingOverflow(carry)
            set(4, s)
            set(5, o ? 1 : 0)
            let m = get(0) &* n0
            carry = mulAdd(m, p[0], get(0), 0).high
            for j in 1..<4 {
                let r = mulAdd(m, p[j], get(j), carry)
                set(j - 1, r.low)
                carry = r.high
            }
            let (s2, o2) = get(4).addingReportingOverflow(carry)
            set(3, s2)
            set(4, get(5) &+ (o2 ? 1 : 0))
        }
        let r = Number(t.0, t.1, t.2, t.3)
        return t.4 != 0 || !(r < p) ? Number.subtract(r, p).0 : r
    }

    static func toMontgomery(_ a: Number) -> Number {
        multiply(a < p ? a : Number.subtract(a, p).0, rSquared)
    }

    static func fromMontgomery(_ a: Number) -> Number { multiply(a, Number(1, 0, 0, 0)) }

    /// a^(p−2) = a⁻¹ (Fermat); 0 for 0.
    static func invert(_ a: Number) -> Number {
        let exponent = Number.subtract(p, Number(2, 0, 0, 0)).0
        var result = toMontgomery(Number(1, 0, 0, 0))
        for i in stride(from: 255, through: 0, by: -1) {
            result = multiply(result, result)
            if exponent.bit(i) { result = multiply(result, a) }
        }
        return result
    }

    // MARK: points (Jacobian, Montgomery form)

    struct Point {
        var x: Number
        var y: Number
        var z: Number
        var isInfinity: Bool { z.isZero }
        static let infinity = Point(x: .zero, y: .zero, z: .zero)
    }

    /// 2P for a = −3 (dbl-2001-b).
    static func double(_ q: Point) -> Point {
        guard !q.isInfinity, !q.y.isZero else { return .infinity }
        let delta = multiply(q.z, q.z)
        let gamma = multiply(q.y, q.y)
        let beta = multiply(q.x, gamma)
        let t = multiply(subtract(q.x, delta), add(q.x, delta))
        let alpha = add(add(t, t), t)
        let beta4 = add(add(beta, beta), add(beta, beta))
        let x3 = subtract(multiply(alpha, alpha), add(beta4, beta4))
        let yz = add(q.y, q.z)
        let z3 = subtract(subtract(multiply(yz, yz), gamma), delta)
        let gamma2 = multiply(gamma, gamma)
        let gamma8 = add(add(add(gamma2, gamma2), add(gamma2, gamma2)), add(add(gamma2, gamma2), add(gamma2, gamma2)))
        let y3 = subtract(multiply(alpha, subtract(beta4, x3)), gamma8)
        return Point(x: x3, y: y3, z: z3)
    }

    /// P + Q (add-2007-bl), with the cases that formula leaves out.
    static func add(_ p1: Point, _ p2: Point) -> Point {
        if p1.isInfinity { return p2 }
        if p2.isInfinity { return p1 }
        let z1z1 = multiply(p1.z, p1.z)
        let z2z2 = multiply(p2.z, p2.z)
        let u1 = multiply(p1.x, z2z2)
        let u2 = multiply(p2.x, z1z1)
        let s1 = multiply(multiply(p1.y, p2.z), z2z2)
        let s2 = multiply(multiply(p2.y, p1.z), z1z1)
        let h = subtract(u2, u1)
        let rHalf = subtract(s2, s1)
        if h.isZero { return rHalf.isZero ? double(p1) : .infinity }
        let h2 = add(h, h)
        let i = multiply(h2, h2)
        let j = multiply(h, i)
        let r = add(rHalf, rHalf)
        let v = multiply(u1, i)
        let x3 = subtract(subtract(multiply(r, r), j), add(v, v))
        let s1j = multiply(s1, j)
        let y3 = subtract(multiply(r, subtract(v, x3)), add(s1j, s1j))
        let zs = add(p1.z, p2.z)
        let z3 = multiply(subtract(subtract(multiply(zs, zs), z1z1), z2z2), h)
        return Point(x: x3, y: y3, z: z3)
    }

    /// Whether (x, y) satisfies y² = x³ − 3x + b (both below p).
    public static func isOnCurve(x: Number, y: Number) -> Bool {
        guard x < p, y < p else { return false }
        let mx = toMontgomery(x)
        let my = toMontgomery(y)
        let x3 = multiply(multiply(mx, mx), mx)
        let threeX = add(add(mx, mx), mx)
        let rhs = add(subtract(x3, threeX), toMontgomery(b))
        return multiply(my, my) == rhs
    }

    /// k·(x, y), affine; nil when the point is not on the curve or the result is infinity.
    public static func multiply(_ k: Number, x: Number, y: Number) -> (x: Number, y: Number)? {
        guard isOnCurve(x: x, y: y) else { return nil }
        let base = Point(x: toMontgomery(x), y: toMontgomery(y), z: toMontgomery(Number(1, 0, 0, 0)))
        var result = Point.infinity
        for i in stride(from: 255, through: 0, by: -1) {
            result = double(result)
            if k.bit(i) { result = add(result, base) }
        }
        guard !result.isInfinity else { return nil }
        let zInverse = invert(result.z)
        let z2 = multiply(zInverse, zInverse)
        return (fromMontgomery(multiply(result.x, z2)), fromMontgomery(multiply(result.y, multiply(z2, zInverse))))
    }

    /// The LE Secure Connections DHKey (Vol 3 Part H 2.3.5.6.1): the x coordinate of
    /// privateKey·(peer's public key), most significant octet first; nil for a point off the curve.
    public static func dhKey(privateKey: Number, peerX: Number, peerY: Number) -> Number? {
        multiply(privateKey, x: peerX, y: peerY)?.x
    }
}
