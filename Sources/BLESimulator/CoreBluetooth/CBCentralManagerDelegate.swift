import Foundation

/// `CBCentralManagerDelegate`. Class-bound; every method but `centralManagerDidUpdateState` has
/// an empty default, as Core Bluetooth's optional methods do (the state update is the only
/// required method of Apple's `CBCentralManagerDelegate`).
public protocol CBCentralManagerDelegate: AnyObject {
    func centralManagerDidUpdateState(_ central: CBCentralManager)
    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any])
    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
        advertisementData: [String: Any], rssi RSSI: NSNumber)
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral)
    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?)
    /// The pre-iOS 17 variant. Called by the default implementation of the `isReconnecting` one,
    /// so an app implementing either is told.
    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
        error: (any Error)?)
    /// The variant the simulator calls (Apple's
    /// `centralManager(_:didDisconnectPeripheral:timestamp:isReconnecting:error:)`).
    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
        timestamp: CFAbsoluteTime, isReconnecting: Bool, error: (any Error)?)
    /// Never called by the simulator (`registerForConnectionEvents(options:)` is a no-op).
    func centralManager(
        _ central: CBCentralManager, connectionEventDidOccur event: CBConnectionEvent, for peripheral: CBPeripheral)
}

extension CBCentralManagerDelegate {
    public func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {}
    public func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
        advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {}
    public func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {}
    public func centralManager(
        _ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral,
        error: (any Error)?
    ) {}
    public func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
        error: (any Error)?
    ) {}
    public func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
        timestamp: CFAbsoluteTime, isReconnecting: Bool, error: (any Error)?
    ) {
        centralManager(central, didDisconnectPeripheral: peripheral, error: error)
    }
    public func centralManager(
        _ central: CBCentralManager, connectionEventDidOccur event: CBConnectionEvent, for peripheral: CBPeripheral
    ) {}
}
