import BLEBytes

/// The first bytes of a value, copied into fixed inline storage, plus the value's full length.
///
/// A record's payload is valid only until the next record is read, but a timeline event may
/// outlive it (a Write Request's value is reported when its response arrives). Copying into a
/// fixed-size value keeps events self-contained without a heap allocation per frame: values
/// longer than `capacity` keep their length and their first `capacity` bytes.
public struct InlineBytes: Sendable, Equatable {
    public static let capacity = 64
    /// Eight words = 64 bytes; a tuple so the storage is inline, not an array. Visible to
    /// `withView`'s inlined body only.
    @usableFromInline var storage: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (
        0, 0, 0, 0, 0, 0, 0, 0
    )
    /// The value's full length (may exceed `capacity`).
    public private(set) var count: Int = 0

    public static let empty = InlineBytes()

    public init() {}

    public init(_ view: ByteView) {
        count = view.count
        let n = Swift.min(view.count, Self.capacity)
        withUnsafeMutableBytes(of: &storage) { dst in
            for i in 0..<n { dst[i] = view.base[i] }
        }
    }

    public var isEmpty: Bool { count == 0 }
    /// How many bytes are kept (≤ `capacity`).
    @inlinable public var storedCount: Int { Swift.min(count, Self.capacity) }
    /// True when the value was longer than what is kept.
    public var isTruncated: Bool { count > Self.capacity }

    /// Runs `body` with a view of the kept bytes. Inlinable, so it is specialized where it is
    /// called: the generic version, called from the timeline writer for every event's value, was
    /// call and closure overhead around a 2-byte value (docs/performance.md).
    @inlinable
    public func withView<R>(_ body: (ByteView) throws -> R) rethrows -> R {
        var copy = storage
        let n = storedCount
        return try withUnsafeBytes(of: &copy) { raw in
            try body(ByteView(UnsafeRawBufferPointer(rebasing: raw[0..<n])))
        }
    }

    public subscript(i: Int) -> UInt8? {
        guard i >= 0, i < storedCount else { return nil }
        return withUnsafeBytes(of: storage) { $0[i] }
    }

    /// Little-endian u16 at `offset`, if kept.
    public func u16le(_ offset: Int) -> UInt16? {
        guard let a = self[offset], let b = self[offset + 1] else { return nil }
        return UInt16(a) | UInt16(b) << 8
    }

    /// The kept bytes as an array (allocates: tests and rendering only).
    public var bytes: [UInt8] { withView { $0.toArray() } }

    public static func == (a: InlineBytes, b: InlineBytes) -> Bool {
        a.count == b.count && a.withView { av in b.withView { bv in av.elementsEqual(bv) } }
    }
}
