import BLETimeline
import Foundation

/// One call an app made into the simulated Core Bluetooth API, with its arguments and the state
/// it was made in. These are the "API-only" records of a trace: a capture cannot show them (a
/// scan with a nil service list looks like any other scan on the air), so the linter's API-level
/// rules read them here (docs/rules).
public enum APICall: Sendable, Equatable {
    // CBCentralManager
    case centralManagerInit(restoreIdentifier: String?, showPowerAlert: Bool)
    /// `services` nil is the "scan for nil services" mistake (docs/rules/unfiltered-scan.md).
    case scanForPeripherals(services: [CBUUID]?, allowDuplicates: Bool)
    case stopScan
    /// `retained`: whether the app still held the `CBPeripheral` once the call's turn of the run
    /// loop ended (nil until then). A false here is the peripheral-not-retained mistake.
    case connect(peripheral: UUID, autoReconnect: Bool, retained: Bool?)
    case cancelPeripheralConnection(peripheral: UUID)
    case retrievePeripherals(identifiers: [UUID], found: Int)
    case retrieveConnectedPeripherals(services: [CBUUID], found: Int)
    // CBPeripheral
    /// `delegateSet`: whether `peripheral.delegate` was set at call time (an app sets
    /// the `CBPeripheralDelegate` before calling `discoverServices(_:)`).
    case discoverServices(peripheral: UUID, services: [CBUUID]?, delegateSet: Bool)
    case discoverIncludedServices(peripheral: UUID, services: [CBUUID]?, service: CBUUID)
    case discoverCharacteristics(peripheral: UUID, characteristics: [CBUUID]?, service: CBUUID)
    case discoverDescriptors(peripheral: UUID, characteristic: CBUUID)
    case readValue(peripheral: UUID, characteristic: CBUUID, properties: CBCharacteristicProperties)
    case readDescriptor(peripheral: UUID, descriptor: CBUUID)
    /// Everything the write rules (unchecked-write, oversized-write, write-without-response-flow)
    /// need: the type, the length against `maximumWriteValueLength(for: type)`,
    /// the characteristic's properties and `canSendWriteWithoutResponse` at call time. `handle` is
    /// the characteristic's value handle, as the radio events name it.
    case writeValue(
        peripheral: UUID, characteristic: CBUUID, handle: UInt16, properties: CBCharacteristicProperties,
        type: CBCharacteristicWriteType, length: Int, maximumLength: Int, canSend: Bool)
    case writeDescriptor(peripheral: UUID, descriptor: CBUUID, length: Int)
    case setNotifyValue(peripheral: UUID, enabled: Bool, characteristic: CBCharacteristic.Snapshot)
    case readRSSI(peripheral: UUID)
    /// Queries are recorded so a rule can tell whether the app looked before it wrote.
    case maximumWriteValueLength(peripheral: UUID, type: CBCharacteristicWriteType, result: Int)
    case canSendWriteWithoutResponse(peripheral: UUID, result: Bool)

    /// Core Bluetooth's selector-style name, as the trace writes it.
    public var name: String { selector.rawValue }

    public var selector: TraceAPICall.Selector {
        switch self {
        case .centralManagerInit: .centralManagerInit
        case .scanForPeripherals: .scanForPeripherals
        case .stopScan: .stopScan
        case .connect: .connect
        case .cancelPeripheralConnection: .cancelPeripheralConnection
        case .retrievePeripherals: .retrievePeripherals
        case .retrieveConnectedPeripherals: .retrieveConnectedPeripherals
        case .discoverServices: .discoverServices
        case .discoverIncludedServices: .discoverIncludedServices
        case .discoverCharacteristics: .discoverCharacteristics
        case .discoverDescriptors: .discoverDescriptors
        case .readValue: .readValue
        case .readDescriptor: .readDescriptor
        case .writeValue: .writeValue
        case .writeDescriptor: .writeDescriptor
        case .setNotifyValue: .setNotifyValue
        case .readRSSI: .readRSSI
        case .maximumWriteValueLength: .maximumWriteValueLength
        case .canSendWriteWithoutResponse: .canSendWriteWithoutResponse
        }
    }
}

extension CBCharacteristic {
    /// What a trace keeps of a characteristic: value type, no reference to the live object.
    public struct Snapshot: Sendable, Equatable {
        public var uuid: CBUUID
        public var handle: UInt16
        public var properties: CBCharacteristicProperties
    }

    var snapshot: Snapshot { Snapshot(uuid: uuid, handle: handle, properties: properties) }
}

/// What happened to a call.
public enum APIDisposition: Sendable, Equatable {
    /// Carried out (asynchronously, where Core Bluetooth is asynchronous).
    case performed
    /// Ignored with Core Bluetooth's "API MISUSE" log line.
    case misuse(MisuseReason)
    /// Accepted by the API but never sent: Core Bluetooth drops it silently or with a warning.
    case dropped(DropReason)
    /// Accepted, nothing to do (e.g. `connect` while already connecting).
    case noEffect
}

/// Why Core Bluetooth refused a call with "API MISUSE".
public enum MisuseReason: String, Sendable {
    /// docs/rules/scan-before-powered-on.md.
    case notPoweredOn = "not_powered_on"
    /// docs/rules/gatt-before-connected.md: peripheral commands need the connected state.
    case notConnected = "not_connected"
    /// The service or characteristic belongs to another peripheral or was invalidated: discovered
    /// attributes do not survive the connection they were discovered on (`CBPeripheral.services`
    /// is nil again after a disconnection), so an app that keeps them across a reconnection
    /// without rediscovering is refused here.
    case foreignAttribute = "foreign_attribute"
    /// `writeValue(_:for:)` on a Client Characteristic Configuration descriptor. Apple's
    /// documentation of the method: you can't use it to write a client configuration
    /// descriptor, use `setNotifyValue(_:for:)` instead (Core Bluetooth raises an exception; the
    /// simulator refuses the call and writes nothing).
    case cccdWrite = "cccd_write"
}

/// Why a call had no effect on the air.
public enum DropReason: String, Sendable {
    /// docs/rules/write-without-response-flow.md: `.withoutResponse` writes wait for
    /// `canSendWriteWithoutResponse`.
    /// Core Bluetooth discards a write command sent while the flag is false.
    case cannotSendWriteWithoutResponse = "can_send_false"
    /// `.withoutResponse` on a characteristic without the Write Without Response property:
    /// Core Bluetooth logs a warning and sends nothing.
    case writeTypeNotSupported = "write_type_not_supported"
    /// A write command longer than `maximumWriteValueLength(for: .withoutResponse)` (ATT_MTU − 3)
    /// cannot be sent as one PDU (Core Vol 3 Part F 3.4.5.3).
    case exceedsMaximumLength = "exceeds_maximum_length"
}
