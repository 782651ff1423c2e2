import Foundation

/// One `CBPeripheralManager` call or delegate callback in a world's trace (API-only: the
/// peripheral role's side of the session, which no capture of the central shows).
public struct PeripheralManagerRecord: Sendable, Equatable {
    /// Which peripheral manager (1, 2, … in order of creation in the world).
    public var manager: Int
    public var entry: Entry

    public enum Entry: Sendable, Equatable {
        /// A call, the manager's state when it was made, the delegate method it was made from
        /// (nil outside any callback) and what became of it.
        case call(
            PeripheralManagerCall, state: CBManagerState, inCallback: String?,
            disposition: PeripheralManagerDisposition)
        /// A delegate callback; `delivered` is false when no delegate was set.
        case callback(PeripheralManagerCallback, delivered: Bool)
    }
}

/// A call into the simulated `CBPeripheralManager`.
public enum PeripheralManagerCall: Sendable, Equatable {
    case initialize(restoreIdentifier: String?, showPowerAlert: Bool)
    case addService(service: CBUUID, characteristics: [CBUUID])
    case removeService(service: CBUUID)
    case removeAllServices
    /// `ignoredKeys`: advertisement keys other than local name and service UUIDs, which Core
    /// Bluetooth's peripheral manager does not advertise.
    case startAdvertising(localName: String?, serviceUUIDs: [CBUUID], ignoredKeys: [String])
    case stopAdvertising
    /// `read`: answering a `didReceiveRead` (else a `didReceiveWrite`); `result` the ATT code.
    case respond(central: UUID, characteristic: CBUUID, read: Bool, result: UInt8, length: Int)
    /// `result` is what the call returned (false: the transmit queue was full). `length`
    /// against `maximumLength`, the smallest `maximumUpdateValueLength` of the centrals it went
    /// to (nil when it went to none).
    case updateValue(characteristic: CBUUID, length: Int, maximumLength: Int?, centrals: Int, result: Bool)
    case setDesiredConnectionLatency(CBPeripheralManagerConnectionLatency, central: UUID)

    /// Core Bluetooth's selector-style name.
    public var name: String {
        switch self {
        case .initialize: "CBPeripheralManager.init(delegate:queue:options:)"
        case .addService: "add(_:)"
        case .removeService: "remove(_:)"
        case .removeAllServices: "removeAllServices()"
        case .startAdvertising: "startAdvertising(_:)"
        case .stopAdvertising: "stopAdvertising()"
        case .respond: "respond(to:withResult:)"
        case .updateValue: "updateValue(_:for:onSubscribedCentrals:)"
        case .setDesiredConnectionLatency: "setDesiredConnectionLatency(_:for:)"
        }
    }
}

/// What happened to a peripheral-manager call.
public enum PeripheralManagerDisposition: Sendable, Equatable {
    case performed
    /// Ignored with an "API MISUSE" log line.
    case misuse(PeripheralManagerMisuse)
    /// Accepted, nothing to do.
    case noEffect
}

/// Why a peripheral-manager call was refused.
public enum PeripheralManagerMisuse: String, Sendable {
    /// Every operation waits for the state update to report `.poweredOn` (the peripheral
    /// role's `peripheralManagerDidUpdateState(_:)`).
    case notPoweredOn = "not_powered_on"
    /// `respond(to:withResult:)` for a request that awaits no answer: answered already, not
    /// the first request of its `didReceiveWrite` array, or from a write command. Each request
    /// is answered exactly once (every handler ends in one `respond`).
    case noPendingRequest = "no_pending_request"
    /// A characteristic that is not part of a service this manager published.
    case foreignCharacteristic = "foreign_characteristic"
    /// A characteristic created with a cached value must be read-only.
    case cachedValueNotReadOnly = "cached_value_not_read_only"
    /// A `CBMutableDescriptor` other than Characteristic User Description (a `String`) or
    /// Characteristic Presentation Format (`Data`), the two Apple's `init(type:value:)` supports.
    case unsupportedDescriptor = "unsupported_descriptor"
}

/// A `CBPeripheralManagerDelegate` callback.
public enum PeripheralManagerCallback: Sendable, Equatable {
    case didUpdateState(CBManagerState)
    case didAdd(service: CBUUID, error: String?)
    case didStartAdvertising(error: String?)
    case didReceiveRead(central: UUID, characteristic: CBUUID, offset: Int)
    /// One callback per Write Request, Write Command or Execute Write: the requests' count and
    /// total length.
    case didReceiveWrite(central: UUID, characteristic: CBUUID, requests: Int, length: Int)
    case didSubscribe(central: UUID, characteristic: CBUUID)
    case didUnsubscribe(central: UUID, characteristic: CBUUID)
    case isReadyToUpdateSubscribers
    /// State restoration: the services still published and whether it is advertising.
    case willRestoreState(services: [CBUUID], isAdvertising: Bool)
    case didPublishL2CAPChannel(psm: UInt16, error: String?)
    case didUnpublishL2CAPChannel(psm: UInt16, error: String?)

    public var name: String {
        switch self {
        case .didUpdateState: "peripheralManagerDidUpdateState(_:)"
        case .didAdd: "peripheralManager(_:didAdd:error:)"
        case .didStartAdvertising: "peripheralManagerDidStartAdvertising(_:error:)"
        case .didReceiveRead: "peripheralManager(_:didReceiveRead:)"
        case .didReceiveWrite: "peripheralManager(_:didReceiveWrite:)"
        case .didSubscribe: "peripheralManager(_:central:didSubscribeTo:)"
        case .didUnsubscribe: "peripheralManager(_:central:didUnsubscribeFrom:)"
        case .isReadyToUpdateSubscribers: "peripheralManagerIsReady(toUpdateSubscribers:)"
        case .willRestoreState: "peripheralManager(_:willRestoreState:)"
        case .didPublishL2CAPChannel: "peripheralManager(_:didPublishL2CAPChannel:error:)"
        case .didUnpublishL2CAPChannel: "peripheralManager(_:didUnpublishL2CAPChannel:error:)"
        }
    }
}

extension SimulatorTrace {
    /// The peripheral-manager records, in order.
    public var peripheralManagerRecords: [PeripheralManagerRecord] {
        records.compactMap { if case .peripheralManager(let p) = $0.entry { p } else { nil } }
    }
}

// MARK: - JSONL (source "peripheral_manager")

extension PeripheralManagerRecord {
    func render(into o: inout JSONObject) {
        switch entry {
        case .call(let call, let state, let inCallback, let disposition):
            o.str("call", call.name)
            o.int("manager", manager)
            o.str("manager_state", state.description)
            if let inCallback { o.str("in_callback", inCallback) }
            switch disposition {
            case .performed: o.str("disposition", "performed")
            case .noEffect: o.str("disposition", "no_effect")
            case .misuse(let r):
                o.str("disposition", "misuse")
                o.str("reason", r.rawValue)
            }
            switch call {
            case .initialize(let id, let alert):
                if let id { o.str("restore_identifier", id) }
                o.bool("show_power_alert", alert)
            case .addService(let s, let cs):
                o.str("service", s.uuidString)
                o.uuids("characteristics", cs)
            case .removeService(let s): o.str("service", s.uuidString)
            case .removeAllServices, .stopAdvertising: break
            case .startAdvertising(let name, let uuids, let ignored):
                if let name { o.str("local_name", name) }
                o.uuids("service_uuids", uuids)
                if !ignored.isEmpty { o.strings("ignored_keys", ignored) }
            case .respond(let c, let ch, let read, let result, let length):
                o.str("central", c.uuidString)
                o.str("characteristic", ch.uuidString)
                o.str("request", read ? "read" : "write")
                o.int("result", Int(result))
                o.int("length", length)
            case .updateValue(let ch, let length, let max, let centrals, let result):
                o.str("characteristic", ch.uuidString)
                o.int("length", length)
                if let max { o.int("maximum_length", max) }
                o.int("centrals", centrals)
                o.bool("result", result)
            case .setDesiredConnectionLatency(let l, let c):
                o.str("latency", l.description)
                o.str("central", c.uuidString)
            }
        case .callback(let cb, let delivered):
            o.str("callback", cb.name)
            o.int("manager", manager)
            o.bool("delivered", delivered)
            switch cb {
            case .didUpdateState(let s): o.str("state", s.description)
            case .didAdd(let s, let e):
                o.str("service", s.uuidString)
                if let e { o.str("error", e) }
            case .didStartAdvertising(let e): if let e { o.str("error", e) }
            case .didReceiveRead(let c, let ch, let offset):
                o.str("central", c.uuidString)
                o.str("characteristic", ch.uuidString)
                o.int("offset", offset)
            case .didReceiveWrite(let c, let ch, let n, let length):
                o.str("central", c.uuidString)
                o.str("characteristic", ch.uuidString)
                o.int("requests", n)
                o.int("length", length)
            case .didSubscribe(let c, let ch), .didUnsubscribe(let c, let ch):
                o.str("central", c.uuidString)
                o.str("characteristic", ch.uuidString)
            case .isReadyToUpdateSubscribers: break
            case .willRestoreState(let services, let advertising):
                o.uuids("services", services)
                o.bool("is_advertising", advertising)
            case .didPublishL2CAPChannel(let psm, let e), .didUnpublishL2CAPChannel(let psm, let e):
                o.int("psm", Int(psm))
                if let e { o.str("error", e) }
            }
        }
    }
}
