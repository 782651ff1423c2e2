import BLEAir
import BLEPackets
import BLESpool
import BLETimeline

/// One ATT PDU of a replayed connection.
public struct ReplayedPDU: Sendable, Equatable {
    /// µs after the connection started, on the replay's clock (`ReplayClock`).
    public var offset: Int64
    public var sentByHost: Bool
    public var bytes: [UInt8]
    /// Index of the captured PDU this one replays (a script step, the response to one, or a
    /// stream item).
    public var capturedIndex: Int?
}

/// What happened to a connection in the replay.
public struct ReplayedConnection: Sendable {
    public var number: Int
    public var pdus: ReplayedPDUs
    /// How the replayed link ended: µs after its start, HCI reason, side. Nil: it was open
    /// when the script ran out (as in the capture).
    public var end: (offset: Int64, reason: UInt8, side: DisconnectionSide)?
    /// The adapter was powered off at this offset (`ReplayFaults.powerOffAtMicros`).
    public var poweredOffAt: Int64?
    /// The link went silent at this offset (`ReplayFaults.dropLinkAtMicros`).
    public var silentFrom: Int64?
    /// Notifications and indications the fault injection dropped.
    public var droppedNotifications: Int = 0
    /// Script steps that never went out (the link ended, or their anchor never came).
    public var unsentSteps: Int = 0
}

/// Runs a connection's client script against its server models on a virtual clock.
///
/// A discrete-event loop: each client step goes out its captured delay after its anchor
/// (the previous step, or the response it waited for), one outstanding request per bearer
/// (Core 5.4 Vol 3 Part F 3.3.2); the server answers on arrival and its response arrives after
/// the captured latency; notifications go out at their captured offset from the CCCD write
/// that enabled them. Events on the same µs keep the capture's order, so an unchanged replay
/// at `.realtime` reproduces the captured exchange PDU for PDU and µs for µs.
///
/// Every delay goes through `clock`: an event captured `d` after its anchor comes the replayed
/// length of that captured interval (`ReplayClock.interval(from:length:)`) after the anchor
/// happened in the replay. Unchanged, at any speed, the replay is therefore the captured
/// exchange with every time put through the clock.
public struct ReplayEngine {
    public let model: ReplayConnectionModel
    public let faults: ReplayFaults
    public let clock: ReplayClock
    public var speed: ReplaySpeed { clock.speed }

    /// Replays `model` on a clock of its own connection (`CaptureReplay.run` shares one clock
    /// over the session).
    public init(model: ReplayConnectionModel, faults: ReplayFaults = .none, speed: ReplaySpeed = .realtime) {
        self.init(
            model: model, faults: faults,
            clock: ReplayClock(
                speed: speed, connections: [model.connection], origin: model.connection.summary.startTime))
    }

    public init(model: ReplayConnectionModel, faults: ReplayFaults, clock: ReplayClock) {
        self.model = model
        self.faults = faults
        self.clock = clock
    }

    private enum Action {
        case step(Int)
        case response(step: Int, bytes: [UInt8])
        /// Stream item `item`; `position` its place in its anchor's group when the group is
        /// scheduled one item at a time (`StreamGroup`), else nil.
        case stream(item: Int, position: Int?)
        case linkEnd
        /// The drop-link fault, captured this many µs after connection start.
        case silence(captured: Int64)
        case supervisionTimeout
        case powerOff
    }

    /// The stream items that share an anchor (the connection's start: key -1; a CCCD write:
    /// its step), in capture order, and when the anchor happened in the replay.
    private struct StreamGroup {
        /// Indices into the model's stream (spilled with it: one group can hold every item).
        var items = SpooledArray<Int>()
        /// Their captured offsets never decrease, so neither do their replayed times (the
        /// clock never decreases) and each comes out after the one before it: the group is
        /// scheduled one item at a time, the next when one comes out, instead of all at once.
        /// The queue then holds one event per group, not one per notification (1 M
        /// notifications on one subscription: ~40 MB of events otherwise). Same events, same
        /// order: an item's time is max(its time, the previous one's) either way.
        var isOrdered = true
        /// The anchor's time in the replay and its captured offset (subscriptions).
        var anchor: (replayed: Int64, captured: Int64)?
    }

    /// When each script step went out, or its response arrived, in the replay (nil: not yet),
    /// spilled like the script: as two `[Int64?]` (16 bytes a step each) they held 32 MB over
    /// the replay of a connection of 1 M requests. Steps go out in order and their responses
    /// come about in order, so the times are appended, rarely set behind the last.
    private struct StepTimes {
        private var times = SpooledArray<Int64?>()

        subscript(n: Int) -> Int64? {
            get { n < times.count ? times[n] : nil }
            set {
                while times.count <= n { times.append(nil) }
                times.update(n) { $0 = newValue }
            }
        }
    }

    public func run() -> ReplayedConnection {
        var loop = Loop(engine: self)
        return loop.run()
    }

    /// Runs the replay comparing each replayed PDU with the captured exchange as it goes out
    /// and keeping none of them: the connection comes back without `pdus`, with the fidelity
    /// `ReplayFidelity(connection:replayed:clock:)` would have given. Memory then does not grow
    /// with the replayed exchange (`CaptureReplay.streamed`).
    /// With `export`, each replayed PDU also goes to the export as it goes out, framed as
    /// `ReplayConnectionExport` frames it.
    func runComparing(export: ReplayExport? = nil) -> (ReplayedConnection, ReplayFidelity) {
        var loop = Loop(engine: self)
        loop.comparison = ReplayFidelityAccumulator(connection: model.connection, clock: clock)
        loop.export = export.map { ReplayConnectionExport(model.connection, clock: clock, into: $0) }
        let replayed = loop.run()
        loop.export?.finish(replayed)
        return (
            replayed,
            loop.comparison?.fidelity ?? ReplayFidelity(connection: model.connection, replayed: replayed, clock: clock)
        )
    }

    private struct Loop {
        let engine: ReplayEngine
        /// The engine's model, held here rather than read through `engine` at every use (each
        /// read would copy it, with its many references).
        let model: ReplayConnectionModel
        /// The model's script and captured exchange, read through cursors (`CapturedATTPDUs.Cursor`).
        var script: ReplayScript.Cursor
        var exchange: CapturedATTPDUs.Cursor
        var now: Int64 = 0
        var queue = TimedQueue<Action>()
        var sequence = 0
        var out: ReplayedConnection
        /// Set: replayed PDUs are compared as they go out and not kept (`runComparing`).
        var comparison: ReplayFidelityAccumulator?
        /// Set: replayed PDUs are exported as they go out (`runComparing(export:)`).
        var export: ReplayConnectionExport?
        var servers: [ReplayATTServer]
        var sentAt = StepTimes()
        var answeredAt = StepTimes()
        var sentSteps = 0
        /// When each indication arrived (what a confirmation's step counts from).
        var serverPDUAt: [Int: Int64] = [:]
        /// The connection's ATT bearer: ATT_MTU, and each client's outstanding request (its
        /// tag the script step) (0: host client, 1: peer client, as `ATTClientSide`).
        var bearer = ATTBearerState()
        /// A step waiting for its client's outstanding request, per client.
        var blocked: [Int?] = [nil, nil]
        var nextStep = 0
        var stepScheduled = false
        var linkEndScheduled = false
        var silent = false
        var over = false
        let drops: ReplayFaults.StreamDrops
        var streamGroups: [Int: StreamGroup] = [:]

        /// The connection's start on the capture's clock and on the replay's.
        let capturedStart: Int64
        let replayedStart: Int64

        init(engine: ReplayEngine) {
            self.engine = engine
            let m = engine.model
            model = m
            script = ReplayScript.Cursor(m.steps)
            exchange = CapturedATTPDUs.Cursor(m.connection.att)
            capturedStart = m.connection.summary.startTime
            replayedStart = engine.clock.time(capturedStart)
            out = ReplayedConnection(number: m.number, pdus: [])
            servers = [
                ReplayATTServer(model: m.peerServer, faults: engine.faults),
                ReplayATTServer(model: m.hostServer, faults: engine.faults),
            ]
            drops = engine.faults.streamDrops(of: m)
            // Each group's last offset, to tell whether its offsets ever decrease.
            var lastOffset: [Int: Int64] = [:]
            for i in m.stream.indices {
                let item = m.stream.record(at: i)
                let key = item.anchor
                if let last = lastOffset[key], last > item.offset { streamGroups[key]?.isOrdered = false }
                lastOffset[key] = item.offset
                streamGroups[key, default: StreamGroup()].items.append(i)
            }
        }

        mutating func schedule(_ time: Int64, order: Int, _ action: Action) {
            sequence += 1
            // Order within a µs: the captured index first, then scheduling order.
            queue.schedule(at: max(now, time), order: order &* 1_000_000 &+ sequence % 1_000_000, action)
        }

        /// `model.capturedOffset(ofPDU:)` and `model.capturedOffset(of:)` through the cursors.
        mutating func capturedOffset(ofPDU i: Int) -> Int64 { exchange.time(at: i) &- capturedStart }

        mutating func capturedOffset(of anchor: ReplayStep.Anchor) -> Int64 {
            switch anchor {
            case .connectionStart: return 0
            case .sent(let n): return capturedOffset(ofPDU: script.record(at: n).capturedIndex)
            case .answered(let n):
                let r = script.record(at: n)
                return capturedOffset(ofPDU: r.responseIndex ?? r.capturedIndex)
            case .serverPDU(let i): return capturedOffset(ofPDU: i)
            }
        }

        /// Where `captured` µs after the connection's start lands in the replay (µs after its start).
        func replayed(_ captured: Int64) -> Int64 {
            engine.clock.time(capturedStart &+ captured) &- replayedStart
        }

        /// When something captured `delay` µs after an anchor captured at `anchor` (µs after
        /// connection start) happens, the anchor having happened at `anchorTime` in the replay.
        /// `mutating`, as `anchorTime(_:)`, though neither changes anything: called from
        /// `trySchedule` as non-mutating methods, they had the loop (bearer state and all) copied
        /// for their `self` on every call (docs/performance.md, "One ATT bearer state").
        mutating func after(_ anchorTime: Int64, captured anchor: Int64, delay: Int64) -> Int64 {
            anchorTime &+ engine.clock.interval(from: capturedStart &+ anchor, length: delay)
        }

        mutating func run() -> ReplayedConnection {
            // Fault times are captured times too: at any speed they cut at the same point of the exchange.
            if let t = engine.faults.dropLinkAtMicros { schedule(replayed(t), order: -2, .silence(captured: t)) }
            if let t = engine.faults.powerOffAtMicros { schedule(replayed(t), order: -3, .powerOff) }
            startStreamGroup(-1)
            trySchedule()
            // Every event is a step, a response to one, a stream item or an end: bounded.
            var budget = 4 * (model.steps.count + model.stream.count) + 16
            while !over, budget > 0, let e = queue.pop() {
                budget -= 1
                now = e.time
                handle(e.payload)
            }
            out.unsentSteps = model.steps.count - sentSteps
            return out
        }

        /// Schedules a group's items: the first only when they come in order (the rest follow
        /// it one by one), else all of them.
        mutating func startStreamGroup(_ key: Int) {
            guard let g = streamGroups[key] else { return }
            if g.isOrdered {
                scheduleStreamItem(group: g, 0)
            } else {
                for p in 0..<g.items.count { scheduleStreamItem(group: g, p, followed: false) }
            }
        }

        /// Schedules the item at `position` of `group`, if there is one.
        mutating func scheduleStreamItem(group: StreamGroup, _ position: Int, followed: Bool = true) {
            guard position < group.items.count else { return }
            let i = group.items[position]
            let item = model.stream.record(at: i)
            let time: Int64
            if let a = group.anchor {
                time = after(a.replayed, captured: a.captured, delay: item.offset)
            } else {
                time = replayed(item.offset)
            }
            schedule(time, order: item.capturedIndex, .stream(item: i, position: followed ? position : nil))
        }

        /// A replayed PDU goes out: kept, or compared and forgotten.
        mutating func emit(_ pdu: ReplayedPDU) {
            if comparison == nil { out.pdus.append(pdu) } else { comparison?.add(pdu) }
            export?.add(pdu)
        }

        mutating func anchorTime(_ a: ReplayStep.Anchor) -> Int64? {
            switch a {
            case .connectionStart: 0
            case .sent(let n): sentAt[n]
            case .answered(let n): answeredAt[n]
            case .serverPDU(let i): serverPDUAt[i]
            }
        }

        /// Schedules the next client step once its anchor has happened (steps go out in order).
        mutating func trySchedule() {
            if !stepScheduled, nextStep < model.steps.count {
                let s = script.record(at: nextStep)
                if let t = anchorTime(s.anchor) {
                    stepScheduled = true
                    // The anchor's offset first: read through the cursors (mutating) within the
                    // arguments of `after`, it made each call copy the loop.
                    let anchor = capturedOffset(of: s.anchor)
                    let due = after(t, captured: anchor, delay: s.delay)
                    schedule(due, order: s.capturedIndex, .step(nextStep))
                }
            }
            if !linkEndScheduled, nextStep >= model.steps.count, let end = model.linkEnd, let t = anchorTime(end.anchor)
            {
                linkEndScheduled = true
                let anchor = capturedOffset(of: end.anchor)
                let due = after(t, captured: anchor, delay: end.delay)
                schedule(due, order: Int.max / 2_000_000, .linkEnd)
            }
        }

        mutating func handle(_ action: Action) {
            switch action {
            case .step(let n): send(n)
            case .response(let n, let bytes):
                guard !silent else { return }
                let s = script.record(at: n)
                emit(
                    ReplayedPDU(
                        offset: now, sentByHost: !s.hostIsClient, bytes: bytes,
                        capturedIndex: s.responseIndex))
                answeredAt[n] = now
                let dir = s.hostIsClient ? 0 : 1
                // An Exchange MTU ends here: its ATT_MTU holds for the bearer, both directions.
                if ATTOpcode(s.opcode) == .exchangeMTURequest {
                    let request = Array(exchange.bytes(at: s.capturedIndex))
                    var b = bearer
                    request.withByteView { q in
                        bytes.withByteView { _ = b.exchangeCompleted(request: ATTPDU(q), response: ATTPDU($0)) }
                    }
                    bearer = b
                }
                bearer.responseReceived(by: s.hostIsClient ? .host : .peer)
                if let b = blocked[dir] {
                    blocked[dir] = nil
                    send(b)
                }
                trySchedule()
            case .stream(let i, let position):
                // The next of an ordered group comes out after this one: schedule it now.
                let item = model.stream.record(at: i)
                if let position, let g = streamGroups[item.anchor] {
                    scheduleStreamItem(group: g, position + 1)
                }
                guard !silent else { return }
                if drops.drops(i) {
                    out.droppedNotifications += 1
                    return
                }
                bearer.adoptEvidence(servers[item.hostIsClient ? 0 : 1].evidencedMTU(at: item.capturedIndex))
                let mtu = Int(bearer.mtu)
                // A server sends at most ATT_MTU − 3 octets of value (Vol 3 Part F 3.4.7.1).
                let captured = Array(model.stream.bytes(ofItem: i))
                let bytes =
                    captured.first == ATTOpcode.multipleHandleValueNotification.rawValue || captured.count <= mtu
                    ? captured
                    : Array(captured.prefix(mtu))
                emit(
                    ReplayedPDU(
                        offset: now, sentByHost: !item.hostIsClient, bytes: bytes,
                        capturedIndex: item.capturedIndex))
                // Only an indication anchors a step (its confirmation): notifications are not kept.
                if captured.first == ATTOpcode.handleValueIndication.rawValue {
                    serverPDUAt[item.capturedIndex] = now
                }
                trySchedule()
            case .linkEnd:
                guard let end = model.linkEnd else { return }
                out.end = (now, end.reason, end.side)
                over = true
            case .silence(let captured):
                silent = true
                out.silentFrom = now
                let timeout = model.connection.supervisionTimeoutMicros
                let due = after(now, captured: captured, delay: timeout)
                schedule(due, order: -1, .supervisionTimeout)
            case .supervisionTimeout:
                // Connection Timeout (Vol 1 Part F 2.9): nobody ended it, the link was lost.
                out.end = (now, HCIError.connectionTimeout, .linkLoss)
                over = true
            case .powerOff:
                out.poweredOffAt = now
                over = true
            }
        }

        mutating func send(_ n: Int) {
            let s = script.record(at: n)
            let dir = s.hostIsClient ? 0 : 1
            let client: ATTClientSide = s.hostIsClient ? .host : .peer
            if s.isRequest, let o = bearer.outstanding(client)?.tag,
                let answeredAt = script.record(at: o).responseIndex,
                answeredAt < s.capturedIndex
            {
                // One outstanding request per bearer: it goes out when the answer arrives (no
                // later step overtakes it). A client that did not wait in the capture (its
                // request was never answered) does not wait here either.
                blocked[dir] = n
                return
            }
            nextStep = n + 1
            stepScheduled = false
            if sentAt[n] == nil { sentSteps += 1 }
            sentAt[n] = now
            let bytes = Array(exchange.bytes(at: s.capturedIndex))
            // A peer's request on a silent link never reaches this host's log.
            if !(silent && !s.hostIsClient) {
                emit(
                    ReplayedPDU(
                        offset: now, sentByHost: s.hostIsClient, bytes: bytes,
                        capturedIndex: s.capturedIndex))
            }
            if s.isRequest { bearer.requestSent(ATTOpcode(s.opcode), by: client, at: now, tag: n) }
            bearer.adoptEvidence(servers[dir].evidencedMTU(at: s.responseIndex ?? s.capturedIndex))
            if !silent, let response = servers[dir].answer(bytes, mtu: bearer.mtu), let latency = s.latency {
                // The injected delay lengthens the captured latency, on the same clock.
                let sentAt = capturedOffset(ofPDU: s.capturedIndex)
                let due = after(now, captured: sentAt, delay: latency &+ engine.faults.responseDelayMicros)
                schedule(due, order: s.responseIndex ?? s.capturedIndex, .response(step: n, bytes: response))
                // An accepted CCCD write starts the notifications it enabled.
                if response == ATTWriteResponse().encoded() {
                    streamGroups[n]?.anchor = (now, sentAt)
                    startStreamGroup(n)
                }
            }
            trySchedule()
        }
    }
}
