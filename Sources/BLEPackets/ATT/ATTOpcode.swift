import BLEBytes

/// A typed ATT PDU (Core 5.4 Vol 3 Part F 3.4). `init?(parameters:)` parses the bytes after
/// the opcode and fails only when they are too short for the PDU's fixed fields;
/// `appendParameters(to:)` writes them back, so `append(to:)` (opcode, then parameters)
/// reproduces the PDU a decoded value came from.
public protocol ATTPDUType: SendableMetatype, ByteEncodable {
    static var opcode: ATTOpcode { get }
    init?(parameters: ByteView)
    func describe(into sink: FieldSink)
    /// Writes the parameters (everything after the opcode).
    func appendParameters(to writer: inout ByteWriter)
}

extension ATTPDUType {
    /// Writes the whole PDU: opcode, then parameters.
    public func append(to writer: inout ByteWriter) {
        writer.appendUInt8(Self.opcode.rawValue)
        appendParameters(to: &writer)
    }
}

extension ATTPDUType {
    /// Parses a whole PDU (opcode byte included); nil when the opcode is another one or the
    /// parameters are too short. Inlinable: a caller in another module otherwise runs the
    /// unspecialized extension, which looks up `Optional<Self>`'s metadata on every call
    /// (docs/performance.md, "ATT flow control in the bearer").
    @inlinable public init?(pdu: ByteView) {
        guard pdu.u8(0) == Self.opcode.rawValue, let p = pdu.suffix(from: 1) else { return nil }
        self.init(parameters: p)
    }
}

/// Method kinds of ATT PDUs (Vol 3 Part F 3.3): who sends it and whether it is acknowledged.
public enum ATTMethodKind: UInt8, Sendable {
    case request, response, command, notification, indication, confirmation

    public var name: StaticString {
        switch self {
        case .request: "request"
        case .response: "response"
        case .command: "command"
        case .notification: "notification"
        case .indication: "indication"
        case .confirmation: "confirmation"
        }
    }
}

/// The opcode table's view of an opcode (Vol 3 Part F 3.4.8, Table 3.37).
extension ATTOpcode {
    /// Table entry, nil for opcodes the spec does not define.
    public var entry: ATTOpcodeTable.Entry? { ATTOpcodeTable.byOpcode[Int(rawValue)] }
    /// tshark's name ("Read By Group Type Request"), "Unknown" for undefined opcodes.
    public var name: StaticString { entry?.name ?? "Unknown" }
    /// From its own table, not `entry`: replay asks this of every PDU, and copying an entry out
    /// of `byOpcode` (its describe closure retained and released) was 70 instructions a call.
    public var method: ATTMethodKind? { ATTOpcodeTable.methodByOpcode[Int(rawValue)] }
    /// Whether the PDU names exactly one attribute handle in its own bytes.
    public var carriesSingleHandle: Bool { (entry?.handleOffset ?? -1) >= 0 }
}

/// The opcode table (Vol 3 Part F 3.4.8, Table 3.37), btmon-style: one row per opcode with
/// its name, method kind, where its single handle sits, its fixed size and its decoder. The rows
/// (`entries`) are generated from scripts/pdu/att_pdus.py into ATTPDU+Generated.swift.
public enum ATTOpcodeTable {
    public struct Entry: Sendable {
        public let opcode: UInt8
        public let name: StaticString
        public let method: ATTMethodKind
        /// Offset in the PDU (opcode = 0) of the one attribute handle the PDU carries, or -1.
        public let handleOffset: Int
        /// Exact parameter size for fixed-size PDUs (nil: variable).
        public let fixedParameterLength: Int?
        /// Describes the parameters; false when they are too short.
        let describe: @Sendable (ByteView, FieldSink) -> Bool
    }

    static func d<T: ATTPDUType>(_: T.Type) -> @Sendable (ByteView, FieldSink) -> Bool {
        { parameters, sink in
            guard let p = T(parameters: parameters) else { return false }
            p.describe(into: sink)
            return true
        }
    }

    /// 256 slots indexed by opcode byte, so lookups are one array access.
    public static let byOpcode: [Entry?] = {
        var t = [Entry?](repeating: nil, count: 256)
        for e in entries { t[Int(e.opcode)] = e }
        return t
    }()

    /// Each opcode's method kind, 256 slots like `byOpcode`.
    static let methodByOpcode: [ATTMethodKind?] = {
        var t = [ATTMethodKind?](repeating: nil, count: 256)
        for e in entries { t[Int(e.opcode)] = e.method }
        return t
    }()

    /// Each opcode's `handleOffset` (-1 for none or an undefined opcode), 256 slots like
    /// `byOpcode`: `ATTPDU.handle(of:)` runs for every PDU replay models, and taking the row
    /// out of `byOpcode` copied it, its closure retained and released (docs/performance.md).
    static let handleOffsetByOpcode: [Int8] = {
        var t = [Int8](repeating: -1, count: 256)
        for e in entries { t[Int(e.opcode)] = Int8(e.handleOffset) }
        return t
    }()
}

/// ATT error codes (Vol 3 Part F 3.4.1.1, Table 3.4) and the common profile and service
/// error codes (Core Specification Supplement Part B 1.2).
public enum ATTErrorCode {
    public static let invalidHandle: UInt8 = 0x01
    public static let readNotPermitted: UInt8 = 0x02
    public static let writeNotPermitted: UInt8 = 0x03
    public static let invalidPDU: UInt8 = 0x04
    public static let insufficientAuthentication: UInt8 = 0x05
    public static let requestNotSupported: UInt8 = 0x06
    public static let invalidOffset: UInt8 = 0x07
    public static let insufficientAuthorization: UInt8 = 0x08
    public static let prepareQueueFull: UInt8 = 0x09
    public static let attributeNotFound: UInt8 = 0x0A
    public static let attributeNotLong: UInt8 = 0x0B
    public static let insufficientEncryptionKeySize: UInt8 = 0x0C
    public static let invalidAttributeValueLength: UInt8 = 0x0D
    public static let unlikelyError: UInt8 = 0x0E
    public static let insufficientEncryption: UInt8 = 0x0F
    public static let unsupportedGroupType: UInt8 = 0x10
    public static let insufficientResources: UInt8 = 0x11
    public static let databaseOutOfSync: UInt8 = 0x12
    public static let valueNotAllowed: UInt8 = 0x13
    /// Common profile and service error codes (Core Specification Supplement Part B 1.2).
    public static let writeRequestRejected: UInt8 = 0xFC
    public static let improperCCCD: UInt8 = 0xFD
    public static let procedureAlreadyInProgress: UInt8 = 0xFE
    public static let outOfRange: UInt8 = 0xFF

    /// tshark's names where tshark has the code, the spec's otherwise; 0x80–0x9F are
    /// application errors, named as a class.
    public static func name(_ code: UInt8) -> StaticString? {
        switch code {
        case 0x01: "Invalid Handle"
        case 0x02: "Read Not Permitted"
        case 0x03: "Write Not Permitted"
        case 0x04: "Invalid PDU"
        case 0x05: "Insufficient Authentication"
        case 0x06: "Request Not Supported"
        case 0x07: "Invalid Offset"
        case 0x08: "Insufficient Authorization"
        case 0x09: "Prepare Queue Full"
        case 0x0A: "Attribute Not Found"
        case 0x0B: "Attribute Not Long"
        case 0x0C: "Insufficient Encryption Key Size"
        case 0x0D: "Invalid Attribute Value Length"
        case 0x0E: "Unlikely Error"
        case 0x0F: "Insufficient Encryption"
        case 0x10: "Unsupported Group Type"
        case 0x11: "Insufficient Resources"
        case 0x12: "Database Out Of Sync"
        case 0x13: "Value Not Allowed"
        case 0x80...0x9F: "Application Error"
        case 0xFC: "Write Request Rejected"
        case 0xFD: "Improper Client Characteristic Configuration Descriptor"
        case 0xFE: "Procedure Already In Progress"
        case 0xFF: "Out of Range"
        default: nil
        }
    }
}
