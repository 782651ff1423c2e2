import Foundation

/// Core Bluetooth's timestamp type (seconds since 2001-01-01). Foundation on Linux does not
/// export Core Foundation's alias, so the simulator declares it for `didDisconnectPeripheral`'s
/// `timestamp:`.
public typealias CFAbsoluteTime = Double

/// `CBManagerState`: the adapter as an app sees it. Raw values are Core Bluetooth's.
public enum CBManagerState: Int, Sendable, CustomStringConvertible {
    case unknown = 0
    case resetting, unsupported, unauthorized, poweredOff, poweredOn

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .resetting: "resetting"
        case .unsupported: "unsupported"
        case .unauthorized: "unauthorized"
        case .poweredOff: "poweredOff"
        case .poweredOn: "poweredOn"
        }
    }
}

/// `CBManagerAuthorization` (Apple's `CBManager.authorization`): denied and restricted are
/// terminal until the user changes Settings; the manager then reports `.unauthorized`.
public enum CBManagerAuthorization: Int, Sendable, CustomStringConvertible {
    case notDetermined = 0
    case restricted, denied, allowedAlways

    public var description: String {
        switch self {
        case .notDetermined: "notDetermined"
        case .restricted: "restricted"
        case .denied: "denied"
        case .allowedAlways: "allowedAlways"
        }
    }
}

/// `CBPeripheralState`.
public enum CBPeripheralState: Int, Sendable, CustomStringConvertible {
    case disconnected = 0
    case connecting, connected, disconnecting

    public var description: String {
        switch self {
        case .disconnected: "disconnected"
        case .connecting: "connecting"
        case .connected: "connected"
        case .disconnecting: "disconnecting"
        }
    }
}

/// `CBCharacteristicWriteType`: ATT Write Request (with response) or Write Command.
public enum CBCharacteristicWriteType: Int, Sendable, CustomStringConvertible {
    case withResponse = 0
    case withoutResponse

    public var description: String { self == .withResponse ? "withResponse" : "withoutResponse" }
}

/// `CBCharacteristicProperties`: the Characteristic Properties bits of the declaration (Core Vol
/// 3 Part G 3.3.1.1) plus Core Bluetooth's two encryption-required flags above bit 7.
public struct CBCharacteristicProperties: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let broadcast = Self(rawValue: 0x01)
    public static let read = Self(rawValue: 0x02)
    public static let writeWithoutResponse = Self(rawValue: 0x04)
    public static let write = Self(rawValue: 0x08)
    public static let notify = Self(rawValue: 0x10)
    public static let indicate = Self(rawValue: 0x20)
    public static let authenticatedSignedWrites = Self(rawValue: 0x40)
    public static let extendedProperties = Self(rawValue: 0x80)
    public static let notifyEncryptionRequired = Self(rawValue: 0x100)
    public static let indicateEncryptionRequired = Self(rawValue: 0x200)

    /// The 8-bit field as it goes over the air.
    public var declarationBits: UInt8 { UInt8(truncatingIfNeeded: rawValue & 0xFF) }
}

/// `CBAttributePermissions` of a local (server) attribute.
public struct CBAttributePermissions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let readable = Self(rawValue: 0x01)
    public static let writeable = Self(rawValue: 0x02)
    public static let readEncryptionRequired = Self(rawValue: 0x04)
    public static let writeEncryptionRequired = Self(rawValue: 0x08)
}

// MARK: - Dictionary keys (Core Bluetooth's string values, so logged dictionaries read the same)

/// `advertisementData` keys of `centralManager(_:didDiscover:advertisementData:rssi:)`.
public let CBAdvertisementDataLocalNameKey = "kCBAdvDataLocalName"
public let CBAdvertisementDataManufacturerDataKey = "kCBAdvDataManufacturerData"
public let CBAdvertisementDataServiceDataKey = "kCBAdvDataServiceData"
public let CBAdvertisementDataServiceUUIDsKey = "kCBAdvDataServiceUUIDs"
public let CBAdvertisementDataOverflowServiceUUIDsKey = "kCBAdvDataOverflowServiceUUIDs"
public let CBAdvertisementDataTxPowerLevelKey = "kCBAdvDataTxPowerLevel"
public let CBAdvertisementDataIsConnectable = "kCBAdvDataIsConnectable"
public let CBAdvertisementDataSolicitedServiceUUIDsKey = "kCBAdvDataSolicitedServiceUUIDs"

/// `scanForPeripherals(withServices:options:)` options.
public let CBCentralManagerScanOptionAllowDuplicatesKey = "kCBScanOptionAllowDuplicates"
public let CBCentralManagerScanOptionSolicitedServiceUUIDsKey = "kCBScanOptionSolicitedServiceUUIDs"

/// `CBCentralManager.init(delegate:queue:options:)` options.
public let CBCentralManagerOptionShowPowerAlertKey = "kCBInitOptionShowPowerAlert"
public let CBCentralManagerOptionRestoreIdentifierKey = "kCBRestoreIdentifierKey"

/// `willRestoreState` dictionary keys.
public let CBCentralManagerRestoredStatePeripheralsKey = "kCBRestoredPeripherals"
public let CBCentralManagerRestoredStateScanServicesKey = "kCBRestoredScanServices"
public let CBCentralManagerRestoredStateScanOptionsKey = "kCBRestoredScanOptions"

/// `connect(_:options:)` options.
public let CBConnectPeripheralOptionNotifyOnConnectionKey = "kCBConnectOptionNotifyOnConnection"
public let CBConnectPeripheralOptionNotifyOnDisconnectionKey = "kCBConnectOptionNotifyOnDisconnection"
public let CBConnectPeripheralOptionNotifyOnNotificationKey = "kCBConnectOptionNotifyOnNotification"
/// iOS 17: the system reconnects after a link loss and reports `isReconnecting: true`.
public let CBConnectPeripheralOptionEnableAutoReconnect = "kCBConnectOptionEnableAutoReconnect"

/// Reads a Boolean option the way Core Bluetooth does (`NSNumber` or `Bool`).
func boolOption(_ options: [String: Any]?, _ key: String) -> Bool {
    guard let v = options?[key] else { return false }
    if let b = v as? Bool { return b }
    if let n = v as? NSNumber { return n.boolValue }
    return false
}
