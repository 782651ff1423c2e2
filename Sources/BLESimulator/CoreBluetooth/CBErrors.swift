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

    // Core Bluetooth's static aliases, so `CBATTError.insufficientEncryption` names the code
    // (`catch CBATTError.insufficientEncryption`, `error.code == CBATTError.readNotPermitted`).
    public static let success = Code.success
    public static let invalidHandle = Code.invalidHandle
    public static let readNotPermitted = Code.readNotPermitted
    public static let writeNotPermitted = Code.writeNotPermitted
    public static let invalidPdu = Code.invalidPdu
    public static let insufficientAuthentication = Code.insufficientAuthentication
    public static let requestNotSupported = Code.requestNotSupported
    public static let invalidOffset = Code.invalidOffset
    public static let insufficientAuthorization = Code.insufficientAuthorization
    public static let prepareQueueFull = Code.prepareQueueFull
    public static let attributeNotFound = Code.attributeNotFound
    public static let attributeNotLong = Code.attributeNotLong
    public static let insufficientEncryptionKeySize = Code.insufficientEncryptionKeySize
    public static let invalidAttributeValueLength = Code.invalidAttributeValueLength
    public static let unlikelyError = Code.unlikelyError
    public static let insufficientEncryption = Code.insufficientEncryption
    public static let unsupportedGroupType = Code.unsupportedGroupType
    public static let insufficientResources = Code.insufficientResources

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

/// `CBATTErrorDomain`: the `NSError` domain of ATT errors (Apple, `CBATTErrorDomain`).
public let CBATTErrorDomain = "CBATTErrorDomain"
/// `CBErrorDomain`: the `NSError` domain of Core Bluetooth's own errors (Apple, `CBErrorDomain`).
public let CBErrorDomain = "CBErrorDomain"

/// Bridges as Core Bluetooth's does: `error as NSError` has domain `CBATTErrorDomain` and the
/// ATT error code (Core Vol 3 Part F Table 3.4) as its code, with the localized description.
extension CBATTError: CustomNSError {
    public static var errorDomain: String { CBATTErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: description] }
}

/// `CBError`: Core Bluetooth's own (non-ATT) errors, raw values as in Apple's `CBError.Code`
/// (`CBError.h`: 0 unknown … 16 tooManyLEPairedDevices, 17 and 18 the background notification
/// limits of iOS 16).
public struct CBError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: Int, Sendable {
        case unknown = 0
        case invalidParameters, invalidHandle, notConnected, outOfSpace, operationCancelled,
            connectionTimeout, peripheralDisconnected, uuidNotAllowed, alreadyAdvertising, connectionFailed,
            connectionLimitReached, unknownDevice, operationNotSupported, peerRemovedPairingInformation,
            encryptionTimedOut, tooManyLEPairedDevices, leGattExceededBackgroundNotificationLimit,
            leGattNearBackgroundNotificationLimit

        /// The misspelt name Apple kept for source compatibility.
        @available(*, deprecated, renamed: "unknownDevice")
        public static var unkownDevice: Code { .unknownDevice }
    }

    public let code: Code
    public init(_ code: Code) { self.code = code }

    // Core Bluetooth's static aliases (`catch CBError.peripheralDisconnected`).
    public static let unknown = Code.unknown
    public static let invalidParameters = Code.invalidParameters
    public static let invalidHandle = Code.invalidHandle
    public static let notConnected = Code.notConnected
    public static let outOfSpace = Code.outOfSpace
    public static let operationCancelled = Code.operationCancelled
    public static let connectionTimeout = Code.connectionTimeout
    public static let peripheralDisconnected = Code.peripheralDisconnected
    public static let uuidNotAllowed = Code.uuidNotAllowed
    public static let alreadyAdvertising = Code.alreadyAdvertising
    public static let connectionFailed = Code.connectionFailed
    public static let connectionLimitReached = Code.connectionLimitReached
    public static let unknownDevice = Code.unknownDevice
    public static let operationNotSupported = Code.operationNotSupported
    public static let peerRemovedPairingInformation = Code.peerRemovedPairingInformation
    public static let encryptionTimedOut = Code.encryptionTimedOut
    public static let tooManyLEPairedDevices = Code.tooManyLEPairedDevices
    public static let leGattExceededBackgroundNotificationLimit = Code.leGattExceededBackgroundNotificationLimit
    public static let leGattNearBackgroundNotificationLimit = Code.leGattNearBackgroundNotificationLimit

    public var description: String {
        switch code {
        case .invalidParameters: "One or more parameters were invalid."
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

/// Bridges as Core Bluetooth's does: domain `CBErrorDomain`, code `CBError.Code`'s raw value.
extension CBError: CustomNSError {
    public static var errorDomain: String { CBErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: description] }
}
