import BLEBytes

/// Which way an HCI packet crossed the host–controller interface.
///
/// Link-layer records use the same two values as seen from the central's host: `.sent` is
/// central → peripheral, `.received` peripheral → central (`radio.sender` says it in LL terms,
/// and whether it was inferred), so L2CAP reassembly and ATT pairing work unchanged.
public enum Direction: UInt8, Sendable {
    /// Host → controller (commands, outgoing ACL). btsnoop flag bit 0 clear; tshark "Sent".
    case sent
    /// Controller → host (events, incoming ACL). tshark "Rcvd".
    case received
    /// Not an HCI packet (notes, index records) or a container that does not say and content
    /// that does not tell.
    case unknown
}

/// What a capture record holds, across all containers. HCI traffic first; the rest are
/// container metadata (Linux monitor index/control records, PacketLogger text records) that
/// blecap keeps as annotations rather than dropping.
public enum RecordKind: UInt8, Sendable, CaseIterable {
    // HCI traffic. The payload starts after the H4 packet-type byte.
    case hciCommand, hciEvent, aclData, scoData, isoData
    // Linux monitor (btsnoop 2001 / pcap 254) metadata.
    case indexNew, indexDelete, indexOpen, indexClose, indexInfo, vendorDiagnostic
    case systemNote, userLogging
    case controlOpen, controlClose, controlCommand, controlEvent
    // Apple PacketLogger records that are not HCI traffic.
    case power, note, syslog, kernel, kernelDebug, error, config, newController
    /// An over-the-air Link Layer packet from a sniffer (pcap 251, 256, 272, 157, PPI 192):
    /// the payload is the PDU from its header to its CRC, `CaptureRecord.radio` the rest.
    case linkLayer
    /// A type code the reader does not know; `CaptureRecord.rawType` keeps it.
    case unknown

    public var isHCI: Bool { self.rawValue <= RecordKind.isoData.rawValue }

    /// Stable lower-case name used in JSON output (`kind`).
    public var name: StaticString {
        switch self {
        case .hciCommand: "hci_command"
        case .hciEvent: "hci_event"
        case .aclData: "acl"
        case .scoData: "sco"
        case .isoData: "iso"
        case .indexNew: "index_new"
        case .indexDelete: "index_delete"
        case .indexOpen: "index_open"
        case .indexClose: "index_close"
        case .indexInfo: "index_info"
        case .vendorDiagnostic: "vendor_diagnostic"
        case .systemNote: "system_note"
        case .userLogging: "user_logging"
        case .controlOpen: "control_open"
        case .controlClose: "control_close"
        case .controlCommand: "control_command"
        case .controlEvent: "control_event"
        case .power: "power"
        case .note: "note"
        case .syslog: "syslog"
        case .kernel: "kernel"
        case .kernelDebug: "kernel_debug"
        case .error: "error"
        case .config: "config"
        case .newController: "new_controller"
        case .linkLayer: "ll"
        case .unknown: "unknown"
        }
    }
}

/// One record of a capture file, in file order.
///
/// `payload` borrows the reader's buffer: it is valid until the reader's next `next()` call.
/// For HCI kinds it is the HCI packet *without* the H4 type byte (so a command starts with its
/// opcode, an event with its event code, ACL with the handle/flags field) regardless of the
/// container. For text kinds it is the text bytes; for other metadata the raw record body.
public struct CaptureRecord: @unchecked Sendable {
    /// 1-based record index: the same numbering as tshark's `frame.number`.
    public var frame: Int
    /// Microseconds since 1970-01-01T00:00:00Z (may go backwards between records, and may be
    /// negative or far off for captures from devices with a wrong clock).
    public var timestamp: Int64
    public var direction: Direction
    public var kind: RecordKind
    /// The container's own type code (H4 type, monitor opcode, PacketLogger type, …).
    public var rawType: UInt32
    /// Controller index (Linux monitor); 0 where the container has only one controller.
    public var controllerIndex: UInt16
    public var payload: ByteView
    /// Length of the packet as it was on the wire, when the container says it was cut
    /// (snaplen); otherwise equal to the HCI packet length.
    public var originalLength: Int
    /// Byte offset of the record (its header) in the file and the record's size there; used to
    /// point reports (SARIF regions, damage messages) at the exact bytes.
    public var fileOffset: Int64
    public var recordLength: Int
    /// Access address, channel, RSSI, sender and CRC status of a `.linkLayer` record; the
    /// default (unknown everything) for HCI and metadata records.
    public var radio: LinkLayerRadio

    /// Whether the container kept fewer bytes than the packet had (a snap length, or Android's
    /// btsnooz and filtered logs, which keep ACL headers and drop the rest): the payload is a
    /// prefix of the packet, and what lies beyond it is unknown, not absent.
    @inlinable public var isTruncated: Bool { originalLength > payload.count }

    public init(
        frame: Int, timestamp: Int64, direction: Direction, kind: RecordKind, rawType: UInt32,
        controllerIndex: UInt16 = 0, payload: ByteView, originalLength: Int, fileOffset: Int64,
        recordLength: Int, radio: LinkLayerRadio = LinkLayerRadio()
    ) {
        self.radio = radio
        self.frame = frame
        self.timestamp = timestamp
        self.direction = direction
        self.kind = kind
        self.rawType = rawType
        self.controllerIndex = controllerIndex
        self.payload = payload
        self.originalLength = originalLength
        self.fileOffset = fileOffset
        self.recordLength = recordLength
    }
}
