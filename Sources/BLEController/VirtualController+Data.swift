import BLEAir
import BLEBytes
import BLEPackets
import BLEReplay
import BLETimeline
import CaptureIO

extension VirtualController {
    // MARK: ACL from the host

    func aclData(_ acl: HCIACLPacket) {
        guard let c = connections[acl.handle] else {
            return reject("ACL data for handle 0x\(String(acl.handle, radix: 16)), no such connection: dropped")
        }
        // Flow control (Vol 4 Part E 4.1.1): the host may have `aclPackets` packets in the
        // controller; one more has nowhere to go.
        guard inFlight < configuration.aclPackets else {
            return reject("ACL data beyond the \(configuration.aclPackets) LE buffers the host was given: dropped")
        }
        inFlight += 1
        uncompleted[acl.handle, default: 0] += 1
        if !completionScheduled {
            completionScheduled = true
            // Transmitted at the next connection event: then the buffer is free again.
            schedule(after: delay(Int64(c.interval) * 1250), .completedPackets)
        }
        guard !acl.lengthMismatch else {
            return reject("ACL data length \(acl.declaredLength) but \(acl.data.count) octets: dropped")
        }
        guard acl.data.count <= configuration.aclPacketLength else {
            return reject(
                "ACL data of \(acl.data.count) octets exceeds the \(configuration.aclPacketLength)-octet buffers: dropped"
            )
        }
        guard !c.silent else { return }
        switch reassembler.feed(acl, frame: 0, direction: .sent) {
        case .complete(let pdu): l2cap(c, channel: pdu.channel, pdu.payload)
        case .incomplete: break
        case .malformed(let note, _, _): reject("L2CAP: \(note): dropped")
        }
        if let a = reassembler.abandoned { reject("L2CAP: a partial PDU abandoned (\(a.reason))") }
    }

    func flushCompletedPackets() {
        completionScheduled = false
        guard !uncompleted.isEmpty else { return }
        let entries = uncompleted.sorted { $0.key < $1.key }.prefix(255).map {
            HCINumberOfCompletedPackets.Entry(handle: $0.key, count: $0.value)
        }
        for e in entries {
            uncompleted[e.handle] = nil
            inFlight = max(0, inFlight - Int(e.count))
        }
        send(HCINumberOfCompletedPackets.h4Encoded(entries))
        if !uncompleted.isEmpty {
            completionScheduled = true
            schedule(after: 0, .completedPackets)
        }
    }

    private func l2cap(_ c: LiveConnection, channel: UInt16, _ payload: ByteView) {
        switch channel {
        case L2CAPChannel.att: att(c, payload.toArray())
        case L2CAPChannel.leSignaling: signalling(c, payload)
        case L2CAPChannel.smp: smp(c, payload)
        default: reject("L2CAP channel 0x\(String(channel, radix: 16)) is not open: dropped")
        }
    }

    /// Sends one L2CAP frame to the host, cut into ACL packets of the controller's buffer size.
    func sendL2CAP(_ c: LiveConnection, channel: UInt16, _ payload: [UInt8]) {
        guard !c.silent else { return }
        for p in HCISynthesis.acl(
            handle: c.handle, cid: channel, payload: payload, received: true, fragment: configuration.aclPacketLength)
        {
            send(p)
        }
    }

    // MARK: LE signalling

    /// LE signalling (Vol 3 Part A 4): the captured peer opened no dynamic channels and asked
    /// nothing the host must answer; a host request is refused as a peer without them would.
    private func signalling(_ c: LiveConnection, _ payload: ByteView) {
        guard let command = L2CAPSignalingCommands(payload, le: true).first else {
            return reject("LE signalling PDU of \(payload.count) octets: dropped")
        }
        let id = command.identifier
        switch command.code {
        case L2CAPSignalingCode.commandReject, L2CAPSignalingCode.connectionParameterUpdateResponse,
            L2CAPSignalingCode.leCreditBasedConnectionResponse, L2CAPSignalingCode.creditBasedConnectionResponse:
            break  // answers to nothing this peer asked: ignored
        case L2CAPSignalingCode.leCreditBasedConnectionRequest:
            // 4.23: no LE_PSM is served here.
            var w = ByteWriter()
            w.appendUInt8(L2CAPSignalingCode.leCreditBasedConnectionResponse)
            w.appendUInt8(id)
            w.appendUInt16LE(10)
            w.appendZeros(8)
            w.appendUInt16LE(L2CAPRejectReason.psmNotSupported)
            sendL2CAP(c, channel: L2CAPChannel.leSignaling, w.bytes)
        default:
            var w = ByteWriter()
            w.appendUInt8(L2CAPSignalingCode.commandReject)
            w.appendUInt8(id)
            w.appendUInt16LE(2)
            w.appendUInt16LE(L2CAPRejectReason.commandNotUnderstood)
            sendL2CAP(c, channel: L2CAPChannel.leSignaling, w.bytes)
        }
    }

    // MARK: ATT

    func record(_ c: LiveConnection, _ bytes: [UInt8], fromHost: Bool) {
        guard c.pdus.count < Self.maximumLoggedPDUs else {
            c.truncated = true
            return
        }
        c.pdus.append(ReplayedPDU(offset: now &- c.startedAt, sentByHost: fromHost, bytes: bytes))
    }

    /// An ATT PDU from the host: a request or command to the captured peer's server, or the
    /// host server's response or confirmation to the peer's client.
    private func att(_ c: LiveConnection, _ bytes: [UInt8]) {
        guard let first = bytes.first else { return reject("empty ATT PDU: dropped") }
        record(c, bytes, fromHost: true)
        let model = replay.models[c.model]
        let op = ATTOpcode(first)
        if op.isClientPDU {
            c.hostClientPDUs += 1
            recheckEnd(c)
        }
        switch op.method {
        case .request?:
            noteUnmodelled(c, bytes, model: model)
            subscribe(c, bytes, model: model)
            c.bearer.requestSent(op, by: .host, at: now)
            guard let response = c.server.answer(bytes, mtu: c.bearer.mtu) else { return }
            let latency = capturedLatency(c, bytes, model: model)
            schedule(
                after: delay(latency &+ configuration.faults.responseDelayMicros),
                .attResponse(connection: c.id, bytes: response, request: bytes))
        case .command?:
            if op == .writeCommand { subscribe(c, bytes, model: model) }
        case .confirmation?:
            c.bearer.confirmationReceived(from: .host)
            releaseHeldStream(c)
        case .response?:
            // The host's server answered the peer's client: its next step may go.
            c.bearer.responseReceived(by: .peer)
            schedulePeerClientStep(c)
            recheckEnd(c)
        case .notification?, .indication?:
            hostNotified(c)
            if op == .handleValueIndication {
                // The peer's client confirms (Vol 3 Part F 3.4.7.3), at once: no indication to
                // it stays unconfirmed, so the bearer keeps none.
                let confirmation = ATTHandleValueConfirmation().encoded()
                record(c, confirmation, fromHost: false)
                sendL2CAP(c, channel: L2CAPChannel.att, confirmation)
            }
        case nil:
            reject("ATT opcode 0x\(String(first, radix: 16)): unknown")
            let e = ATTErrorResponse(requestOpcode: op, handle: 0, errorCode: ATTErrorCode.requestNotSupported)
                .encoded()
            // Vol 3 Part F 3.4.1.1: an unknown request gets Request Not Supported; unknown
            // commands (bit 6) are ignored.
            if first & 0x40 == 0 {
                record(c, e, fromHost: false)
                sendL2CAP(c, channel: L2CAPChannel.att, e)
            }
        }
    }

    /// The captured server latency for this request: of the first identical captured request
    /// not matched yet, else of one with the same opcode, else one connection interval.
    private func capturedLatency(_ c: LiveConnection, _ bytes: [UInt8], model: ReplayConnectionModel) -> Int64 {
        var sameOpcode: Int64?
        for (n, s) in model.steps.enumerated() where s.hostIsClient && s.isRequest && !c.matchedSteps.contains(n) {
            guard let l = s.latency else { continue }
            let pdu = s.pdu
            if pdu.elementsEqual(bytes) {
                c.matchedSteps.insert(n)
                return l
            }
            if sameOpcode == nil, pdu.first == bytes.first { sameOpcode = l }
        }
        return sameOpcode ?? model.connection.intervalMicros
    }

    /// A CCCD write that enables notifications or indications starts the captured stream that
    /// followed the same write in the capture, timed from now.
    private func subscribe(_ c: LiveConnection, _ bytes: [UInt8], model: ReplayConnectionModel) {
        let op = ATTOpcode(bytes[0])
        guard let (h, value) = Self.configurationWrite(bytes),
            model.peerServer.isCCCD(h) || model.peerServer.attribute(h)?.isInferred == true
        else { return }
        let enabling = GATTClientConfiguration.notification | GATTClientConfiguration.indication
        guard value & enabling != 0 else { return }
        for (n, s) in model.steps.enumerated() where s.hostIsClient && !c.subscribedSteps.contains(n) {
            let o = s.opcode
            guard o == op.rawValue || o == ATTOpcode.writeRequest.rawValue || o == ATTOpcode.writeCommand.rawValue
            else { continue }
            guard let (sh, v) = Self.configurationWrite(Array(s.pdu)), sh == h, v & enabling != 0 else { continue }
            c.subscribedSteps.insert(n)
            let drops = configuration.faults.streamDrops(of: model)
            for (i, item) in model.stream.enumerated() where item.hostIsClient && item.anchor == .subscription(step: n)
            {
                if drops.drops(i) {
                    c.droppedNotifications += 1
                    c.streamSent[i] = true
                    continue
                }
                schedule(after: delay(item.offset), .stream(connection: c.id, index: i))
            }
            return
        }
        c.unmodelled.append(
            "subscription on \(Hex.string(UInt64(h), digits: 4)) the capture never made (no notifications follow)")
    }

    /// The handle and configuration bits of a Write Request or Command carrying at least
    /// the two octets of a Client Characteristic Configuration value.
    private static func configurationWrite(_ bytes: [UInt8]) -> (handle: UInt16, bits: UInt16)? {
        bytes.withByteView { b in
            let w: (UInt16, ByteView)
            switch ATTPDU(b) {
            case .writeRequest(let r): w = (r.handle, r.value)
            case .writeCommand(let r): w = (r.handle, r.value)
            default: return nil
            }
            return GATTClientConfiguration.bits(of: w.1).map { (w.0, $0) }
        }
    }

    /// Notes requests the capture has no answer for (they get the model's inferred answer).
    private func noteUnmodelled(_ c: LiveConnection, _ bytes: [UInt8], model: ReplayConnectionModel) {
        let op = ATTOpcode(bytes[0])
        guard let h = bytes.withByteView(ATTPDU.handle(of:)) else { return }
        let s = model.peerServer
        let name = Hex.string(UInt64(h), digits: 4)
        switch op {
        case .readRequest where s.reads[h] == nil:
            c.unmodelled.append(
                s.attribute(h) == nil
                    ? "Read \(name): not in the captured table (Invalid Handle)"
                    : "Read \(name): never read in the capture (answered with the last written value, or empty)")
        case .writeRequest where s.writes[h] == nil && !s.isCCCD(h):
            c.unmodelled.append(
                s.attribute(h) == nil
                    ? "Write \(name): not in the captured table (Invalid Handle)"
                    : "Write \(name): never written in the capture (accepted)")
        default: break
        }
    }

    func deliverResponse(_ id: Int, _ bytes: [UInt8], request: [UInt8]) {
        guard let c = connection(id), !c.silent else { return }
        record(c, bytes, fromHost: false)
        sendL2CAP(c, channel: L2CAPChannel.att, bytes)
        c.bearer.responseReceived(by: .host)
        // ATT_MTU changes once the Exchange MTU Response is out (Vol 3 Part F 3.4.2).
        request.withByteView { q in
            bytes.withByteView { _ = c.bearer.exchangeCompleted(request: ATTPDU(q), response: ATTPDU($0)) }
        }
    }

    func deliverStream(_ id: Int, _ i: Int) {
        guard let c = connection(id), !c.silent, !c.streamSent[i] else { return }
        // The captured peer's server sends no other indication (nor, holding the stream's
        // order, anything after it) until the host's client confirms (Vol 3 Part F 3.3.2).
        if c.bearer.outstandingIndication(to: .host) != nil {
            c.heldStream.append(i)
            return
        }
        let item = replay.models[c.model].stream[i]
        c.streamSent[i] = true
        c.bearer.adoptEvidence(c.server.evidencedMTU(at: item.capturedIndex))
        // At most ATT_MTU − 3 octets of value (Vol 3 Part F 3.4.7.1).
        let bytes =
            item.bytes.first == ATTOpcode.multipleHandleValueNotification.rawValue
            ? item.bytes : Array(item.bytes.prefix(Int(c.bearer.mtu)))
        record(c, bytes, fromHost: false)
        sendL2CAP(c, channel: L2CAPChannel.att, bytes)
        if item.bytes.first == ATTOpcode.handleValueIndication.rawValue {
            c.bearer.indicationSent(handle: bytes.withByteView(ATTPDU.handle(of:)) ?? 0, to: .host, at: now, tag: i)
        }
        recheckEnd(c)
    }

    private func releaseHeldStream(_ c: LiveConnection) {
        while c.bearer.outstandingIndication(to: .host) == nil, !c.heldStream.isEmpty {
            deliverStream(c.id, c.heldStream.removeFirst())
        }
    }

    // MARK: the peer's client

    /// The captured peer's own requests to the host's server, at their captured offsets from
    /// the connection's start, one outstanding request at a time. Its confirmations are not
    /// scripted: it confirms the host's indications as they come.
    func schedulePeerClientStep(_ c: LiveConnection) {
        let model = replay.models[c.model]
        guard !c.peerStepScheduled, !c.peerRequestOutstanding else { return }
        while c.peerStep < model.steps.count {
            let s = model.steps[c.peerStep]
            if !s.hostIsClient, s.opcode != ATTOpcode.handleValueConfirmation.rawValue { break }
            c.peerStep += 1
        }
        if c.overRadio {
            if radioSecurityHolds(c, beforeStep: c.peerStep) { return }
            // Security that settled at once has scheduled the step already.
            guard !c.peerStepScheduled, !c.peerRequestOutstanding else { return }
        }
        guard c.peerStep < model.steps.count else { return }
        let index = model.steps[c.peerStep].capturedIndex
        var due = c.startedAt &+ delay(model.capturedOffset(ofPDU: index))
        switch awaitHostStream(c, step: index, due: due) {
        case .go(let after): due = max(due, after)
        case .wait(let until): due = until
        }
        c.peerStepScheduled = true
        c.peerStepDue = due
        schedule(after: max(0, due &- now), .peerClientStep(connection: c.id))
    }

    func playPeerClientStep(_ id: Int) {
        // An older timer of a step rescheduled since (the host's notifications came) is ignored.
        guard let c = connection(id), !c.silent, c.peerStepScheduled, now >= c.peerStepDue else { return }
        c.peerStepScheduled = false
        let model = replay.models[c.model]
        // Over a radio a step captured after the encryption waits for the pairing to settle.
        if c.overRadio {
            if radioSecurityHolds(c, beforeStep: c.peerStep) { return }
            guard !c.peerStepScheduled else { return }
        }
        guard c.peerStep < model.steps.count else { return }
        let s = model.steps[c.peerStep]
        let due = c.startedAt &+ delay(model.capturedOffset(ofPDU: s.capturedIndex))
        if case .wait = awaitHostStream(c, step: s.capturedIndex, due: due) { return schedulePeerClientStep(c) }
        c.peerStep += 1
        let bytes = s.bytes
        record(c, bytes, fromHost: false)
        sendL2CAP(c, channel: L2CAPChannel.att, bytes)
        if s.isRequest { c.bearer.requestSent(ATTOpcode(s.opcode), by: .peer, at: now, tag: c.peerStep - 1) }
        schedulePeerClientStep(c)
    }

    func connection(_ id: Int) -> LiveConnection? { connections.values.first { $0.id == id } }

    // MARK: anchoring the peer on the host's notifications

    /// What the peer's next step or end may do as far as the host's notifications go.
    enum HostStreamAwait {
        /// Go, not before this time (the captured delay after the last notification it
        /// follows; `.min` when it follows none, or the wait gave up).
        case go(after: Int64)
        /// Wait for more: wake at this time at the latest (the wait's bound).
        case wait(until: Int64)
    }

    /// The notifications and indications the host's server sent in `model`'s capture.
    static func hostStream(of model: ReplayConnectionModel) -> [(index: Int, offset: Int64)] {
        let att = model.connection.att
        var out: [(index: Int, offset: Int64)] = []
        for i in att.indices where att.sentByHost(at: i) {
            switch ATTOpcode(att.opcode(at: i)) {
            case .handleValueNotification, .handleValueIndication, .multipleHandleValueNotification:
                out.append((i, model.capturedOffset(ofPDU: i)))
            default: break
            }
        }
        return out
    }

    /// The host sent a notification or indication: a peer step or end waiting for it may go.
    func hostNotified(_ c: LiveConnection) {
        guard c.hostStreamArrivals.count < c.hostStream.count else { return }
        c.hostStreamArrivals.append(now)
        guard c.awaitingSince != nil else { return }
        c.awaitingSince = now
        if c.peerStepScheduled {
            c.peerStepScheduled = false
            schedulePeerClientStep(c)
        }
        if c.endWakeAt != .min {
            c.endWakeAt = .min
            schedule(after: 0, .peerEnd(connection: c.id))
        }
    }

    /// A peer step (or its end of the link) the capture shows `captured` µs after the
    /// connection's start, after the host's first `owed` notifications, and otherwise due at
    /// `due`: goes its captured delay after the last of them once the host has sent them; waits
    /// while the host sends none of them for `peerAwaitMicros` past `due`, then gives up (a
    /// finding naming `what`) and waits no more on this link.
    func awaitHostStream(
        _ c: LiveConnection, owed: Int, captured: Int64, due: Int64, what: @autoclosure () -> String
    ) -> HostStreamAwait {
        guard configuration.peerAwaitsHostNotifications, owed > 0, !c.awaitGivenUp else { return .go(after: .min) }
        if c.hostStreamArrivals.count >= owed {
            c.awaitingSince = nil
            return .go(after: c.hostStreamArrivals[owed - 1] &+ delay(captured &- c.hostStream[owed - 1].offset))
        }
        let since = max(c.awaitingSince ?? now, due)
        c.awaitingSince = since
        if now &- since < configuration.peerAwaitMicros { return .wait(until: since &+ configuration.peerAwaitMicros) }
        c.awaitingSince = nil
        c.awaitGivenUp = true
        if peerAwaitFindings.count < 1024 {
            peerAwaitFindings.append(
                "#\(replay.models[c.model].number): the device sent \(c.hostStreamArrivals.count) of the \(owed) "
                    + "notifications and indications the captured peripheral sent before \(what()); none came for "
                    + "\(configuration.peerAwaitMicros / 1000) ms: blecap went on without them")
        }
        return .go(after: .min)
    }

    /// `awaitHostStream` for the peer's next step, captured at PDU `index`.
    func awaitHostStream(_ c: LiveConnection, step index: Int, due: Int64) -> HostStreamAwait {
        let model = replay.models[c.model]
        return awaitHostStream(
            c, owed: c.hostStreamCount { $0.index < index }, captured: model.capturedOffset(ofPDU: index), due: due,
            what: "the captured central's \(ATTOpcode(model.connection.att.opcode(at: index)).name)")
    }
}
