import BLEBytes

// Keys, random numbers and confirm values travel little-endian (least significant octet first)
// in SMP and LL PDUs; the specification writes and computes them as numbers. These helpers are
// the only place the two orders meet.

extension ByteView {
    /// 16 octets, least significant first (an SMP key or random value, an LL SKD), as a number.
    @inlinable public func littleEndianUInt128(at offset: Int) -> UInt128? {
        guard let low = u64le(offset), let high = u64le(offset + 8) else { return nil }
        return UInt128(high) << 64 | UInt128(low)
    }

    /// 7 octets, least significant first (an SMP Pairing Request/Response PDU as c1's preq/pres).
    @inlinable public func littleEndianUInt56(at offset: Int) -> UInt64? {
        guard let low = u32le(offset), let high = u24le(offset + 4) else { return nil }
        return UInt64(high) << 32 | UInt64(low)
    }

    /// 6 octets, least significant first (a device address as c1's ia/ra).
    @inlinable public func littleEndianUInt48(at offset: Int) -> UInt64? {
        guard let low = u32le(offset), let high = u16le(offset + 4) else { return nil }
        return UInt64(high) << 32 | UInt64(low)
    }
}

extension UInt128 {
    /// The octets least significant first, as the value travels over the air.
    public var littleEndianOctets: [UInt8] { (0..<16).map { UInt8(truncatingIfNeeded: self >> (8 * $0)) } }

    /// The octets most significant first, as the specification and crackle print a key.
    public var bigEndianOctets: [UInt8] { littleEndianOctets.reversed() }

    /// 32 lowercase hex digits, most significant first ("7f62c053f104a5bbe68b1d896a2ed49c").
    public var hexMSBFirst: String { Hex.string(bigEndianOctets) }

    /// A value written most significant octet first ("0x4C68…01BF", spaces allowed); nil unless
    /// exactly 16 octets.
    public init?(hexMSBFirst text: String) {
        var t = Substring(text)
        if t.hasPrefix("0x") || t.hasPrefix("0X") { t = t.dropFirst(2) }
        guard let bytes = Hex.bytes(String(t)), bytes.count == 16 else { return nil }
        self = bytes.reduce(0) { $0 << 8 | UInt128($1) }
    }
}
