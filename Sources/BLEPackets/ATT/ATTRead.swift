import BLEBytes

/// ATT_READ_REQ (Core 5.4 Vol 3 Part F 3.4.4.3): Attribute Handle.
public struct ATTReadRequest: ATTPDUType, Sendable {
    public let handle: UInt16
    public init(handle: UInt16) { self.handle = handle }
    public init?(parameters p: ByteView) {
        guard let h = p.u16le(0) else { return nil }
        handle = h
    }
    public func appendParameters(to w: inout ByteWriter) { w.appendUInt16LE(handle) }
    public func describe(into sink: FieldSink) { sink.field("handle", .hex(UInt64(handle), digits: 4)) }
}

/// ATT_READ_RSP (Vol 3 Part F 3.4.4.4): Attribute Value (up to ATT_MTU − 1 bytes).
public struct ATTReadResponse: ATTPDUType, @unchecked Sendable {
    public let value: ByteView
    public init(value: ByteView) { self.value = value }
    public init?(parameters p: ByteView) { value = p }
    public func appendParameters(to w: inout ByteWriter) { w.appendBytes(value) }
    public func describe(into sink: FieldSink) { sink.field("value", .bytes(value)) }
}

/// ATT_READ_BLOB_REQ (Vol 3 Part F 3.4.4.5): Attribute Handle, Value Offset.
public struct ATTReadBlobRequest: ATTPDUType, Sendable {
    public let handle: UInt16
    public let offset: UInt16
    public init(handle: UInt16, offset: UInt16) { (self.handle, self.offset) = (handle, offset) }
    public init?(parameters p: ByteView) {
        guard let h = p.u16le(0), let o = p.u16le(2) else { return nil }
        handle = h
        offset = o
    }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt16LE(handle)
        w.appendUInt16LE(offset)
    }
    public func describe(into sink: FieldSink) {
        sink.field("handle", .hex(UInt64(handle), digits: 4))
        sink.field("offset", .uint(UInt64(offset)))
    }
}

/// ATT_READ_BLOB_RSP (Vol 3 Part F 3.4.4.6): Part Attribute Value.
public struct ATTReadBlobResponse: ATTPDUType, @unchecked Sendable {
    public let partValue: ByteView
    public init(partValue: ByteView) { self.partValue = partValue }
    public init?(parameters p: ByteView) { partValue = p }
    public func appendParameters(to w: inout ByteWriter) { w.appendBytes(partValue) }
    public func describe(into sink: FieldSink) { sink.field("value", .bytes(partValue)) }
}

func describeHandles(_ handles: ATTList<ATTHandle>, into sink: FieldSink) {
    for h in handles { sink.field("handle", .hex(UInt64(h.handle), digits: 4)) }
    // Vol 3 Part F 3.4.4.7 / 3.4.4.11: a set of two or more handles.
    if handles.count < 2 { sink.note("fewer than two handles") }
    if !handles.trailing.isEmpty {
        sink.note("handle list has an odd length")
        sink.field("trailing", .bytes(handles.trailing))
    }
}

/// ATT_READ_MULTIPLE_REQ (Vol 3 Part F 3.4.4.7): Set Of Handles (two or more).
public struct ATTReadMultipleRequest: ATTPDUType, @unchecked Sendable {
    public let handles: ATTList<ATTHandle>
    /// `handles`: the Set Of Handles, little-endian u16 each.
    public init(handles: ByteView) { self.handles = ATTList(handles, stride: 2) }
    public init?(parameters p: ByteView) { handles = ATTList(p, stride: 2) }
    public func appendParameters(to w: inout ByteWriter) { w.appendBytes(handles.bytes) }
    public func describe(into sink: FieldSink) { describeHandles(handles, into: sink) }
}

/// ATT_READ_MULTIPLE_RSP (Vol 3 Part F 3.4.4.8): Set Of Values, concatenated without
/// lengths (only the client, knowing the requested handles, can split them).
public struct ATTReadMultipleResponse: ATTPDUType, @unchecked Sendable {
    public let values: ByteView
    public init(values: ByteView) { self.values = values }
    public init?(parameters p: ByteView) { values = p }
    public func appendParameters(to w: inout ByteWriter) { w.appendBytes(values) }
    public func describe(into sink: FieldSink) { sink.field("values", .bytes(values)) }
}

/// ATT_READ_MULTIPLE_VARIABLE_REQ (Vol 3 Part F 3.4.4.11): Set Of Handles (two or more).
public struct ATTReadMultipleVariableRequest: ATTPDUType, @unchecked Sendable {
    public let handles: ATTList<ATTHandle>
    public init(handles: ByteView) { self.handles = ATTList(handles, stride: 2) }
    public init?(parameters p: ByteView) { handles = ATTList(p, stride: 2) }
    public func appendParameters(to w: inout ByteWriter) { w.appendBytes(handles.bytes) }
    public func describe(into sink: FieldSink) { describeHandles(handles, into: sink) }
}

/// ATT_READ_MULTIPLE_VARIABLE_RSP (Vol 3 Part F 3.4.4.12): Length Value Tuple List. The
/// last value may be truncated by ATT_MTU.
public struct ATTReadMultipleVariableResponse: ATTPDUType, @unchecked Sendable {
    public let tuples: ATTLengthValueList
    /// `tuples`: the Length Value Tuple List as it goes on the wire.
    public init(tuples: ByteView) { self.tuples = ATTLengthValueList(bytes: tuples) }
    public init?(parameters p: ByteView) { tuples = ATTLengthValueList(bytes: p) }
    public func appendParameters(to w: inout ByteWriter) { w.appendBytes(tuples.bytes) }
    public func describe(into sink: FieldSink) {
        var consumed = 0
        for t in tuples {
            sink.begin("tuple")
            sink.field("length", .uint(UInt64(t.length)))
            sink.field("value", .bytes(t.value))
            if t.isTruncated { sink.note("value truncated") }
            sink.end()
            consumed &+= 2 &+ t.value.count
        }
        if consumed < tuples.bytes.count {
            sink.note("a lone byte where a length was expected")
            sink.field("trailing", .bytes(tuples.bytes.suffix(from: consumed) ?? .empty))
        }
    }
}
