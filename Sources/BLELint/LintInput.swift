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
        /// Start Service Discovery, nil for other commands. `client` is the monitor's cookie of
        /// the management socket that sent it (one per client, e.g. bluetoothd), `index` the
        /// controller index, `parameters` the command's parameter bytes.
        case managementCommand(
            opcode: UInt16, serviceFilter: Int?, client: UInt32 = 0, index: UInt16 = 0, parameters: [UInt8] = [])
        /// A BlueZ management Command Complete/Status for `opcode` with mgmt `status`.
        case managementStatus(opcode: UInt16, status: UInt8)
        /// The host stack the capture shows, delivered once, at the first frame that tells.
        case hostStack(HostStack)
        /// The input is a sniffer's (link-layer records), delivered once at its first record. A
        /// sniffer misses PDUs the two devices exchanged, so "never sent" cannot be told from
        /// "not captured".
        case overTheAir
    }
}

/// Which host stack drove the controller, as far as the bytes tell. Rules use it to say whose
/// behaviour a finding is: some habits belong to the OS's stack, and an app cannot change them.
public enum HostStack: String, Sendable {
    /// AOSP's stack: it sends Android's vendor commands LE Get Vendor Capabilities (0xFD53) and
    /// APCF (0xFD57), which no other stack uses.
    case android
    /// Linux BlueZ: the capture holds management commands (Linux monitor control records), so
    /// bluetoothd drove the controller.
    case bluez
}

/// A Core Bluetooth call from an API trace (the simulator records these; `SimulatorTraceReader`
/// reads them from a trace's JSONL), with the state it was made in. Every call of the trace is
/// delivered, in call order; `kind` names the ones rules look into, the rest are
/// `.peripheralCommand` / `.other` by selector name.
public struct APICall: Sendable {
    /// Position in the trace (1-based), used where frames are used for captures.
    public var sequence: Int
    public var time: Int64
    public var peer: BDAddr?
    public var kind: Kind
    /// The `CBPeripheral.identifier` the call is about (peripheral commands, `connect`, `cancel`).
    public var peripheral: String?
    /// The peripheral's state when the call was made.
    public var peripheralState: PeripheralState?
    /// Whether the central manager was scanning when the call was made.
    public var isScanning: Bool
    /// The characteristic or descriptor the call names, where there is one.
    public var attribute: BluetoothUUID?
    /// What Core Bluetooth did with the call.
    public var disposition: Disposition

    public init(
        sequence: Int, time: Int64, peer: BDAddr? = nil, kind: Kind, peripheral: String? = nil,
        peripheralState: PeripheralState? = nil, isScanning: Bool = false, attribute: BluetoothUUID? = nil,
        disposition: Disposition = .performed
    ) {
        self.sequence = sequence
        self.time = time
        self.peer = peer
        self.kind = kind
        self.peripheral = peripheral
        self.peripheralState = peripheralState
        self.isScanning = isScanning
        self.attribute = attribute
        self.disposition = disposition
    }

    /// Core Bluetooth's selector-style name of the call.
    public var selector: String {
        switch kind {
        case .scanForPeripherals: "scanForPeripherals(withServices:options:)"
        case .stopScan: "stopScan()"
        case .connect: "connect(_:options:)"
        case .writeValue: "writeValue(_:for:type:)"
        case .discoverServices: "discoverServices(_:)"
        case .cancelPeripheralConnection: "cancelPeripheralConnection(_:)"
        case .didConnect: "centralManager(_:didConnect:)"
        case .didFailToConnect: "centralManager(_:didFailToConnect:error:)"
        case .didDisconnect: "centralManager(_:didDisconnectPeripheral:error:)"
        case .peripheralCommand(let name), .other(let name): name
        }
    }

    /// "0x0012 (2A39)" or "0x0012" or "2A39": how findings name the call's target.
    func target(handle: UInt16?) -> String {
        switch (handle, attribute) {
        case (let h?, let a?): "\(Describe.handle(h)) (\(a))"
        case (let h?, nil): Describe.handle(h)
        case (nil, let a?): "\(a)"
        case (nil, nil): "the characteristic"
        }
    }

    /// `CBManagerState`, as the simulator trace records it (one type for trace and rules).
    public typealias ManagerState = TraceAPICall.ManagerState

    /// `CBPeripheralState`, as the simulator trace records it.
    public typealias PeripheralState = TraceAPICall.PeripheralState

    /// What became of a call.
    public enum Disposition: Sendable, Equatable {
        /// Carried out.
        case performed
        /// Accepted, nothing to do (e.g. `stopScan` while not scanning).
        case noEffect
        /// Refused with Core Bluetooth's "API MISUSE" log; `reason` as the trace spells it
        /// (`not_powered_on`, `not_connected`, `foreign_attribute`, `cccd_write`).
        case misuse(reason: String)
        /// Accepted but never sent (e.g. a `.withoutResponse` write while
        /// `canSendWriteWithoutResponse` was false: `can_send_false`).
        case dropped(reason: String)

        public static let notPoweredOn = "not_powered_on"
        public static let notConnected = "not_connected"
    }

    public enum Kind: Sendable {
        /// `scanForPeripherals(withServices:options:)`; `services` nil means "all".
        case scanForPeripherals(services: [BluetoothUUID]?, state: ManagerState)
        case stopScan
        /// `connect(_:options:)`. `retained`: whether the app still held the `CBPeripheral` once
        /// the call's run-loop turn ended (nil: unknown). False is the peripheral-not-retained
        /// mistake: Core Bluetooth then cancels the pending connection silently.
        case connect(state: ManagerState, retained: Bool? = nil)
        /// `cancelPeripheralConnection(_:)`.
        case cancelPeripheralConnection
        /// Delegate callbacks, for inputs that give no `peripheralState` with each call.
        case didConnect
        case didFailToConnect
        case didDisconnect
        /// `writeValue(_:for:type:)`.
        case writeValue(
            handle: UInt16, length: Int, withResponse: Bool, properties: UInt8?,
            maximumWriteValueLength: Int, canSendWriteWithoutResponse: Bool)
        /// `discoverServices(_:)`; `delegateSet`: whether `peripheral.delegate` was set.
        case discoverServices(services: [BluetoothUUID]?, delegateSet: Bool)
        /// Any other `CBPeripheral` command that needs a connection (`discoverCharacteristics(_:for:)`,
        /// `readValue(for:)`, `setNotifyValue(_:for:)`, `readRSSI()` …), by selector.
        case peripheralCommand(name: String)
        /// Any other call or property query (`retrievePeripherals(withIdentifiers:)`,
        /// `canSendWriteWithoutResponse` …), by selector.
        case other(name: String)
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
    /// ATT Write Commands (and Signed Write Commands) the host sent.
    public var writeCommands = 0
    /// Android APCF commands (HCI_BLE_ADV_FILTER, 0xFD57): the host offloads its scan filters.
    public var apcfCommands = 0
    /// Android LE Get Vendor Capabilities (0xFD53) answered with success: whether the
    /// controller filters advertisements itself (`filtering_support` and `max_filter`); nil
    /// when the capture holds no such answer.
    public var vendorFilteringSupported: Bool?
    /// Over-the-air (sniffer) records: the host's commands and the controller's events are
    /// not in the input, only what the two link layers sent each other.
    public var linkLayerRecords = 0
    /// Link-layer captures: the first frame whose payload was ciphertext blecap could not
    /// read (ATT and SMP after it are not visible).
    public var linkLayerEncryptedFrom: Int?
    /// Why that link's ciphertext could not be decrypted (`LinkLayerUndecryptableReason`).
    public var linkLayerUndecryptable: String?
    /// The host's platform and what decided it (`PlatformDetector`), or the `--platform` option.
    public var platform = PlatformFact.undetected

    public init() {}

    /// Over the air: the reason host-side rules give for not being evaluable.
    public var isOverTheAir: Bool { linkLayerRecords > 0 && hciCommands == 0 && hciEvents == 0 }
    public static let overTheAir =
        "over-the-air capture: the host's commands and the controller's events never go over the air"

    public var hasAPITrace: Bool { apiCalls > 0 }
    public var hasManagement: Bool { managementRecords > 0 }
}
