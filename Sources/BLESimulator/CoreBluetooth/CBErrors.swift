import BLEPackets
import Foundation

/// `CBATTError`: an ATT Error Response code (Core Vol 3 Part F 3.4.1.1, Table 3.4) as Core
/// Bluetooth reports it in `error:` (domain `CBATTErrorDomain`, code = the ATT code). Codes are
/// open (application errors 0x80–0x9F and profile errors 0xE0–0xFF are valid), so `Code` is a
/// raw-value struct with Core Bluetooth's names as constants.
public struct CBATTError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        init(_ attErrorCode: UInt8) { rawValue = Int(attErrorCode) }

        public static let success = Code(rawValue: 0x00)
        public static let invalidHandle = Code(ATTErrorCode.invalidHandle)
        public static let readNotPermitted = Code(ATTErrorCode.readNotPermitted)
        public static let writeNotPermitted = Code(ATTErrorCode.writeNotPermitted)
        public static let invalidPdu = Code(ATTErrorCode.invalidPDU)
        public static let insufficientAuthentication = Code(ATTErrorCode.insufficientAuthentication)
        public static let requestNotSupported = Code(ATTErrorCode.requestNotSupported)
        public static let invalidOffset = Code(ATTErrorCode.invalidOffset)
        public static let insufficientAuthorization = Code(ATTErrorCode.insufficientAuthorization)
        public static let prepareQueueFull = Code(ATTErrorCode.prepareQueueFull)
        public static let attributeNotFound = Code(ATTErrorCode.attributeNotFound)
        public static let attributeNotLong = Code(ATTErrorCode.attributeNotLong)
        public static let insufficientEncryptionKeySize = Code(ATTErrorCode.insufficientEncryptionKeySize)
        public static let invalidAttributeValueLength = Code(ATTErrorCode.invalidAttributeValueLength)
        public static let unlikelyError = Code(ATTErrorCode.unlikelyError)
        public static let insufficientEncryption = Code(ATTErrorCode.insufficientEncryption)
        public static let unsupportedGroupType = Code(ATTErrorCode.unsupportedGroupType)
        public static let insufficientResources = Code(ATTErrorCode.insufficientResources)

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
        case unknown = 0
        case invalidParameters, invalidHandle, notConnected, outOfSpace, operationCancelled,
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
