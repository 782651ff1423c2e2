/// A growable byte buffer written front to back: the mirror of `ByteView`/`ByteReader`.
///
/// Every multi-byte append names its byte order (`appendUInt16LE`, `appendUInt32BE` …), as the
/// reader's `u16le`/`u32be` do, so an encoder reads like the decoder beside it. Encoders in
/// BLEPackets append a PDU with `append(to: &writer)`; `bytes` is the result.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inlinable public var count: Int { bytes.count }

    public mutating func appendUInt8(_ v: UInt8) { bytes.append(v) }
    public mutating func appendInt8(_ v: Int8) { bytes.append(UInt8(bitPattern: v)) }

    public mutating func appendUInt16LE(_ v: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: v))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
    }

    public mutating func appendUInt16BE(_ v: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }

    /// 24-bit little-endian (the mirror of `ByteView.u24le`); the top byte of `v` is dropped.
    public mutating func appendUInt24LE(_ v: UInt32) {
        for i in 0..<3 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) }
    }

    public mutating func appendUInt32LE(_ v: UInt32) {
        for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) }
    }

    public mutating func appendUInt32BE(_ v: UInt32) {
        for i in (0..<4).reversed() { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) }
    }

    public mutating func appendUInt64LE(_ v: UInt64) {
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }

    public mutating func appendUInt64BE(_ v: UInt64) {
        for i in (0..<8).reversed() { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }

    /// A 48-bit device address, least significant byte first (the mirror of
    /// `BDAddr(littleEndian:at:)` and `ByteReader.address()`).
    public mutating func appendAddress(_ a: BDAddr) {
        for i in 0..<6 { bytes.append(UInt8(truncatingIfNeeded: a.rawValue >> (8 * UInt64(i)))) }
    }

    /// A UUID little-endian in `width` bytes (2, 4 or 16; the mirror of
    /// `BluetoothUUID(littleEndian:)`). A UUID that has no alias of that width is written in 16.
    public mutating func appendUUID(_ u: BluetoothUUID, width: Int) {
        if width == 2, let v = u.uuid16 {
            appendUInt16LE(v)
        } else if width == 4, let v = u.uuid32 {
            appendUInt32LE(v)
        } else {
            appendUInt64LE(u.low)
            appendUInt64LE(u.high)
        }
    }

    public mutating func appendBytes(_ v: ByteView) { bytes.append(contentsOf: v.base) }
    public mutating func appendBytes(_ v: some Sequence<UInt8>) { bytes.append(contentsOf: v) }
    public mutating func appendZeros(_ n: Int) { bytes.append(contentsOf: repeatElement(0, count: Swift.max(0, n))) }

    /// Overwrites the byte at `offset` (a length written once the body is known).
    public mutating func setUInt8(_ v: UInt8, at offset: Int) { bytes[offset] = v }

    public mutating func setUInt16LE(_ v: UInt16, at offset: Int) {
        bytes[offset] = UInt8(truncatingIfNeeded: v)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: v >> 8)
    }

    public mutating func setUInt32LE(_ v: UInt32, at offset: Int) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(i))) }
    }

    /// Drops everything after the first `count` bytes (an entry that turned out not to fit).
    public mutating func truncate(to count: Int) { bytes.removeLast(Swift.max(0, bytes.count - count)) }
}

/// A value that can write itself into a `ByteWriter`.
public protocol ByteEncodable {
    func append(to writer: inout ByteWriter)
}

extension ByteEncodable {
    /// The encoded bytes (allocates: one array per call).
    public func encoded() -> [UInt8] {
        var w = ByteWriter()
        append(to: &w)
        return w.bytes
    }
}
