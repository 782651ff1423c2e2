import BLEBytes
import BLEPackets
import CaptureIO

/// Over-the-air captures (Core 5.4 Vol 6 Part B), seen from the central's host so that the
/// same GATT and lint logic applies as to an HCI capture from the central: "sent" is
/// central → peripheral.
///
/// - A connection starts at its CONNECT_IND / AUX_CONNECT_REQ (central = InitA, peer =
///   AdvA, timing from LLData) once the peripheral answers it, or — for a capture that began
///   mid-connection — at the first data PDU on an access address blecap has not seen ("started
///   before the capture"). A CONNECT_IND the peripheral never answered within the transmit
///   window plus 6 intervals (4.5.2) is a failed attempt, no connection: connection.failed
///   with 0x3E, as an HCI host gets it (`decideAttempts`, `failAttempt`).
/// - It ends at LL_TERMINATE_IND (its reason; local when the central sent it, remote when the
///   peripheral did), or when nothing was heard on it for longer than the supervision timeout
///   in force although the sniffer records its empty PDUs, and nothing is heard on its access
///   address again: link loss, 0x08 Connection Timeout, inferred, and reported at the
///   CONNECT_IND that ends the wait or at the end of the capture.
///   Silence followed by more PDUs on the same access address is the sniffer losing the link
///   (missed events), not the link ending: the connection goes on.
/// - LL_CONNECTION_UPDATE_IND becomes connection.update at its instant (the first central
///   PDU of that connection event, counted from the CONNECT_IND or given by the nRF Sniffer;
///   the new timing's first anchor lies in the transmit window 1.25 ms + WinOffset after the
///   old timing's anchor of the instant, 4.5.5.1, and its supervision timeout counts from there);
///   LL_PHY_UPDATE_IND and LL_CHANNEL_MAP_IND become connection.phy and connection.channel_map
///   at theirs (the first PDU whose connection event counter has reached it); each of these
///   PDUs is itself an ll.control fact. LL_LENGTH_RSP becomes connection.data_length at the
///   PDU; the start of encryption becomes connection.encryption; ll.decryption says at the
///   first encrypted PDU whether blecap decrypts the link (and with which key) or why not;
///   where it cannot, ll.encrypted names the frame from which ATT is not visible; every other
///   LL Control PDU is an ll.control fact.
extension TimelineBuilder {
    func linkLayer(_ ll: LinkLayerFrame, _ frame: DecodedFrame) {
        let r = frame.record
        hot.lastLinkRecord = (r.frame, r.timestamp, r.controllerIndex)
        if r.timestamp > hot.attemptDeadline { decideAttempts(r, dataOn: ll.dataConnection) }
        expireSilentLinks(r)
        switch ll.pdu {
        case .truncated: return
        case .advertising(let a):
            advertising(a, ll, r)
        case .data(let d):
            // A data PDU on a primary advertising channel is an advertising packet whose access
            // address arrived damaged (channel hopping never uses 37–39): no connection.
            if r.radio.channel >= 37, r.radio.channel <= 39 { return }
            // Wrapping: a capture's timestamps are untrusted, and any order of them is only odd here.
            if let t = terminatedLink, t.handle == ll.connection, r.timestamp &- t.time <= t.grace { return }
            guard ll.connection != 0, let c = linkConnection(ll.connection, r) else { return }
            if c.linkLayer == nil {
                var s = LinkLayerConnectionState()
                s.counters.accessAddress = r.radio.accessAddress
                c.linkLayer = s
                c.role = 0
            }
            // In place: the state is a few hundred bytes, and copying it out and back cost four
            // memcpy calls per PDU (docs/performance.md).
            guard dataPDU(d, ll, c, r, &c.linkLayer!) else { return }
            if let control = ll.control {
                self.control(control, c, r, sender: ll.sender(r.radio))
            } else if let pdu = frame.l2cap {
                l2cap(pdu, on: c, r)
            }
        }
    }

    /// What a data PDU with a readable header does to its link's state: counters, the
    /// central's anchors, instants reached. False when nothing more is to be read from it (bad
    /// CRC, a retransmitted copy, ciphertext).
    private func dataPDU(
        _ d: LLDataPDU, _ ll: LinkLayerFrame, _ c: ConnectionState, _ r: CaptureRecord,
        _ s: inout LinkLayerConnectionState
    ) -> Bool {
        // Heard again after a silence past its timeout: the sniffer lost the link, the link
        // went on (its missed events are counted at the next anchor). Cleared here, on the
        // state in place: read through `c.linkLayer!` each test copied the whole state.
        if s.silentPastTimeout || s.superseded { (s.silentPastTimeout, s.superseded) = (false, false) }
        s.lastTime = r.timestamp
        s.counters.dataPDUs += 1
        if r.radio.flags.contains(.senderInferred) { s.counters.senderInferred = true }
        if ll.crc == .invalid {
            s.counters.crcErrors += 1
            noteSilenceClock(s)
            return false
        }
        if d.isEmpty { s.counters.emptyPDUs += 1 }
        if r.radio.sender != .unknown {
            let mark = LinkLayerMark(frame: r.frame, time: r.timestamp, byCentral: r.radio.sender == .central)
            if r.radio.sender == .central {
                s.counters.lastFromCentral = mark
            } else {
                s.counters.lastFromPeripheral = mark
            }
        }
        if r.radio.sender != .central, !s.peripheralHeard {
            s.peripheralHeard = true
            hot.linkSilenceDeadline = .min  // the timeout in force changed
            // The peripheral answered its CONNECT_IND: the connection is established.
            if let a = s.attempt {
                s.attempt = nil
                hot.queue.update(a.sequence) { $0.outcome = .none }
            }
        }
        if ll.isRetransmission { s.counters.retransmissions += 1 }
        if r.radio.sender == .peripheral, r.radio.flags.contains(.rssiValid) { snifferRSSI(c, r) }
        if let timing = anchor(&s, r) {
            c.setTiming(timing, frame: r.frame)
            add(event(r, c, .connectionUpdate(status: 0, timing: timing)))
            if let applied = s.appliedUpdate {
                s.appliedUpdate = nil
                c.setWindow(
                    offset: applied.windowOffset, size: applied.windowSize, instant: applied.instant,
                    announcedFrame: applied.frame)
            }
        }
        if s.pendingPHY != nil || s.pendingChannelMap != nil { reachInstants(&s, c, r) }
        if let note = ll.decryption { add(event(r, c, .linkLayerDecryption(note))) }
        if ll.isDecrypted {
            s.counters.decryptedPDUs += 1
        } else if !ll.isEncrypted, !ll.isRetransmission, !d.isEmpty,
            r.radio.flags.contains(.decrypted)
                || (r.radio.flags.contains(.micChecked) && r.radio.flags.contains(.micValid))
        {
            s.counters.snifferDecryptedPDUs += 1
        }
        if ll.micFailure { s.counters.micFailures += 1 }
        // The sniffer checked the MIC and it failed: a 256 sniffer says so (MIC checked, not
        // valid); the nRF Sniffer flags every PDU it could not decrypt alike, so only on a link
        // whose other PDUs it decrypted (it had the key) does that mean a bad MIC.
        let sniffedMICFailure =
            !d.isEmpty && r.radio.flags.contains(.micChecked) && !r.radio.flags.contains(.micValid)
            && (!r.radio.flags.contains(.encryptionKnown) || s.counters.snifferDecryptedPDUs > 0)
        if ll.micFailure || (sniffedMICFailure && !ll.isRetransmission) {
            s.counters.lastMICFailure = LinkLayerMark(
                frame: r.frame, time: r.timestamp,
                byCentral: r.radio.sender == .unknown ? nil : r.radio.sender == .central)
        }
        if ll.isEncrypted {
            s.counters.encryptedPDUs += 1
            if s.counters.encryptedFromFrame == nil {
                s.counters.encryptedFromFrame = r.frame
                add(event(r, c, .linkLayerEncrypted(firstFrame: r.frame)))
            }
        }
        noteSilenceClock(s)
        return !ll.isRetransmission && !ll.isEncrypted
    }

    private func advertising(_ a: LLAdvertisingPDU, _ ll: LinkLayerFrame, _ r: CaptureRecord) {
        guard ll.crc != .invalid else { return }
        if a.pduType == LLAdvertisingPDUType.connectInd, let ci = a.connectIndication, ll.connection != 0 {
            // A device connects to an advertiser it is still connected to mostly after that link
            // ended: an hot.open link to the same AdvA whose end the capture did not show (no
            // LL_TERMINATE_IND, a sniffer that hides empty PDUs) was lost once its timeout in
            // force has run out with nothing on it; until then it is `superseded`. So was a link
            // silent past its timeout on the access address this one takes.
            let ended = hot.open.values.filter { old in
                guard let s = old.linkLayer, old.handle != ll.connection else { return false }
                return old.peer == a.advA || (s.silentPastTimeout && s.counters.accessAddress == ci.accessAddress)
            }
            for old in ended.sorted(by: { $0.number < $1.number }) {
                guard let s = old.linkLayer else { continue }
                if s.silentPastTimeout || Self.lossTime(s).map({ r.timestamp &- $0 > 0 }) ?? true {
                    linkLost(old, r)
                } else {
                    old.linkLayer!.superseded = true
                    hot.linkSilenceDeadline = .min
                }
            }
            if terminatedLink?.handle == ll.connection { terminatedLink = nil }
            let c = startConnection(
                handle: ll.connection, peer: a.advA, peerType: a.rxAdd ? 1 : 0, role: 0, isLE: true, r)
            var s = LinkLayerConnectionState()
            s.counters.accessAddress = ci.accessAddress
            s.interval = ci.intervalMicroseconds
            s.supervisionTimeout = ci.timeoutMicroseconds
            s.lastTime = r.timestamp
            s.fromConnectInd = true
            // The connection starts on the PHY its CONNECT_IND (LE 1M, primary channel) or
            // AUX_CONNECT_REQ was sent on (4.5.1), and hops over the channels of its ChM.
            let phy = Self.hciPHY(radio: r.radio.phy)
            (s.counters.txPHY, s.counters.rxPHY) = (phy, phy)
            s.counters.channelMap = ci.channelMap & LinkLayerCounters.dataChannels
            c.linkLayer = s
            let timing = ConnectionTiming(interval: ci.interval, latency: ci.latency, supervisionTimeout: ci.timeout)
            let info = ConnectionCompleteInfo(
                status: 0, handle: ll.connection, role: 0, timing: timing, isLE: true, overTheAir: true)
            // Pending until the peripheral answers or the attempt fails (`decideAttempts`).
            let deadline =
                r.timestamp &+ 1250 &+ Int64(ci.windowOffset) &* 1250 &+ Int64(ci.windowSize) &* 1250
                &+ 6 &* ci.intervalMicroseconds
            c.setTiming(timing, frame: r.frame)
            let sequence = add(event(r, c, .connectionComplete(info)), pendingUntil: deadline &+ 1_000_000)
            c.setWindow(offset: Int64(ci.windowOffset) * 1250, size: Int64(ci.windowSize) * 1250)
            c.linkLayer!.attempt = (sequence, deadline, info)
            hot.attemptDeadline = min(hot.attemptDeadline, deadline)
            return
        }
        // What a scanning host would get as advertising reports: the advertiser's PDUs.
        let eventType: UInt16
        switch a.pduType {
        case LLAdvertisingPDUType.advInd: eventType = 0
        case LLAdvertisingPDUType.advDirectInd: eventType = 1
        case LLAdvertisingPDUType.advScanInd: eventType = 2
        case LLAdvertisingPDUType.advNonconnInd: eventType = 3
        case LLAdvertisingPDUType.scanRsp: eventType = 4
        case LLAdvertisingPDUType.advExtInd where r.radio.channel < 37: eventType = 0xFFFF
        default: return
        }
        guard let adv = a.advA else { return }
        var ev = event(
            r, nil,
            .advertisement(
                AdvertisementInfo(
                    extended: eventType == 0xFFFF, eventType: eventType == 0xFFFF ? 0 : eventType,
                    rssi: r.radio.flags.contains(.rssiValid) ? r.radio.rssi : 127,
                    txPower: a.extendedHeader?.txPower, primaryPHY: nil)))
        ev.peer = adv
        ev.peerAddressType = a.txAdd ? 1 : 0
        ev.value = InlineBytes(a.advertisingData ?? .empty)
        add(ev)
    }

    /// A central PDU more than half an interval after the last one (or any PDU with a new nRF
    /// Sniffer event counter) opens a connection event;
    /// the events between two anchors that showed nothing count as missed. When a pending
    /// LL_CONNECTION_UPDATE_IND's instant is reached (the nRF Sniffer's event counter says so,
    /// or the anchor lies past the old timing's anchor of the instant), the new timing applies
    /// and is returned: the instant event's anchor is in the transmit window, 1.25 ms +
    /// WinOffset after where the old timing would have put it (4.5.5.1), and the events after
    /// it are counted at the new interval.
    private func anchor(_ s: inout LinkLayerConnectionState, _ r: CaptureRecord) -> ConnectionTiming? {
        let counterValid = r.radio.flags.contains(.eventCounterValid)
        // With the nRF Sniffer's counter any PDU tells its event (the sniffer often misses the
        // central's and keeps the peripheral's answer); without it the central's opens one.
        guard r.radio.sender == .central || counterValid else { return nil }
        let counter = Int(r.radio.eventCounter)
        guard let interval = s.interval, interval > 0 else {
            // A link seen mid-connection: only the nRF Sniffer's counter places an instant.
            guard counterValid, let p = s.pendingUpdate, Self.reached(p.instant, counter) else { return nil }
            s.eventCounter = counter
            s.lastAnchor = r.timestamp
            return apply(p, &s)
        }
        var applied: ConnectionTiming?
        var events: Int64 = 0
        if let last = s.lastAnchor {
            let gap = r.timestamp &- last
            if counterValid, let ec = s.eventCounter {
                guard ec != counter else { return nil }
                // A peripheral's PDU opens an event only where its counter agrees with the time
                // since the last anchor (bsniffhub's nRF output numbers some of them 0), and not
                // across a pending update's change of interval.
                if r.radio.sender != .central {
                    let ahead = Int64(UInt16(truncatingIfNeeded: counter &- ec))
                    guard s.pendingUpdate == nil, ahead < 0x8000, ahead <= (gap + interval / 2) / interval + 1 else {
                        return nil
                    }
                }
            } else {
                guard gap > interval / 2 else { return nil }
            }
            if let p = s.pendingUpdate {
                if counterValid {
                    if Self.reached(p.instant, counter) { applied = apply(p, &s) }
                } else if let ec = s.eventCounter {
                    let toInstant = Int64(p.instant &- UInt16(truncatingIfNeeded: ec))
                    let instantTime = last &+ toInstant &* interval
                    if toInstant < 0x8000, r.timestamp >= instantTime &- interval / 2 {
                        applied = apply(p, &s)
                        let newInterval = s.interval ?? interval
                        let windowStart = instantTime &+ 1250 &+ p.windowOffset
                        let after =
                            newInterval > 0 ? max(0, (r.timestamp &- windowStart &+ newInterval / 2) / newInterval) : 0
                        events = toInstant &+ after
                    }
                }
            }
            if counterValid, let ec = s.eventCounter {
                // A counter that went back (the sniffer resynchronised) counts no event missed.
                let ahead = Int64(UInt16(truncatingIfNeeded: counter &- ec))
                events = ahead < 0x8000 ? ahead : 0
            } else if applied == nil {
                events = (gap + interval / 2) / interval
            }
            if events > 1 { s.counters.missedEvents += Int(min(events - 1, 1 << 20)) }
        } else if counterValid, let p = s.pendingUpdate, Self.reached(p.instant, counter) {
            applied = apply(p, &s)
        }
        s.lastAnchor = r.timestamp
        if counterValid {
            s.eventCounter = counter
        } else if let ec = s.eventCounter {
            s.eventCounter = ec &+ Int(min(events, 1 << 20))
        } else if s.fromConnectInd {
            s.eventCounter = 0  // the first event after CONNECT_IND is event 0
        }
        return applied
    }

    /// A pending LL_CONNECTION_UPDATE_IND's timing becomes the link's.
    private func apply(_ p: PendingUpdate, _ s: inout LinkLayerConnectionState) -> ConnectionTiming {
        s.pendingUpdate = nil
        s.appliedUpdate = p
        s.interval = Int64(p.timing.interval) * 1250
        s.supervisionTimeout = Int64(p.timing.supervisionTimeout) * 10_000
        hot.linkSilenceDeadline = .min
        return p.timing
    }

    /// `sender`: the capture's, or the MIC's for a decrypted PDU (`LinkLayerFrame.senderPerMIC`).
    private func control(_ p: LLControlPDU, _ c: ConnectionState, _ r: CaptureRecord, sender: LinkLayerRadio.Sender) {
        let byCentral: Bool? = sender == .unknown ? nil : sender == .central
        switch p.opcode {
        case LLControlOpcode.terminateInd:
            let reason = p.errorCode ?? 0
            let side: DisconnectionSide =
                switch reason {
                case HCIError.connectionTimeout, HCIError.llResponseTimeout, HCIError.connectionTerminatedMICFailure:
                    .linkLoss
                default: byCentral == false ? .remote : .local
                }
            add(event(r, c, .disconnection(status: 0, reason: reason, side: side)))
            c.endReason = reason
            c.endSide = side
            close(c, r, outcome: .disconnected(frame: r.frame), endFrame: r.frame)
            // The peer acknowledges (an empty PDU, 5.1.6) and the sender may repeat it until then.
            terminatedLink = (c.handle, r.timestamp, c.linkLayer?.supervisionTimeout ?? 6_000_000)
        case LLControlOpcode.connectionUpdateInd:
            guard let u = p.connectionUpdate else { return }
            let t = ConnectionTiming(interval: u.interval, latency: u.latency, supervisionTimeout: u.timeout)
            fact(p, byCentral, c, r)
            notePassedInstant(p, u.instant, byCentral, c, r)
            if c.linkLayer?.eventCounter != nil || r.radio.flags.contains(.eventCounterValid) {
                // Takes effect at its instant (4.5.5): connection.update is placed there.
                c.linkLayer?.pendingUpdate = (
                    u.instant, t, Int64(u.windowOffset) * 1250, Int64(u.windowSize) * 1250, r.frame
                )
                hot.linkSilenceDeadline = .min  // the silence allowed now reaches past the instant
            } else {
                // Without an event count (mid-capture start, no nRF counter) the instant cannot
                // be placed: the update applies at the PDU.
                c.linkLayer?.interval = Int64(u.interval) * 1250
                c.linkLayer?.supervisionTimeout = Int64(u.timeout) * 10_000
                hot.linkSilenceDeadline = .min  // a shorter timeout: look again at the next record
                c.setTiming(t, frame: r.frame)
                add(event(r, c, .connectionUpdate(status: 0, timing: t)))
                c.setWindow(offset: Int64(u.windowOffset) * 1250, size: Int64(u.windowSize) * 1250)
            }
        case LLControlOpcode.phyUpdateInd:
            guard let u = p.phyUpdate, var s = c.linkLayer else { return }
            fact(p, byCentral, c, r)
            if u.centralToPeripheral != 0 || u.peripheralToCentral != 0 {
                notePassedInstant(p, u.instant, byCentral, c, r)
            }
            s.counters.instantPassed = c.linkLayer?.counters.instantPassed
            let tx = Self.hciPHY(bits: u.centralToPeripheral)
            let rx = Self.hciPHY(bits: u.peripheralToCentral)
            // Both 0: no change, and the Instant is meaningless (5.1.10): the procedure ends here.
            // Otherwise the new PHYs apply from the instant (4.5.5), when it can be placed.
            if (tx != 0 || rx != 0) && Self.eventCounter(s, r) != nil {
                s.pendingPHY = (u.instant, tx, rx)
            } else {
                applyPHY(&s, tx: tx, rx: rx, c, r)
            }
            c.linkLayer = s
        case LLControlOpcode.channelMapInd:
            guard let m = p.channelMap, var s = c.linkLayer else { return }
            fact(p, byCentral, c, r)
            notePassedInstant(p, m.instant, byCentral, c, r)
            s.counters.instantPassed = c.linkLayer?.counters.instantPassed
            let map = m.map & LinkLayerCounters.dataChannels
            if Self.eventCounter(s, r) != nil {
                s.pendingChannelMap = (m.instant, map)
            } else {
                applyChannelMap(&s, map, c, r)
            }
            c.linkLayer = s
        case LLControlOpcode.lengthReq, LLControlOpcode.lengthRsp:
            guard let l = p.dataLength else { return }
            let central = byCentral ?? (p.opcode == LLControlOpcode.lengthReq)
            if p.opcode == LLControlOpcode.lengthReq {
                c.linkLayer?.lastLengthRequest = (l.maxRxOctets, l.maxTxOctets, central)
                fact(p, byCentral, c, r)
            } else if let q = c.linkLayer?.lastLengthRequest {
                // Each direction's maximum is the smaller of what its sender may send and its
                // receiver may take (4.5.10), from the central's side as tx.
                let (cRx, cTx, pRx, pTx) =
                    q.byCentral
                    ? (q.maxRx, q.maxTx, l.maxRxOctets, l.maxTxOctets)
                    : (l.maxRxOctets, l.maxTxOctets, q.maxRx, q.maxTx)
                add(event(r, c, .dataLengthChange(maxTxOctets: min(cTx, pRx), maxRxOctets: min(cRx, pTx))))
            } else {
                fact(p, byCentral, c, r)
            }
        case LLControlOpcode.encReq:
            fact(p, byCentral, c, r)
            c.linkLayer?.encryptionRequested = true
        case LLControlOpcode.rejectInd, LLControlOpcode.rejectExtInd:
            fact(p, byCentral, c, r)
            // The encryption start refused (5.1.3.1: LL_REJECT_IND, or LL_REJECT_EXT_IND naming
            // LL_ENC_REQ): the central's host gets an Encryption Change with that error (0x06
            // when the peripheral's host has no key for the bond).
            if c.linkLayer?.encryptionRequested == true, c.linkLayer?.encryptionAnnounced != true,
                p.opcode == LLControlOpcode.rejectInd || p.referencedOpcode == LLControlOpcode.encReq,
                let code = p.errorCode, code != 0
            {
                c.linkLayer?.encryptionRequested = false
                add(event(r, c, .encryptionChange(status: code, enabled: 0)))
            }
        case LLControlOpcode.startEncRsp:
            // The central's LL_START_ENC_RSP is the first encrypted PDU (4.6.8.2): sniffers that
            // decrypt show it; the procedure is then complete on both sides.
            if c.linkLayer?.encryptionAnnounced != true {
                c.linkLayer?.encryptionAnnounced = true
                add(event(r, c, .encryptionChange(status: 0, enabled: 1)))
            }
        default:
            fact(p, byCentral, c, r)
        }
    }

    /// Notes an instant already past in the connection event that carries its PDU (at least
    /// one event past: 5.5.1); the receiver cannot apply it and leaves the link.
    private func notePassedInstant(
        _ p: LLControlPDU, _ instant: UInt16, _ byCentral: Bool?, _ c: ConnectionState, _ r: CaptureRecord
    ) {
        guard let s = c.linkLayer, let counter = Self.eventCounter(s, r) else { return }
        let event = UInt16(truncatingIfNeeded: counter)
        guard event != instant, Self.reached(instant, counter) else { return }
        c.linkLayer?.counters.instantPassed = LinkLayerInstantPassed(
            pdu: LinkLayerMark(frame: r.frame, time: r.timestamp, byCentral: byCentral), opcode: p.opcode,
            instant: instant, event: event)
    }

    /// The connection event counter of this PDU's event: the nRF Sniffer's, else the one
    /// counted at the central's anchors; nil while unknown. An instant that cannot be placed
    /// applies at its PDU, as on a connection whose start the capture missed.
    static func eventCounter(_ s: LinkLayerConnectionState, _ r: CaptureRecord) -> Int? {
        r.radio.flags.contains(.eventCounterValid) ? Int(r.radio.eventCounter) : s.eventCounter
    }

    /// Whether connection event `counter` is at or past `instant` (both modulo 65536, an
    /// instant at most 32767 events ahead: 4.5.1).
    static func reached(_ instant: UInt16, _ counter: Int) -> Bool {
        UInt16(truncatingIfNeeded: counter) &- instant < 0x8000
    }

    /// Applies the LL_PHY_UPDATE_IND or LL_CHANNEL_MAP_IND waiting for an instant this PDU's
    /// connection event has reached.
    private func reachInstants(_ s: inout LinkLayerConnectionState, _ c: ConnectionState, _ r: CaptureRecord) {
        guard let counter = Self.eventCounter(s, r) else { return }
        if let p = s.pendingPHY, Self.reached(p.instant, counter) {
            s.pendingPHY = nil
            applyPHY(&s, tx: p.tx, rx: p.rx, c, r)
        }
        if let m = s.pendingChannelMap, Self.reached(m.instant, counter) {
            s.pendingChannelMap = nil
            applyChannelMap(&s, m.map, c, r)
        }
    }

    /// The new PHYs (0: that direction unchanged) become the connection's; connection.phy
    /// gives both directions as they are now (0 only for an unchanged PHY never learned).
    private func applyPHY(
        _ s: inout LinkLayerConnectionState, tx: UInt8, rx: UInt8, _ c: ConnectionState, _ r: CaptureRecord
    ) {
        if tx != 0 { s.counters.txPHY = tx }
        if rx != 0 { s.counters.rxPHY = rx }
        let (txPHY, rxPHY) = (s.counters.txPHY ?? 0, s.counters.rxPHY ?? 0)
        c.phy = (txPHY, rxPHY)
        add(event(r, c, .phyUpdate(status: 0, txPHY: txPHY, rxPHY: rxPHY)))
    }

    private func applyChannelMap(
        _ s: inout LinkLayerConnectionState, _ map: UInt64, _ c: ConnectionState, _ r: CaptureRecord
    ) {
        s.counters.channelMap = map
        add(event(r, c, .channelMapUpdate(map: map)))
    }

    /// An LL_PHY_UPDATE_IND's PHY field (one bit: 1M 0x01, 2M 0x02, Coded 0x04; 2.4.2.23) as
    /// HCI numbers PHYs (1, 2, 3); 0 unchanged.
    static func hciPHY(bits: UInt8) -> UInt8 { bits & 1 != 0 ? 1 : bits & 2 != 0 ? 2 : bits & 4 != 0 ? 3 : 0 }

    /// One sample of the peripheral's RSSI at the sniffer per `RSSIHistory.snifferSpacing`.
    @inline(never)
    private func snifferRSSI(_ c: ConnectionState, _ r: CaptureRecord) {
        if let last = c.rssi.samples.last, r.timestamp &- last.time < RSSIHistory.snifferSpacing { return }
        c.rssi.add(RSSISample(frame: r.frame, time: r.timestamp, dBm: r.radio.rssi, source: .sniffer))
    }

    /// The radio's PHY (0 LE 1M, 1 LE 2M, 2 LE Coded) as HCI numbers it.
    static func hciPHY(radio: UInt8) -> UInt8 { radio <= 2 ? radio &+ 1 : 1 }

    private func fact(_ p: LLControlPDU, _ byCentral: Bool?, _ c: ConnectionState, _ r: CaptureRecord) {
        var e = event(r, c, .linkLayerControl(opcode: p.opcode, sentByCentral: byCentral, instant: p.instant))
        e.value = InlineBytes(p.ctrData)
        add(e)
        if p.opcode == LLControlOpcode.startEncReq, byCentral != true, c.linkLayer?.encryptionAnnounced != true {
            c.linkLayer?.encryptionAnnounced = true
            add(event(r, c, .encryptionChange(status: 0, enabled: 1)))
        }
    }

    /// Marks every link-layer connection silent for longer than the supervision timeout in
    /// force (4.5.2) as `silentPastTimeout`: lost, unless its access address carries PDUs again
    /// (the sniffer lost it). Silence is evidence only from a sniffer that records empty PDUs on
    /// the link (it follows every connection event): the nRF Sniffer can hide them, and an idle
    /// healthy link then shows gaps far longer than its timeout (the generated captures without
    /// `--empty-pdus`: 1 s notifications on a 720 ms timeout).
    ///
    /// The scan runs only once a record is later than `linkSilenceDeadline`, the earliest time
    /// one of the links could have gone silent for too long (each scan sets it from what it saw;
    /// every change to a link's last time, timeout or empty-PDU count lowers it), instead of
    /// walking every hot.open connection at every packet.
    func expireSilentLinks(_ r: CaptureRecord) {
        if r.timestamp <= hot.linkSilenceDeadline, Self.inSilenceClockRange(r.timestamp) { return }
        guard !hot.open.isEmpty else { return }
        var deadline = Int64.max
        var lost: [ConnectionState] = []
        for c in hot.open.values {
            guard let s = c.linkLayer, !s.silentPastTimeout else { continue }
            let until = Self.silenceDeadline(s)
            if until == .min ? Self.silentTooLong(s, r.timestamp) : r.timestamp > until {
                c.linkLayer!.silentPastTimeout = true
                if s.superseded { lost.append(c) }
            } else {
                deadline = min(deadline, until)
            }
        }
        hot.linkSilenceDeadline = deadline
        for c in lost.sorted(by: { $0.number < $1.number }) { linkLost(c, r) }
    }

    /// The supervision timeout in force (µs): 6 intervals until the peripheral has answered
    /// the CONNECT_IND (4.5.2), else the link's.
    static func timeoutInForce(_ s: LinkLayerConnectionState) -> Int64? {
        if s.fromConnectInd, !s.peripheralHeard, let interval = s.interval { return 6 &* interval }
        return s.supervisionTimeout
    }

    /// When a link silent since `s.lastTime` has exceeded the timeout in force, a pending
    /// connection update counted in: the link may then stay silent until its instant's transmit
    /// window has passed plus the new timeout (the old timing's anchors end at the instant).
    static func lossTime(_ s: LinkLayerConnectionState) -> Int64? {
        guard let timeout = timeoutInForce(s) else { return nil }
        var until = s.lastTime &+ timeout
        if let p = s.pendingUpdate, let ec = s.eventCounter, let anchor = s.lastAnchor, let interval = s.interval {
            let toInstant = Int64(p.instant &- UInt16(truncatingIfNeeded: ec))
            if toInstant < 0x8000 {
                let window = anchor &+ toInstant &* interval &+ 1250 &+ p.windowOffset &+ p.windowSize
                until = max(until, window &+ Int64(p.timing.supervisionTimeout) * 10_000)
            }
        }
        return until
    }

    static func silentTooLong(_ s: LinkLayerConnectionState, _ now: Int64) -> Bool {
        guard s.counters.emptyPDUs > 0 || s.superseded, let until = lossTime(s) else { return false }
        return now &- until > 0
    }

    /// Ends `c`, silent past its timeout (or superseded by a CONNECT_IND), as link loss at `r`:
    /// Connection Timeout. A CONNECT_IND still waiting for its answer is a failed attempt
    /// instead (`failAttempt`); one whose wait ended undecided and which never heard the
    /// peripheral ends with Connection Failed to be Established. The connection's end time is
    /// when the timeout ran out.
    func linkLost(_ c: ConnectionState, _ r: CaptureRecord) {
        if c.linkLayer?.attempt != nil, failAttempt(c, r) { return }
        let s = c.linkLayer
        let failed = s.map { $0.fromConnectInd && !$0.peripheralHeard } ?? false
        let reason = failed ? HCIError.connectionFailedToBeEstablished : HCIError.connectionTimeout
        add(event(r, c, .disconnection(status: 0, reason: reason, side: .linkLoss)))
        c.endReason = reason
        c.endSide = .linkLoss
        var at = r
        if let s, s.silentPastTimeout, let t = Self.lossTime(s), t < r.timestamp { at.timestamp = t }
        close(c, at, outcome: .disconnected(frame: r.frame), endFrame: r.frame)
    }

    /// End of capture: the CONNECT_INDs whose 6 intervals passed unanswered were failed
    /// attempts; the links still silent past their timeout were lost (reported at the
    /// capture's last link-layer record).
    func finishLinkLayer() {
        guard let l = hot.lastLinkRecord else { return }
        let last = CaptureRecord(
            frame: l.frame, timestamp: l.time, direction: .unknown, kind: .linkLayer, rawType: 0,
            controllerIndex: l.controller, payload: .empty, originalLength: 0, fileOffset: 0, recordLength: 0)
        if hot.attemptDeadline != .max { decideAttempts(last, dataOn: 0, endOfCapture: true) }
        let silent = hot.open.values.filter {
            $0.linkLayer?.silentPastTimeout == true
                || ($0.linkLayer.map { Self.silentTooLong($0, last.timestamp) } ?? false)
        }
        for c in silent.sorted(by: { $0.number < $1.number }) {
            c.linkLayer?.silentPastTimeout = true
            linkLost(c, last)
        }
    }

    /// Decides the CONNECT_INDs whose wait for the peripheral (`LinkLayerConnectionState.attempt`)
    /// ended by `r`: 6 intervals after the transmit window (4.5.2) a central gives up on a
    /// peripheral that never answered. The attempt failed when the capture shows that silence:
    /// the sniffer recorded the link's empty PDUs (it follows every event), a later CONNECT_IND
    /// superseded it, or nothing at all was heard on its access address. Otherwise (a sniffer
    /// that hides empty PDUs, a PDU on the link now, past the point a central stops polling) it
    /// is a connection. At the end of the capture, an attempt whose 6 intervals have not passed
    /// stays a connection (hot.open).
    func decideAttempts(_ r: CaptureRecord, dataOn handle: UInt16, endOfCapture: Bool = false) {
        var next = Int64.max
        var failed: [ConnectionState] = []
        for c in hot.open.values {
            guard let s = c.linkLayer, let a = s.attempt else { continue }
            if r.timestamp <= a.deadline, !endOfCapture {
                next = min(next, a.deadline)
                continue
            }
            if r.timestamp > a.deadline, c.handle != handle,
                s.counters.emptyPDUs > 0 || s.superseded || s.counters.dataPDUs == 0
            {
                failed.append(c)
            } else {
                c.linkLayer!.attempt = nil
                hot.queue.update(a.sequence) { $0.outcome = .none }
            }
        }
        hot.attemptDeadline = next
        for c in failed.sorted(by: { $0.number < $1.number }) where !failAttempt(c, r) { linkLost(c, r) }
    }

    /// Turns the CONNECT_IND of `c` into a failed attempt: its held connection.complete becomes
    /// connection.failed with 0x3E Connection Failed to be Established (the event an HCI host
    /// gets for it, 7.7.65.1), with no connection number; the events the attempt made since
    /// (the central's PDUs) keep their peer and lose the number, which the next connection
    /// takes when none was numbered since. `connectionEnded` is not called: an attempt is no
    /// connection. False when its event has left the hot.queue already (the hot.queue overflowed):
    /// the caller then ends it as a connection.
    @discardableResult
    func failAttempt(_ c: ConnectionState, _ r: CaptureRecord) -> Bool {
        guard let a = c.linkLayer?.attempt, hot.queue.isPending(a.sequence) else {
            c.linkLayer?.attempt = nil
            return false
        }
        c.linkLayer!.attempt = nil
        var info = a.info
        info.status = HCIError.connectionFailedToBeEstablished
        let number = c.number
        let ended = Outcome.disconnected(frame: r.frame)
        hot.queue.update(a.sequence) {
            $0.kind = .connectionFailed(info)
            $0.connection = nil
            $0.outcome = .none
        }
        hot.queue.updateAll(after: a.sequence) {
            guard $0.connection == number else { return }
            $0.connection = nil
            if $0.outcome == .pending { $0.outcome = ended }
        }
        c.outstanding = (nil, nil)
        c.outstandingIndication = (nil, nil)
        c.parameterRequest = nil
        c.endTime = r.timestamp
        setOpen(ConnectionKey(controller: c.controllerIndex, handle: c.handle), nil)
        if connectionCount == number { connectionCount -= 1 }
        return true
    }

    /// Times whose differences cannot overflow: within this range `now &- last > timeout` is
    /// `now > last + timeout`, which one deadline per scan can stand for.
    static func inSilenceClockRange(_ t: Int64) -> Bool { t > -(1 << 60) && t < 1 << 60 }

    /// When `s` would count as silent for too long: never (`.max`) while it has no timeout or
    /// has shown no empty PDU; `.min` (scan at every record) for times outside the safe range.
    @inline(__always)
    static func silenceDeadline(_ s: LinkLayerConnectionState) -> Int64 {
        guard s.counters.emptyPDUs > 0 || s.superseded, !s.silentPastTimeout, let timeout = timeoutInForce(s) else {
            return .max
        }
        guard inSilenceClockRange(s.lastTime), inSilenceClockRange(timeout), let until = lossTime(s),
            inSilenceClockRange(until)
        else { return .min }
        return until
    }

    /// A link's silence clock changed (a packet on it, a new timeout): its deadline may be the
    /// earliest now. Inlined with `silenceDeadline`: called with the state `dataPDU` holds in
    /// place, a call copied the whole state for every PDU (docs/performance.md).
    @inline(__always)
    func noteSilenceClock(_ s: LinkLayerConnectionState) {
        hot.linkSilenceDeadline = min(hot.linkSilenceDeadline, Self.silenceDeadline(s))
    }

    /// The hot.open connection of a link-layer connection number: the one of the previous data PDU
    /// when it is still open (no dictionary lookup for the usual run of PDUs on one link),
    /// else `connection(_:_:)`.
    func linkConnection(_ number: UInt16, _ r: CaptureRecord) -> ConnectionState? {
        if let c = hot.lastLinkConnection, c.endTime == nil, c.handle == number, c.controllerIndex == r.controllerIndex
        {
            return c
        }
        let c = connection(number, r)
        hot.lastLinkConnection = c
        return c
    }
}

extension LinkLayerFrame {
    /// The connection number of a data channel PDU; 0 for advertising and truncated ones.
    var dataConnection: UInt16 {
        if case .data = pdu { return connection }
        return 0
    }
}
