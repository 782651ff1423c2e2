import BLEBytes

/// ATT_HANDLE_VALUE_NTF (Core 5.4 Vol 3 Part F 3.4.7.1): Attribute Handle, Attribute Value.
public struct ATTHandleValueNotification: ATTHandleValuePDU, @unchecked Sendable {
    public let handle: UInt16
    public let value: ByteView
    public init(handle: UInt16, value: ByteView) {
        self.handle = handle
        self.value = value
    }
}

/// ATT_HANDLE_VALUE_IND (Vol 3 Part F 3.4.7.2): Attribute Handle, Attribute Value; the client
/// must confirm before the server sends another.
public struct ATTHandleValueIndication: ATTHandleValuePDU, @unchecked Sendable {
    public let handle: UInt16
    public let value: ByteView
    public init(handle: UInt16, value: ByteView) {
        self.handle = handle
        self.value = value
    }
}

/// ATT_HANDLE_VALUE_CFM (Vol 3 Part F 3.4.7.3): no parameters.
public struct ATTHandleValueConfirmation: ATTPDUType, Sendable {
    public init() {}
    public init?(parameters p: ByteView) {}
    public func appendParameters(to w: inout ByteWriter) {}
    public func describe(into sink: FieldSink) {}
}

/// ATT_MULTIPLE_HANDLE_VALUE_NTF (Vol 3 Part F 3.4.7.4): Handle Length Value Tuple List.
public struct ATTMultipleHandleValueNotification: ATTPDUType, @unchecked Sendable {
    public let tuples: ATTHandleLengthValueList
    /// `tuples`: the Handle Length Value Tuple List as it goes on the wire.
    public init(tuples: ByteView) { self.tuples = ATTHandleLengthValueList(bytes: tuples) }
    public init?(parameters p: ByteView) { tuples = ATTHandleLengthValueList(bytes: p) }
    public func appendParameters(to w: inout ByteWriter) { w.appendBytes(tuples.bytes) }
    public func describe(into sink: FieldSink) {
        var consumed = 0
        var n = 0
        for t in tuples {
            sink.begin("tuple")
            sink.field("handle", .hex(UInt64(t.handle), digits: 4))
            sink.field("length", .uint(UInt64(t.length)))
            sink.field("value", .bytes(t.value))
            // Unlike Read Multiple Variable, nothing allows truncation here.
            if t.isTruncated { sink.note("value shorter than its length") }
            sink.end()
            consumed &+= 4 &+ t.value.count
            n += 1
        }
        if n < 2 { sink.note("fewer than two tuples") }
        if consumed < tuples.bytes.count {
            sink.note("bytes after the last tuple")
            sink.field("trailing", .bytes(tuples.bytes.suffix(from: consumed) ?? .empty))
        }
    }
}
