import BLEBytes
import BLEPackets

/// What an outstanding ATT request needs to interpret its response.
struct PendingRequest {
    /// Sequence number of the request's event in the queue.
    var sequence: Int
    var opcode: UInt8
    var frame: Int
    var time: Int64
    /// Discovery requests: what the response describes.
    var discovery: DiscoveryTarget?
    /// Exchange MTU: the Client Rx MTU asked for.
    var clientRxMTU: UInt16 = 0
    /// Find By Type Value: the service UUID asked for (the response lists only ranges).
    var filter: BluetoothUUID?
}

/// An indication waiting for its Handle Value Confirmation (Vol 3 Part F 3.4.7.2).
struct PendingIndication {
    var sequence: Int
    var time: Int64
}

/// One connection: from its (LE Enhanced) Connection Complete — or the first packet seen on
/// an unknown handle — to its Disconnection Complete. Handles are reused (Bumble hands out
/// 0x0001 again), so a connection is this object, never the handle number.
///
/// The fields every ATT PDU reads are `@exclusivity(unchecked)`: see `TimelineBuilder.hot`.
final class ConnectionState {
    let number: Int
    let controllerIndex: UInt16
    let handle: UInt16
    let startFrame: Int
    /// No Connection Complete was seen: the capture started during the connection.
    let unknownStart: Bool
    @exclusivity(unchecked) var peer: BDAddr?
    @exclusivity(unchecked) var peerAddressType: UInt8?
    /// Identity address the peer distributed over SMP (Vol 3 Part H 3.6.5).
    var identity: BDAddr?
    var role: UInt8?
    var isLE = true
    /// ATT_MTU (Vol 3 Part F 3.2.8): 23 on LE until an exchange.
    @exclusivity(unchecked) var mtu: UInt16 = 23
    /// Frame of an HCI Disconnect this host sent for the handle.
    var localDisconnectFrame: Int?
    /// The Reason this host's HCI Disconnect gave (7.1.6): what its controller tells the peer.
    var localDisconnectReason: UInt8?
    let startTime: Int64
    /// Disconnection Complete's reason and who ended the link.
    var endReason: UInt8?
    var endSide: DisconnectionSide?
    /// Set when the connection ends; read at every over-the-air data PDU (unchecked, like
    /// `linkLayer`).
    @exclusivity(unchecked) var endTime: Int64?
    /// An L2CAP Connection Parameter Update Request waiting for its response (Vol 3 Part A
    /// 4.20/4.21, matched by identifier): its event's sequence, identifier, time and direction.
    var parameterRequest: (sequence: Int, identifier: UInt8, time: Int64, sent: Bool)?

    /// The peer's server as this host's client learned it, and this host's server as the
    /// peer's client learned it (both sides can be client and server, Vol 3 Part G 2.2).
    @exclusivity(unchecked) var remoteDatabase = GATTDatabase() { didSet { lastAttribute = nil } }
    @exclusivity(unchecked) var localDatabase = GATTDatabase() { didSet { lastAttribute = nil } }
    /// The last handle named and what it named: a notification stream asks for the same handle
    /// every time, and a search of the database per PDU adds up (docs/performance.md). Cleared whenever
    /// either database changes (`didSet`), so it is always what a search would find.
    @exclusivity(unchecked) var lastAttribute: (handle: UInt16, remote: Bool, attribute: AttributeRef?)?
    /// Connection number the remote database was carried over from.
    var remoteCarriedOverFrom: Int?
    var localCarriedOverFrom: Int?

    /// One outstanding request per direction (Vol 3 Part F 3.3.2): [0] sent by this host,
    /// [1] received.
    @exclusivity(unchecked) var outstanding: (PendingRequest?, PendingRequest?) = (nil, nil)
    @exclusivity(unchecked) var outstandingIndication: (PendingIndication?, PendingIndication?) = (nil, nil)
    /// Pairing Request features, kept to pick the association model at the response.
    var pairingRequest: SMPPairingFeatures?
    /// Link-layer captures: what the air showed of this connection. Read and written back at
    /// every data PDU, so unchecked: a connection is confined to the thread feeding its
    /// builder, and no access to it spans a call that could reach it again.
    @exclusivity(unchecked) var linkLayer: LinkLayerConnectionState?

    // Facts every command reads from the summary (issue 28): kept here, never recomputed.
    /// Whether `mtu` is a fact: the connection was seen from its start (the LE default 23
    /// holds until an exchange) or its MTU exchange is in the capture. When false, `mtu` is
    /// not stated; only `largestATTPDU` bounds it from below.
    @exclusivity(unchecked) var mtuKnown = false
    /// The largest ATT PDU seen on the connection, either direction (bytes, opcode included):
    /// ATT_MTU is at least this (Vol 3 Part F 3.2.8: no PDU is longer than ATT_MTU).
    @exclusivity(unchecked) var largestATTPDU = 0
    var security = ConnectionSecurity()
    /// The connection parameters in force (Connection Complete, CONNECT_IND, then each
    /// successful update) and the PHYs (LE PHY Update Complete, LL_PHY_UPDATE_IND), as the
    /// timeline's events gave them (`TimelineBuilder.event`).
    var timing: ConnectionTiming?
    var phy: (tx: UInt8, rx: UInt8)?
    /// Each set of parameters in force, oldest first, from the frame it applied at (bounded:
    /// past `maximumParameterSets` the last entry is replaced, so it is always the set in force
    /// now, and `parameterSetsOmitted` counts the sets left out).
    var parameters: [ConnectionParameters] = []
    var parameterSetsOmitted = 0
    /// The last LE command this host sent for the link that starts a link-layer procedure
    /// (connection update, PHY update, encryption start, remote features), until the event
    /// that completes it: what an LL response timeout (0x22) left unfinished.
    var linkCommand: OutstandingLinkCommand?
    /// ACL packets this host handed to the controller for the link that no Number of Completed
    /// Packets has returned yet, and since when every LE ACL buffer has been in use.
    @exclusivity(unchecked) var aclInFlight = 0
    var stallStart: (frame: Int, time: Int64)?
    var stall: ACLBufferStall?
    /// The peer's RSSI as HCI Read RSSI or the sniffer gave it (bounded: `RSSIHistory`).
    var rssi = RSSIHistory()
    /// The last Android BQR link-quality report for the link's handle.
    var qualityReport: QualityReportFact?
    /// The last BQR Root Inflammation report of the link's controller while the link was up.
    var rootInflammation: RootInflammationFact?
    /// The last BQR RF Stats report of the link's controller while the link was up.
    var rfStats: RFStatsFact?
    /// The HCI Reset that ended the link (no Disconnection Complete comes for it).
    var resetFrame: Int?
    static let maximumParameterSets = 32

    /// New parameters in force from `frame` (Connection Complete, CONNECT_IND, a successful
    /// update at its instant). Not inlined: `TimelineBuilder.event` runs for every event, and
    /// the array append inlined into it cost every event (docs/performance.md).
    @inline(never)
    func setTiming(_ t: ConnectionTiming, frame: Int) {
        timing = t
        let p = ConnectionParameters(frame: frame, timing: t)
        if parameters.count < Self.maximumParameterSets {
            parameters.append(p)
        } else {
            parameterSetsOmitted += 1
            parameters[parameters.count - 1] = p
        }
    }

    /// What the air showed of the set just put in force (link-layer captures): its transmit
    /// window (µs) and, for an LL_CONNECTION_UPDATE_IND, its instant and frame.
    func setWindow(offset: Int64, size: Int64, instant: UInt16? = nil, announcedFrame: Int? = nil) {
        guard !parameters.isEmpty else { return }
        let i = parameters.count - 1
        parameters[i].windowOffsetUs = Int(offset)
        parameters[i].windowSizeUs = Int(size)
        parameters[i].instant = instant.map(Int.init)
        parameters[i].updateFrame = announcedFrame
    }

    init(number: Int, controllerIndex: UInt16, handle: UInt16, startFrame: Int, startTime: Int64, unknownStart: Bool) {
        self.number = number
        self.startTime = startTime
        self.controllerIndex = controllerIndex
        self.handle = handle
        self.startFrame = startFrame
        self.unknownStart = unknownStart
        self.mtuKnown = !unknownStart
    }

    func request(sentByHost: Bool) -> PendingRequest? { sentByHost ? outstanding.0 : outstanding.1 }
    func setRequest(_ r: PendingRequest?, sentByHost: Bool) {
        if sentByHost { outstanding.0 = r } else { outstanding.1 = r }
    }
    func indication(sentByHost: Bool) -> PendingIndication? {
        sentByHost ? outstandingIndication.0 : outstandingIndication.1
    }
    func setIndication(_ i: PendingIndication?, sentByHost: Bool) {
        if sentByHost { outstandingIndication.0 = i } else { outstandingIndication.1 = i }
    }

    /// The database describing the server of a PDU: requests and commands go to the server,
    /// responses, notifications and indications come from it.
    func databaseIsRemote(serverSentPDU: Bool, sent: Bool) -> Bool { serverSentPDU ? !sent : sent }

    func attribute(_ handle: UInt16, remote: Bool) -> AttributeRef? {
        if let last = lastAttribute, last.handle == handle, last.remote == remote { return last.attribute }
        // Each database asked where it lies: choosing one first copied it (four arrays to
        // retain and release for every notification).
        let found =
            remote
            ? remoteDatabase.attribute(at: handle, connection: number)
            : localDatabase.attribute(at: handle, connection: number)
        lastAttribute = (handle, remote, found)
        return found
    }

    var summary: ConnectionSummary {
        ConnectionSummary(
            number: number, controllerIndex: controllerIndex, handle: handle, peer: peer,
            peerAddressType: peerAddressType, identity: identity, role: role, isLE: isLE,
            startFrame: startFrame, startTime: startTime, unknownStart: unknownStart, endFrame: nil, endTime: endTime,
            endReason: endReason, endSide: endSide, mtu: mtu,
            remoteDatabase: remoteDatabase, remoteCarriedOverFrom: remoteCarriedOverFrom,
            localDatabase: localDatabase, localCarriedOverFrom: localCarriedOverFrom,
            linkLayer: linkLayer?.counters, mtuKnown: mtuKnown, largestATTPDU: largestATTPDU,
            security: currentSecurity, timing: timing, txPHY: linkLayer?.counters.txPHY ?? phy?.tx,
            rxPHY: linkLayer?.counters.rxPHY ?? phy?.rx, parameters: parameters,
            parameterSetsOmitted: parameterSetsOmitted, linkCommand: linkCommand, bufferStall: currentStall,
            rssi: rssi, qualityReport: qualityReport, localDisconnectFrame: localDisconnectFrame,
            localDisconnectReason: localDisconnectReason, rootInflammation: rootInflammation, rfStats: rfStats,
            resetFrame: resetFrame)
    }

    /// The stall still under way (to the end), or the last one that lasted `ACLBufferStall.threshold`.
    var currentStall: ACLBufferStall? {
        if let s = stallStart, let end = endTime {
            return ACLBufferStall(
                startFrame: s.frame, startTime: s.time, endFrame: nil, duration: end - s.time, packets: aclInFlight)
        }
        return stall
    }

    /// `security`, with a sniffed link's encryption read from what the air showed.
    var currentSecurity: ConnectionSecurity {
        var s = security
        if let ll = linkLayer, ll.encryptionAnnounced || ll.counters.encryptedPDUs > 0 || ll.counters.decryptedPDUs > 0
        {
            s.encrypted = true
        }
        return s
    }
}

/// Per-connection counters of a link-layer (sniffer) capture (`blecap info`).
public struct LinkLayerCounters: Sendable, Equatable {
    public var accessAddress: UInt32 = 0
    /// Data channel PDUs seen (retransmissions and CRC errors included).
    public var dataPDUs = 0
    public var emptyPDUs = 0
    /// Copies of a PDU already seen (same SN, LLID, payload), not counted again.
    public var retransmissions = 0
    public var crcErrors = 0
    /// PDUs whose payload was ciphertext blecap could not read.
    public var encryptedPDUs = 0
    /// The first such PDU: from here on ATT and SMP are not visible.
    public var encryptedFromFrame: Int?
    /// Encrypted PDUs blecap decrypted (their MIC verified).
    public var decryptedPDUs = 0
    /// Encrypted PDUs the sniffer decrypted itself (256 "decrypted", 272 MIC OK), handed over
    /// as plaintext: the link was encrypted although nothing was left for blecap to decrypt.
    public var snifferDecryptedPDUs = 0
    /// Encrypted PDUs the link's key did not verify (damaged, or a packet counter the sniffer
    /// lost track of); counted in `encryptedPDUs` too.
    public var micFailures = 0
    /// Connection events with no PDU seen, estimated from the connection interval between
    /// the central's anchors (the sniffer missed them, or neither side transmitted).
    public var missedEvents = 0
    /// The sender of data PDUs was inferred from timing.
    public var senderInferred = false
    /// The PHY each direction uses now, as HCI numbers it (1 LE 1M, 2 LE 2M, 3 LE Coded), from
    /// the central's side (tx = central → peripheral); nil while unknown (a connection whose
    /// start the capture missed, before its first LL_PHY_UPDATE_IND).
    public var txPHY: UInt8?
    public var rxPHY: UInt8?
    /// The data channels in use now (ChM, 37 bits, bit n = channel n): the CONNECT_IND's, then
    /// each LL_CHANNEL_MAP_IND's from its instant on; nil while unknown.
    public var channelMap: UInt64?

    /// The last PDU with a valid CRC heard from each side: where each side's transmissions
    /// stopped when a link goes silent (over the air a lost link carries no reason).
    public var lastFromCentral: LinkLayerMark?
    public var lastFromPeripheral: LinkLayerMark?
    /// The last PDU whose MIC did not verify: under the key blecap decrypted the link with, or
    /// flagged by a sniffer that had the key (it decrypted other PDUs of the link). Its receiver
    /// leaves the link on it (Core 5.4 Vol 6 Part B 5.1.3.1).
    public var lastMICFailure: LinkLayerMark?
    /// The last LL_CONNECTION_UPDATE_IND, LL_CHANNEL_MAP_IND or LL_PHY_UPDATE_IND sent in a
    /// connection event already past its instant: its receiver leaves the link (5.5.1).
    public var instantPassed: LinkLayerInstantPassed?

    /// How many data channels `channelMap` uses.
    public var usedChannels: Int? { channelMap.map { ($0 & LinkLayerCounters.dataChannels).nonzeroBitCount } }
    /// Bits 0–36: the data channels of ChM (the 3 high bits of its fifth octet are RFU).
    public static let dataChannels: UInt64 = (1 << 37) - 1

    public init() {}
}

/// One link-layer PDU the diagnosis cites: its frame, time and sender (nil: unknown).
public struct LinkLayerMark: Sendable, Equatable {
    public var frame: Int
    public var time: Int64
    public var byCentral: Bool?

    public init(frame: Int, time: Int64, byCentral: Bool?) {
        (self.frame, self.time, self.byCentral) = (frame, time, byCentral)
    }
}

/// An LL control PDU with an instant that arrived in a connection event past it.
public struct LinkLayerInstantPassed: Sendable, Equatable {
    public var pdu: LinkLayerMark
    public var opcode: UInt8
    public var instant: UInt16
    /// The connection event counter of the event that carried it.
    public var event: UInt16
}

/// An LL_CONNECTION_UPDATE_IND waiting for its instant: the new timing, its transmit window
/// (µs: WinOffset × 1.25 ms, WinSize × 1.25 ms) and the frame that carried it.
typealias PendingUpdate = (
    instant: UInt16, timing: ConnectionTiming, windowOffset: Int64, windowSize: Int64, frame: Int
)

/// What the timeline keeps per link-layer connection beyond the counters.
struct LinkLayerConnectionState {
    var counters = LinkLayerCounters()
    /// µs; nil until a CONNECT_IND or LL_CONNECTION_UPDATE_IND gave them.
    var interval: Int64?
    var supervisionTimeout: Int64?
    var lastTime: Int64 = 0
    var lastAnchor: Int64?
    /// connEventCounter of the last anchor (Vol 6 Part B 4.5.1): the nRF Sniffer's, or counted
    /// from the CONNECT_IND's first event on; nil while unknown (mid-capture start).
    var eventCounter: Int?
    var fromConnectInd = false
    /// An LL_CONNECTION_UPDATE_IND waiting for its instant, with its transmit window (µs:
    /// WinOffset × 1.25 ms, WinSize × 1.25 ms).
    var pendingUpdate: PendingUpdate?
    /// The update `anchor` just put in force (its window, instant and frame for the record);
    /// read and cleared at once by `dataPDU`. Kept here rather than returned: returning the
    /// whole update from `anchor`, run at every PDU, cost a copy a PDU (docs/performance.md).
    var appliedUpdate: PendingUpdate?
    /// A CONNECT_IND not yet answered: its connection.complete waits in the queue (`sequence`,
    /// pending) until the peripheral's first PDU makes it a connection, or until `deadline` (the
    /// transmit window plus 6 intervals, 4.5.2) passes with the sniffer following the link and
    /// the peripheral silent: a failed attempt (`TimelineBuilder.failAttempt`), no connection.
    var attempt: (sequence: Int, deadline: Int64, info: ConnectionCompleteInfo)?
    /// The link has been silent for longer than the supervision timeout in force, although the
    /// sniffer records its empty PDUs: lost, or the sniffer lost it (missed events, a late
    /// hop). Decided later: a PDU on the access address again means the link went on; a new
    /// CONNECT_IND to the same peripheral or on the same access address, or the end of the
    /// capture, means it was lost (at the moment `silentSince + timeout`).
    var silentPastTimeout = false
    /// A CONNECT_IND to the same peripheral came while this link was still within its timeout:
    /// it was lost unless a PDU on it comes before the timeout in force runs out (a peripheral
    /// can be in two connections with one central, and the old one's LL_TERMINATE_IND can follow
    /// the new CONNECT_IND). Silence then counts even from a sniffer that hides empty PDUs.
    var superseded = false
    /// A PDU from the peripheral was seen (the connection was established, 4.5.2): until then
    /// the timeout in force is 6 connection intervals and its expiry is Connection Failed to be
    /// Established (0x3E).
    var peripheralHeard = false
    /// An LL_PHY_UPDATE_IND waiting for its instant: the new PHY per direction (HCI numbers, 0
    /// unchanged).
    var pendingPHY: (instant: UInt16, tx: UInt8, rx: UInt8)?
    /// An LL_CHANNEL_MAP_IND waiting for its instant.
    var pendingChannelMap: (instant: UInt16, map: UInt64)?
    var lastLengthRequest: (maxRx: UInt16, maxTx: UInt16, byCentral: Bool)?
    var encryptionAnnounced = false
    /// An LL_ENC_REQ was sent and the encryption start has not completed or been rejected.
    var encryptionRequested = false
}

/// A finished connection with the GATT databases learned on it (and carried into it).
public struct ConnectionSummary: Sendable {
    public var number: Int
    public var controllerIndex: UInt16
    public var handle: UInt16
    public var peer: BDAddr?
    public var peerAddressType: UInt8?
    public var identity: BDAddr?
    /// 0 central, 1 peripheral (this host's role).
    public var role: UInt8?
    public var isLE: Bool
    public var startFrame: Int
    /// Microseconds since 1970 of the start frame.
    public var startTime: Int64
    public var unknownStart: Bool
    /// Frame of the Disconnection Complete; nil when the capture ended first.
    public var endFrame: Int?
    /// Time of the Disconnection Complete (or of the frame that ended tracking: a Reset, a
    /// new Connection Complete on the handle).
    public var endTime: Int64?
    /// Disconnection Complete's reason (Vol 1 Part F) and which side ended the link; nil
    /// when no Disconnection Complete was seen.
    public var endReason: UInt8?
    public var endSide: DisconnectionSide?
    public var mtu: UInt16
    /// The peer's GATT server as this host saw it.
    public var remoteDatabase: GATTDatabase
    public var remoteCarriedOverFrom: Int?
    /// This host's GATT server as the peer discovered it.
    public var localDatabase: GATTDatabase
    public var localCarriedOverFrom: Int?
    /// Link-layer captures only.
    public var linkLayer: LinkLayerCounters? = nil
    /// Whether `mtu` is the connection's ATT_MTU as a fact (seen from the start of the
    /// connection, or its exchange seen). When false, `mtu` says nothing: the capture started
    /// after an exchange it cannot see, and `mtuAtLeast` is all that is known.
    public var mtuKnown: Bool = true
    /// The largest ATT PDU seen on the connection, either direction (bytes); 0 when none.
    public var largestATTPDU: Int = 0
    /// Security as the capture showed it.
    public var security = ConnectionSecurity()
    /// The connection parameters in force at the end, when the capture gave them.
    public var timing: ConnectionTiming? = nil
    /// The PHY of each direction at the end (HCI numbers; this host's side, or the central's
    /// on a sniffed link, as tx), when known.
    public var txPHY: UInt8? = nil
    public var rxPHY: UInt8? = nil
    /// Each set of connection parameters in force, oldest first (at most 32: the last is the
    /// set in force at the end), and how many more sets the connection went through.
    public var parameters: [ConnectionParameters] = []
    public var parameterSetsOmitted = 0
    /// A link-layer procedure this host's command started (Command Status seen or not) whose
    /// completion event had not come when the link ended.
    public var linkCommand: OutstandingLinkCommand? = nil
    /// The controller's LE ACL buffers all in use for this link (ACLBufferStall), when the
    /// capture shows the buffer count: the one under way at the end, or the last one.
    public var bufferStall: ACLBufferStall? = nil
    /// The peer's RSSI samples (HCI Read RSSI results for the handle, or over the air the
    /// sniffer's RSSI of the peripheral's PDUs): the last `RSSIHistory.capacity` of them.
    public var rssi = RSSIHistory()
    /// The last Android Bluetooth Quality Report link-quality report for the link's handle.
    public var qualityReport: QualityReportFact? = nil
    /// This host's last HCI Disconnect for the link and the Reason it gave the peer (7.1.6;
    /// the Disconnection Complete then says 0x16, the local host's own end).
    public var localDisconnectFrame: Int? = nil
    public var localDisconnectReason: UInt8? = nil
    /// The last Android BQR Root Inflammation report (the controller reporting its own failure)
    /// its controller sent while the link was up. It names no handle: it is the controller's.
    public var rootInflammation: RootInflammationFact? = nil
    /// The last Android BQR RF Stats report (the controller's packet counts by RSSI over a
    /// period, all its traffic: no handle) its controller sent while the link was up.
    public var rfStats: RFStatsFact? = nil
    /// The HCI Reset this host sent while the link was up, which ended it: a reset drops every
    /// connection with no Disconnection Complete (Core Vol 4 Part E 7.3.2).
    public var resetFrame: Int? = nil

    /// What ATT_MTU is at least: the LE default and the largest ATT PDU seen.
    public var mtuAtLeast: UInt16 { UInt16(clamping: Swift.max(23, largestATTPDU)) }
    /// The number of attributes each database holds.
    public var remoteAttributes: GATTAttributeCounts { remoteDatabase.counts }
    public var localAttributes: GATTAttributeCounts { localDatabase.counts }
}

/// A connection's security as the capture showed it.
public struct ConnectionSecurity: Sendable, Equatable {
    /// The link was encrypted at some point: an HCI Encryption Change that enabled it, or, on
    /// a sniffed link, its encryption start or ciphertext seen.
    public var encrypted = false
    /// The association model of the last pairing on the connection (from its Pairing Request
    /// and Response), and whether it was LE Secure Connections.
    public var pairingMethod: PairingMethod?
    public var secureConnections: Bool?
    /// The last pairing on the connection failed (Pairing Failed seen after it started).
    public var pairingFailed = false

    public init() {}
}

/// One ATT PDU as the timeline builder met it: on which connection, in which direction.
public struct ATTObservation {
    public var connection: Int
    /// Sent by the capturing host (false: received from the peer).
    public var sentByHost: Bool
    public var frame: Int
    /// Microseconds since 1970.
    public var time: Int64
    /// The whole ATT PDU, opcode first; valid only during the observer's call.
    public var pdu: ByteView
}

/// An HCI LE command that runs a link-layer procedure on one connection and completes with an
/// event of its own (Core 5.4 Vol 4 Part E 7.8.18, 7.8.21, 7.8.24, 7.8.49): the controller
/// answers it with Command Status at once and reports the procedure's end later.
public struct OutstandingLinkCommand: Sendable, Equatable {
    public var opcode: UInt16
    /// The command's frame and time.
    public var frame: Int
    public var time: Int64
    /// The Command Status that accepted it (nil: none in the capture yet).
    public var statusFrame: Int?

    public init(opcode: UInt16, frame: Int, time: Int64, statusFrame: Int? = nil) {
        self.opcode = opcode
        self.frame = frame
        self.time = time
        self.statusFrame = statusFrame
    }

    /// The commands tracked, with the event that completes each.
    public static let completions: [(opcode: UInt16, command: StaticString, completion: StaticString)] = [
        (HCIOpcode.leConnectionUpdate, "LE Connection Update", "LE Connection Update Complete"),
        (HCIOpcode.leReadRemoteFeatures, "LE Read Remote Features", "LE Read Remote Features Complete"),
        (HCIOpcode.leEnableEncryption, "LE Enable Encryption", "Encryption Change"),
        (HCIOpcode.leSetPHY, "LE Set PHY", "LE PHY Update Complete"),
    ]

    public static func isTracked(_ opcode: UInt16) -> Bool { completions.contains { $0.opcode == opcode } }

    public var commandName: StaticString { Self.completions.first { $0.opcode == opcode }?.command ?? "LE command" }
    public var completionName: StaticString {
        Self.completions.first { $0.opcode == opcode }?.completion ?? "its completion event"
    }
}

/// Every LE ACL buffer of the controller (LE Read Buffer Size, Vol 4 Part E 7.8.2) held by
/// packets of one link that no Number of Completed Packets (7.7.19) had returned: the host may
/// send no more (4.1.1), and the controller frees a buffer only once the peer has acknowledged
/// its packet, so a full set of buffers not coming back means the link is not delivering.
public struct ACLBufferStall: Sendable, Equatable {
    /// The ACL packet that took the last free buffer.
    public var startFrame: Int
    public var startTime: Int64
    /// The Number of Completed Packets that freed a buffer again; nil when the link ended first.
    public var endFrame: Int?
    public var duration: Int64
    /// Packets in flight when it ended (or at the link's end).
    public var packets: Int

    public init(startFrame: Int, startTime: Int64, endFrame: Int?, duration: Int64, packets: Int) {
        (self.startFrame, self.startTime, self.endFrame, self.duration, self.packets) = (
            startFrame, startTime, endFrame, duration, packets
        )
    }

    /// A stall counts from 1 s: a link that delivers frees its buffers within a few connection
    /// intervals (the peer acknowledges each packet in the event after it was sent), and 1 s is
    /// more than 6 intervals of any interval up to 165 ms (6 unanswered intervals is how long
    /// a new connection may stay silent before it is given up, Vol 6 Part B 4.5.2).
    public static let threshold: Int64 = 1_000_000
}

/// Where an RSSI sample of a connection came from.
public enum RSSISource: UInt8, Sendable, Equatable {
    /// HCI Read RSSI's Command Complete for the connection's handle (Vol 4 Part E 7.5.4): on
    /// an LE link, the controller's absolute received signal strength of the peer, in dBm.
    case readRSSI
    /// The sniffer's pseudo-header RSSI of a PDU the peripheral sent on the link.
    case sniffer

    public var name: StaticString {
        switch self {
        case .readRSSI: "HCI Read RSSI"
        case .sniffer: "sniffer RSSI of the peripheral's PDUs"
        }
    }
}

/// One RSSI value for a connection's peer, as the capture gave it.
public struct RSSISample: Sendable, Equatable {
    public var frame: Int
    /// Microseconds since 1970.
    public var time: Int64
    public var dBm: Int8
    public var source: RSSISource

    public init(frame: Int, time: Int64, dBm: Int8, source: RSSISource) {
        (self.frame, self.time, self.dBm, self.source) = (frame, time, dBm, source)
    }
}

/// The last `capacity` RSSI samples of a connection (oldest first) and how many there were.
public struct RSSIHistory: Sendable, Equatable {
    /// Enough for the last seconds before an end: Android reads RSSI at most about once a
    /// second when an app asks, and the sniffer's samples are taken at most every
    /// `snifferSpacing`.
    public static let capacity = 16
    /// Over the air: one sample of the peripheral's PDUs per this many microseconds.
    public static let snifferSpacing: Int64 = 1_000_000
    public private(set) var samples: [RSSISample] = []
    public private(set) var total = 0

    public init() {}

    public mutating func add(_ s: RSSISample) {
        if samples.count == Self.capacity { samples.removeFirst() }
        samples.append(s)
        total += 1
    }
}

/// An Android Bluetooth Quality Report Root Inflammation (HCI Vendor-Specific event 0xFF,
/// sub-event 0x58, report id 0x05): the controller's report of its own failure.
public struct RootInflammationFact: Sendable, Equatable {
    public var frame: Int
    /// Microseconds since 1970.
    public var time: Int64
    public var report: BQRRootInflammation

    public init(frame: Int, time: Int64, report: BQRRootInflammation) {
        (self.frame, self.time, self.report) = (frame, time, report)
    }
}

/// An Android Bluetooth Quality Report RF Stats report (HCI Vendor-Specific event 0xFF,
/// sub-event 0x58, report id 0x09): the controller's packet counts over a period.
public struct RFStatsFact: Sendable, Equatable {
    public var frame: Int
    /// Microseconds since 1970.
    public var time: Int64
    public var report: BQRRFStats

    public init(frame: Int, time: Int64, report: BQRRFStats) {
        (self.frame, self.time, self.report) = (frame, time, report)
    }
}

/// An Android Bluetooth Quality Report's link-quality block (HCI Vendor-Specific event 0xFF,
/// sub-event 0x58) for a connection's handle, where the capture had one, and how many came.
public struct QualityReportFact: Sendable, Equatable {
    public var frame: Int
    /// Microseconds since 1970.
    public var time: Int64
    public var report: BQRLinkQuality
    public var count: Int

    public init(frame: Int, time: Int64, report: BQRLinkQuality, count: Int) {
        (self.frame, self.time, self.report, self.count) = (frame, time, report, count)
    }
}
