import BLEBytes

/// The PDUs laid out as Attribute Handle, Attribute Value (Write Request and Command,
/// Vol 3 Part F 3.4.5.1/3.4.5.3; Handle Value Notification and Indication, 3.4.7.1/3.4.7.2):
/// one parser and one description for all four.
public protocol ATTHandleValuePDU: ATTPDUType {
    var handle: UInt16 { get }
    var value: ByteView { get }
    init(handle: UInt16, value: ByteView)
}

extension ATTHandleValuePDU {
    public init?(parameters p: ByteView) {
        guard let h = p.u16le(0), let v = p.suffix(from: 2) else { return nil }
        self.init(handle: h, value: v)
    }

    public func describe(into sink: FieldSink) {
        sink.field("handle", .hex(UInt64(handle), digits: 4))
        sink.field("value", .bytes(value))
    }

    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt16LE(handle)
        w.appendBytes(value)
    }

    /// The whole PDU for a handle and a value kept as an array (replay and the simulator keep
    /// values as arrays).
    public static func encoded(handle: UInt16, value: [UInt8]) -> [UInt8] {
        value.withByteView { Self(handle: handle, value: $0).encoded() }
    }
}

/// Prepare Write Request and Response (Vol 3 Part F 3.4.6.1/3.4.6.2): Attribute Handle,
/// Value Offset, Part Attribute Value — the response echoes the request's layout.
public protocol ATTPrepareWritePDU: ATTPDUType {
    var handle: UInt16 { get }
    var offset: UInt16 { get }
    var partValue: ByteView { get }
    init(handle: UInt16, offset: UInt16, partValue: ByteView)
}

extension ATTPrepareWritePDU {
    public init?(parameters p: ByteView) {
        guard let h = p.u16le(0), let o = p.u16le(2), let v = p.suffix(from: 4) else { return nil }
        self.init(handle: h, offset: o, partValue: v)
    }

    public func describe(into sink: FieldSink) {
        sink.field("handle", .hex(UInt64(handle), digits: 4))
        sink.field("offset", .uint(UInt64(offset)))
        sink.field("value", .bytes(partValue))
    }

    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt16LE(handle)
        w.appendUInt16LE(offset)
        w.appendBytes(partValue)
    }

    /// The whole PDU for a part value kept as an array.
    public static func encoded(handle: UInt16, offset: UInt16, partValue: [UInt8]) -> [UInt8] {
        partValue.withByteView { Self(handle: handle, offset: offset, partValue: $0).encoded() }
    }
}

/// ATT_WRITE_REQ (Core 5.4 Vol 3 Part F 3.4.5.1): Attribute Handle, Attribute Value.
public struct ATTWriteRequest: ATTHandleValuePDU, @unchecked Sendable {
    public let handle: UInt16
    public let value: ByteView
    public init(handle: UInt16, value: ByteView) {
        self.handle = handle
        self.value = value
    }
}

/// ATT_WRITE_RSP (Vol 3 Part F 3.4.5.2): no parameters.
public struct ATTWriteResponse: ATTPDUType, Sendable {
    public init() {}
    public init?(parameters p: ByteView) {}
    public func appendParameters(to w: inout ByteWriter) {}
    public func describe(into sink: FieldSink) {}
}

/// ATT_WRITE_CMD (Vol 3 Part F 3.4.5.3): Attribute Handle, Attribute Value; no response.
public struct ATTWriteCommand: ATTHandleValuePDU, @unchecked Sendable {
    public let handle: UInt16
    public let value: ByteView
    public init(handle: UInt16, value: ByteView) {
        self.handle = handle
        self.value = value
    }
}

/// ATT_SIGNED_WRITE_CMD (Vol 3 Part F 3.4.5.4): Attribute Handle, Attribute Value,
/// Authentication Signature (12 bytes: SignCounter u32 + 8-byte MAC, Vol 3 Part H 2.4.5).
public struct ATTSignedWriteCommand: ATTPDUType, @unchecked Sendable {
    public let handle: UInt16
    public let value: ByteView
    public let signature: ByteView
    /// `signature`: the 12-byte Authentication Signature (written as given).
    public init(handle: UInt16, value: ByteView, signature: ByteView) {
        (self.handle, self.value, self.signature) = (handle, value, signature)
    }
    public init?(parameters p: ByteView) {
        guard let h = p.u16le(0), p.count >= 14 else { return nil }
        handle = h
        value = p.slice(2, p.count - 14)!
        signature = p.suffix(from: p.count - 12)!
    }
    public var signCounter: UInt32 { signature.u32le(0)! }
    public func describe(into sink: FieldSink) {
        sink.field("handle", .hex(UInt64(handle), digits: 4))
        sink.field("value", .bytes(value))
        sink.field("sign_counter", .uint(UInt64(signCounter)))
        sink.field("mac", .bytes(signature.suffix(from: 4)!))
    }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt16LE(handle)
        w.appendBytes(value)
        w.appendBytes(signature)
    }
}

/// ATT_PREPARE_WRITE_REQ (Vol 3 Part F 3.4.6.1): Attribute Handle, Value Offset, Part
/// Attribute Value.
public struct ATTPrepareWriteRequest: ATTPrepareWritePDU, @unchecked Sendable {
    public let handle: UInt16
    public let offset: UInt16
    public let partValue: ByteView
    public init(handle: UInt16, offset: UInt16, partValue: ByteView) {
        self.handle = handle
        self.offset = offset
        self.partValue = partValue
    }
}

/// ATT_PREPARE_WRITE_RSP (Vol 3 Part F 3.4.6.2): echoes the request's handle, offset and part
/// value, so the client can check the server queued what it sent.
public struct ATTPrepareWriteResponse: ATTPrepareWritePDU, @unchecked Sendable {
    public let handle: UInt16
    public let offset: UInt16
    public let partValue: ByteView
    public init(handle: UInt16, offset: UInt16, partValue: ByteView) {
        self.handle = handle
        self.offset = offset
        self.partValue = partValue
    }
}

/// ATT_EXECUTE_WRITE_REQ (Vol 3 Part F 3.4.6.3): Flags (0x00 cancel all prepared writes,
/// 0x01 write them all).
public struct ATTExecuteWriteRequest: ATTPDUType, Sendable {
    public let flags: UInt8
    public static let cancelAllPreparedWrites: UInt8 = 0x00
    public static let writeAllPreparedWrites: UInt8 = 0x01
    public init(flags: UInt8) { self.flags = flags }
    public init?(parameters p: ByteView) {
        guard let f = p.u8(0) else { return nil }
        flags = f
    }
    public func appendParameters(to w: inout ByteWriter) { w.appendUInt8(flags) }
    public func describe(into sink: FieldSink) {
        let name: StaticString? =
            flags == 0
            ? "Cancel all prepared writes" : flags == 1 ? "Immediately write all pending prepared values" : nil
        sink.field("flags", .code(UInt64(flags), digits: 2, name: name))
    }
}

/// ATT_EXECUTE_WRITE_RSP (Vol 3 Part F 3.4.6.4): no parameters.
public struct ATTExecuteWriteResponse: ATTPDUType, Sendable {
    public init() {}
    public init?(parameters p: ByteView) {}
    public func appendParameters(to w: inout ByteWriter) {}
    public func describe(into sink: FieldSink) {}
}
