import BLEBytes

/// A typed L2CAP signaling command (Core 5.4 Vol 3 Part A 4). `init?(data:)` parses the
/// command's data field (after code, identifier and length) and fails when it is too short.
public protocol L2CAPSignalingCommandType: SendableMetatype {
    static var code: UInt8 { get }
    init?(data: ByteView)
    func describe(into sink: FieldSink)
}

/// One signaling command: Code (u8), Identifier (u8), Length (u16), Data
/// (Core 5.4 Vol 3 Part A 4, Figure 4.2).
public struct L2CAPSignalingCommand: @unchecked Sendable {
    public let code: UInt8
    public let identifier: UInt8
    public let declaredLength: UInt16
    /// The data bytes present (fewer than declared when the command is cut short).
    public let data: ByteView

    public var name: StaticString { L2CAPSignalingCode.entry(code)?.name ?? "Unknown" }
    public var isTruncated: Bool { data.count < Int(declaredLength) }

    public func describe(into sink: FieldSink) {
        sink.field("code", .code(UInt64(code), digits: 2, name: name))
        sink.field("identifier", .uint(UInt64(identifier)))
        sink.field("length", .uint(UInt64(declaredLength)))
        if isTruncated { sink.note("signaling command shorter than its length") }
        guard let entry = L2CAPSignalingCode.entry(code), let describe = entry.describe else {
            sink.field("data", .bytes(data))
            return
        }
        if !describe(data, sink) {
            sink.note("signaling command too short")
            sink.field("data", .bytes(data))
        }
    }
}

extension L2CAPSignalingCode {
    /// The Code of a signaling C-frame's first command (its first octet), nil when it is empty.
    @inlinable public static func code(of payload: ByteView) -> UInt8? { payload.u8(0) }
}

/// The commands of a signaling C-frame. LE allows one command per C-frame (Vol 3 Part A
/// 4); BR/EDR may pack several, so this iterates, and leftovers shorter than a command header
/// end up in `trailing`.
public struct L2CAPSignalingCommands: Sequence, @unchecked Sendable {
    public let payload: ByteView
    /// From CID 0x0005 rather than 0x0001.
    public let isLE: Bool

    public init(_ payload: ByteView, le: Bool) {
        self.payload = payload
        self.isLE = le
    }

    public struct Iterator: IteratorProtocol {
        var reader: ByteReader
        public mutating func next() -> L2CAPSignalingCommand? {
            guard reader.remaining >= 4, let code = reader.u8(), let id = reader.u8(), let len = reader.u16le()
            else { return nil }
            let data = reader.bytes(Int(len)) ?? reader.rest()
            return L2CAPSignalingCommand(code: code, identifier: id, declaredLength: len, data: data)
        }
    }

    public func makeIterator() -> Iterator { Iterator(reader: ByteReader(payload)) }

    /// The first command (the only one on LE), if the frame holds a command header.
    public var first: L2CAPSignalingCommand? {
        var it = makeIterator()
        return it.next()
    }

    public func describe(into sink: FieldSink) {
        var it = makeIterator()
        var consumed = 0
        while let c = it.next() {
            sink.begin("command")
            c.describe(into: sink)
            sink.end()
            consumed = it.reader.offset
        }
        if consumed < payload.count {
            sink.note("signaling bytes after the last command")
            sink.field("trailing", .bytes(payload.suffix(from: consumed) ?? .empty))
        }
    }
}

/// Signaling command codes (Core 5.4 Vol 3 Part A 4, Table 4.2), with tshark's names where it
/// has them.
extension L2CAPSignalingCode {
    public struct Entry: Sendable {
        public let code: UInt8
        public let name: StaticString
        /// Describes the data field; false when it is too short.
        let describe: (@Sendable (ByteView, FieldSink) -> Bool)?
    }

    static func d<T: L2CAPSignalingCommandType>(_: T.Type) -> @Sendable (ByteView, FieldSink) -> Bool {
        { data, sink in
            guard let c = T(data: data) else { return false }
            c.describe(into: sink)
            return true
        }
    }

    public static let entries: [Entry] = [
        Entry(code: 0x01, name: "Command Reject", describe: d(L2CAPCommandReject.self)),
        Entry(code: 0x02, name: "Connection Request", describe: nil),
        Entry(code: 0x03, name: "Connection Response", describe: nil),
        Entry(code: 0x04, name: "Configure Request", describe: nil),
        Entry(code: 0x05, name: "Configure Response", describe: nil),
        Entry(code: 0x06, name: "Disconnection Request", describe: d(L2CAPDisconnectionRequest.self)),
        Entry(code: 0x07, name: "Disconnection Response", describe: d(L2CAPDisconnectionResponse.self)),
        Entry(code: 0x08, name: "Echo Request", describe: nil),
        Entry(code: 0x09, name: "Echo Response", describe: nil),
        Entry(code: 0x0A, name: "Information Request", describe: nil),
        Entry(code: 0x0B, name: "Information Response", describe: nil),
        Entry(code: 0x0C, name: "Create Channel Request", describe: nil),
        Entry(code: 0x0D, name: "Create Channel Response", describe: nil),
        Entry(code: 0x0E, name: "Move Channel Request", describe: nil),
        Entry(code: 0x0F, name: "Move Channel Response", describe: nil),
        Entry(code: 0x10, name: "Move Channel Confirmation", describe: nil),
        Entry(code: 0x11, name: "Move Channel Confirmation Response", describe: nil),
        Entry(
            code: 0x12, name: "Connection Parameter Update Request",
            describe: d(L2CAPConnectionParameterUpdateRequest.self)),
        Entry(
            code: 0x13, name: "Connection Parameter Update Response",
            describe: d(L2CAPConnectionParameterUpdateResponse.self)),
        Entry(
            code: 0x14, name: "LE Credit Based Connection Request",
            describe: d(L2CAPLECreditBasedConnectionRequest.self)),
        Entry(
            code: 0x15, name: "LE Credit Based Connection Response",
            describe: d(L2CAPLECreditBasedConnectionResponse.self)),
        Entry(code: 0x16, name: "LE Flow Control Credit", describe: d(L2CAPFlowControlCreditIndication.self)),
        Entry(
            code: 0x17, name: "Credit Based Connection Request",
            describe: d(L2CAPCreditBasedConnectionRequest.self)),
        Entry(
            code: 0x18, name: "Credit Based Connection Response",
            describe: d(L2CAPCreditBasedConnectionResponse.self)),
        Entry(
            code: 0x19, name: "Credit Based Reconfigure Request",
            describe: d(L2CAPCreditBasedReconfigureRequest.self)),
        Entry(
            code: 0x1A, name: "Credit Based Reconfigure Response",
            describe: d(L2CAPCreditBasedReconfigureResponse.self)),
    ]

    public static func entry(_ code: UInt8) -> Entry? {
        // Codes are dense from 0x01, so the table is indexed directly.
        let i = Int(code) - 1
        return i >= 0 && i < entries.count ? entries[i] : nil
    }

    public static func name(_ code: UInt8) -> StaticString { entry(code)?.name ?? "Unknown" }
}

// MARK: - Commands

/// L2CAP_COMMAND_REJECT_RSP (Vol 3 Part A 4.1): Reason (u16) and reason-specific data.
public struct L2CAPCommandReject: L2CAPSignalingCommandType, @unchecked Sendable {
    public static let code: UInt8 = 0x01
    public let reason: UInt16
    /// 0x0001: actual signaling MTU (u16); 0x0002: local and remote CID (u16 each).
    public let reasonData: ByteView

    public init?(data: ByteView) {
        var r = ByteReader(data)
        guard let reason = r.u16le() else { return nil }
        self.reason = reason
        reasonData = r.rest()
    }

    public static func reasonName(_ r: UInt16) -> StaticString? {
        switch r {
        case 0x0000: "Command not understood"
        case 0x0001: "Signaling MTU exceeded"
        case 0x0002: "Invalid CID in request"
        default: nil
        }
    }

    public func describe(into sink: FieldSink) {
        sink.field("reason", .code(UInt64(reason), digits: 4, name: Self.reasonName(reason)))
        switch reason {
        case 0x0001 where reasonData.count >= 2:
            sink.field("actual_mtu", .uint(UInt64(reasonData.u16le(0)!)))
        case 0x0002 where reasonData.count >= 4:
            sink.field("local_cid", .hex(UInt64(reasonData.u16le(0)!), digits: 4))
            sink.field("remote_cid", .hex(UInt64(reasonData.u16le(2)!), digits: 4))
        default:
            if !reasonData.isEmpty { sink.field("data", .bytes(reasonData)) }
        }
    }
}

/// Disconnection Request and Response (Vol 3 Part A 4.6/4.7): Destination CID, Source CID —
/// the response echoes the request's.
public protocol L2CAPDisconnectionCommand: L2CAPSignalingCommandType {
    var destinationCID: UInt16 { get }
    var sourceCID: UInt16 { get }
    init(destinationCID: UInt16, sourceCID: UInt16)
}

extension L2CAPDisconnectionCommand {
    public init?(data: ByteView) {
        guard let d = data.u16le(0), let s = data.u16le(2) else { return nil }
        self.init(destinationCID: d, sourceCID: s)
    }

    public func describe(into sink: FieldSink) {
        sink.field("destination_cid", .hex(UInt64(destinationCID), digits: 4))
        sink.field("source_cid", .hex(UInt64(sourceCID), digits: 4))
    }
}

/// L2CAP_DISCONNECTION_REQ (Vol 3 Part A 4.6): Destination CID, Source CID.
public struct L2CAPDisconnectionRequest: L2CAPDisconnectionCommand, Sendable {
    public static let code: UInt8 = 0x06
    public let destinationCID: UInt16
    public let sourceCID: UInt16
    public init(destinationCID: UInt16, sourceCID: UInt16) {
        self.destinationCID = destinationCID
        self.sourceCID = sourceCID
    }
}

/// L2CAP_DISCONNECTION_RSP (Vol 3 Part A 4.7): Destination CID, Source CID (echoed).
public struct L2CAPDisconnectionResponse: L2CAPDisconnectionCommand, Sendable {
    public static let code: UInt8 = 0x07
    public let destinationCID: UInt16
    public let sourceCID: UInt16
    public init(destinationCID: UInt16, sourceCID: UInt16) {
        self.destinationCID = destinationCID
        self.sourceCID = sourceCID
    }
}

/// L2CAP_CONNECTION_PARAMETER_UPDATE_REQ (Vol 3 Part A 4.20): sent by the peripheral; interval
/// in 1.25 ms units, timeout in 10 ms units.
public struct L2CAPConnectionParameterUpdateRequest: L2CAPSignalingCommandType, Sendable {
    public static let code = L2CAPSignalingCode.connectionParameterUpdateRequest
    public let intervalMin: UInt16
    public let intervalMax: UInt16
    public let latency: UInt16
    public let timeout: UInt16
    public init?(data: ByteView) {
        guard let a = data.u16le(0), let b = data.u16le(2), let l = data.u16le(4), let t = data.u16le(6)
        else { return nil }
        intervalMin = a
        intervalMax = b
        latency = l
        timeout = t
    }
    public func describe(into sink: FieldSink) {
        sink.field("interval_min", .microseconds(Int64(intervalMin) * 1250))
        sink.field("interval_max", .microseconds(Int64(intervalMax) * 1250))
        sink.field("latency", .uint(UInt64(latency)))
        sink.field("timeout", .microseconds(Int64(timeout) * 10_000))
    }
}

/// L2CAP_CONNECTION_PARAMETER_UPDATE_RSP (Vol 3 Part A 4.21): Result 0 accepted, 1 rejected.
public struct L2CAPConnectionParameterUpdateResponse: L2CAPSignalingCommandType, Sendable {
    public static let code = L2CAPSignalingCode.connectionParameterUpdateResponse
    public let result: UInt16
    public init?(data: ByteView) {
        guard let r = data.u16le(0) else { return nil }
        result = r
    }
    public func describe(into sink: FieldSink) {
        let name: StaticString? = result == 0 ? "Accepted" : result == 1 ? "Rejected" : nil
        sink.field("result", .code(UInt64(result), digits: 4, name: name))
    }
}

/// Result codes of LE credit-based connection (Vol 3 Part A 4.23, Table 4.16) — the
/// enhanced variant (4.26, Table 4.18) shares 0x0000–0x000B and adds 0x000C–0x000F.
public enum L2CAPCreditBasedResult {
    public static func name(_ r: UInt16, enhanced: Bool) -> StaticString? {
        switch r {
        case 0x0000: enhanced ? "All connections successful" : "Connection successful"
        case 0x0002: "SPSM not supported"
        case 0x0004: "Insufficient resources"
        case 0x0005: "Insufficient authentication"
        case 0x0006: "Insufficient authorization"
        case 0x0007: "Encryption key size too short"
        case 0x0008: "Insufficient encryption"
        case 0x0009: "Invalid Source CID"
        case 0x000A: "Source CID already allocated"
        case 0x000B: "Unacceptable parameters"
        case 0x000C where enhanced: "Invalid parameters"
        case 0x000D where enhanced: "Pending, no further information"
        case 0x000E where enhanced: "Pending, authentication"
        case 0x000F where enhanced: "Pending, authorization"
        default: nil
        }
    }
}

/// L2CAP_LE_CREDIT_BASED_CONNECTION_REQ (Vol 3 Part A 4.22): SPSM, Source CID, MTU, MPS,
/// Initial Credits.
public struct L2CAPLECreditBasedConnectionRequest: L2CAPSignalingCommandType, Sendable {
    public static let code: UInt8 = 0x14
    public let spsm: UInt16
    public let sourceCID: UInt16
    public let mtu: UInt16
    public let mps: UInt16
    public let initialCredits: UInt16
    public init?(data: ByteView) {
        guard let a = data.u16le(0), let b = data.u16le(2), let c = data.u16le(4), let d = data.u16le(6),
            let e = data.u16le(8)
        else { return nil }
        spsm = a
        sourceCID = b
        mtu = c
        mps = d
        initialCredits = e
    }
    public func describe(into sink: FieldSink) {
        sink.field("spsm", .hex(UInt64(spsm), digits: 4))
        sink.field("source_cid", .hex(UInt64(sourceCID), digits: 4))
        sink.field("mtu", .uint(UInt64(mtu)))
        sink.field("mps", .uint(UInt64(mps)))
        sink.field("initial_credits", .uint(UInt64(initialCredits)))
    }
}

/// L2CAP_LE_CREDIT_BASED_CONNECTION_RSP (Vol 3 Part A 4.23): Destination CID, MTU, MPS,
/// Initial Credits, Result.
public struct L2CAPLECreditBasedConnectionResponse: L2CAPSignalingCommandType, Sendable {
    public static let code: UInt8 = 0x15
    public let destinationCID: UInt16
    public let mtu: UInt16
    public let mps: UInt16
    public let initialCredits: UInt16
    public let result: UInt16
    public init?(data: ByteView) {
        guard let a = data.u16le(0), let b = data.u16le(2), let c = data.u16le(4), let d = data.u16le(6),
            let e = data.u16le(8)
        else { return nil }
        destinationCID = a
        mtu = b
        mps = c
        initialCredits = d
        result = e
    }
    public func describe(into sink: FieldSink) {
        sink.field("destination_cid", .hex(UInt64(destinationCID), digits: 4))
        sink.field("mtu", .uint(UInt64(mtu)))
        sink.field("mps", .uint(UInt64(mps)))
        sink.field("initial_credits", .uint(UInt64(initialCredits)))
        sink.field(
            "result", .code(UInt64(result), digits: 4, name: L2CAPCreditBasedResult.name(result, enhanced: false)))
    }
}

/// L2CAP_FLOW_CONTROL_CREDIT_IND (Vol 3 Part A 4.24): CID, Credits.
public struct L2CAPFlowControlCreditIndication: L2CAPSignalingCommandType, Sendable {
    public static let code: UInt8 = 0x16
    public let cid: UInt16
    public let credits: UInt16
    public init?(data: ByteView) {
        guard let a = data.u16le(0), let b = data.u16le(2) else { return nil }
        cid = a
        credits = b
    }
    public func describe(into sink: FieldSink) {
        sink.field("cid", .hex(UInt64(cid), digits: 4))
        sink.field("credits", .uint(UInt64(credits)))
    }
}

/// A list of u16 CIDs (the enhanced credit-based commands carry 1–5 of them).
public struct L2CAPCIDList: Sequence, @unchecked Sendable {
    public let bytes: ByteView
    public var count: Int { bytes.count / 2 }
    /// An odd trailing byte means the list is malformed.
    public var isWellFormed: Bool { bytes.count % 2 == 0 }
    public struct Iterator: IteratorProtocol {
        let bytes: ByteView
        var offset = 0
        public mutating func next() -> UInt16? {
            guard let v = bytes.u16le(offset) else { return nil }
            offset += 2
            return v
        }
    }
    public func makeIterator() -> Iterator { Iterator(bytes: bytes) }

    func describe(_ name: StaticString, into sink: FieldSink) {
        for cid in self { sink.field(name, .hex(UInt64(cid), digits: 4)) }
        if !isWellFormed { sink.note("CID list has an odd length") }
    }
}

/// L2CAP_CREDIT_BASED_CONNECTION_REQ (Vol 3 Part A 4.25): SPSM, MTU, MPS, Initial Credits,
/// Source CID[1…5].
public struct L2CAPCreditBasedConnectionRequest: L2CAPSignalingCommandType, @unchecked Sendable {
    public static let code: UInt8 = 0x17
    public let spsm: UInt16
    public let mtu: UInt16
    public let mps: UInt16
    public let initialCredits: UInt16
    public let sourceCIDs: L2CAPCIDList
    public init?(data: ByteView) {
        guard let a = data.u16le(0), let b = data.u16le(2), let c = data.u16le(4), let d = data.u16le(6)
        else { return nil }
        spsm = a
        mtu = b
        mps = c
        initialCredits = d
        sourceCIDs = L2CAPCIDList(bytes: data.suffix(from: 8)!)
    }
    public func describe(into sink: FieldSink) {
        sink.field("spsm", .hex(UInt64(spsm), digits: 4))
        sink.field("mtu", .uint(UInt64(mtu)))
        sink.field("mps", .uint(UInt64(mps)))
        sink.field("initial_credits", .uint(UInt64(initialCredits)))
        sourceCIDs.describe("source_cid", into: sink)
    }
}

/// L2CAP_CREDIT_BASED_CONNECTION_RSP (Vol 3 Part A 4.26): MTU, MPS, Initial Credits, Result,
/// Destination CID[1…5].
public struct L2CAPCreditBasedConnectionResponse: L2CAPSignalingCommandType, @unchecked Sendable {
    public static let code: UInt8 = 0x18
    public let mtu: UInt16
    public let mps: UInt16
    public let initialCredits: UInt16
    public let result: UInt16
    public let destinationCIDs: L2CAPCIDList
    public init?(data: ByteView) {
        guard let a = data.u16le(0), let b = data.u16le(2), let c = data.u16le(4), let d = data.u16le(6)
        else { return nil }
        mtu = a
        mps = b
        initialCredits = c
        result = d
        destinationCIDs = L2CAPCIDList(bytes: data.suffix(from: 8)!)
    }
    public func describe(into sink: FieldSink) {
        sink.field("mtu", .uint(UInt64(mtu)))
        sink.field("mps", .uint(UInt64(mps)))
        sink.field("initial_credits", .uint(UInt64(initialCredits)))
        sink.field(
            "result", .code(UInt64(result), digits: 4, name: L2CAPCreditBasedResult.name(result, enhanced: true)))
        destinationCIDs.describe("destination_cid", into: sink)
    }
}

/// L2CAP_CREDIT_BASED_RECONFIGURE_REQ (Vol 3 Part A 4.27): MTU, MPS, Destination CID[1…5].
public struct L2CAPCreditBasedReconfigureRequest: L2CAPSignalingCommandType, @unchecked Sendable {
    public static let code: UInt8 = 0x19
    public let mtu: UInt16
    public let mps: UInt16
    public let destinationCIDs: L2CAPCIDList
    public init?(data: ByteView) {
        guard let a = data.u16le(0), let b = data.u16le(2) else { return nil }
        mtu = a
        mps = b
        destinationCIDs = L2CAPCIDList(bytes: data.suffix(from: 4)!)
    }
    public func describe(into sink: FieldSink) {
        sink.field("mtu", .uint(UInt64(mtu)))
        sink.field("mps", .uint(UInt64(mps)))
        destinationCIDs.describe("destination_cid", into: sink)
    }
}

/// L2CAP_CREDIT_BASED_RECONFIGURE_RSP (Vol 3 Part A 4.28): Result.
public struct L2CAPCreditBasedReconfigureResponse: L2CAPSignalingCommandType, Sendable {
    public static let code: UInt8 = 0x1A
    public let result: UInt16
    public init?(data: ByteView) {
        guard let r = data.u16le(0) else { return nil }
        result = r
    }
    public static func resultName(_ r: UInt16) -> StaticString? {
        switch r {
        case 0x0000: "Reconfiguration successful"
        case 0x0001: "Reduction in size of MTU not allowed"
        case 0x0002: "Reduction in size of MPS not allowed for more than one channel"
        case 0x0003: "One or more Destination CIDs invalid"
        case 0x0004: "Unacceptable parameters"
        default: nil
        }
    }
    public func describe(into sink: FieldSink) {
        sink.field("result", .code(UInt64(result), digits: 4, name: Self.resultName(result)))
    }
}
