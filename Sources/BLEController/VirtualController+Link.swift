import BLEAir
import BLEBytes
import BLEPackets
import BLEReplay
import BLETimeline
import CaptureIO

/// A connection the controller holds with the host.
final class LiveConnection {
    let id: Int
    let handle: UInt16
    /// Index in `replay.models`.
    let model: Int
    let startedAt: Int64
    var interval: UInt16
    var txOctets: UInt16 = 27
    var phy: UInt8 = 1
    var server: ReplayATTServer
    /// The exchange as it crossed the link (µs after the connection started).
    var pdus: [ReplayedPDU] = []
    var truncated = false
    /// Captured steps (client script indices) already matched to a host request, for latencies
    /// and subscriptions.
    var matchedSteps: Set<Int> = []
    /// Captured CCCD writes (script steps) a host subscription has already matched.
    var subscribedSteps: Set<Int> = []
    var droppedNotifications = 0
    /// Stream items sent, and waiting because the host's client has not confirmed an indication
    /// yet (the bearer's `outstandingIndication(to: .host)`, Vol 3 Part F 3.3.2, 3.4.7.2).
    var streamSent: [Bool]
    var heldStream: [Int] = []
    /// The link's ATT bearer: ATT_MTU, the host's and the captured peer's outstanding
    /// requests (µs on the controller's clock; the peer's tagged with its script step), the
    /// indication the host's client has not confirmed (tagged with its stream item), and timed
    /// out (`RadioCentral`'s response timeout at the spec's 30 s).
    var bearer = ATTBearerState()
    /// The peer's client: next script step of the peer (host server).
    var peerStep = 0
    /// The peer's client has a request the host's server has not answered yet.
    var peerRequestOutstanding: Bool { bearer.outstanding(.peer) != nil }
    var peerStepScheduled = false
    /// When the scheduled peer step is due: a timer that fires before it is an old one (the
    /// step was rescheduled when the host's notifications came).
    var peerStepDue: Int64 = 0
    /// The notifications and indications the host's server sent in the capture (their captured
    /// index and µs after the connection's start, in capture order), and when the host sent
    /// them here (as many as the capture shows, no more): the captured peer's steps and its end
    /// of the link wait for the ones captured before them
    /// (`ControllerConfiguration.peerAwaitsHostNotifications`).
    var hostStream: [(index: Int, offset: Int64)] = []
    var hostStreamArrivals: [Int64] = []
    /// Since when the peer has waited for the host's notifications without one coming (nil:
    /// not waiting); once a wait gives up, the peer waits no more on this link.
    var awaitingSince: Int64?
    var awaitGivenUp = false
    /// When the peer's end of the link, waiting for the host's notifications, wakes next.
    var endWakeAt: Int64 = .min
    /// Requests the capture cannot answer as captured (reported).
    var unmodelled: [String] = []
    var endScheduled = false
    /// The captured end fell due while traffic was still owed: it comes once that is out.
    var endDue = false
    /// Requests, commands and confirmations the host sent.
    var hostClientPDUs = 0
    /// The link went silent (a fault): nothing crosses it until it times out.
    var silent = false
    /// The central's and the peripheral's addresses on this link (SMP's ia/iat and ra/rat).
    var initiator: (type: UInt8, address: BDAddr) = (0, BDAddr(rawValue: 0))
    var responder: (type: UInt8, address: BDAddr) = (0, BDAddr(rawValue: 0))
    /// The captured peripheral's pairing on this link (role peripheral), made at the first SMP PDU.
    var responderSMP: SMPResponder?
    /// A real central's link (`RadioHost`): the peripheral pairs as captured, and the real
    /// controller, not this one, encrypts.
    var overRadio = false
    var encrypted = false
    /// Role central: the captured central's pairing with the host (`blecap serve`) or the real
    /// peripheral (over a real radio).
    var initiatorSMP: SMPInitiator?
    /// Role central over a real radio: the captured central's pairing or encryption fell due
    /// while its earlier requests were still being played (it waits for them); since when the
    /// one started has not settled (no Encryption Change, pairing not done or failed), which
    /// the script's requests captured after the encryption wait for.
    var radioSecurityDue = false
    var radioSecurityPending: Int64?
    /// Role central over a real radio: the device sent a Security Request on this link.
    var deviceSentSecurityRequest = false
    /// Role central: the key the host must give in its LTK Request Reply.
    var awaitedLTK: UInt128?

    /// How many of `hostStream`'s first items satisfy `isBefore` (true for a prefix: the
    /// stream is in capture order), by bisection.
    func hostStreamCount(_ isBefore: ((index: Int, offset: Int64)) -> Bool) -> Int {
        var (low, high) = (0, hostStream.count)
        while low < high {
            let mid = (low + high) / 2
            if isBefore(hostStream[mid]) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    init(id: Int, handle: UInt16, model: Int, modelValue: ReplayConnectionModel, faults: ReplayFaults, now: Int64) {
        self.id = id
        self.handle = handle
        self.model = model
        startedAt = now
        interval = modelValue.connection.timing?.interval ?? 24
        server = ReplayATTServer(model: modelValue.peerServer, faults: faults)
        streamSent = Array(repeating: false, count: modelValue.stream.count)
    }
}

/// What became of one served connection: the captured connection it played and the exchange
/// the host had with it.
public struct ServedConnection: Sendable {
    /// Index in `CaptureReplay.models`.
    public var model: Int
    public var handle: UInt16
    /// µs after the controller started.
    public var startedAt: Int64
    public var replayed: ReplayedConnection
    /// Requests the host made that the capture never showed, answered from the inferred
    /// table or with an error.
    public var unmodelled: [String]
    /// The connection's ATT bearer as the connection ended (or stands): its ATT_MTU, what was
    /// still outstanding, whether a transaction timed out. Package access: BLEAir is no product,
    /// so its types stay out of BLEController's public API.
    package var bearer = ATTBearerState()
}

extension VirtualController {
    // MARK: scanning

    /// The advertisers on the air: the peers of captured connections not yet served and not
    /// connected now, each once, with the advertisement that preceded its connection (always
    /// connectable: the capture connected to it), then the capture's other advertisers
    /// (`bystanders`) with their captured event types.
    func advertisers() -> [AirAdvertiser] {
        var seen: Set<BDAddr> = []
        var out: [AirAdvertiser] = []
        let connected = Set(connections.values.compactMap { replay.models[$0.model].peer })
        for i in unserved {
            let c = replay.models[i].connection
            guard let a = c.summary.peer, !connected.contains(a), seen.insert(a).inserted else { continue }
            var kind = c.advertisement.map(AdvertisingKind.init(captured:)) ?? .advInd
            if !kind.connectable {
                // Its last captured report before the connection was not connectable, but it
                // took a connection: it advertised connectably too.
                kind.connectable = true
                kind.directed = false
            }
            out.append(
                AirAdvertiser(
                    model: i, address: a, addressType: c.summary.peerAddressType ?? 0, advertisement: c.advertisement,
                    kind: kind))
        }
        return out + bystanders
    }

    /// The capture's advertisers the captured host never connected to, as captured. Directed
    /// ones are left out: they addressed another device, and a scanner ignores a directed PDU
    /// that is not for it (Vol 6 Part B 4.4.3.2).
    static func bystanders(_ replay: CaptureReplay) -> [AirAdvertiser] {
        let peers = Set(replay.models.compactMap(\.connection.summary.peer))
        return replay.session.advertisers.compactMap { a in
            let kind = AdvertisingKind(captured: a.advertisement)
            guard !peers.contains(a.address), !kind.directed else { return nil }
            return AirAdvertiser(
                model: nil, address: a.address, addressType: a.addressType, advertisement: a.advertisement, kind: kind)
        }
    }

    func setScan(enabled: Bool, filterDuplicates: Bool, extended: Bool) {
        scan.enabled = enabled
        scan.extended = extended
        scan.filterDuplicates = filterDuplicates
        scan.reported = []
        if enabled, !scan.scheduled {
            scan.scheduled = true
            schedule(after: delay(10_000), .advertise)
        }
    }

    /// The advertising clock's tick while the host scans: each advertiser reports on the first
    /// tick its own captured interval has passed, so its pace is captured to within a tick.
    var advertisingTick: Int64 { 10_000 }

    /// The captured advertising interval of an advertiser, else the configured default.
    func advertisingInterval(of a: AirAdvertiser) -> Int64 {
        a.advertisement?.intervalMicros.map { max(20_000, $0) } ?? configuration.advertisingIntervalMicros
    }

    /// One advertising event of every advertiser whose interval has passed: its report and,
    /// when scanning actively and it is scannable, its scan response; then the next tick.
    func advertise() {
        scan.scheduled = false
        guard scan.enabled else { return }
        for a in advertisers() where !scan.filterDuplicates || !scan.reported.contains(a.address) {
            if let last = scan.lastReport[a.address],
                now - last + advertisingTick / 2 < max(advertisingTick, delay(advertisingInterval(of: a)))
            {
                continue
            }
            scan.lastReport[a.address] = now
            scan.reported.insert(a.address)
            let ad = a.advertisement
            // ADV_DIRECT_IND carries no AdvData (Vol 6 Part B 2.3.1.2).
            let data = a.kind.directed && a.kind.legacy ? [] : ad?.data ?? []
            report(a, data: data, rssi: ad?.rssi ?? -60, scanResponse: false)
            // A scan request gets a response from a scannable advertiser only (2.3.2).
            if scan.active, a.kind.answersScanRequests {
                report(a, data: ad?.scanResponse ?? [], rssi: ad?.rssi ?? -60, scanResponse: true)
            }
        }
        scan.scheduled = true
        // Reports are not part of the captured exchange: at max speed they still come at a
        // sane pace (a host that scans forever must not be flooded).
        schedule(after: advertisingTick, .advertise)
    }

    /// The address a directed advertisement of a captured peer targets: the host's own (the
    /// captured central's place is the host's).
    private var ownAddress: (type: UInt8, address: BDAddr) {
        randomAddress.map { (1, $0) } ?? (0, configuration.address)
    }

    private func report(_ a: AirAdvertiser, data: [UInt8], rssi: Int8, scanResponse: Bool) {
        let adType = a.addressType & 0x01  // public or random device address
        if scan.extended {
            guard leEventEnabled(HCILESubeventCode.extendedAdvertisingReport) else { return }
            typealias E = HCILEExtendedAdvertisingReportEntry
            let direct = a.kind.directed ? ownAddress : (0, BDAddr(rawValue: 0))
            var body = ByteWriter()
            // Legacy PDUs: primary PHY 1M, no secondary, no SID; extended: AUX on 1M, SID 0.
            data.withByteView {
                E(
                    eventType: a.kind.extendedEventType(scanResponse: scanResponse), addressType: adType,
                    address: a.address, primaryPHY: 1, secondaryPHY: a.kind.legacy ? 0 : 1,
                    advertisingSID: a.kind.legacy ? 0xFF : 0, txPower: 127, rssi: rssi, periodicAdvertisingInterval: 0,
                    directAddressType: direct.0, directAddress: direct.1, data: $0
                ).append(to: &body)
            }
            send(body.bytes.withByteView { HCILEExtendedAdvertisingReport(declaredCount: 1, reports: $0).h4Encoded() })
        } else {
            guard leEventEnabled(HCILESubeventCode.advertisingReport) else { return }
            send(
                HCISynthesis.advertisingReport(
                    eventType: scanResponse ? HCILEAdvertisingReportEntry.scanResponse : a.kind.legacyEventType,
                    addressType: adType, address: a.address, data: Array(data.prefix(31)), rssi: rssi))
        }
    }

    // MARK: connecting

    /// Role central: the host advertises; the captured central's next connection comes to it
    /// one captured connection interval later, from the captured central's address.
    func setAdvertising(_ a: (extended: Bool, handle: UInt8)?) {
        advertising = a
        guard configuration.role == .central else { return }
        guard let a else {
            if pendingConnection != nil {
                pendingConnection = nil
                timers.removeAll { if case .establish = $0 { true } else { false } }
            }
            return
        }
        guard pendingConnection == nil, let m = unserved.first else { return }
        let c = replay.models[m].connection
        pendingConnection = PendingConnection(
            extended: a.extended, useAcceptList: false, peerType: c.summary.peerAddressType ?? 0,
            peer: c.summary.peer ?? BDAddr(rawValue: 0), model: m, advertisingHandle: a.extended ? a.handle : nil)
        schedule(after: delay(c.intervalMicros), .establish)
    }

    func initiate(_ p: PendingConnection) {
        pendingConnection = p
        tryEstablish()
    }

    /// Picks the captured connection the pending attempt reaches: the next unserved one to its
    /// peer (or to a peer on the accept list), when that peer is advertising.
    func tryEstablish() {
        guard var p = pendingConnection, p.model == nil else { return }
        let targets = advertisers().filter { a in
            p.useAcceptList ? acceptList.contains { $0.address == a.address } : a.address == p.peer
        }
        guard let hit = targets.first(where: { $0.model != nil }), let m = hit.model else {
            // As on a radio, the initiator keeps listening until the host cancels (7.8.12).
            let why =
                targets.first.map {
                    $0.kind.connectable
                        ? "it advertises \($0.kind.name), but the capture has no connection to it to play"
                        : "it advertises \($0.kind.name) (not connectable) in the capture"
                } ?? "no captured peripheral advertises there"
            log("LE Create Connection to \(p.useAcceptList ? "the filter accept list" : "\(p.peer)"): \(why); waiting")
            if let t = targets.first, unansweredConnections.count < 64 {
                let note = "\(t.address): \(why)"
                if !unansweredConnections.contains(note) { unansweredConnections.append(note) }
            }
            return
        }
        p.model = m
        p.peer = hit.address
        p.peerType = hit.addressType
        pendingConnection = p
        // The link comes up at the peer's next advertising event: one captured interval.
        schedule(after: delay(replay.models[m].connection.intervalMicros), .establish)
    }

    func establish() {
        guard let p = pendingConnection, let m = p.model else { return }
        pendingConnection = nil
        unserved.removeAll { $0 == m }
        let model = replay.models[m]
        // The captured handle when it is free (a host log then lines up with the capture's).
        var handle = model.connection.summary.handle & HCIConnectionHandle.mask
        if connections[handle] != nil || handle > 0x0EFF {
            handle = nextHandle
            while connections[handle] != nil { handle = (handle &+ 1) % 0x0F00 }
            nextHandle = (handle &+ 1) % 0x0F00
        }
        nextConnectionID += 1
        let c = LiveConnection(
            id: nextConnectionID, handle: handle, model: m, modelValue: model, faults: configuration.faults, now: now)
        connections[handle] = c
        if configuration.peerAwaitsHostNotifications { c.hostStream = Self.hostStream(of: model) }
        // Who is who for SMP: the host's address as its Create Connection chose it (own
        // address type 1 or 3: its random address), the captured peer's as it advertised.
        if configuration.role == .peripheral {
            let random = p.ownAddressType & 1 == 1
            c.initiator = (random ? 1 : 0, random ? randomAddress ?? configuration.address : configuration.address)
            c.responder = (p.peerType, p.peer)
        } else {
            // The host advertised from the address its advertising parameters chose (an
            // extended set's own random address when it has one).
            let random = advertisingOwnAddressType & 1 == 1
            let set = advertising?.extended == true ? advertisingSetAddress : nil
            c.initiator = (p.peerType, p.peer)
            c.responder = (
                random ? 1 : 0, random ? set ?? randomAddress ?? configuration.address : configuration.address
            )
        }
        let timing = model.connection.timing ?? ConnectionTiming(interval: 24, latency: 0, supervisionTimeout: 200)
        connectionComplete(
            status: HCIError.success, handle: handle, peerType: p.peerType, peer: p.peer, timing: timing,
            extended: p.extended, advertisingHandle: p.advertisingHandle)
        if configuration.role == .central, let a = advertising {
            // The connection ends the advertising (Vol 6 Part B 4.4.2); an extended set says so
            // with LE Advertising Set Terminated (7.7.65.18).
            advertising = nil
            if a.extended, leEventEnabled(HCILESubeventCode.advertisingSetTerminated) {
                let e = HCILEAdvertisingSetTerminated(
                    status: HCIError.success, advertisingHandle: a.handle, connectionHandle: handle,
                    numCompletedExtendedAdvertisingEvents: 0)
                send(e.h4Encoded())
            }
        }
        log("connected \(p.peer) as captured connection #\(model.number) (handle 0x\(String(handle, radix: 16)))")
        // The server's own traffic that no subscription started, from the connection's start.
        for (i, item) in model.stream.enumerated() where item.hostIsClient && item.anchor == .connectionStart {
            schedule(after: delay(item.offset), .stream(connection: c.id, index: i))
        }
        schedulePeerClientStep(c)
        scheduleCapturedEnd(c)
        if configuration.role == .central { scheduleCentralSecurity(c) }
        let faults = configuration.faults.relative(
            toConnectionAt: model.connection.summary.startTime &- replay.session.startTime)
        for t in [faults.dropLinkAtMicros, faults.powerOffAtMicros].compactMap({ $0 }) {
            schedule(after: delay(t), .silence(connection: c.id))
        }
    }

    func connectionComplete(
        status: UInt8, handle: UInt16, peerType: UInt8, peer: BDAddr, timing: ConnectionTiming?, extended: Bool,
        advertisingHandle: UInt8? = nil
    ) {
        let role = configuration.role == .central ? HCIRole.peripheral : HCIRole.central
        let t = timing ?? ConnectionTiming(interval: 0, latency: 0, supervisionTimeout: 0)
        let enhancedV2 = leEventEnabled(HCILESubeventCode.enhancedConnectionCompleteV2)
        let enhanced = extended || enhancedV2 || leEventEnabled(HCILESubeventCode.enhancedConnectionComplete)
        if enhanced {
            // Vol 4 Part E 7.7.65.10: sent instead of LE Connection Complete when unmasked (and
            // always after LE Extended Create Connection).
            let e = HCILEEnhancedConnectionComplete(
                status: status, handle: handle, role: role, peerAddressType: peerType, peerAddress: peer,
                localResolvablePrivateAddress: BDAddr(rawValue: 0), peerResolvablePrivateAddress: BDAddr(rawValue: 0),
                interval: t.interval, latency: t.latency, supervisionTimeout: t.supervisionTimeout,
                centralClockAccuracy: 0, advertisingHandle: enhancedV2 ? (advertisingHandle ?? 0xFF) : nil,
                syncHandle: enhancedV2 ? 0xFFFF : nil)
            if leEventEnabled(e.subeventCode) { send(e.h4Encoded()) }
        } else if leEventEnabled(HCILESubeventCode.connectionComplete) {
            send(
                HCISynthesis.leConnectionComplete(
                    status: status, handle: handle, role: role, peerType: peerType, peer: peer, interval: t.interval,
                    latency: t.latency, timeout: t.supervisionTimeout))
        }
    }

    // MARK: ending

    /// When the captured peer ended the link, it ends here too, with the captured reason, the
    /// captured time after the connection started (at max speed: once its captured traffic is out).
    func scheduleCapturedEnd(_ c: LiveConnection) {
        let model = replay.models[c.model]
        guard let end = model.linkEnd, end.side != .local else { return }
        c.endScheduled = true
        schedule(after: delay(end.capturedOffset), .peerEnd(connection: c.id))
    }

    func peerEnds(_ id: Int) {
        guard let c = connection(id), !c.silent else { return }
        let model = replay.models[c.model]
        // Its captured traffic goes out first; at max speed (where the captured time is at
        // once) also the host's share: as many client PDUs as the captured central sent.
        let streamPending = c.streamSent.indices.contains { !c.streamSent[$0] && isScheduledStream(model, $0, c) }
        let hostBehind = configuration.speed == .max && c.hostClientPDUs < model.steps.count { $0.hostIsClient }
        let peerBehind =
            (configuration.speed == .max || configuration.peerEndsAfterItsScript)
            && (c.peerRequestOutstanding
                || model.steps[min(c.peerStep, model.steps.count)...].contains {
                    !$0.hostIsClient && $0.opcode != ATTOpcode.handleValueConfirmation.rawValue
                })
        if streamPending || hostBehind || peerBehind {
            c.endDue = true
            return
        }
        // After the host's notifications the capture shows before it, its captured delay after the last.
        if let end = model.linkEnd {
            let due = c.startedAt &+ delay(end.capturedOffset)
            switch awaitHostStream(
                c, owed: c.hostStreamCount { $0.offset <= end.capturedOffset }, captured: end.capturedOffset, due: due,
                what: "the captured central's end of the link")
            {
            case .go(let after) where after > now:
                schedule(after: after &- now, .peerEnd(connection: c.id))
                return
            case .wait(let until):
                if until > c.endWakeAt {
                    c.endWakeAt = until
                    schedule(after: until &- now, .peerEnd(connection: c.id))
                }
                return
            case .go: break
            }
        }
        end(c, reason: model.linkEnd?.reason ?? HCIError.remoteUserTerminatedConnection, side: .remote)
    }

    /// Ends the link now if its captured end is due and waited only for traffic.
    func recheckEnd(_ c: LiveConnection) {
        guard c.endDue else { return }
        c.endDue = false
        schedule(after: 0, .peerEnd(connection: c.id))
    }

    /// A stream item this connection will still send (its subscription happened or it needs none).
    private func isScheduledStream(_ model: ReplayConnectionModel, _ i: Int, _ c: LiveConnection) -> Bool {
        let item = model.stream[i]
        guard item.hostIsClient else { return false }
        switch item.anchor {
        case .connectionStart: return true
        case .subscription(let step): return c.subscribedSteps.contains(step)
        }
    }

    /// The link went silent (the drop-link and power-off faults: the peer is gone and says
    /// nothing): nothing crosses it any more, and the supervision timeout later it ends with
    /// Connection Timeout (0x08, Vol 6 Part B 4.5.2).
    func silence(_ id: Int) {
        guard let c = connections.values.first(where: { $0.id == id }), !c.silent else { return }
        c.silent = true
        c.endScheduled = true
        schedule(after: delay(replay.models[c.model].connection.supervisionTimeoutMicros), .linkTimeout(connection: id))
    }

    func linkTimeout(_ id: Int) {
        guard let c = connections.values.first(where: { $0.id == id }) else { return }
        end(c, reason: HCIError.connectionTimeout, side: .linkLoss)
    }

    /// Ends `c` now: Disconnection Complete; its uncompleted packets are flushed with it
    /// (Vol 4 Part E 4.3), its partial PDUs dropped.
    func end(_ c: LiveConnection, reason: UInt8, side: DisconnectionSide) {
        finish(c, reason: reason, side: side)
        connections[c.handle] = nil
        if let n = uncompleted.removeValue(forKey: c.handle) { inFlight = max(0, inFlight - Int(n)) }
        reassembler.reset(handle: c.handle)
        send(HCISynthesis.disconnectionComplete(handle: c.handle, reason: reason))
        tryEstablish()
    }

    /// Files what the connection became.
    func finish(_ c: LiveConnection, reason: UInt8?, side: DisconnectionSide?) {
        if c.overRadio, configuration.role == .central { securityRequestOwed(c) }
        var r = ReplayedConnection(number: replay.models[c.model].number, pdus: c.pdus)
        if let reason, let side { r.end = (now &- c.startedAt, reason, side) }
        r.droppedNotifications = c.droppedNotifications
        served.append(
            ServedConnection(
                model: c.model, handle: c.handle, startedAt: c.startedAt, replayed: r, unmodelled: c.unmodelled,
                bearer: c.bearer))
    }
}
