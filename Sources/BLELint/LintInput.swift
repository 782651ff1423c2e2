import BLEBytes
import BLETimeline

/// What a rule observes. Three sources feed the same rules:
///
/// - `timeline`: events of the capture's timeline (BLETimeline), in frame order. They come out
///   of the timeline builder once final, i.e. possibly some frames after they happened.
/// - `hci`: frame-level facts the timeline does not model (controller buffers, flow control,
///   BlueZ mgmt commands), delivered as each frame is read, in frame order.
/// - `api`: Core Bluetooth calls from a simulator API trace, in call order.
///
/// Each stream is ordered on its own; a rule that needs two of them must not assume how they
/// interleave (none of the current rules does).
public enum LintInput: Sendable {
    case timeline(TimelineEvent)
    case hci(HCIFact)
    case api(APICall)
}

/// A frame-level fact for rules that look below the timeline.
public struct HCIFact: Sendable {
    public var frame: Int
    public var time: Int64
    public var kind: Kind

    public init(frame: Int, time: Int64, kind: Kind) {
        self.frame = frame
        self.time = time
        self.kind = kind
    }

    public enum Kind: Sendable {
        /// HCI Reset sent: the controller forgets buffers and connections (Vol 4 Part E 7.3.2).
        case reset
        /// The controller's LE ACL data buffers (LE Read Buffer Size [v1]/[v2], 7.8.2; or Read
        /// Buffer Size, 7.4.5, when the LE one reports zero: shared buffers).
        case leBufferSize(packets: Int, length: Int)
        /// An ACL data packet the host sent. `attOpcode`/`attHandle`/`length` are set on the
        /// packet that completed an ATT PDU.
        case aclSent(handle: UInt16, attOpcode: UInt8?, attHandle: UInt16?, valueLength: Int?)
        /// Number Of Completed Packets (7.7.19), one per (handle, count) pair.
        case completedPackets(handle: UInt16, count: Int)
        /// Disconnection Complete (7.7.5): the controller frees the handle's buffers.
        case disconnected(handle: UInt16)
        /// A successful (LE Enhanced) Connection Complete (7.7.65.1, .10, .29) or BR/EDR
        /// Connection Complete (7.7.3): from here on the handle carries that connection.
        case connectionComplete(handle: UInt16)
        /// A BlueZ management command (Linux monitor). `serviceFilter` is the UUID count of
        /// Start Service Discovery, nil for other commands.
        case managementCommand(opcode: UInt16, serviceFilter: Int?)
        /// A BlueZ management Command Complete/Status for `opcode` with mgmt `status`.
        case managementStatus(opcode: UInt16, status: UInt8)
    }
}

/// A Core Bluetooth call from an API trace (the simulator records these). Only the calls the
/// current rules look at; the simulator adds cases as rules need them.
public struct APICall: Sendable {
    /// Position in the trace (1-based), used where frames are used for captures.
    public var sequence: Int
    public var time: Int64
    public var peer: BDAddr?
    public var kind: Kind

    public init(sequence: Int, time: Int64, peer: BDAddr? = nil, kind: Kind) {
        self.sequence = sequence
        self.time = time
        self.peer = peer
        self.kind = kind
    }

    /// `CBManagerState` values (`.poweredOn` = 5).
    public enum ManagerState: Int, Sendable { case unknown = 0, resetting, unsupported, unauthorized, poweredOff, poweredOn }

    public enum Kind: Sendable {
        /// `scanForPeripherals(withServices:options:)`; `services` nil means "all".
        case scanForPeripherals(services: [BluetoothUUID]?, state: ManagerState)
        case stopScan
        /// `connect(_:options:)`. `retained`: whether the app still held the `CBPeripheral` once
        /// the call's run-loop turn ended (nil: unknown). False is "DON'T: Lose the peripheral
        /// reference": Core Bluetooth then cancels the pending connection silently.
        case connect(state: ManagerState, retained: Bool? = nil)
        /// `cancelPeripheralConnection(_:)`.
        case cancelPeripheralConnection
        /// A `CBPeripheral` call that goes over the air (`discoverServices`,
        /// `discoverCharacteristics`, `readValue`, `setNotifyValue`, …), by its selector-style
        /// name. Writes are `writeValue`.
        case peripheralRequest(name: String)
        /// Delegate callbacks the trace records, so rules know the peripheral's state.
        case didConnect
        case didFailToConnect
        case didDisconnect
        /// `writeValue(_:for:type:)`.
        case writeValue(handle: UInt16, length: Int, withResponse: Bool, properties: UInt8?,
                        maximumWriteValueLength: Int, canSendWriteWithoutResponse: Bool)
    }
}

/// What evidence an input holds: rules decide from these whether they can be evaluated.
public struct CaptureFacts: Sendable, Equatable, Codable {
    public var frames = 0
    public var hciCommands = 0
    public var hciEvents = 0
    public var aclPackets = 0
    /// Linux monitor control (BlueZ mgmt) records: open, command, event.
    public var managementRecords = 0
    public var managementCommands = 0
    /// PacketLogger / monitor text records (notes, syslog, user logging).
    public var textRecords = 0
    public var apiCalls = 0
    public var resets = 0
    /// Connection Complete events seen (connection starts in the capture).
    public var connectionStarts = 0
    /// Controller buffer size reports seen.
    public var bufferSizeReports = 0

    public init() {}

    public var hasAPITrace: Bool { apiCalls > 0 }
    public var hasManagement: Bool { managementRecords > 0 }
}
