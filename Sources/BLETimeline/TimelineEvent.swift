import BLEBytes
import BLEPackets

/// One entry of a capture's timeline: what happened, where in the capture, on which
/// connection. A value type with no references, so building one allocates nothing; strings
/// are made only when rendering.
public struct TimelineEvent: Sendable {
    /// The frame the event starts at (a request's frame for a paired operation).
    public var frame: Int
    /// Microseconds since 1970, the frame's timestamp.
    public var time: Int64
    /// Per-capture connection number (1, 2, … in order of connection), nil when none applies.
    public var connection: Int?
    /// The remote device, where known.
    public var peer: BDAddr?
    public var peerAddressType: UInt8?
    public var kind: Kind
    /// The value the event carries (written, read, notified, advertised data, annotation text).
    public var value: InlineBytes = .empty
    /// How a request or command ended; `.none` for events that have no answer.
    public var outcome: Outcome = .none
    /// The capture cut the PDU that carried `value` (btsnooz, filtered Android logs, a snap
    /// length): `value` is only its first bytes, and its length says nothing.
    public var valueTruncated = false

    public init(
        frame: Int, time: Int64, connection: Int? = nil, peer: BDAddr? = nil,
        peerAddressType: UInt8? = nil, kind: Kind
    ) {
        self.frame = frame
        self.time = time
        self.connection = connection
        self.peer = peer
        self.peerAddressType = peerAddressType
        self.kind = kind
    }

    /// The dotted type name of the JSONL contract (docs/timeline.md).
    public var type: StaticString { kind.type }

    /// Whether this event is waiting for an answer (reorder buffer use).
    var isPending: Bool {
        if case .pending = outcome { return true }
        return false
    }
}

/// The end of a request, command or indication.
public enum Outcome: Sendable, Equatable {
    /// Nothing to wait for (notifications, commands without response, events).
    case none
    /// Still waiting (never emitted: the builder resolves it first).
    case pending
    /// Answered successfully in `frame`, `latency` µs after the request.
    case success(frame: Int, latency: Int64)
    /// Answered with an ATT Error Response (`code`, Vol 3 Part F 3.4.1.1), or an HCI status
    /// other than success (`code` is then the HCI error code).
    case error(frame: Int, latency: Int64, code: UInt8, handle: UInt16)
    /// No answer within the protocol's timeout (ATT: 30 s, Vol 3 Part F 3.3.3).
    case timeout
    /// Another request of the same kind went out (`frame`) before any answer: with one
    /// outstanding request per bearer this one was never answered.
    case unanswered(frame: Int)
    /// The connection ended (`frame`) with the request outstanding.
    case disconnected(frame: Int)
    /// The capture ended with the request outstanding.
    case endOfCapture

    public var name: StaticString {
        switch self {
        case .none: "none"
        case .pending: "pending"
        case .success: "success"
        case .error: "error"
        case .timeout: "timeout"
        case .unanswered: "unanswered"
        case .disconnected: "disconnected"
        case .endOfCapture: "end_of_capture"
        }
    }

    public var responseFrame: Int? {
        switch self {
        case .success(let f, _), .error(let f, _, _, _): f
        default: nil
        }
    }

    public var latency: Int64? {
        switch self {
        case .success(_, let l), .error(_, let l, _, _): l
        default: nil
        }
    }
}

/// Which side ended a connection.
public enum DisconnectionSide: UInt8, Sendable {
    /// This host asked (HCI Disconnect for the handle, or reason 0x16).
    case local
    /// The peer ended it.
    case remote
    /// Nobody did: the link was lost (0x08 Connection Timeout, 0x22 LL Response Timeout,
    /// 0x3D MIC failure, 0x3E failed to be established).
    case linkLoss

    public var name: StaticString {
        switch self {
        case .local: "local"
        case .remote: "remote"
        case .linkLoss: "link_loss"
        }
    }
}

/// Scan parameters as the host set them (LE Set [Extended] Scan Parameters, Core 5.4 Vol 4
/// Part E 7.8.10, 7.8.64). For extended scanning the first PHY's interval/window are given and
/// `phys` lists every PHY (bit 0 LE 1M, bit 2 LE Coded).
public struct ScanParameters: Sendable, Equatable {
    public var extended: Bool
    public var active: Bool
    /// Units of 0.625 ms.
    public var interval: UInt16
    public var window: UInt16
    public var filterPolicy: UInt8
    public var ownAddressType: UInt8
    public var phys: UInt8
    /// Filter_Duplicates of the enable command (0 off, 1 on, 2 on with reset per period).
    public var filterDuplicates: UInt8
    /// Whether parameters were set before the enable (false: the controller's defaults apply,
    /// or it may refuse, 7.8.65).
    public var parametersKnown: Bool
}

/// One advertising report (7.7.65.2 legacy or 7.7.65.13 extended). The AD data is the event's
/// `value`.
public struct AdvertisementInfo: Sendable, Equatable {
    public var extended: Bool
    /// Legacy: 0 ADV_IND … 4 SCAN_RSP. Extended: the event-type bit field.
    public var eventType: UInt16
    public var rssi: Int8
    public var txPower: Int8?
    public var primaryPHY: UInt8?
    /// Extended reports: the PHY of the auxiliary packets (1 LE 1M, 2 LE 2M, 3 LE Coded; nil
    /// for 0, none, Vol 4 Part E 7.7.65.13).
    public var secondaryPHY: UInt8? = nil
}

/// Connection timing (interval in 1.25 ms, latency in events, timeout in 10 ms).
public struct ConnectionTiming: Sendable, Equatable {
    public var interval: UInt16
    public var latency: UInt16
    public var supervisionTimeout: UInt16

    public init(interval: UInt16, latency: UInt16, supervisionTimeout: UInt16) {
        self.interval = interval
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
    }
}

/// LE (Extended) Create Connection (7.8.12, 7.8.66).
public struct ConnectionCreateInfo: Sendable, Equatable {
    public var extended: Bool
    public var filterPolicy: UInt8
    public var scanInterval: UInt16
    public var scanWindow: UInt16
    public var intervalMin: UInt16
    public var intervalMax: UInt16
    public var latency: UInt16
    public var supervisionTimeout: UInt16
    /// Initiating PHYs (bit 0 LE 1M, bit 1 LE 2M, bit 2 LE Coded): the extended command's
    /// Initiating_PHYs, always LE 1M for the legacy command (7.8.12 initiates on 1M only).
    public var phys: UInt8
    /// With initiator filter policy 1: the Filter Accept List the controller chose the peer
    /// from, as the capture built it (nil for other policies), looked up in the builder's
    /// `ScanFilterTables` (`acceptList(_:)`).
    public var acceptList: FilterAcceptListSnapshot? = nil
    /// With initiator filter policy 1: the first devices on that list, for readers that do not
    /// hold the builder's tables (diagnose names them); nil when the list is not kept.
    public var acceptListDevices: AcceptListDevices? = nil
}

/// The first `capacity` devices of a Filter Accept List, held inline so that the event stays
/// plain data (no array: PlainDataTests), with the list's size and whether the capture saw it
/// built whole (a Reset or Clear).
public struct AcceptListDevices: Sendable, Equatable {
    public static let capacity = 4
    private var d0, d1, d2, d3: BDAddr?
    /// Devices on the list (may exceed `capacity`).
    public var total: Int
    public var complete: Bool

    public init(_ list: FilterAcceptList) {
        let a = list.entries.prefix(Self.capacity).map(\.address)
        (d0, d1, d2, d3) = (
            a.count > 0 ? a[0] : nil, a.count > 1 ? a[1] : nil, a.count > 2 ? a[2] : nil, a.count > 3 ? a[3] : nil
        )
        total = list.entries.count
        complete = list.complete
    }

    /// The devices held, in the order they were added.
    public var devices: [BDAddr] { [d0, d1, d2, d3].compactMap { $0 } }
}

/// LE (Enhanced) Connection Complete (7.7.65.1, .10) or BR/EDR Connection Complete (7.7.3).
public struct ConnectionCompleteInfo: Sendable, Equatable {
    public var status: UInt8
    public var handle: UInt16
    /// 0 central, 1 peripheral; nil for BR/EDR.
    public var role: UInt8?
    public var timing: ConnectionTiming?
    public var isLE: Bool
    /// Made from a CONNECT_IND seen over the air, not from an HCI event: a failure (0x3E) is
    /// then the timeline's inference from the peripheral's silence, not a controller's report.
    public var overTheAir: Bool = false
}

/// Pairing Request/Response features (Vol 3 Part H 3.5.1, 3.5.2).
public struct PairingInfo: Sendable, Equatable {
    public var features: SMPPairingFeatures
    /// Set on the response: the association model the two feature sets select.
    public var method: PairingMethod?
    /// Set on the response: both sides set SC.
    public var secureConnections: Bool?
}

/// Keys distributed in SMP Phase 3 (Vol 3 Part H 3.6). The identity address has its own
/// event (`identityAddress`) because it names the peer; key values are never reported.
public enum SMPDistributedKey: UInt8, Sendable {
    /// Encryption Information: the LTK (legacy pairing only; SC derives it, 2.4.2.3).
    case longTermKey
    /// Central Identification: EDIV and Rand that identify the LTK.
    case centralIdentification
    /// Identity Information: the IRK.
    case identityResolvingKey
    /// Signing Information: the CSRK.
    case signatureKey

    public var name: StaticString {
        switch self {
        case .longTermKey: "ltk"
        case .centralIdentification: "ediv_rand"
        case .identityResolvingKey: "irk"
        case .signatureKey: "csrk"
        }
    }
}

/// What the host learned about its controller between HCI Reset and its first operational
/// command (scan, advertising, connection): the power-on sequence (Vol 4 Part E 7.3.2, 7.4,
/// 7.8.2, 7.8.3). Fields are nil when the host did not ask or the controller failed.
public struct ControllerInfo: Sendable, Equatable {
    /// Frame of the HCI Reset that started the sequence.
    public var resetFrame: Int
    /// Commands sent from the Reset (included) to the end of the sequence.
    public var commands: Int = 0
    /// Commands answered with a non-zero status.
    public var failedCommands: Int = 0
    /// Read BD_ADDR (7.4.6).
    public var publicAddress: BDAddr?
    /// LE Set Random Address (7.8.4).
    public var randomAddress: BDAddr?
    /// Read Local Version Information (7.4.1): HCI_Version (Assigned Numbers; 9 = 5.0),
    /// Company_Identifier and LMP_Subversion (the vendor's own number for its firmware build).
    public var hciVersion: UInt8?
    public var manufacturer: UInt16?
    public var lmpSubversion: UInt16?
    /// LE Read Local Supported Features (7.8.3), Vol 6 Part B 4.6 bit field.
    public var leFeatures: UInt64?
    /// Read Buffer Size (7.4.5): BR/EDR ACL.
    public var aclMaxLength: UInt16?
    public var aclPackets: UInt16?
    /// LE Read Buffer Size [v1/v2] (7.8.2): LE ACL, and ISO for v2.
    public var leACLMaxLength: UInt16?
    public var leACLPackets: UInt8?
    public var isoMaxLength: UInt16?
    public var isoPackets: UInt8?
    /// LE Write Suggested Default Data Length (7.8.35).
    public var suggestedMaxTxOctets: UInt16?
    public var suggestedMaxTxTime: UInt16?

    public init(resetFrame: Int) { self.resetFrame = resetFrame }
}

/// BlueZ management discovery (doc/mgmt-api.txt Start Discovery / Start Service Discovery /
/// Start Limited Discovery).
public struct ManagementDiscovery: Sendable, Equatable {
    /// Address_Type bits: 0 BR/EDR, 1 LE Public, 2 LE Random.
    public var addressTypes: UInt8
    /// Start Service Discovery: the filter (UUID count and RSSI threshold); nil for plain
    /// discovery, which reports every device.
    public var serviceFilterUUIDs: UInt16?
    public var rssiThreshold: Int8?
    public var limited: Bool
}

/// Association models (Vol 3 Part H 2.3.5.1).
public enum PairingMethod: UInt8, Sendable {
    case justWorks, passkeyEntry, numericComparison, outOfBand

    public var name: StaticString {
        switch self {
        case .justWorks: "just_works"
        case .passkeyEntry: "passkey_entry"
        case .numericComparison: "numeric_comparison"
        case .outOfBand: "oob"
        }
    }
}

/// Which discovery procedure a request belongs to (Vol 3 Part G 4.4–4.7).
public enum DiscoveryTarget: UInt8, Sendable {
    case primaryServices, secondaryServices, includes, characteristics, descriptors

    public var type: StaticString {
        switch self {
        case .primaryServices, .secondaryServices: "gatt.discover.services"
        case .includes: "gatt.discover.includes"
        case .characteristics: "gatt.discover.characteristics"
        case .descriptors: "gatt.discover.descriptors"
        }
    }
}

/// A discovery request and what its response found.
public struct DiscoveryInfo: Sendable, Equatable {
    public var target: DiscoveryTarget
    public var startHandle: UInt16
    public var endHandle: UInt16
    /// Discover by UUID (Find By Type Value for services, Read By Type with a characteristic
    /// UUID): the UUID asked for; nil when discovering all.
    public var filter: BluetoothUUID?
    /// Entries in the response.
    public var found: Int
    /// Characteristic discovery: how many of the `found` characteristics lie in the GAP
    /// (0x1800) or GATT (0x1801) service, as far as the discovered side's services are known.
    /// Those two are the OS stack's own: Core Bluetooth never shows them to an app.
    public var foundInStackServices = 0
}

extension GATTService {
    /// The GAP and GATT services (Assigned Numbers 3.4.2), which host stacks keep to themselves.
    public static let stackServiceUUIDs: Set<BluetoothUUID> = [
        BluetoothUUID(uuid16: 0x1800), BluetoothUUID(uuid16: 0x1801),
    ]
}

/// Read variants (Vol 3 Part F 3.4.4).
public enum ReadVariant: UInt8, Sendable {
    case read, blob, multiple, multipleVariable, byType
    public var name: StaticString {
        switch self {
        case .read: "read"
        case .blob: "blob"
        case .multiple: "multiple"
        case .multipleVariable: "multiple_variable"
        case .byType: "by_type"
        }
    }
}

/// Write variants (Vol 3 Part F 3.4.5, 3.4.6).
public enum WriteVariant: UInt8, Sendable {
    case request, command, signed, prepare, execute
    public var name: StaticString {
        switch self {
        case .request: "request"
        case .command: "command"
        case .signed: "signed"
        case .prepare: "prepare"
        case .execute: "execute"
        }
    }
}

/// An ATT operation on one attribute.
public struct AttributeOperation: Sendable, Equatable {
    /// The ATT opcode of the request/command/notification.
    public var opcode: UInt8
    public var handle: UInt16
    /// What the handle is in its own connection's database, if known.
    public var attribute: AttributeRef?
    /// ATT_MTU of the connection at that moment when `mtuKnown`; otherwise only what it is at
    /// least (the LE default, or the largest ATT PDU seen so far on the connection, this one
    /// included).
    public var mtu: UInt16
    /// Prepare Write / Read Blob offset; Execute Write flags.
    public var offset: UInt16?
    /// Direction: true when this host sent the PDU.
    public var sent: Bool
    /// Whether `mtu` is the connection's ATT_MTU (the connection was seen from its start, or
    /// its MTU exchange was) or a lower bound (the capture started after an exchange it
    /// cannot see).
    public var mtuKnown: Bool = true
    /// Whose GATT server the operation addresses: the peer's (requests and commands this host
    /// sent, notifications and indications it received) or this host's own (requests the peer
    /// sent, updates this host sent). On a sniffed link "this host" is the central.
    public var serverIsPeer: Bool = true
}

/// Annotation and controller-record sources.
public enum AnnotationSource: UInt8, Sendable {
    case note, syslog, userLogging, systemNote, kernel, error, other
    public var name: StaticString {
        switch self {
        case .note: "note"
        case .syslog: "syslog"
        case .userLogging: "user_logging"
        case .systemNote: "system_note"
        case .kernel: "kernel"
        case .error: "error"
        case .other: "other"
        }
    }
}

extension TimelineEvent {
    /// The typed payload of an event.
    public enum Kind: Sendable {
        // Controller and power.
        case controllerReset
        /// The host's initialisation after Reset ended (its first operational command).
        case initComplete(ControllerInfo)
        /// BlueZ management: Set Powered command (outcome from its Command Complete).
        case managementSetPowered(powered: Bool)
        /// BlueZ management: New Settings event (current settings bit field; bit 0 Powered).
        case managementSettings(settings: UInt32)
        /// BlueZ management: Start (Service/Limited) Discovery and Stop Discovery commands,
        /// and the Discovering event.
        case managementDiscoveryStart(ManagementDiscovery)
        case managementDiscoveryStop(addressTypes: UInt8)
        case managementDiscovering(addressTypes: UInt8, discovering: Bool)
        case indexAdded, indexRemoved, indexOpened, indexClosed
        case power
        // Discovery.
        case scanStart(ScanParameters)
        case scanStop
        /// Android's offloaded scan filters in force at a scan start (same frame, right after
        /// `scanStart`) and after each change confirmed while a scan runs (at the APCF Command
        /// Complete's frame); only in captures with APCF traffic (0xFD57/0xFD53). The table is
        /// kept beside the events (`TimelineBuilder.scanFilterTables`), so an event is plain data.
        case scanFilters(ScanFilterSnapshot)
        case advertisement(AdvertisementInfo)
        // The capture host's own advertising.
        /// LE Set Advertising Enable or LE Set Extended Advertising Enable turning advertising
        /// on (one event per set, outcome from its Command Complete), with what was in force:
        /// kept beside the events (`ScanFilterTables.advertising(_:)`), so an event is plain
        /// data. Its value holds the advertising data's first bytes.
        case advertisingStart(AdvertisingSnapshot)
        /// The same commands turning it off: the set's handle (extended), nil for legacy
        /// advertising or for every set (Num_Sets 0, 7.8.56).
        case advertisingStop(extended: Bool, handle: UInt8?)
        // Connections.
        case connectionCreate(ConnectionCreateInfo)
        case connectionCancel
        case connectionComplete(ConnectionCompleteInfo)
        case connectionFailed(ConnectionCompleteInfo)
        case connectionUpdate(status: UInt8, timing: ConnectionTiming)
        /// L2CAP LE Connection Parameter Update Request (Vol 3 Part A 4.20); `result` is filled
        /// from the response with the same identifier on the same connection (4.21).
        case connectionParameterRequest(
            identifier: UInt8, intervalMin: UInt16, intervalMax: UInt16,
            latency: UInt16, timeout: UInt16, sent: Bool, result: UInt16?)
        case connectionParameterResponse(identifier: UInt8, result: UInt16, sent: Bool)
        case dataLengthChange(maxTxOctets: UInt16, maxRxOctets: UInt16)
        case phyUpdate(status: UInt8, txPHY: UInt8, rxPHY: UInt8)
        /// The data channels a link-layer connection hops over from an LL_CHANNEL_MAP_IND's
        /// instant on (Core 5.4 Vol 6 Part B 5.1.2): ChM, 37 bits, bit n = data channel n.
        case channelMapUpdate(map: UInt64)
        case encryptionChange(status: UInt8, enabled: UInt8)
        case disconnection(status: UInt8, reason: UInt8, side: DisconnectionSide)
        /// An LL Control PDU seen over the air (link-layer captures) that no other kind stands
        /// for: LL_VERSION_IND, LL_FEATURE_*, LL_LENGTH_REQ, LL_PHY_REQ/RSP, LL_CHANNEL_MAP_IND,
        /// LL_ENC_*, LL_REJECT_* …; the event's value holds the first CtrData bytes.
        case linkLayerControl(opcode: UInt8, sentByCentral: Bool?, instant: UInt16?)
        /// The link layer's payload became ciphertext blecap cannot read (link-layer captures):
        /// from this frame on, ATT and SMP are not visible.
        case linkLayerEncrypted(firstFrame: Int)
        /// Whether blecap decrypts a link whose encryption just started (link-layer captures):
        /// the key and where it came from (a legacy pairing cracked from the capture, `--ltk`,
        /// an earlier pairing's key distribution), or why not.
        case linkLayerDecryption(LinkLayerDecryptionNote)
        // GATT.
        case mtuExchange(clientRxMTU: UInt16, serverRxMTU: UInt16?, effective: UInt16, sent: Bool)
        case discovery(DiscoveryInfo, sent: Bool)
        case read(AttributeOperation, ReadVariant)
        case write(AttributeOperation, WriteVariant)
        /// A CCCD write (Vol 3 Part G 3.3.3.3): bit 0 notifications, bit 1 indications; 0 is an
        /// unsubscribe.
        case subscribe(AttributeOperation, configuration: UInt16)
        case notification(AttributeOperation)
        case indication(AttributeOperation)
        /// An ATT response or error that answers no outstanding request.
        case unmatchedResponse(opcode: UInt8, errorCode: UInt8?, handle: UInt16?, sent: Bool)
        // Security.
        case pairingRequest(PairingInfo, sent: Bool)
        case pairingResponse(PairingInfo, sent: Bool)
        case pairingFailed(reason: UInt8, sent: Bool)
        case securityRequest(authReq: UInt8, sent: Bool)
        case identityAddress(address: BDAddr, addressType: UInt8, sent: Bool)
        case keyDistribution(SMPDistributedKey, sent: Bool)
        // Annotations.
        case annotation(AnnotationSource)

        public var type: StaticString {
            switch self {
            case .controllerReset: "controller.reset"
            case .initComplete: "controller.init_complete"
            case .managementSetPowered: "mgmt.set_powered"
            case .managementSettings: "mgmt.settings"
            case .managementDiscoveryStart: "mgmt.discovery_start"
            case .managementDiscoveryStop: "mgmt.discovery_stop"
            case .managementDiscovering: "mgmt.discovering"
            case .indexAdded: "controller.index_added"
            case .indexRemoved: "controller.index_removed"
            case .indexOpened: "controller.index_opened"
            case .indexClosed: "controller.index_closed"
            case .power: "controller.power"
            case .scanStart: "scan.start"
            case .scanStop: "scan.stop"
            case .scanFilters: "scan.filters"
            case .advertisement: "advertisement"
            case .advertisingStart: "advertising.start"
            case .advertisingStop: "advertising.stop"
            case .connectionCreate: "connection.create"
            case .connectionCancel: "connection.cancel"
            case .connectionComplete: "connection.complete"
            case .connectionFailed: "connection.failed"
            case .connectionUpdate: "connection.update"
            case .connectionParameterRequest: "connection.parameter_request"
            case .connectionParameterResponse: "connection.parameter_response"
            case .dataLengthChange: "connection.data_length"
            case .phyUpdate: "connection.phy"
            case .channelMapUpdate: "connection.channel_map"
            case .encryptionChange: "connection.encryption"
            case .disconnection: "connection.disconnect"
            case .linkLayerControl: "ll.control"
            case .linkLayerEncrypted: "ll.encrypted"
            case .linkLayerDecryption: "ll.decryption"
            case .mtuExchange: "gatt.mtu"
            case .discovery(let d, _): d.target.type
            case .read: "gatt.read"
            case .write: "gatt.write"
            case .subscribe(_, let c): c == 0 ? "gatt.unsubscribe" : "gatt.subscribe"
            case .notification: "gatt.notification"
            case .indication: "gatt.indication"
            case .unmatchedResponse: "gatt.unmatched_response"
            case .pairingRequest: "smp.pairing_request"
            case .pairingResponse: "smp.pairing_response"
            case .pairingFailed: "smp.pairing_failed"
            case .securityRequest: "smp.security_request"
            case .identityAddress: "smp.identity_address"
            case .keyDistribution: "smp.key"
            case .annotation: "annotation"
            }
        }
    }
}
