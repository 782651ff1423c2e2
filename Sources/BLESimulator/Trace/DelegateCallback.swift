import Foundation

/// One delegate call the simulator made (or would have made: `delivered` is false when no
/// delegate was set, which is itself worth a finding).
public enum DelegateCallback: Sendable, Equatable {
    case didUpdateState(CBManagerState)
    /// State restoration (`SimulatedWorld.relaunchApp`): the peripherals handed back, and the
    /// scan the old manager had running (services nil: all).
    case willRestoreState(peripherals: [UUID], scanServices: [CBUUID]?, isScanning: Bool)
    case didDiscover(peripheral: UUID, rssi: Int, localName: String?, serviceUUIDs: [CBUUID])
    case didConnect(peripheral: UUID)
    case didFailToConnect(peripheral: UUID, error: String?)
    case didDisconnect(peripheral: UUID, isReconnecting: Bool, error: String?)
    case didDiscoverServices(peripheral: UUID, services: [CBUUID], error: String?)
    case didDiscoverIncludedServices(peripheral: UUID, service: CBUUID, error: String?)
    case didDiscoverCharacteristics(peripheral: UUID, service: CBUUID, characteristics: [CBUUID], error: String?)
    case didDiscoverDescriptors(peripheral: UUID, characteristic: CBUUID, error: String?)
    case didUpdateValue(peripheral: UUID, characteristic: CBUUID, length: Int, error: String?)
    case didUpdateDescriptorValue(peripheral: UUID, descriptor: CBUUID, error: String?)
    case didWriteValue(peripheral: UUID, characteristic: CBUUID, error: String?)
    case didWriteDescriptorValue(peripheral: UUID, descriptor: CBUUID, error: String?)
    case didUpdateNotificationState(peripheral: UUID, characteristic: CBUUID, isNotifying: Bool, error: String?)
    case isReadyToSendWriteWithoutResponse(peripheral: UUID)
    case didModifyServices(peripheral: UUID, invalidated: [CBUUID])
    case didReadRSSI(peripheral: UUID, rssi: Int, error: String?)
    case didOpenL2CAPChannel(peripheral: UUID, psm: UInt16, error: String?)

    /// Core Bluetooth's delegate method name.
    public var name: String {
        switch self {
        case .didUpdateState: "centralManagerDidUpdateState(_:)"
        case .willRestoreState: "centralManager(_:willRestoreState:)"
        case .didDiscover: "centralManager(_:didDiscover:advertisementData:rssi:)"
        case .didConnect: "centralManager(_:didConnect:)"
        case .didFailToConnect: "centralManager(_:didFailToConnect:error:)"
        case .didDisconnect: "centralManager(_:didDisconnectPeripheral:timestamp:isReconnecting:error:)"
        case .didDiscoverServices: "peripheral(_:didDiscoverServices:)"
        case .didDiscoverIncludedServices: "peripheral(_:didDiscoverIncludedServicesFor:error:)"
        case .didDiscoverCharacteristics: "peripheral(_:didDiscoverCharacteristicsFor:error:)"
        case .didDiscoverDescriptors: "peripheral(_:didDiscoverDescriptorsFor:error:)"
        case .didUpdateValue: "peripheral(_:didUpdateValueFor:error:)"
        case .didUpdateDescriptorValue: "peripheral(_:didUpdateValueFor:error:) descriptor"
        case .didWriteValue: "peripheral(_:didWriteValueFor:error:)"
        case .didWriteDescriptorValue: "peripheral(_:didWriteValueFor:error:) descriptor"
        case .didUpdateNotificationState: "peripheral(_:didUpdateNotificationStateFor:error:)"
        case .isReadyToSendWriteWithoutResponse: "peripheralIsReady(toSendWriteWithoutResponse:)"
        case .didModifyServices: "peripheral(_:didModifyServices:)"
        case .didReadRSSI: "peripheral(_:didReadRSSI:error:)"
        case .didOpenL2CAPChannel: "peripheral(_:didOpen:error:)"
        }
    }
}

/// Something the world did that is neither an app call nor a radio PDU.
public enum WorldEvent: Sendable, Equatable {
    case adapterStateChanged(CBManagerState)
    case peripheralRangeChanged(address: String, inRange: Bool)
    /// The link went silent; the supervision timeout will end it.
    case linkLossStarted(address: String, supervisionTimeoutMicros: Int64)
    case servicesChanged(address: String)
    /// The peripheral terminated its connections (`SimulatedWorld.disconnect`), with this HCI
    /// reason code (Core Vol 1 Part F).
    case peripheralDisconnected(address: String, reason: UInt8)
    /// The app's process was terminated and relaunched (`SimulatedWorld.relaunchApp`).
    case appRelaunched
    /// The system kept a terminated manager's state for its restore identifier: these
    /// peripherals (connected or connecting) and whether it was scanning.
    case centralStatePreserved(restoreIdentifier: String, peripherals: [UUID], isScanning: Bool)
    /// The app no longer holds a `CBPeripheral` (docs/rules/peripheral-not-retained.md); `state` is
    /// what it was in, and a pending connection is cancelled.
    case peripheralReleased(peripheral: UUID, state: CBPeripheralState)
    /// A notification the server would have sent but did not, because the client had not
    /// enabled it in the CCCD (Core Vol 3 Part G 4.10: notifications only when configured).
    case notificationSuppressed(address: String, handle: UInt16)
    /// A notification or indication arrived for a characteristic the app never discovered:
    /// Core Bluetooth has no object to report it on.
    case valueForUndiscoveredCharacteristic(peripheral: UUID, handle: UInt16)
    /// The ATT request of trace `seq` `request` went unanswered for 30 s (Core Vol 3 Part F
    /// 3.3.3): the transaction failed, the bearer takes no more ATT and the link is dropped.
    case attTransactionTimeout(address: String, request: Int)
    /// The system kept a terminated peripheral manager's published services, advertising and
    /// subscribed centrals for its restore identifier.
    case peripheralManagerStatePreserved(restoreIdentifier: String, services: [CBUUID], isAdvertising: Bool)
}
