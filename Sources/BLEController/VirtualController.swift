import BLEAir
import BLEBytes
import BLEPackets
import BLEReplay
import BLETimeline
import CaptureIO

/// Which side of the captured connections the controller plays.
public enum ServeRole: String, Sendable {
    /// The captured peripherals, to a host acting as central (recorded on either side: a
    /// capture recorded on the peripheral is played as its central saw it, the peripheral
    /// advertising as its own HCI commands did).
    case peripheral
    /// The captured central, to a host acting as peripheral (recorded on either side: a
    /// capture recorded on the central is played as its peripheral saw it): when the host advertises, the controller connects as the captured central
    /// did and plays its requests, writes and subscriptions.
    case central
}

/// How the virtual controller presents itself and how fast it plays the capture.
public struct ControllerConfiguration: Sendable {
    public var role: ServeRole = .peripheral
    /// The public address Read BD_ADDR returns.
    public var address = BDAddr(rawValue: 0xB1EC_A900_0001)
    /// LE ACL Data Packet Length and Total Num LE ACL Data Packets (Vol 4 Part E 7.8.2): the
    /// host may have this many packets of this many octets in the controller at once.
    public var aclPacketLength = 251
    public var aclPackets = 16
    /// `.realtime`: answers, notifications and the link's end at their captured times; `.max`:
    /// as soon as they are due in the captured order; a factor divides every interval.
    public var speed: ReplaySpeed = .realtime
    public var faults: ReplayFaults = .none
    /// Between two advertising reports of one advertiser while the host scans, when the
    /// capture shows none (one advertising report of the peer at most).
    public var advertisingIntervalMicros: Int64 = 100_000
    /// The captured peer ends the link at its captured time only once its own requests are
    /// out and answered, at every speed (at max speed always). Over a real radio (`RadioHost`
    /// as central) the device's answers may come later than captured: the captured central
    /// would otherwise leave with its script unplayed.
    public var peerEndsAfterItsScript = false
    /// The captured peer's requests and its end of the link wait for the notifications and
    /// indications the host's server sent before them in the capture, then go their captured
    /// delay after the last of them (never before their captured time from the connection's
    /// start): they are anchored on what the capture shows they followed, as the replay
    /// engine's steps are. Over a real radio (`RadioHost` as central) the device's
    /// notifications come on its own clock, not at the captured offsets. A wait gives up when
    /// none comes for `peerAwaitMicros` (a finding, `peerAwaitFindings`).
    public var peerAwaitsHostNotifications = false
    public var peerAwaitMicros: Int64 = 10_000_000

    public init() {}

    /// The configuration of `replay --controller`: `role` as asked, and as central the captured
    /// central's script anchored on what it waits for over a real radio
    /// (`peerEndsAfterItsScript`, `peerAwaitsHostNotifications`).
    public init(overARadioAs role: ServeRole) {
        self.role = role
        peerEndsAfterItsScript = role == .central
        peerAwaitsHostNotifications = role == .central
    }
}

/// A Bluetooth LE controller whose radio is a capture: a host stack drives it over HCI (H4
/// bytes in, H4 bytes out) exactly as it drives real hardware, and what it finds on the air
/// are the captured peripherals — their advertising, and once connected their GATT servers
/// answering from the replay model (`ReplayConnectionModel`, the one `blecap replay` and the
/// simulator replay use).
///
/// Single-threaded and clock-driven: `receive(_:)` takes the host's bytes, `advance(to:)`
/// runs what falls due (answers after their captured latency, notifications after the
/// subscription that enabled them, the peer's end of the link); everything for the host goes
/// to `output`. `ServeRunner` drives it over a transport; tests drive it in-process.
public final class VirtualController {
    public let configuration: ControllerConfiguration
    public let replay: CaptureReplay
    /// H4 packets for the host, type octet first.
    public var output: ([UInt8]) -> Void = { _ in }
    /// Every dropped or refused piece of host input, every request the capture cannot answer.
    public var log: (String) -> Void = { _ in }
    /// Every whole packet crossing the virtual HCI, either way (for `--out`): H4 type first,
    /// and whether the host sent it.
    public var tap: ((_ packet: [UInt8], _ fromHost: Bool) -> Void)?
    /// µs since the controller started; moved forward by `advance(to:)`.
    public private(set) var now: Int64 = 0
    /// The clock that drives the controller (µs since it started), when it is a real one
    /// (`ServeRunner`'s monotonic clock): each timed event's lateness against its deadline is
    /// measured on it into `pace`. Nil in tests that move virtual time, where lateness means
    /// nothing.
    public var clock: (() -> Int64)?
    /// How late the timed events of the exchange ran (advertising ticks aside), on `clock`.
    public internal(set) var pace = PaceMeasure()
    /// The captured peer's waits for the host's notifications that gave up (at most 1024):
    /// what the host did not send that the capture shows before the peer's next step.
    public internal(set) var peerAwaitFindings: [String] = []

    // MARK: state a Reset clears

    var eventMask: UInt64 = 0x0000_1FFF_FFFF_FFFF
    var leEventMask: UInt64 = 0x1F
    var randomAddress: BDAddr?
    var suggestedTxOctets: UInt16 = 27
    var suggestedTxTime: UInt16 = 328
    var scan = ScanState()
    var acceptList: [(type: UInt8, address: BDAddr)] = []
    var resolvingListCount = 0
    var pendingConnection: PendingConnection?
    /// The host's advertising (role central): extended or legacy, and the set's handle.
    var advertising: (extended: Bool, handle: UInt8)?
    var connections: [UInt16: LiveConnection] = [:]
    /// ACL packets from the host not yet reported in Number Of Completed Packets, per handle.
    var uncompleted: [UInt16: UInt16] = [:]
    var inFlight = 0
    var completionScheduled = false

    // MARK: state that outlives a Reset

    /// Captured connections (host central) not served yet, in captured order.
    var unserved: [Int]
    /// The one captured connection chosen to play (`playOnly(connection:)`); nil: every one.
    var chosen: Int?
    /// What each served connection became.
    public internal(set) var served: [ServedConnection] = []
    var timers = TimerQueue()
    var framer: H4Framer
    let reassembler = L2CAPReassembler(maximumStreams: 64)
    var nextHandle: UInt16 = 0x0040
    var nextConnectionID = 0
    var rng = SplitMix64(seed: 0xB1EC)
    /// Host input the controller dropped or refused (the fuzz target's and tests' measure).
    public internal(set) var rejectedInput = 0
    /// The keys the captured peers distributed, by peer address: they hold them across
    /// connections (and a Reset of this controller, which is the host's side).
    var bonds: [BDAddr: PeerKey] = [:]
    /// This run's LE Secure Connections key pair (role peripheral over a radio), made on first use.
    var keyPair: SecureConnectionsKeyPair?
    /// Random numbers for pairing (nonces, keys, the key pair) when they must not be the
    /// seeded generator's: over a real radio (`RadioHost`) a fresh key pair per run. Nil
    /// (`blecap serve`): the seeded one, so a run pairs the same way each time.
    public var securityRandom: (() -> UInt64)?
    /// Role central: the keys the host distributed to the captured central, by host address;
    /// over a real radio the key this run's pairing left with each peer.
    var hostKeys: [BDAddr: PeerKey] = [:]
    /// Role central over a real radio (`RadioHost`): starts encryption on the real link this
    /// controller plays as `handle` (HCI_LE_Enable_Encryption with Rand, EDIV and the key).
    public var radioEncrypt: ((_ handle: UInt16, _ rand: UInt64, _ ediv: UInt16, _ key: UInt128) -> Void)?
    /// Role central over a real radio: where the device's pairing and encryption differed from
    /// the captured peripheral's (refused, another method, other keys, a value that did not
    /// check out), for the report.
    public internal(set) var radioFindings: [String] = []
    /// The host's advertising: Own_Address_Type and an extended set's random address.
    var advertisingOwnAddressType: UInt8 = 0
    var advertisingSetAddress: BDAddr?
    /// The capture's advertisers it never connected to (with their captured event types).
    let bystanders: [AirAdvertiser]
    /// Connection attempts to an advertiser no captured connection answers (not connectable,
    /// or connectable but never connected in the capture): why, once per advertiser (at most 64).
    public internal(set) var unansweredConnections: [String] = []

    public static let maximumLoggedPDUs = 2_000_000

    public init(replay: CaptureReplay, configuration: ControllerConfiguration = .init()) {
        // Each role plays its side of every connection, whichever side recorded it.
        let replay = configuration.role == .central ? replay.centralsAsPeers() : replay.peripheralsAsPeers()
        self.replay = replay
        self.configuration = configuration
        framer = H4Framer(maximumPacketLength: max(3 + 255, 4 + configuration.aclPacketLength))
        let central = configuration.role == .peripheral
        unserved = replay.models.indices.filter { replay.models[$0].connection.hostIsCentral == central }
        bystanders = central ? Self.bystanders(replay) : []
    }

    /// The captured connections the controller can play in its role.
    public var servableConnections: Int {
        replay.models.count { $0.connection.hostIsCentral == (configuration.role == .peripheral) }
    }

    /// Every captured connection was served and has ended.
    public var isFinished: Bool { unserved.isEmpty && connections.isEmpty && pendingConnection == nil }

    /// LE ACL buffers free for the host now (the host's count, kept honestly: taken by each
    /// ACL packet, given back by Number Of Completed Packets).
    public var freeACLBuffers: Int { configuration.aclPackets - inFlight }

    /// Handles of the connections open now.
    public var connectedHandles: [UInt16] { connections.keys.sorted() }

    /// When the next timed event falls due (µs since start), nil when nothing is scheduled.
    public var nextDeadline: Int64? { timers.nextTime }

    // MARK: input

    /// Bytes from the host, as the transport delivered them (any cut).
    public func receive(_ bytes: UnsafeRawBufferPointer) {
        framer.feed(bytes) { item in
            switch item {
            case .packet(let type, let body): packet(type: type, body)
            case .dropped(let why): reject(why)
            }
        }
    }

    public func receive(_ bytes: [UInt8]) { bytes.withUnsafeBytes { receive($0) } }

    func reject(_ why: String) {
        rejectedInput += 1
        log("host input: \(why)")
    }

    private func packet(type: UInt8, _ body: ByteView) {
        if let tap { tap([type] + body.toArray(), true) }
        switch type {
        case H4PacketType.command:
            guard let c = HCICommandPacket(body), !c.lengthMismatch else {
                // Without a whole header there is no opcode to answer; a short parameter list
                // gets Invalid HCI Command Parameters below.
                return reject("truncated HCI command (\(body.count) octets)")
            }
            command(c)
        case H4PacketType.acl:
            guard let acl = HCIACLPacket(body) else { return reject("truncated ACL header") }
            aclData(acl)
        default:
            reject("H4 packet type \(type) (SCO/ISO) on an LE-only controller: dropped")
        }
    }

    // MARK: time

    /// Runs everything due at or before `time` (µs since start), in order.
    public func advance(to time: Int64) {
        // Bounded: every event runs once; an event schedules a bounded number of others.
        var budget = 1_000_000
        while budget > 0, let t = timers.nextTime, t <= time {
            budget -= 1
            now = max(now, t)
            guard let action = timers.pop()?.payload else { break }
            // Measured before the action runs, after the ones before it in a burst have been
            // sent: what the host sees as late is what is counted.
            if let clock, action.isExchange { pace.record(latenessMicros: clock() - t) }
            run(action)
        }
        now = max(now, time)
    }

    /// A captured interval of `d` µs as this run plays it.
    func delay(_ d: Int64) -> Int64 {
        switch configuration.speed {
        case .realtime: max(0, d)
        case .max: 0
        case .factor(let f): f > 0 && f.isFinite ? Int64((Double(max(0, d)) / f).rounded()) : max(0, d)
        }
    }

    func schedule(after d: Int64, _ action: TimerAction) { timers.schedule(at: now &+ max(0, d), action) }

    func send(_ packet: [UInt8]) {
        output(packet)
        tap?(packet, false)
    }

    /// LE Meta events go out only when both masks let them (Vol 4 Part E 7.3.1, 7.8.1).
    func leEventEnabled(_ subevent: UInt8) -> Bool {
        eventMask & (1 << 61) != 0 && subevent >= 1 && subevent <= 64 && leEventMask & (1 << UInt64(subevent - 1)) != 0
    }

    func run(_ action: TimerAction) {
        switch action {
        case .packet(let p, let connection):
            if let id = connection, !connections.values.contains(where: { $0.id == id }) { return }
            send(p)
        case .advertise: advertise()
        case .establish: establish()
        case .completedPackets: flushCompletedPackets()
        case .attResponse(let id, let bytes, let request): deliverResponse(id, bytes, request: request)
        case .stream(let id, let index): deliverStream(id, index)
        case .peerClientStep(let id): playPeerClientStep(id)
        case .peerEnd(let id): peerEnds(id)
        case .silence(let id): silence(id)
        case .linkTimeout(let id): linkTimeout(id)
        case .encryption(let id, let outcome): encryptionDone(id, outcome)
        case .centralPairing(let id): startCentralPairing(id)
        case .centralEncryption(let id): startCentralEncryption(id)
        case .securityRequest(let id): sendSecurityRequest(id)
        }
    }
}

/// What a timer does when it falls due.
enum TimerAction {
    /// Send a prepared packet (dropped if it belongs to a connection that has ended).
    case packet([UInt8], connection: Int?)
    case advertise
    case establish
    case completedPackets
    case attResponse(connection: Int, bytes: [UInt8], request: [UInt8])
    case stream(connection: Int, index: Int)
    case peerClientStep(connection: Int)
    case peerEnd(connection: Int)
    case silence(connection: Int)
    case linkTimeout(connection: Int)
    case encryption(connection: Int, outcome: EncryptionOutcome)
    case centralPairing(connection: Int)
    case centralEncryption(connection: Int)
    /// Role peripheral over a real radio: the captured peripheral's Security Request.
    case securityRequest(connection: Int)

    /// A step of the exchange with its own time (the advertising clock's ticks are not: they
    /// pace reports, which are not part of the captured exchange).
    var isExchange: Bool {
        if case .advertise = self { false } else { true }
    }
}

/// The controller's timers: the virtual air's queue (BLEAir) on (time, scheduling order), so
/// events due at one µs run in the order they were scheduled.
typealias TimerQueue = TimedQueue<TimerAction>
