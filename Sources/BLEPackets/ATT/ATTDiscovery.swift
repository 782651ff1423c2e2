import BLEBytes

/// Describes a 16- or 128-bit attribute type, noting any other width.
func describeAttributeType(_ name: StaticString, _ bytes: ByteView, into sink: FieldSink) {
    if bytes.count == 2 || bytes.count == 16, let u = BluetoothUUID(littleEndian: bytes) {
        sink.field(name, .uuid(u))
    } else {
        sink.note("attribute type is neither 16 nor 128 bits")
        sink.field(name, .bytes(bytes))
    }
}

func describeHandleRange(_ start: UInt16, _ end: UInt16, into sink: FieldSink) {
    sink.field("starting_handle", .hex(UInt64(start), digits: 4))
    sink.field("ending_handle", .hex(UInt64(end), digits: 4))
    // Vol 3 Part F 3.4.3.1: 0x0000 or start > end must be answered with Invalid Handle.
    if start == 0 || start > end { sink.note("invalid handle range") }
}

/// ATT_FIND_INFORMATION_REQ (Vol 3 Part F 3.4.3.1): Starting Handle, Ending Handle.
public struct ATTFindInformationRequest: ATTPDUType, Sendable {
    public let startingHandle: UInt16
    public let endingHandle: UInt16
    public init(startingHandle: UInt16, endingHandle: UInt16) {
        (self.startingHandle, self.endingHandle) = (startingHandle, endingHandle)
    }
    public init?(parameters p: ByteView) {
        guard let s = p.u16le(0), let e = p.u16le(2) else { return nil }
        startingHandle = s
        endingHandle = e
    }
    public func describe(into sink: FieldSink) { describeHandleRange(startingHandle, endingHandle, into: sink) }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt16LE(startingHandle)
        w.appendUInt16LE(endingHandle)
    }
}

/// ATT_FIND_INFORMATION_RSP (Vol 3 Part F 3.4.3.2): Format (0x01: handles with 16-bit UUIDs,
/// 0x02: with 128-bit UUIDs), Information Data.
public struct ATTFindInformationResponse: ATTPDUType, @unchecked Sendable {
    public let format: UInt8
    public let information: ATTList<ATTHandleUUID>

    /// Format 0x01: handle + 16-bit UUID pairs.
    public static let format16BitUUIDs: UInt8 = 0x01
    /// Format 0x02: handle + 128-bit UUID pairs.
    public static let format128BitUUIDs: UInt8 = 0x02

    /// `information`: the Information Data as it goes on the wire.
    public init(format: UInt8, information: ByteView) {
        self.format = format
        self.information = ATTList(information, stride: format == 0x01 ? 4 : format == 0x02 ? 18 : 0)
    }

    public init?(parameters p: ByteView) {
        guard let f = p.u8(0) else { return nil }
        format = f
        information = ATTList(p.suffix(from: 1)!, stride: f == 0x01 ? 4 : f == 0x02 ? 18 : 0)
    }

    public func describe(into sink: FieldSink) {
        let name: StaticString? = format == 1 ? "16-bit UUIDs" : format == 2 ? "128-bit UUIDs" : nil
        sink.field("format", .code(UInt64(format), digits: 2, name: name))
        for e in information {
            sink.begin("information")
            sink.field("handle", .hex(UInt64(e.handle), digits: 4))
            sink.field("uuid", .uuid(e.uuid))
            sink.end()
        }
        if !information.isWellFormed {
            sink.note(information.stride == 0 ? "unknown format" : "information data is not a whole number of entries")
            if !information.trailing.isEmpty { sink.field("trailing", .bytes(information.trailing)) }
        }
    }

    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt8(format)
        w.appendBytes(information.bytes)
    }

    /// A server's response (3.4.3.2): handle–UUID pairs (each UUID in its 2- or 16-byte
    /// little-endian ATT form), all in the first one's format, as many as fit in `mtu` bytes
    /// and `maximumEntries`; the first pair of the other format ends the list. Nil when there
    /// is no pair (the server answers Attribute Not Found instead).
    public static func encoded(
        _ pairs: some Sequence<(handle: UInt16, uuid: [UInt8])>, mtu: Int,
        maximumEntries: Int = .max
    ) -> [UInt8]? {
        var w = ByteWriter()
        var short: Bool?
        var n = 0
        for p in pairs {
            if short == nil {
                short = p.uuid.count == 2
                w.appendUInt8(opcode.rawValue)
                w.appendUInt8(short! ? format16BitUUIDs : format128BitUUIDs)
            }
            guard (p.uuid.count == 2) == short, w.count + 2 + p.uuid.count <= mtu, n < maximumEntries else { break }
            w.appendUInt16LE(p.handle)
            w.appendBytes(p.uuid)
            n += 1
        }
        return short == nil ? nil : w.bytes
    }
}

/// ATT_FIND_BY_TYPE_VALUE_REQ (Vol 3 Part F 3.4.3.3): Starting Handle, Ending Handle,
/// Attribute Type (16-bit UUID only), Attribute Value.
public struct ATTFindByTypeValueRequest: ATTPDUType, @unchecked Sendable {
    public let startingHandle: UInt16
    public let endingHandle: UInt16
    public let attributeType: UInt16
    public let attributeValue: ByteView
    public init(startingHandle: UInt16, endingHandle: UInt16, attributeType: UInt16, attributeValue: ByteView) {
        (self.startingHandle, self.endingHandle, self.attributeType, self.attributeValue) = (
            startingHandle, endingHandle, attributeType, attributeValue
        )
    }
    public init?(parameters p: ByteView) {
        guard let s = p.u16le(0), let e = p.u16le(2), let t = p.u16le(4) else { return nil }
        startingHandle = s
        endingHandle = e
        attributeType = t
        attributeValue = p.suffix(from: 6)!
    }
    public func describe(into sink: FieldSink) {
        describeHandleRange(startingHandle, endingHandle, into: sink)
        sink.field("attribute_type", .uuid(BluetoothUUID(uuid16: attributeType)))
        sink.field("value", .bytes(attributeValue))
    }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt16LE(startingHandle)
        w.appendUInt16LE(endingHandle)
        w.appendUInt16LE(attributeType)
        w.appendBytes(attributeValue)
    }
}

/// ATT_FIND_BY_TYPE_VALUE_RSP (Vol 3 Part F 3.4.3.4): Handles Information List of (Found
/// Attribute Handle, Group End Handle).
public struct ATTFindByTypeValueResponse: ATTPDUType, @unchecked Sendable {
    public let handlesInformation: ATTList<ATTHandleRange>
    /// `handlesInformation`: the Handles Information List as it goes on the wire.
    public init(handlesInformation: ByteView) { self.handlesInformation = ATTList(handlesInformation, stride: 4) }
    public init?(parameters p: ByteView) { handlesInformation = ATTList(p, stride: 4) }
    public func appendParameters(to w: inout ByteWriter) { w.appendBytes(handlesInformation.bytes) }

    /// A server's response (3.4.3.4): (found handle, group end handle) pairs, as many as fit
    /// in `mtu` bytes and `maximumEntries`. Nil when there is none (Attribute Not Found).
    public static func encoded(
        _ ranges: some Sequence<(handle: UInt16, groupEnd: UInt16)>, mtu: Int,
        maximumEntries: Int = .max
    ) -> [UInt8]? {
        var w = ByteWriter()
        w.appendUInt8(opcode.rawValue)
        var n = 0
        for r in ranges {
            guard w.count + 4 <= mtu, n < maximumEntries else { break }
            w.appendUInt16LE(r.handle)
            w.appendUInt16LE(r.groupEnd)
            n += 1
        }
        return n == 0 ? nil : w.bytes
    }
    public func describe(into sink: FieldSink) {
        for e in handlesInformation {
            sink.begin("handles_information")
            sink.field("found_handle", .hex(UInt64(e.handle), digits: 4))
            sink.field("group_end_handle", .hex(UInt64(e.endGroupHandle), digits: 4))
            sink.end()
        }
        if !handlesInformation.isWellFormed {
            sink.note("handles information list is empty or not a whole number of entries")
            if !handlesInformation.trailing.isEmpty { sink.field("trailing", .bytes(handlesInformation.trailing)) }
        }
    }
}

/// ATT_READ_BY_TYPE_REQ (Vol 3 Part F 3.4.4.1): Starting Handle, Ending Handle, Attribute
/// Type (2 or 16 bytes).
public struct ATTReadByTypeRequest: ATTTypedRangeRequest, @unchecked Sendable {
    public let startingHandle: UInt16
    public let endingHandle: UInt16
    /// Raw type bytes; `attributeType` is nil unless they are 2 or 16 long.
    public let attributeTypeBytes: ByteView
    public var attributeType: BluetoothUUID? {
        attributeTypeBytes.count == 2 || attributeTypeBytes.count == 16
            ? BluetoothUUID(littleEndian: attributeTypeBytes) : nil
    }
    public init(startingHandle: UInt16, endingHandle: UInt16, attributeType: ByteView) {
        (self.startingHandle, self.endingHandle, attributeTypeBytes) = (startingHandle, endingHandle, attributeType)
    }
    public init?(parameters p: ByteView) {
        guard let s = p.u16le(0), let e = p.u16le(2), p.count >= 6 else { return nil }
        startingHandle = s
        endingHandle = e
        attributeTypeBytes = p.suffix(from: 4)!
    }
    public func describe(into sink: FieldSink) {
        describeHandleRange(startingHandle, endingHandle, into: sink)
        describeAttributeType("attribute_type", attributeTypeBytes, into: sink)
    }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt16LE(startingHandle)
        w.appendUInt16LE(endingHandle)
        w.appendBytes(attributeTypeBytes)
    }
}

/// ATT_READ_BY_TYPE_RSP (Vol 3 Part F 3.4.4.2): Length (of each entry), Attribute Data List
/// of (handle, value).
public struct ATTReadByTypeResponse: ATTPDUType, @unchecked Sendable {
    public let length: UInt8
    public let attributeData: ATTList<ATTAttributeData>
    /// `attributeData`: the Attribute Data List as it goes on the wire.
    public init(length: UInt8, attributeData: ByteView) {
        self.length = length
        self.attributeData = ATTList(attributeData, stride: Int(length))
    }
    public init?(parameters p: ByteView) {
        guard let l = p.u8(0) else { return nil }
        length = l
        attributeData = ATTList(p.suffix(from: 1)!, stride: Int(l))
    }
    public func describe(into sink: FieldSink) {
        sink.field("length", .uint(UInt64(length)))
        for e in attributeData {
            sink.begin("attribute_data")
            sink.field("handle", .hex(UInt64(e.handle), digits: 4))
            sink.field("value", .bytes(e.value))
            sink.end()
        }
        if !attributeData.isWellFormed {
            sink.note("attribute data list does not match its length")
            if !attributeData.trailing.isEmpty { sink.field("trailing", .bytes(attributeData.trailing)) }
        }
    }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt8(length)
        w.appendBytes(attributeData.bytes)
    }

    /// A server's response (3.4.4.2): entries (handle and value, already cut to length) all of
    /// the first one's length, as many as fit in `mtu` bytes and `maximumEntries`; an entry of
    /// another length ends the list. Nil when there is none or the first is over 255 bytes.
    public static func encoded(_ entries: some Sequence<[UInt8]>, mtu: Int, maximumEntries: Int = .max) -> [UInt8]? {
        attributeList(opcode, entries, mtu: mtu, maximumEntries: maximumEntries)
    }
}

/// Read By Type and Read By Group Type responses: Length, then entries of that length.
func attributeList(_ opcode: ATTOpcode, _ entries: some Sequence<[UInt8]>, mtu: Int, maximumEntries: Int) -> [UInt8]? {
    var w = ByteWriter()
    var length: Int?
    var n = 0
    for e in entries {
        if length == nil {
            guard e.count <= 255 else { return nil }
            length = e.count
            w.appendUInt8(opcode.rawValue)
            w.appendUInt8(UInt8(e.count))
        }
        guard e.count == length, w.count + e.count <= mtu, n < maximumEntries else { break }
        w.appendBytes(e)
        n += 1
    }
    return length == nil ? nil : w.bytes
}

/// ATT_READ_BY_GROUP_TYPE_REQ (Vol 3 Part F 3.4.4.9): Starting Handle, Ending Handle,
/// Attribute Group Type (2 or 16 bytes).
public struct ATTReadByGroupTypeRequest: ATTTypedRangeRequest, @unchecked Sendable {
    public let startingHandle: UInt16
    public let endingHandle: UInt16
    public let groupTypeBytes: ByteView
    public var groupType: BluetoothUUID? {
        groupTypeBytes.count == 2 || groupTypeBytes.count == 16 ? BluetoothUUID(littleEndian: groupTypeBytes) : nil
    }
    public init(startingHandle: UInt16, endingHandle: UInt16, groupType: ByteView) {
        (self.startingHandle, self.endingHandle, groupTypeBytes) = (startingHandle, endingHandle, groupType)
    }
    public init?(parameters p: ByteView) {
        guard let s = p.u16le(0), let e = p.u16le(2), p.count >= 6 else { return nil }
        startingHandle = s
        endingHandle = e
        groupTypeBytes = p.suffix(from: 4)!
    }
    public func describe(into sink: FieldSink) {
        describeHandleRange(startingHandle, endingHandle, into: sink)
        describeAttributeType("group_type", groupTypeBytes, into: sink)
    }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt16LE(startingHandle)
        w.appendUInt16LE(endingHandle)
        w.appendBytes(groupTypeBytes)
    }
}

/// ATT_READ_BY_GROUP_TYPE_RSP (Vol 3 Part F 3.4.4.10): Length, Attribute Data List of
/// (Attribute Handle, End Group Handle, Attribute Value).
public struct ATTReadByGroupTypeResponse: ATTPDUType, @unchecked Sendable {
    public let length: UInt8
    public let attributeData: ATTList<ATTGroupData>
    public init(length: UInt8, attributeData: ByteView) {
        self.length = length
        self.attributeData = ATTList(attributeData, stride: Int(length))
    }
    public init?(parameters p: ByteView) {
        guard let l = p.u8(0) else { return nil }
        length = l
        attributeData = ATTList(p.suffix(from: 1)!, stride: Int(l))
    }
    public func describe(into sink: FieldSink) {
        sink.field("length", .uint(UInt64(length)))
        for e in attributeData {
            sink.begin("attribute_data")
            sink.field("handle", .hex(UInt64(e.handle), digits: 4))
            sink.field("end_group_handle", .hex(UInt64(e.endGroupHandle), digits: 4))
            if e.value.count == 2 || e.value.count == 16, let u = BluetoothUUID(littleEndian: e.value) {
                sink.field("uuid", .uuid(u))
            } else {
                sink.field("value", .bytes(e.value))
            }
            sink.end()
        }
        if !attributeData.isWellFormed {
            sink.note("attribute data list does not match its length")
            if !attributeData.trailing.isEmpty { sink.field("trailing", .bytes(attributeData.trailing)) }
        }
    }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt8(length)
        w.appendBytes(attributeData.bytes)
    }

    /// A server's response (3.4.4.10): entries (handle, end group handle, value) all of the
    /// first one's length, as many as fit in `mtu` bytes and `maximumEntries`.
    public static func encoded(_ entries: some Sequence<[UInt8]>, mtu: Int, maximumEntries: Int = .max) -> [UInt8]? {
        attributeList(opcode, entries, mtu: mtu, maximumEntries: maximumEntries)
    }
}

/// Read By Type and Read By Group Type requests share one layout (Vol 3 Part F 3.4.4.1 and
/// 3.4.4.9): a handle range, then a 16- or 128-bit type.
public protocol ATTTypedRangeRequest: ATTPDUType {}

extension ATTTypedRangeRequest {
    /// The whole PDU for a 16-bit type: a GATT declaration for Read By Type (Vol 3 Part G 3),
    /// Primary or Secondary Service for Read By Group Type (3.1).
    public static func encoded(startingHandle: UInt16, endingHandle: UInt16, type16: UInt16) -> [UInt8] {
        var w = ByteWriter()
        w.appendUInt8(opcode.rawValue)
        w.appendUInt16LE(startingHandle)
        w.appendUInt16LE(endingHandle)
        w.appendUInt16LE(type16)
        return w.bytes
    }
}
