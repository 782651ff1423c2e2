import Foundation

/// `CBPeripheralManagerDelegate`. Class-bound; every method but
/// `peripheralManagerDidUpdateState` has an empty default, as Core Bluetooth's optional methods
/// do (the state update is where publishing starts).
///
/// Signatures are Core Bluetooth's, so a typical app's `BLEPeripheralManager` ports unchanged: a
/// method whose signature differed would silently fall back to the empty default.
public protocol CBPeripheralManagerDelegate: AnyObject {
    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager)
    func peripheralManager(_ peripheral: CBPeripheralManager, willRestoreState dict: [String: Any])
    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: (any Error)?)
    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?)
    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral,
        didSubscribeTo characteristic: CBCharacteristic)
    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral,
        didUnsubscribeFrom characteristic: CBCharacteristic)
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest)
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest])
    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager)
    func peripheralManager(
        _ peripheral: CBPeripheralManager, didPublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?)
    func peripheralManager(
        _ peripheral: CBPeripheralManager, didUnpublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?)
    /// Never called: no simulated central opens a channel (`CBL2CAPChannel`).
    func peripheralManager(_ peripheral: CBPeripheralManager, didOpen channel: CBL2CAPChannel?, error: (any Error)?)
}

extension CBPeripheralManagerDelegate {
    public func peripheralManager(_ peripheral: CBPeripheralManager, willRestoreState dict: [String: Any]) {}
    public func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: (any Error)?) {}
    public func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?) {}
    public func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral,
        didSubscribeTo characteristic: CBCharacteristic
    ) {}
    public func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral,
        didUnsubscribeFrom characteristic: CBCharacteristic
    ) {}
    public func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {}
    public func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {}
    public func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {}
    public func peripheralManager(
        _ peripheral: CBPeripheralManager, didPublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?
    ) {}
    public func peripheralManager(
        _ peripheral: CBPeripheralManager, didUnpublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?
    ) {}
    public func peripheralManager(
        _ peripheral: CBPeripheralManager, didOpen channel: CBL2CAPChannel?, error: (any Error)?
    ) {}
}

/// `CBPeripheralManager.init(delegate:queue:options:)` options.
public let CBPeripheralManagerOptionShowPowerAlertKey = "kCBInitOptionShowPowerAlert"
public let CBPeripheralManagerOptionRestoreIdentifierKey = "kCBRestoreIdentifierKey"
/// `peripheralManager(_:willRestoreState:)` dictionary keys (Apple's
/// `CBPeripheralManagerDelegate.peripheralManager(_:willRestoreState:)`).
public let CBPeripheralManagerRestoredStateServicesKey = "kCBRestoredServices"
public let CBPeripheralManagerRestoredStateAdvertisementDataKey = "kCBRestoredAdvertisement"

/// `CBPeripheralManagerConnectionLatency`.
public enum CBPeripheralManagerConnectionLatency: Int, Sendable, CustomStringConvertible {
    case low = 0
    case medium, high

    public var description: String {
        switch self {
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        }
    }
}
