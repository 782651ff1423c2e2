/// A 48-bit Bluetooth device address. Stored as an integer whose most significant byte is the
/// first one written in the usual "C0:FF:EE:00:00:01" form (HCI carries it little-endian).
public struct BDAddr: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64

    @inlinable public init(rawValue: UInt64) { self.rawValue = rawValue & 0xFFFF_FFFF_FFFF }

    /// Reads 6 little-endian bytes at `offset`.
    @inlinable public init?(littleEndian view: ByteView, at offset: Int = 0) {
        guard view.contains(offset, 6) else { return nil }
        var v: UInt64 = 0
        for i in (0..<6).reversed() { v = v << 8 | UInt64(view.base[offset + i]) }
        self.init(rawValue: v)
    }

    /// Parses "C0:FF:EE:00:00:01" (also accepts '-' separators).
    public init?(_ text: String) {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "-" })
        guard parts.count == 6 else { return nil }
        var v: UInt64 = 0
        for p in parts {
            guard p.count == 2, let b = UInt8(p, radix: 16) else { return nil }
            v = v << 8 | UInt64(b)
        }
        self.init(rawValue: v)
    }

    /// Byte `i` in display order (0 = most significant).
    @inlinable public func byte(_ i: Int) -> UInt8 { UInt8(truncatingIfNeeded: rawValue >> UInt64(8 * (5 - i))) }

    public var description: String {
        var s = ""
        s.reserveCapacity(17)
        for i in 0..<6 {
            if i > 0 { s.append(":") }
            Hex.append(byte(i), to: &s)
        }
        return s
    }

    public static func < (a: BDAddr, b: BDAddr) -> Bool { a.rawValue < b.rawValue }
}
