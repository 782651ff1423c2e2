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
    public static let opcode = ATTOpcode.findInformationRequest
    public let startingHandle: UInt16
    public let endingHandle: UInt16
    public init?(parameters p: ByteView) {
        guard let s = p.u16le(0), let e = p.u16le(2) else { return nil }
        startingHandle = s
        endingHandle = e
    }
    public func describe(into sink: FieldSink) { describeHandleRange(startingHandle, endingHandle, into: sink) }
}

/// ATT_FIND_INFORMATION_RSP (Vol 3 Part F 3.4.3.2): Format (0x01: handles with 16-bit UUIDs,
/// 0x02: with 128-bit UUIDs), Information Data.
public struct ATTFindInformationResponse: ATTPDUType, @unchecked Sendable {
    public static let opcode = ATTOpcode.findInformationResponse
    public let format: UInt8
    public let information: ATTList<ATTHandleUUID>

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
}

/// ATT_FIND_BY_TYPE_VALUE_REQ (Vol 3 Part F 3.4.3.3): Starting Handle, Ending Handle,
/// Attribute Type (16-bit UUID only), Attribute Value.
public struct ATTFindByTypeValueRequest: ATTPDUType, @unchecked Sendable {
    public static let opcode = ATTOpcode.findByTypeValueRequest
    public let startingHandle: UInt16
    public let endingHandle: UInt16
    public let attributeType: UInt16
    public let attributeValue: ByteView
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
}

/// ATT_FIND_BY_TYPE_VALUE_RSP (Vol 3 Part F 3.4.3.4): Handles Information List of (Found
/// Attribute Handle, Group End Handle).
public struct ATTFindByTypeValueResponse: ATTPDUType, @unchecked Sendable {
    public static let opcode = ATTOpcode.findByTypeValueResponse
    public let handlesInformation: ATTList<ATTHandleRange>
    public init?(parameters p: ByteView) { handlesInformation = ATTList(p, stride: 4) }
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
public struct ATTReadByTypeRequest: ATTPDUType, @unchecked Sendable {
    public static let opcode = ATTOpcode.readByTypeRequest
    public let startingHandle: UInt16
    public let endingHandle: UInt16
    /// Raw type bytes; `attributeType` is nil unless they are 2 or 16 long.
    public let attributeTypeBytes: ByteView
    public var attributeType: BluetoothUUID? {
        attributeTypeBytes.count == 2 || attributeTypeBytes.count == 16 ? BluetoothUUID(littleEndian: attributeTypeBytes) : nil
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
}

/// ATT_READ_BY_TYPE_RSP (Vol 3 Part F 3.4.4.2): Length (of each entry), Attribute Data List
/// of (handle, value).
public struct ATTReadByTypeResponse: ATTPDUType, @unchecked Sendable {
    public static let opcode = ATTOpcode.readByTypeResponse
    public let length: UInt8
    public let attributeData: ATTList<ATTAttributeData>
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
}

/// ATT_READ_BY_GROUP_TYPE_REQ (Vol 3 Part F 3.4.4.9): Starting Handle, Ending Handle,
/// Attribute Group Type (2 or 16 bytes).
public struct ATTReadByGroupTypeRequest: ATTPDUType, @unchecked Sendable {
    public static let opcode = ATTOpcode.readByGroupTypeRequest
    public let startingHandle: UInt16
    public let endingHandle: UInt16
    public let groupTypeBytes: ByteView
    public var groupType: BluetoothUUID? {
        groupTypeBytes.count == 2 || groupTypeBytes.count == 16 ? BluetoothUUID(littleEndian: groupTypeBytes) : nil
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
}

/// ATT_READ_BY_GROUP_TYPE_RSP (Vol 3 Part F 3.4.4.10): Length, Attribute Data List of
/// (Attribute Handle, End Group Handle, Attribute Value).
public struct ATTReadByGroupTypeResponse: ATTPDUType, @unchecked Sendable {
    public static let opcode = ATTOpcode.readByGroupTypeResponse
    public let length: UInt8
    public let attributeData: ATTList<ATTGroupData>
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
}
