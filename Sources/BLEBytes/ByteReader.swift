/// A cursor over a `ByteView`. Reads advance only when they succeed, so a failed read leaves
/// the cursor where it was and the caller can report exactly which field was missing.
public struct ByteReader: @unchecked Sendable {
    public let view: ByteView
    /// Position of the next read; callers may move it (e.g. to re-read a field).
    public var offset: Int

    @inlinable public init(_ view: ByteView, offset: Int = 0) {
        self.view = view
        self.offset = min(max(offset, 0), view.count)
    }

    @inlinable public var remaining: Int { view.count - offset }
    @inlinable public var isAtEnd: Bool { offset >= view.count }

    @inlinable public mutating func u8() -> UInt8? { advance(1, view.u8(offset)) }
    @inlinable public mutating func i8() -> Int8? { advance(1, view.i8(offset)) }
    @inlinable public mutating func u16le() -> UInt16? { advance(2, view.u16le(offset)) }
    @inlinable public mutating func u16be() -> UInt16? { advance(2, view.u16be(offset)) }
    @inlinable public mutating func u24le() -> UInt32? { advance(3, view.u24le(offset)) }
    @inlinable public mutating func u32le() -> UInt32? { advance(4, view.u32le(offset)) }
    @inlinable public mutating func u32be() -> UInt32? { advance(4, view.u32be(offset)) }
    @inlinable public mutating func u64le() -> UInt64? { advance(8, view.u64le(offset)) }
    @inlinable public mutating func u64be() -> UInt64? { advance(8, view.u64be(offset)) }

    /// The next `count` bytes as a view, or nil (cursor unchanged) if fewer remain.
    @inlinable public mutating func bytes(_ count: Int) -> ByteView? { advance(count, view.slice(offset, count)) }

    /// A 48-bit Bluetooth device address (little-endian on the wire).
    @inlinable public mutating func address() -> BDAddr? { advance(6, BDAddr(littleEndian: view, at: offset)) }

    /// Everything left; the cursor moves to the end.
    @inlinable public mutating func rest() -> ByteView {
        let r = view.suffix(from: offset) ?? .empty
        offset = view.count
        return r
    }

    @inlinable @discardableResult public mutating func skip(_ count: Int) -> Bool {
        guard view.contains(offset, count) else { return false }
        offset += count
        return true
    }

    @inlinable mutating func advance<T>(_ n: Int, _ value: T?) -> T? {
        if value != nil { offset += n }
        return value
    }
}
