import BLEBytes

/// ATT_ERROR_RSP (Core 5.4 Vol 3 Part F 3.4.1.1): Request Opcode In Error (u8), Attribute
/// Handle In Error (u16), Error Code (u8).
public struct ATTErrorResponse: ATTPDUType, Sendable {
    public let requestOpcode: ATTOpcode
    /// The handle the request was about, 0x0000 when it was about none (e.g. MTU exchange).
    public let handle: UInt16
    public let errorCode: UInt8

    public init(requestOpcode: ATTOpcode, handle: UInt16, errorCode: UInt8) {
        (self.requestOpcode, self.handle, self.errorCode) = (requestOpcode, handle, errorCode)
    }

    public init?(parameters p: ByteView) {
        guard let op = p.u8(0), let h = p.u16le(1), let e = p.u8(3) else { return nil }
        requestOpcode = ATTOpcode(op)
        handle = h
        errorCode = e
    }

    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt8(requestOpcode.rawValue)
        w.appendUInt16LE(handle)
        w.appendUInt8(errorCode)
    }

    public func describe(into sink: FieldSink) {
        sink.field("request_opcode", .code(UInt64(requestOpcode.rawValue), digits: 2, name: requestOpcode.name))
        sink.field("handle", .hex(UInt64(handle), digits: 4))
        sink.field("error_code", .code(UInt64(errorCode), digits: 2, name: ATTErrorCode.name(errorCode)))
    }
}

/// ATT_EXCHANGE_MTU_REQ (Vol 3 Part F 3.4.2.1): Client Rx MTU.
public struct ATTExchangeMTURequest: ATTPDUType, Sendable {
    public let clientRxMTU: UInt16
    public init(clientRxMTU: UInt16) { self.clientRxMTU = clientRxMTU }
    public init?(parameters p: ByteView) {
        guard let m = p.u16le(0) else { return nil }
        clientRxMTU = m
    }
    public func appendParameters(to w: inout ByteWriter) { w.appendUInt16LE(clientRxMTU) }
    public func describe(into sink: FieldSink) {
        sink.field("client_rx_mtu", .uint(UInt64(clientRxMTU)))
        // 23 is the LE minimum (3.2.8); smaller values are invalid.
        if clientRxMTU < 23 { sink.note("MTU below the minimum of 23") }
    }
}

/// ATT_EXCHANGE_MTU_RSP (Vol 3 Part F 3.4.2.2): Server Rx MTU.
public struct ATTExchangeMTUResponse: ATTPDUType, Sendable {
    public let serverRxMTU: UInt16
    public init(serverRxMTU: UInt16) { self.serverRxMTU = serverRxMTU }
    public init?(parameters p: ByteView) {
        guard let m = p.u16le(0) else { return nil }
        serverRxMTU = m
    }
    public func appendParameters(to w: inout ByteWriter) { w.appendUInt16LE(serverRxMTU) }
    public func describe(into sink: FieldSink) {
        sink.field("server_rx_mtu", .uint(UInt64(serverRxMTU)))
        if serverRxMTU < 23 { sink.note("MTU below the minimum of 23") }
    }
}
