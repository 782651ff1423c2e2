import BLEBytes
import BLEPackets
import CaptureIO

/// Builds a capture's timeline in the same streaming pass that decodes it: feed every
/// `DecodedFrame` in order, and events come out through `emit` as soon as they and everything
/// before them are final (a request is final when answered, timed out or orphaned).
///
/// State is bounded: open connections (at most `maximumOpenConnections`), one outstanding
/// request and one indication per direction per connection, the GATT databases of recent
/// peers (at most `maximumRememberedPeers`), and the event queue (`EventQueue.capacity`).
public final class TimelineBuilder {
    public static let maximumOpenConnections = 64
    public static let maximumRememberedPeers = 256
    /// ATT transaction timeout (Core 5.4 Vol 3 Part F 3.3.3).
    public static let attTimeout: Int64 = 30_000_000
    /// How long an HCI command waits for Command Complete/Status before it is reported
    /// unanswered (BlueZ's HCI_CMD_TIMEOUT is 2 s).
    public static let hciCommandTimeout: Int64 = 2_000_000

    let emit: (TimelineEvent) -> Void
    /// Called when a connection ends (or at `finish()` for those still open).
    let connectionEnded: (ConnectionSummary) -> Void
    /// Sees every reassembled ATT PDU with the connection it belongs to, before the builder
    /// interprets it (capture replay keeps the exchange byte for byte). The PDU's bytes are
    /// valid only during the call.
    /// Unchecked: read for every ATT PDU (a checked read of a class's `var` was a
    /// `swift_beginAccess` call per PDU, 2 % of `blecap info`); it is set before the first
    /// frame is fed, and the observer cannot reach the builder (see `hot`).
    @exclusivity(unchecked) public var attObserver: ((ATTObservation) -> Void)?

    /// The state every record touches, in one place so that the one exclusivity exemption
    /// below covers it and states its reason once.
    ///
    /// Unchecked: each checked access to a class's stored `var` is a `swift_beginAccess` call
    /// (a thread-local lookup and an access-set update), ~9 per notification and 9 % of `blecap
    /// lint`'s instructions on the bench capture when these were checked. The checks cannot
    /// fire: a builder and its connections are confined to the thread that feeds it, and the
    /// only access that spans a call out of the builder is `queue`'s during `drain`/`flush`,
    /// whose `emit` (and `connectionEnded`) must not call back into the builder — none does
    /// (the CLI commands, CaptureLinter, LiveLinter, BLEReplay's CapturedSession only read what
    /// they are given). The same holds for `ConnectionState`'s hot fields.
    @exclusivity(unchecked) var hot = HotState()
    struct HotState {
        var queue = EventQueue()
        var open: [ConnectionKey: ConnectionState] = [:]
        /// The connection the last lookup found: a capture's ACL comes in long runs on one handle,
        /// and hashing the key for every packet was 6 % of `blecap info`. Cleared whenever `open`
        /// loses or replaces an entry (`setOpen`), so it is always one of `open`'s values.
        ///
        /// Unretained: `open` owns every connection, this only names one of them. Held strongly,
        /// each packet retained it on the way out of the lookup and released it after (a retain
        /// and a `swift_release_n` per frame; docs/performance.md); `l2cap(_:_:)`
        /// now lends it to the packet's handling without either (`_withUnsafeGuaranteedRef`). Sound
        /// because nothing can drop it from `open` while it is lent: `open` loses entries only in
        /// `setOpen`, called from HCI and link-layer connection events, `finish()` and the creating
        /// lookup, never from L2CAP/ATT/SMP handling, and `emit`/`attObserver` do not call back.
        var lastLookedUp: Unmanaged<ConnectionState>?
        /// Controllers this capture saw an HCI Reset sent to. A Reset forgets every connection
        /// (Core 5.4 Vol 4 Part E 7.3.2), so from then on a handle carries a connection only after
        /// its Connection Complete: traffic on any other handle (vendor debug channels such as
        /// 0x0EDC, which some Android controllers report as ACL) is not a link.
        var resetControllers: Set<UInt16> = []
        var lastTime: Int64 = .min
        /// The last record while a power-on sequence is open (to close it at `finish()`).
        var lastRecordForFinish: CaptureRecord?
        /// Frame and time of the last event queued (events must stay in frame order).
        var lastAdded: (frame: Int, time: Int64) = (0, 0)
        /// The power-on sequence in progress since the last HCI Reset.
        var initState: InitState?
        /// Over the air (TimelineBuilder+LinkLayer): no open link can have been silent past its
        /// supervision timeout at a record up to this time, and the last data PDU's connection.
        var linkSilenceDeadline: Int64 = .min
        var lastLinkConnection: ConnectionState?
        /// No CONNECT_IND still waiting for its answer (`LinkLayerConnectionState.attempt`) can be
        /// decided at a record up to this time.
        var attemptDeadline: Int64 = .max
        /// The last link-layer record's frame, time and controller: where the links still silent at
        /// the end of the capture are reported lost (three words, not a record copy per packet).
        var lastLinkRecord: (frame: Int, time: Int64, controller: UInt16)?
        /// The frame being fed carries an L2CAP PDU the capture cut (`L2CAPPDU.isTruncated`).
        var truncatedPDU = false
    }
    struct ConnectionKey: Hashable {
        var controller: UInt16
        var handle: UInt16
    }
    var connectionCount = 0
    /// Remote databases by peer (and identity) address, for carry-over to later connections.
    var rememberedDatabases: [BDAddr: (database: GATTDatabase, connection: Int)] = [:]
    /// This host's own server database per controller, as peers discovered it.
    var localDatabases: [UInt16: (database: GATTDatabase, connection: Int)] = [:]

    struct PendingCommand {
        var controller: UInt16
        var opcode: UInt16
        var sequence: Int
        /// The command's frame: one command may stand for several events (an extended
        /// advertising enable, one per set), all answered by its Command Complete.
        var frame = 0
    }
    /// HCI commands waiting for Command Complete/Status (bounded: one per tracked opcode).
    var pendingCommands: [PendingCommand] = []
    /// Last scan parameters the host set, per the most recent reset.
    var scanParameters: ScanParameters?
    /// The controller's LE ACL buffer count (LE Read Buffer Size), for buffer stalls.
    var leACLBuffers: Int?
    struct PendingManagement {
        var cookie: UInt32
        var opcode: UInt16
        var sequence: Int
    }
    /// BlueZ management commands waiting for their Command Complete/Status (bounded).
    var pendingManagement: [PendingManagement] = []
    /// Android's offloaded scan filters (APCF) as the controller confirmed them, the APCF
    /// commands not yet answered (bounded), and whether the capture shows any APCF traffic.
    var scanFilters = ScanFilterTable()
    /// The tables `scan.filters` events name: readers of the events look them up here.
    public let scanFilterTables: ScanFilterTables
    var pendingAPCF: [PendingAPCF] = []
    var apcfSeen = false
    /// APCF set-up bursts (`ScanFilterEntry.group`): the current burst's number, the frame
    /// and time of the last APCF command, and whether the last HCI command was one.
    var apcfGroup = 0
    var lastAPCFTime: Int64 = 0
    var lastCommandWasAPCF = false
    /// Each controller's Filter Accept List and its commands not yet answered
    /// (TimelineBuilder+AcceptList).
    var acceptLists: [UInt16: AcceptListState] = [:]
    /// The link an LL_TERMINATE_IND ended last, until its supervision timeout has passed: the
    /// PDUs that acknowledge the terminate are the old link's tail, not a new connection.
    var terminatedLink: (handle: UInt16, time: Int64, grace: Int64)?
    /// Whether the host last enabled scanning (LE Set [Extended] Scan Enable).
    var scanning = false
    /// The host's own advertising per controller, as its commands set it
    /// (TimelineBuilder+Advertising).
    var advertising: [UInt16: AdvertisingState] = [:]

    public init(
        emit: @escaping (TimelineEvent) -> Void,
        connectionEnded: @escaping (ConnectionSummary) -> Void = { _ in },
        scanFilterTables: ScanFilterTables = ScanFilterTables()
    ) {
        self.emit = emit
        self.scanFilterTables = scanFilterTables
        self.connectionEnded = connectionEnded
        pendingCommands.reserveCapacity(8)
    }

    /// Feeds the next frame (in capture order).
    public func feed(_ frame: DecodedFrame) {
        let r = frame.record
        hot.lastTime = r.timestamp
        if hot.initState != nil { hot.lastRecordForFinish = r }
        // An ACL frame's PDU taken from `l2cap`, without switching on the layer: an ACL
        // record's layer is `.acl` or `.malformed`, which adds nothing here.
        if r.kind == .aclData {
            if r.direction == .sent, let buffers = leACLBuffers, case .acl(let a) = frame.layer {
                aclSent(a.handle, buffers, r)
            }
            if let pdu = frame.l2cap {
                hot.truncatedPDU = pdu.isTruncated
                l2cap(pdu, r)
                hot.truncatedPDU = false
            }
            hot.queue.drain(now: r.timestamp, emit)
            return
        }
        switch frame.layer {
        case .command(let c): hciCommand(c, r)
        case .event(let e): hciEvent(e, r)
        case .linkLayer(let ll): linkLayer(ll, frame)
        case .other: metadata(r)
        case .acl, .malformed: break
        }
        hot.queue.drain(now: r.timestamp, emit)
    }

    /// Ends the capture: requests still outstanding are reported as such, hot.open connections
    /// are summarised.
    public func finish() {
        if let r = hot.lastRecordForFinish { endInit(r) }
        finishLinkLayer()
        hot.queue.flush(.endOfCapture, emit)
        for c in hot.open.values.sorted(by: { $0.number < $1.number }) { connectionEnded(c.summary) }
        hot.lastLookedUp = nil
        hot.open.removeAll()
    }

    // MARK: helpers

    /// Queues an event. Taken by value and moved into the queue: the builder makes each event
    /// once and copies it never.
    @discardableResult
    func add(_ e: consuming TimelineEvent, pendingUntil deadline: Int64? = nil) -> Int {
        if deadline != nil { e.outcome = .pending }
        if e.frame >= hot.lastAdded.frame { hot.lastAdded = (e.frame, e.time) }
        return hot.queue.append(e, deadline: deadline ?? .max)
    }

    /// Hands a final event (one nothing will update: no outcome to wait for) straight to
    /// `emit` when the hot.queue holds nothing before it, instead of queueing it and draining it
    /// at the end of the frame: the same order, without moving the ~250-byte event into the
    /// hot.queue and copying it out again (a notification's event went through three copies,
    /// ~15 % of `blecap info`). Only for events after which the frame makes no other callback
    /// (`connectionEnded`): a queued event is emitted after those, a direct one before.
    func addFinal(_ e: consuming TimelineEvent) {
        guard hot.queue.isEmpty else {
            add(e)
            return
        }
        if e.frame >= hot.lastAdded.frame { hot.lastAdded = (e.frame, e.time) }
        hot.queue.skipEmitted()
        emit(e)
    }

    /// `kind` is consumed, so it is moved into the event, not copied (while a kind held a
    /// reference, a borrowed one was copied through its value witness; docs/performance.md).
    func event(_ r: CaptureRecord, _ c: ConnectionState?, _ kind: consuming TimelineEvent.Kind) -> TimelineEvent {
        var e = TimelineEvent(
            frame: r.frame, time: r.timestamp, connection: c?.number, peer: c?.peer,
            peerAddressType: c?.peerAddressType, kind: kind)
        e.valueTruncated = hot.truncatedPDU
        return e
    }

    /// The hot.open connection on `handle`, created as an unknown-start connection when none is
    /// known (the capture began after it was made). Nil when `create` is false, when the
    /// controller was reset in the capture (a connection made since has its Connection
    /// Complete in the capture, so an unknown handle is no connection) or when too many are hot.open.
    func connection(_ handle: UInt16, _ r: CaptureRecord, create: Bool = true) -> ConnectionState? {
        if let c = cachedConnection(handle, r) { return c.takeUnretainedValue() }
        let key = ConnectionKey(controller: r.controllerIndex, handle: handle)
        if let c = hot.open[key] {
            hot.lastLookedUp = Unmanaged.passUnretained(c)
            return c
        }
        guard create, !hot.resetControllers.contains(r.controllerIndex), hot.open.count < Self.maximumOpenConnections
        else { return nil }
        connectionCount += 1
        let c = ConnectionState(
            number: connectionCount, controllerIndex: r.controllerIndex, handle: handle,
            startFrame: r.frame, startTime: r.timestamp, unknownStart: true)
        adoptLocalDatabase(c)
        setOpen(key, c)
        return c
    }

    /// `lastLookedUp` when it is the connection on `handle`.
    @inline(__always)
    func cachedConnection(_ handle: UInt16, _ r: CaptureRecord) -> Unmanaged<ConnectionState>? {
        guard let c = hot.lastLookedUp,
            c._withUnsafeGuaranteedRef({ $0.handle == handle && $0.controllerIndex == r.controllerIndex })
        else { return nil }
        return c
    }

    /// Every change to `open` goes through here, so `lastLookedUp` never outlives its entry.
    func setOpen(_ key: ConnectionKey, _ c: ConnectionState?) {
        hot.lastLookedUp = nil
        hot.open[key] = c
    }

    func startConnection(
        handle: UInt16, peer: BDAddr?, peerType: UInt8?, role: UInt8?, isLE: Bool,
        _ r: CaptureRecord
    ) -> ConnectionState {
        let key = ConnectionKey(controller: r.controllerIndex, handle: handle)
        // A Connection Complete on a handle still hot.open means its Disconnection Complete is not
        // in the capture: end the old one first.
        if let old = hot.open[key] { close(old, r, outcome: .disconnected(frame: r.frame), endFrame: nil) }
        connectionCount += 1
        let c = ConnectionState(
            number: connectionCount, controllerIndex: r.controllerIndex, handle: handle,
            startFrame: r.frame, startTime: r.timestamp, unknownStart: false)
        c.peer = peer
        c.peerAddressType = peerType
        c.role = role
        c.isLE = isLE
        if let p = peer, let known = rememberedDatabases[p] {
            c.remoteDatabase = known.database
            c.remoteCarriedOverFrom = known.connection
        }
        adoptLocalDatabase(c)
        if hot.open.count >= Self.maximumOpenConnections,
            let oldest = hot.open.values.min(by: { $0.number < $1.number })
        {
            close(oldest, r, outcome: .disconnected(frame: r.frame), endFrame: nil)
        }
        setOpen(key, c)
        return c
    }

    func adoptLocalDatabase(_ c: ConnectionState) {
        if let known = localDatabases[c.controllerIndex] {
            c.localDatabase = known.database
            c.localCarriedOverFrom = known.connection
        }
    }

    /// Ends a connection: its outstanding requests and indications get `outcome`, its
    /// databases are remembered for the peer's next connection.
    func close(_ c: ConnectionState, _ r: CaptureRecord, outcome: Outcome, endFrame: Int?) {
        for s in [
            c.outstanding.0?.sequence, c.outstanding.1?.sequence,
            c.outstandingIndication.0?.sequence, c.outstandingIndication.1?.sequence,
        ] {
            if let s { resolve(s, at: r.timestamp, outcome) }
        }
        if let p = c.parameterRequest { resolve(p.sequence, at: r.timestamp, outcome) }
        // A CONNECT_IND still waiting for its answer, ended as a connection (an LL_TERMINATE_IND,
        // too many links hot.open): its connection.complete stands.
        if let a = c.linkLayer?.attempt {
            c.linkLayer?.attempt = nil
            hot.queue.update(a.sequence) { $0.outcome = .none }
        }
        c.parameterRequest = nil
        c.outstanding = (nil, nil)
        c.outstandingIndication = (nil, nil)
        c.endTime = r.timestamp
        remember(c)
        setOpen(ConnectionKey(controller: c.controllerIndex, handle: c.handle), nil)
        var s = c.summary
        s.endFrame = endFrame
        connectionEnded(s)
    }

    /// Resolves a request still pending when its connection ends. One past its deadline timed
    /// out before the end: `drain` would have said so had any other frame come in between (a
    /// peer's read left unanswered for 30 s, then the Disconnection Complete as the next frame).
    private func resolve(_ sequence: Int, at now: Int64, _ outcome: Outcome) {
        guard hot.queue.isPending(sequence) else { return }
        let overdue = hot.queue.isOverdue(sequence, now: now)
        hot.queue.update(sequence) { $0.outcome = overdue ? .timeout : outcome }
    }

    func remember(_ c: ConnectionState) {
        if !c.remoteDatabase.isEmpty {
            for address in [c.peer, c.identity] {
                guard let address else { continue }
                if rememberedDatabases[address] == nil, rememberedDatabases.count >= Self.maximumRememberedPeers,
                    let victim = rememberedDatabases.min(by: { $0.value.connection < $1.value.connection })?.key
                {
                    rememberedDatabases[victim] = nil
                }
                rememberedDatabases[address] = (c.remoteDatabase, c.number)
            }
        }
        if !c.localDatabase.isEmpty, localDatabases[c.controllerIndex] != nil || localDatabases.count < 16 {
            localDatabases[c.controllerIndex] = (c.localDatabase, c.number)
        }
    }

    // MARK: container metadata

    func metadata(_ r: CaptureRecord) {
        let kind: TimelineEvent.Kind
        switch r.kind {
        case .indexNew: kind = .indexAdded
        case .indexDelete: kind = .indexRemoved
        case .indexOpen: kind = .indexOpened
        case .indexClose: kind = .indexClosed
        case .power: kind = .power
        case .controlCommand, .controlEvent:
            management(r)
            return
        case .note: kind = .annotation(.note)
        case .syslog: kind = .annotation(.syslog)
        case .userLogging: kind = .annotation(.userLogging)
        case .systemNote: kind = .annotation(.systemNote)
        case .kernel, .kernelDebug: kind = .annotation(.kernel)
        case .error: kind = .annotation(.error)
        default: return
        }
        var e = event(r, nil, kind)
        e.value = InlineBytes(r.payload)
        add(e)
    }
}
