import Foundation

/// `CBATTError`: an ATT Error Response code (Core Vol 3 Part F 3.4.1.1, Table 3.4) as Core
/// Bluetooth reports it in `error:` (domain `CBATTErrorDomain`, code = the ATT code). Codes are
/// open (application errors 0x80–0x9F and profile errors 0xE0–0xFF are valid), so `Code` is a
/// raw-value struct with Core Bluetooth's names as constants.
public struct CBATTError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let success = Code(rawValue: 0x00)
        public static let invalidHandle = Code(rawValue: 0x01)
        public static let readNotPermitted = Code(rawValue: 0x02)
        public static let writeNotPermitted = Code(rawValue: 0x03)
        public static let invalidPdu = Code(rawValue: 0x04)
        public static let insufficientAuthentication = Code(rawValue: 0x05)
        public static let requestNotSupported = Code(rawValue: 0x06)
        public static let invalidOffset = Code(rawValue: 0x07)
        public static let insufficientAuthorization = Code(rawValue: 0x08)
        public static let prepareQueueFull = Code(rawValue: 0x09)
        public static let attributeNotFound = Code(rawValue: 0x0A)
        public static let attributeNotLong = Code(rawValue: 0x0B)
        public static let insufficientEncryptionKeySize = Code(rawValue: 0x0C)
        public static let invalidAttributeValueLength = Code(rawValue: 0x0D)
        public static let unlikelyError = Code(rawValue: 0x0E)
        public static let insufficientEncryption = Code(rawValue: 0x0F)
        public static let unsupportedGroupType = Code(rawValue: 0x10)
        public static let insufficientResources = Code(rawValue: 0x11)

        public var byte: UInt8 { UInt8(truncatingIfNeeded: rawValue) }
    }

    public let code: Code
    public init(_ code: Code) { self.code = code }

    public static let invalidHandle = Code.invalidHandle
    public static let readNotPermitted = Code.readNotPermitted
    public static let writeNotPermitted = Code.writeNotPermitted
    public static let requestNotSupported = Code.requestNotSupported
    public static let invalidAttributeValueLength = Code.invalidAttributeValueLength
    public static let insufficientAuthentication = Code.insufficientAuthentication
    public static let insufficientEncryption = Code.insufficientEncryption

    /// Core Bluetooth's `localizedDescription` texts for the common codes.
    public var description: String {
        switch code {
        case .invalidHandle: "The handle is invalid."
        case .readNotPermitted: "Reading is not permitted."
        case .writeNotPermitted: "Writing is not permitted."
        case .requestNotSupported: "The request is not supported."
        case .invalidOffset: "The offset is invalid."
        case .attributeNotFound: "The attribute could not be found."
        case .invalidAttributeValueLength: "The value's length is invalid."
        case .insufficientAuthentication: "Authentication is insufficient."
        case .insufficientEncryption: "Encryption is insufficient."
        case .unlikelyError: "The request has encountered an unlikely error."
        default: "ATT error 0x\(String(code.rawValue, radix: 16, uppercase: true))."
        }
    }
}

extension CBATTError.Code {
    /// `catch CBATTError.readNotPermitted` / `if case CBATTError.readNotPermitted = error`.
    public static func ~= (code: Self, error: any Error) -> Bool { (error as? CBATTError)?.code == code }
}

extension CBATTError: LocalizedError {
    public var errorDescription: String? { description }
}

/// `CBError`: Core Bluetooth's own (non-ATT) errors, raw values as in `CBError.Code`.
public struct CBError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: Int, Sendable {
        case unknown = 0, invalidParameters, invalidHandle, notConnected, outOfSpace, operationCancelled,
            connectionTimeout, peripheralDisconnected, uuidNotAllowed, alreadyAdvertising, connectionFailed,
            connectionLimitReached, unknownDevice, operationNotSupported, peerRemovedPairingInformation,
            encryptionTimedOut, tooManyLEPairedDevices
    }

    public let code: Code
    public init(_ code: Code) { self.code = code }

    public static let connectionTimeout = Code.connectionTimeout
    public static let peripheralDisconnected = Code.peripheralDisconnected
    public static let connectionFailed = Code.connectionFailed
    public static let notConnected = Code.notConnected

    public var description: String {
        switch code {
        case .connectionTimeout: "The connection has timed out unexpectedly."
        case .peripheralDisconnected: "The specified device has disconnected from us."
        case .connectionFailed: "The connection has failed unexpectedly."
        case .notConnected: "The specified device is not connected."
        case .operationCancelled: "The operation was cancelled."
        default: "Core Bluetooth error \(code.rawValue)."
        }
    }
}

extension CBError.Code {
    public static func ~= (code: Self, error: any Error) -> Bool { (error as? CBError)?.code == code }
}

extension CBError: LocalizedError {
    public var errorDescription: String? { description }
}
