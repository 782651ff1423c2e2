/// A non-owning, bounds-checked view of bytes.
///
/// Every read is optional and non-advancing, with explicit endianness (as swift-nio's
/// `ByteBuffer.getInteger(at:endianness:)`): an out-of-range read returns `nil` instead of
/// trapping, so a decoder fed hostile bytes can fail softly and keep the valid part.
///
/// Lifetime: a `ByteView` borrows memory owned by someone else (a reader's buffer, an array in
/// `withByteView`). It is valid only as long as that owner says so — for capture records, until
/// the reader's next `next()` call. Copy with `toArray()` to keep the bytes.
public struct ByteView: @unchecked Sendable {
    public let base: UnsafeRawBufferPointer

    @inlinable public init(_ base: UnsafeRawBufferPointer) { self.base = base }

    public static let empty = ByteView(UnsafeRawBufferPointer(start: nil, count: 0))

    @inlinable public var count: Int { base.count }
    @inlinable public var isEmpty: Bool { base.count == 0 }

    /// Whether `length` bytes starting at `offset` lie inside the view (overflow-safe).
    @inlinable public func contains(_ offset: Int, _ length: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= base.count && length <= base.count - offset
    }

    @inlinable @inline(__always) public func u8(_ offset: Int) -> UInt8? {
        guard offset >= 0, offset < base.count else { return nil }
        return base[offset]
    }

    @inlinable public func i8(_ offset: Int) -> Int8? { u8(offset).map { Int8(bitPattern: $0) } }

    @inlinable @inline(__always) func load<T: FixedWidthInteger>(_ offset: Int, as: T.Type) -> T? {
        guard contains(offset, MemoryLayout<T>.size) else { return nil }
        return base.loadUnaligned(fromByteOffset: offset, as: T.self)
    }

    @inlinable @inline(__always) public func u16le(_ offset: Int) -> UInt16? {
        load(offset, as: UInt16.self).map(UInt16.init(littleEndian:))
    }
    @inlinable public func u16be(_ offset: Int) -> UInt16? {
        load(offset, as: UInt16.self).map(UInt16.init(bigEndian:))
    }
    @inlinable public func u32le(_ offset: Int) -> UInt32? {
        load(offset, as: UInt32.self).map(UInt32.init(littleEndian:))
    }
    @inlinable public func u32be(_ offset: Int) -> UInt32? {
        load(offset, as: UInt32.self).map(UInt32.init(bigEndian:))
    }
    @inlinable public func u64le(_ offset: Int) -> UInt64? {
        load(offset, as: UInt64.self).map(UInt64.init(littleEndian:))
    }
    @inlinable public func u64be(_ offset: Int) -> UInt64? {
        load(offset, as: UInt64.self).map(UInt64.init(bigEndian:))
    }

    /// 24-bit little-endian (HCI class of device, LE event masks, SMP passkeys …).
    @inlinable public func u24le(_ offset: Int) -> UInt32? {
        guard contains(offset, 3) else { return nil }
        return UInt32(base[offset]) | UInt32(base[offset + 1]) << 8 | UInt32(base[offset + 2]) << 16
    }

    // The sub-views below are made from the checked offset and count directly rather than by
    // rebasing a slice (whose range checks repeat the guard), and always inlined: as calls they
    // cost several calls per frame in every decoder (docs/performance.md).

    /// `length` bytes from `offset`, or nil if they are not all there.
    @inlinable @inline(__always) public func slice(_ offset: Int, _ length: Int) -> ByteView? {
        guard contains(offset, length) else { return nil }
        return ByteView(UnsafeRawBufferPointer(start: base.baseAddress.map { $0 + offset }, count: length))
    }

    /// Everything from `offset` on (empty at `count`), or nil past the end.
    @inlinable @inline(__always) public func suffix(from offset: Int) -> ByteView? {
        guard offset >= 0, offset <= base.count else { return nil }
        return ByteView(UnsafeRawBufferPointer(start: base.baseAddress.map { $0 + offset }, count: base.count - offset))
    }

    /// The first `length` bytes, or the whole view if it is shorter.
    @inlinable @inline(__always) public func prefix(_ length: Int) -> ByteView {
        ByteView(UnsafeRawBufferPointer(start: base.baseAddress, count: Swift.min(Swift.max(length, 0), base.count)))
    }

    /// Without the trailing bytes that match `drop` (the NULs and line ends of C strings and
    /// log lines).
    @inlinable public func droppingTrailing(where drop: (UInt8) -> Bool) -> ByteView {
        var n = base.count
        while n > 0, drop(base[n - 1]) { n -= 1 }
        return prefix(n)
    }

    /// Copies the bytes out (allocates: not for hot paths).
    public func toArray() -> [UInt8] { Array(base) }

    /// Byte-wise equality with another view or array.
    public func elementsEqual(_ other: some Sequence<UInt8>) -> Bool { base.elementsEqual(other) }
}

extension ByteView: Sequence {
    public typealias Iterator = UnsafeRawBufferPointer.Iterator
    @inlinable public func makeIterator() -> UnsafeRawBufferPointer.Iterator { base.makeIterator() }
}

extension Array where Element == UInt8 {
    /// Runs `body` with a `ByteView` of the array's bytes, valid only inside `body`.
    @inlinable public func withByteView<R>(_ body: (ByteView) throws -> R) rethrows -> R {
        try withUnsafeBytes { try body(ByteView($0)) }
    }

    /// The little-endian UInt16 at `offset`, nil when it does not lie inside the array (a PDU
    /// kept as an array, as replay keeps them).
    @inlinable @inline(__always) public func u16le(_ offset: Int) -> UInt16? { withByteView { $0.u16le(offset) } }
}
