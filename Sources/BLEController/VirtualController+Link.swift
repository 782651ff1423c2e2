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
    /// Stream items sent, and waiting because an indication is unconfirmed (Vol 3 Part F 3.4.7.2).
    var streamSent: [Bool]
    var indicationOutstanding = false
    var heldStream: [Int] = []
    /// The peer's client: next script step of the peer (host server) and its outstanding request.
    var peerStep = 0
    var peerRequestOutstanding = false
    var peerStepScheduled = false
    /// Requests the capture cannot answer as captured (reported).
    var unmodelled: [String] = []
    var endScheduled = false
    /// The captured end fell due while traffic was still owed: it comes once that is out.
    var endDue = false
    /// Requests, commands and confirmations the host sent.
    var hostClientPDUs = 0
    /// The link went silent (a fault): nothing crosses it until it times out.
    var silent = false

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
}

extension VirtualController {
    // MARK: scanning

    /// Connectable advertisers on the air: the peers of captured connections not yet served
    /// and not connected now, each once, with the advertisement that preceded its connection.
    func advertisers() -> [(model: Int, address: BDAddr, type: UInt8)] {
        var seen: Set<BDAddr> = []
        var out: [(Int, BDAddr, UInt8)] = []
        let connected = Set(connections.values.compactMap { replay.models[$0.model].peer })
        for i in unserved {
            let c = replay.models[i].connection
            guard let a = c.summary.peer, !connected.contains(a), seen.insert(a).inserted else { continue }
            out.append((i, a, c.summary.peerAddressType ?? 0))
        }
        return out
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

    /// The captured advertising interval of the peer of captured connection `m`, else the
    /// configured default.
    func advertisingInterval(of m: Int) -> Int64 {
        replay.models[m].connection.advertisement?.intervalMicros.map { max(20_000, $0) }
            ?? configuration.advertisingIntervalMicros
    }

    /// One advertising event of every advertiser whose interval has passed: its report and,
    /// when scanning actively, its scan response; then the next tick.
    func advertise() {
        scan.scheduled = false
        guard scan.enabled else { return }
        for (m, address, type) in advertisers() where !scan.filterDuplicates || !scan.reported.contains(address) {
            if let last = scan.lastReport[address],
                now - last + advertisingTick / 2 < max(advertisingTick, delay(advertisingInterval(of: m)))
            {
                continue
            }
            scan.lastReport[address] = now
            scan.reported.insert(address)
            let ad = replay.models[m].connection.advertisement
            report(address: address, type: type, data: ad?.data ?? [], rssi: ad?.rssi ?? -60, scanResponse: false)
            if scan.active, let r = ad?.scanResponse, !r.isEmpty {
                report(address: address, type: type, data: r, rssi: ad?.rssi ?? -60, scanResponse: true)
            }
        }
        scan.scheduled = true
        // Reports are not part of the captured exchange: at max speed they still come at a
        // sane pace (a host that scans forever must not be flooded).
        schedule(after: advertisingTick, .advertise)
    }

    private func report(address: BDAddr, type: UInt8, data: [UInt8], rssi: Int8, scanResponse: Bool) {
        let adType = type & 0x01  // public or random device address
        if scan.extended {
            guard leEventEnabled(HCILESubeventCode.extendedAdvertisingReport) else { return }
            typealias E = HCILEExtendedAdvertisingReportEntry
            // A legacy ADV_IND (connectable, scannable) or the SCAN_RSP to one (7.7.65.13).
            var eventType = E.legacyBit | E.connectableBit | E.scannableBit
            if scanResponse { eventType |= E.scanResponseBit }
            var body = ByteWriter()
            data.withByteView {
                E(
                    eventType: eventType, addressType: adType, address: address, primaryPHY: 1, secondaryPHY: 0,
                    advertisingSID: 0xFF, txPower: 127, rssi: rssi, periodicAdvertisingInterval: 0,
                    directAddressType: 0, directAddress: BDAddr(rawValue: 0), data: $0
                ).append(to: &body)
            }
            send(body.bytes.withByteView { HCILEExtendedAdvertisingReport(declaredCount: 1, reports: $0).h4Encoded() })
        } else {
            guard leEventEnabled(HCILESubeventCode.advertisingReport) else { return }
            send(
                HCISynthesis.advertisingReport(
                    eventType: scanResponse
                        ? HCILEAdvertisingReportEntry.scanResponse : HCILEAdvertisingReportEntry.advInd,
                    addressType: adType, address: address, data: Array(data.prefix(31)), rssi: rssi))
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
        let candidates = advertisers()
        let hit = candidates.first { a in
            p.useAcceptList ? acceptList.contains { $0.address == a.address } : a.address == p.peer
        }
        guard let hit else {
            log("LE Create Connection to \(p.peer): no captured peripheral advertises there; waiting")
            return
        }
        p.model = hit.model
        p.peer = hit.address
        p.peerType = hit.type
        pendingConnection = p
        // The link comes up at the peer's next advertising event: one captured interval.
        schedule(after: delay(replay.models[hit.model].connection.intervalMicros), .establish)
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
        let timing = model.connection.timing ?? ConnectionTiming(interval: 24, latency: 0, supervisionTimeout: 200)
        connectionComplete(
            status: HCIError.success, handle: handle, peerType: p.peerType, peer: p.peer, timing: timing,
            extended: p.extended, advertisingHandle: p.advertisingHandle)
        if configuration.role == .central, let a = advertising {
            // The connection ends the advertising (Vol 6 Part B 4.4.2); an extended set says so
            // with LE Advertising Set Terminated (7.7.65.18).
            advertising = nil
            if a.extended, leEventEnabled(HCILESubeventCode.advertisingSetTerminated) {
                var e = ByteWriter()
                e.appendUInt8(HCILESubeventCode.advertisingSetTerminated)
                e.appendUInt8(HCIError.success)
                e.appendUInt8(a.handle)
                e.appendUInt16LE(handle)
                e.appendUInt8(0)
                send(e.bytes.withByteView { HCIEventPacket(code: HCIEventCode.leMeta, parameters: $0).h4Encoded() })
            }
        }
        log("connected \(p.peer) as captured connection #\(model.number) (handle 0x\(String(handle, radix: 16)))")
        // The server's own traffic that no subscription started, from the connection's start.
        for (i, item) in model.stream.enumerated() where item.hostIsClient && item.anchor == .connectionStart {
            schedule(after: delay(item.offset), .stream(connection: c.id, index: i))
        }
        schedulePeerClientStep(c)
        scheduleCapturedEnd(c)
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
            configuration.speed == .max
            && (c.peerRequestOutstanding
                || model.steps[min(c.peerStep, model.steps.count)...].contains {
                    !$0.hostIsClient && $0.bytes.first != ATTOpcode.handleValueConfirmation.rawValue
                })
        if streamPending || hostBehind || peerBehind {
            c.endDue = true
            return
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
        var r = ReplayedConnection(number: replay.models[c.model].number, pdus: c.pdus)
        if let reason, let side { r.end = (now &- c.startedAt, reason, side) }
        r.droppedNotifications = c.droppedNotifications
        served.append(
            ServedConnection(
                model: c.model, handle: c.handle, startedAt: c.startedAt, replayed: r, unmodelled: c.unmodelled))
    }
}
