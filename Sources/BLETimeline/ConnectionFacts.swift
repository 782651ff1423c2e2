import BLEBytes
import BLEPackets

/// One connection's facts as the timeline established them (issue 28): who, which roles, how
/// it ended, ATT_MTU as known or as a lower bound, security and how many attributes each
/// side's server showed. Built once from the `ConnectionSummary` and rendered as it is by
/// every command (`info`, `gatt`, `timeline`, `lint`, `report`): none recomputes one of these.
///
/// Encoded with snake_case keys; optional facts that are unknown are left out, never guessed.
public struct ConnectionFacts: Sendable, Equatable, Encodable {
    public var connection: Int
    public var peer: String?
    public var peerAddressType: Int?
    /// Identity address the peer distributed over SMP.
    public var identityAddress: String?
    /// This host's role ("central", "peripheral"); on a sniffed link this host is the central.
    public var role: String?
    public var handle: Int
    public var startFrame: Int
    public var endFrame: Int?
    /// The capture started during the connection.
    public var unknownStart: Bool
    /// How it ended: "local", "remote", "link_loss" (the side of the Disconnection Complete or
    /// LL_TERMINATE_IND), "lost_track" (tracking ended without one: a reset, the handle
    /// reused) or "open" (still up when the capture ended).
    public var ended: String
    public var endReason: Int?
    public var endReasonName: String?
    /// ATT_MTU when it is a fact (the connection was seen from its start, or its exchange was).
    public var mtu: Int?
    public var mtuKnown: Bool
    /// When ATT_MTU is unknown: what it is at least (23, or the largest ATT PDU seen).
    public var mtuAtLeast: Int?
    /// The largest ATT PDU seen, either direction (bytes, opcode included).
    public var largestAttPDU: Int
    public var security: Security
    public var attributes: Attributes
    /// The connection parameters in force at the end: interval (µs), peripheral latency
    /// (events), supervision timeout (ms); absent when the capture never gave them.
    public var intervalUs: Int?
    public var latency: Int?
    public var timeoutMs: Int?
    /// The PHY each direction uses at the end (HCI numbers: 1 LE 1M, 2 LE 2M, 3 LE Coded; this
    /// host's side, or the central's on a sniffed link, as tx), when known.
    public var txPHY: Int?
    public var rxPHY: Int?
    /// Each set of parameters in force over the connection, oldest first (the last is the one
    /// `intervalUs`, `latency` and `timeoutMs` give); absent when the capture gave none.
    public var parameters: [ConnectionParameters]?
    /// Sets the connection went through that `parameters` leaves out (it keeps 32); absent when 0.
    public var parametersOmitted: Int?

    public struct Security: Sendable, Equatable, Encodable {
        public var encrypted: Bool
        public var pairingMethod: String?
        public var secureConnections: Bool?
        public var pairingFailed: Bool

        enum CodingKeys: String, CodingKey {
            case encrypted
            case pairingMethod = "pairing_method"
            case secureConnections = "secure_connections"
            case pairingFailed = "pairing_failed"
        }
    }

    /// Attribute counts of the peer's server (as this host's client discovered it) and of
    /// this host's server (as the peer's client discovered it).
    public struct Attributes: Sendable, Equatable, Encodable {
        public var peer: Counts
        public var local: Counts
    }

    public struct Counts: Sendable, Equatable, Encodable {
        public var services: Int
        public var includes: Int
        public var characteristics: Int
        public var descriptors: Int

        init(_ c: GATTAttributeCounts) {
            services = c.services
            includes = c.includes
            characteristics = c.characteristics
            descriptors = c.descriptors
        }
    }

    enum CodingKeys: String, CodingKey {
        case connection, peer
        case peerAddressType = "peer_address_type"
        case identityAddress = "identity_address"
        case role, handle
        case startFrame = "start_frame"
        case endFrame = "end_frame"
        case unknownStart = "unknown_start"
        case ended
        case endReason = "end_reason"
        case endReasonName = "end_reason_name"
        case mtu
        case mtuKnown = "mtu_known"
        case mtuAtLeast = "mtu_at_least"
        case largestAttPDU = "largest_att_pdu"
        case security, attributes
        case intervalUs = "interval_us"
        case latency
        case timeoutMs = "timeout_ms"
        case txPHY = "tx_phy"
        case rxPHY = "rx_phy"
        case parameters
        case parametersOmitted = "parameters_omitted"
    }

    /// How a connection ended, in `ended`'s words.
    public static func ended(side: DisconnectionSide?, endTime: Int64?) -> String {
        if let side { return side.name.description }
        return endTime == nil ? "open" : "lost_track"
    }

    /// The MTU as the text outputs state it: "23", or "unknown (at least 243)".
    public var mtuText: String {
        if let mtu { return String(mtu) }
        return "unknown (at least \(mtuAtLeast ?? 23))"
    }
}

extension ConnectionSummary {
    /// This connection's facts.
    public var facts: ConnectionFacts {
        ConnectionFacts(
            connection: number, peer: peer?.description, peerAddressType: peerAddressType.map(Int.init),
            identityAddress: identity?.description, role: role.map { $0 == 0 ? "central" : "peripheral" },
            handle: Int(handle), startFrame: startFrame, endFrame: endFrame, unknownStart: unknownStart,
            ended: ConnectionFacts.ended(side: endSide, endTime: endTime), endReason: endReason.map(Int.init),
            endReasonName: endReason.flatMap { HCIError.name($0) }.map { $0.description },
            mtu: mtuKnown ? Int(mtu) : nil, mtuKnown: mtuKnown, mtuAtLeast: mtuKnown ? nil : Int(mtuAtLeast),
            largestAttPDU: largestATTPDU,
            security: ConnectionFacts.Security(
                encrypted: security.encrypted, pairingMethod: security.pairingMethod.map { $0.name.description },
                secureConnections: security.secureConnections, pairingFailed: security.pairingFailed),
            attributes: ConnectionFacts.Attributes(
                peer: ConnectionFacts.Counts(remoteAttributes), local: ConnectionFacts.Counts(localAttributes)),
            intervalUs: timing.map { Int($0.interval) * 1250 }, latency: timing.map { Int($0.latency) },
            timeoutMs: timing.map { Int($0.supervisionTimeout) * 10 },
            txPHY: txPHY.map(Int.init), rxPHY: rxPHY.map(Int.init),
            parameters: parameters.isEmpty ? nil : parameters,
            parametersOmitted: parameterSetsOmitted > 0 ? parameterSetsOmitted : nil)
    }
}

/// One set of connection parameters and the frame from which it was in force: the (LE)
/// Connection Complete or CONNECT_IND, then each successful LE Connection Update Complete or,
/// over the air, the first PDU of an LL_CONNECTION_UPDATE_IND's instant event (Vol 6 Part B
/// 5.1.1). LL_CONNECTION_PARAM_REQ/RSP only ask: they change nothing until the update that
/// follows them.
public struct ConnectionParameters: Sendable, Equatable, Encodable {
    public var frame: Int
    /// Connection interval (µs), peripheral latency (events), supervision timeout (ms).
    public var intervalUs: Int
    public var latency: Int
    public var timeoutMs: Int
    /// Link-layer captures: the transmit window of the CONNECT_IND or LL_CONNECTION_UPDATE_IND
    /// (WinOffset, WinSize in µs) that put the set in force.
    public var windowOffsetUs: Int?
    public var windowSizeUs: Int?
    /// Link-layer captures, an update: the connection event it applied at (its Instant) and
    /// the frame of its LL_CONNECTION_UPDATE_IND.
    public var instant: Int?
    public var updateFrame: Int?

    init(frame: Int, timing t: ConnectionTiming) {
        self.frame = frame
        intervalUs = Int(t.interval) * 1250
        latency = Int(t.latency)
        timeoutMs = Int(t.supervisionTimeout) * 10
    }

    enum CodingKeys: String, CodingKey {
        case frame
        case intervalUs = "interval_us"
        case latency
        case timeoutMs = "timeout_ms"
        case windowOffsetUs = "window_offset_us"
        case windowSizeUs = "window_size_us"
        case instant
        case updateFrame = "update_frame"
    }
}
