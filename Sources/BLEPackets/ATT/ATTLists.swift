import BLEBytes

/// One entry of a fixed-stride ATT list, built from exactly `stride` bytes.
public protocol ATTListElement {
    /// Smallest stride that can hold the entry (the list is malformed below it).
    static var minimumStride: Int { get }
    init(entry: ByteView)
}

/// A list of fixed-size entries (Core 5.4 Vol 3 Part F 3.4): iterated in place, no array.
///
/// The stride comes from the PDU (a Length or Format field), so it is untrusted: below the
/// element's minimum the list yields nothing and is not well formed; bytes left over after
/// the last whole entry are `trailing`.
public struct ATTList<Element: ATTListElement>: Sequence, @unchecked Sendable {
    public let bytes: ByteView
    /// Bytes per entry, or 0 when the PDU's length/format field makes no sense.
    public let stride: Int

    public init(_ bytes: ByteView, stride: Int) {
        self.bytes = bytes
        self.stride = stride >= Element.minimumStride ? stride : 0
    }

    public var count: Int { stride > 0 ? bytes.count / stride : 0 }
    public var trailing: ByteView { bytes.suffix(from: count * stride) ?? .empty }
    /// A valid stride, at least one entry, nothing left over.
    public var isWellFormed: Bool { stride > 0 && count > 0 && bytes.count % stride == 0 }

    public struct Iterator: IteratorProtocol {
        let bytes: ByteView
        let stride: Int
        var offset = 0
        public mutating func next() -> Element? {
            guard stride > 0, let e = bytes.slice(offset, stride) else { return nil }
            offset += stride
            return Element(entry: e)
        }
    }
    public func makeIterator() -> Iterator { Iterator(bytes: bytes, stride: stride) }
}

/// Handle + UUID (Find Information Response, Vol 3 Part F 3.4.3.2): stride 4 (16-bit UUID)
/// or 18 (128-bit UUID).
public struct ATTHandleUUID: ATTListElement, Sendable, Equatable {
    public static let minimumStride = 4
    public let handle: UInt16
    public let uuid: BluetoothUUID
    public init(entry: ByteView) {
        handle = entry.u16le(0)!
        let u = entry.suffix(from: 2)!
        // Strides are only ever 4 or 18 (set by the Format field); anything else reads as 16-bit.
        uuid = BluetoothUUID(littleEndian: u) ?? BluetoothUUID(uuid16: u.u16le(0)!)
    }
}

/// Handle + value (Read By Type Response attribute data, Vol 3 Part F 3.4.4.2).
public struct ATTAttributeData: ATTListElement, @unchecked Sendable {
    public static let minimumStride = 2
    public let handle: UInt16
    public let value: ByteView
    public init(entry: ByteView) {
        handle = entry.u16le(0)!
        value = entry.suffix(from: 2)!
    }
}

/// Attribute handle + End Group Handle + value (Read By Group Type Response, 3.4.4.10).
public struct ATTGroupData: ATTListElement, @unchecked Sendable {
    public static let minimumStride = 4
    public let handle: UInt16
    public let endGroupHandle: UInt16
    public let value: ByteView
    public init(entry: ByteView) {
        handle = entry.u16le(0)!
        endGroupHandle = entry.u16le(2)!
        value = entry.suffix(from: 4)!
    }
}

/// Found Attribute Handle + Group End Handle (Find By Type Value Response, 3.4.3.4).
public struct ATTHandleRange: ATTListElement, Sendable, Equatable {
    public static let minimumStride = 4
    public let handle: UInt16
    public let endGroupHandle: UInt16
    public init(entry: ByteView) {
        handle = entry.u16le(0)!
        endGroupHandle = entry.u16le(2)!
    }
}

/// A bare attribute handle (Read Multiple and Read Multiple Variable Requests).
public struct ATTHandle: ATTListElement, Sendable, Equatable {
    public static let minimumStride = 2
    public let handle: UInt16
    public init(entry: ByteView) { handle = entry.u16le(0)! }
}

/// Length + value tuple (Read Multiple Variable Response, 3.4.4.12). The last value may be
/// cut short by ATT_MTU, which the spec allows; `isTruncated` says so.
public struct ATTLengthValue: @unchecked Sendable {
    public let length: UInt16
    public let value: ByteView
    public var isTruncated: Bool { value.count < Int(length) }
}

/// Handle + length + value tuple (Multiple Handle Value Notification, 3.4.7.4).
public struct ATTHandleLengthValue: @unchecked Sendable {
    public let handle: UInt16
    public let length: UInt16
    public let value: ByteView
    public var isTruncated: Bool { value.count < Int(length) }
}

/// Length Value Tuple List: u16 length, then that many bytes, repeated.
public struct ATTLengthValueList: Sequence, @unchecked Sendable {
    public let bytes: ByteView
    public struct Iterator: IteratorProtocol {
        var reader: ByteReader
        public mutating func next() -> ATTLengthValue? {
            guard let len = reader.u16le() else { return nil }
            return ATTLengthValue(length: len, value: reader.bytes(Int(len)) ?? reader.rest())
        }
    }
    public func makeIterator() -> Iterator { Iterator(reader: ByteReader(bytes)) }
}

/// Handle Length Value Tuple List: u16 handle, u16 length, value, repeated.
public struct ATTHandleLengthValueList: Sequence, @unchecked Sendable {
    public let bytes: ByteView
    public struct Iterator: IteratorProtocol {
        var reader: ByteReader
        public mutating func next() -> ATTHandleLengthValue? {
            // A lone handle without its length is not a tuple; it is left unread.
            guard reader.remaining >= 4, let h = reader.u16le(), let len = reader.u16le() else { return nil }
            return ATTHandleLengthValue(handle: h, length: len, value: reader.bytes(Int(len)) ?? reader.rest())
        }
    }
    public func makeIterator() -> Iterator { Iterator(reader: ByteReader(bytes)) }
}
