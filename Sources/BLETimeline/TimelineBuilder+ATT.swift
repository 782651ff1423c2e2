import BLEBytes
import BLEPackets
import CaptureIO

/// ATT and GATT (Core 5.4 Vol 3 Parts F and G), per connection: requests are paired with
/// their responses on the same connection only, one outstanding request per direction
/// (Vol 3 Part F 3.3.2), so two peers' transactions never mix.
extension TimelineBuilder {
    static let primaryService = BluetoothUUID(uuid16: GATTDeclaration.primaryService)
    static let secondaryService = BluetoothUUID(uuid16: GATTDeclaration.secondaryService)
    static let includeDeclaration = BluetoothUUID(uuid16: GATTDeclaration.include)
    static let characteristicDeclaration = BluetoothUUID(uuid16: GATTDeclaration.characteristic)

    func l2cap(_ pdu: L2CAPPDU, _ r: CaptureRecord) {
        // The usual case, a run of packets on one handle: the connection lent, not retained
        // (see `lastLookedUp`).
        if let cached = cachedConnection(pdu.handle, r) {
            cached._withUnsafeGuaranteedRef { l2cap(pdu, on: $0, r) }
            return
        }
        let c: ConnectionState
        if let open = connection(pdu.handle, r, create: false) {
            c = open
        } else {
            // A handle no Connection Complete announced is a link that started before the
            // capture only when its bytes show it: a PDU that is exactly one well-formed ATT,
            // SMP or LE signalling PDU. Some controllers send vendor debug records as ACL on
            // handles such as 0x0EDC, with counters where the channel number goes; those must
            // not become connections (issue 17: infocar frame 757 reads as a 481-byte "Read
            // Request" on channel 0x0004).
            guard Self.showsLELink(pdu), let created = connection(pdu.handle, r) else { return }
            c = created
        }
        l2cap(pdu, on: c, r)
    }

    /// An L2CAP PDU on a connection the caller already holds (a link-layer data PDU's: no
    /// second lookup by handle).
    func l2cap(_ pdu: L2CAPPDU, on c: ConnectionState, _ r: CaptureRecord) {
        let sent = pdu.direction == .sent
        switch pdu.channel {
        case L2CAPChannel.att:
            attObserver?(
                ATTObservation(
                    connection: c.number, sentByHost: sent, frame: r.frame, time: r.timestamp,
                    pdu: pdu.payload))
            att(pdu.payload, c, sent, r)
        case L2CAPChannel.leSignaling: signaling(pdu.payload, c, sent, r)
        case L2CAPChannel.smp: smp(pdu.payload, c, sent, r)
        default: break
        }
    }

    /// LE signalling commands (Core 5.4 Vol 3 Part A 4, Table 4.2 "LE-U" column).
    static let leSignalingCodes: Set<UInt8> = [0x01, 0x06, 0x07, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A]

    /// Whether an L2CAP PDU is one the LE fixed channels carry, complete and well formed.
    static func showsLELink(_ pdu: L2CAPPDU) -> Bool {
        switch pdu.channel {
        case L2CAPChannel.att: return ATTPDU.isWellFormed(pdu.payload)
        case L2CAPChannel.smp: return SMPCode.isWellFormed(pdu.payload)
        case L2CAPChannel.leSignaling:
            // Code, identifier, length, then exactly `length` bytes, one command per C-frame.
            guard let command = L2CAPSignalingCommands(pdu.payload, le: true).first,
                leSignalingCodes.contains(command.code)
            else { return false }
            return pdu.payload.count == 4 + Int(command.declaredLength)
        default: return false
        }
    }

    // MARK: ATT

    func att(_ bytes: ByteView, _ c: ConnectionState, _ sent: Bool, _ r: CaptureRecord) {
        guard let op = ATTPDUHeader(bytes)?.opcode else { return }
        // Every PDU bounds ATT_MTU from below (what a capture that missed the exchange knows).
        if bytes.count > c.largestATTPDU { c.largestATTPDU = bytes.count }
        switch ATTPDU(bytes) {
        case .exchangeMTURequest(let m):
            let e = event(
                r, c, .mtuExchange(clientRxMTU: m.clientRxMTU, serverRxMTU: nil, effective: c.mtu, sent: sent))
            request(
                e, c, sent, r,
                PendingRequest(
                    sequence: 0, opcode: op, frame: r.frame, time: r.timestamp,
                    clientRxMTU: m.clientRxMTU))
        case .findInformationRequest(let f):
            discoveryRequest(.descriptors, f.startingHandle, f.endingHandle, filter: nil, op, c, sent, r)
        case .findByTypeValueRequest(let f):
            let target: DiscoveryTarget =
                f.attributeType == GATTDeclaration.secondaryService ? .secondaryServices : .primaryServices
            discoveryRequest(
                target, f.startingHandle, f.endingHandle,
                filter: BluetoothUUID(littleEndian: f.attributeValue), op, c, sent, r)
        case .readByGroupTypeRequest(let q):
            let target: DiscoveryTarget = q.groupType == Self.secondaryService ? .secondaryServices : .primaryServices
            discoveryRequest(target, q.startingHandle, q.endingHandle, filter: nil, op, c, sent, r)
        case .readByTypeRequest(let q):
            if q.attributeType == Self.characteristicDeclaration {
                discoveryRequest(.characteristics, q.startingHandle, q.endingHandle, filter: nil, op, c, sent, r)
            } else if q.attributeType == Self.includeDeclaration {
                discoveryRequest(.includes, q.startingHandle, q.endingHandle, filter: nil, op, c, sent, r)
            } else {
                // Read Using Characteristic UUID (Vol 3 Part G 4.8.2): named by the type asked for.
                var o = operation(op, q.startingHandle, c, sent, serverSent: false, offset: nil)
                if let t = q.attributeType {
                    o.attribute = AttributeRef(
                        role: .value, handle: q.startingHandle, uuid: t, characteristic: nil,
                        properties: nil, carriedOver: false)
                }
                request(event(r, c, .read(o, .byType)), c, sent, r, pending(op, r))
            }
        case .readRequest(let q):
            readRequest(q.handle, .read, offset: nil, op, c, sent, r)
        case .readBlobRequest(let q):
            readRequest(q.handle, .blob, offset: q.offset, op, c, sent, r)
        case .readMultipleRequest(let q):
            var first: UInt16 = 0
            for h in q.handles {
                first = h.handle
                break
            }
            readRequest(first, .multiple, offset: nil, op, c, sent, r)
        case .readMultipleVariableRequest(let q):
            var first: UInt16 = 0
            for h in q.handles {
                first = h.handle
                break
            }
            readRequest(first, .multipleVariable, offset: nil, op, c, sent, r)
        case .writeRequest(let w):
            write(w.handle, w.value, .request, offset: nil, op, c, sent, r)
        case .writeCommand(let w):
            write(w.handle, w.value, .command, offset: nil, op, c, sent, r)
        case .signedWriteCommand(let w):
            write(w.handle, w.value, .signed, offset: nil, op, c, sent, r)
        case .prepareWriteRequest(let w):
            write(w.handle, w.partValue, .prepare, offset: w.offset, op, c, sent, r)
        case .executeWriteRequest(let x):
            write(0, .empty, .execute, offset: UInt16(x.flags), op, c, sent, r)
        case .handleValueNotification(let n):
            var e = event(r, c, .notification(operation(op, n.handle, c, sent, serverSent: true, offset: nil)))
            e.value = InlineBytes(n.value)
            addFinal(consume e)
        case .multipleHandleValueNotification(let m):
            for t in m.tuples {
                var e = event(r, c, .notification(operation(op, t.handle, c, sent, serverSent: true, offset: nil)))
                e.value = InlineBytes(t.value)
                add(e)
            }
        case .handleValueIndication(let i):
            var e = event(r, c, .indication(operation(op, i.handle, c, sent, serverSent: true, offset: nil)))
            e.value = InlineBytes(i.value)
            if let old = c.indication(sentByHost: sent), hot.queue.isPending(old.sequence) {
                hot.queue.update(old.sequence) { $0.outcome = .unanswered(frame: r.frame) }
            }
            let seq = add(e, pendingUntil: r.timestamp &+ Self.attTimeout)
            c.setIndication(PendingIndication(sequence: seq, time: r.timestamp), sentByHost: sent)
        case .handleValueConfirmation:
            // Confirms the indication that came the other way.
            guard let ind = c.indication(sentByHost: !sent), hot.queue.isPending(ind.sequence) else {
                add(event(r, c, .unmatchedResponse(opcode: op, errorCode: nil, handle: nil, sent: sent)))
                return
            }
            c.setIndication(nil, sentByHost: !sent)
            hot.queue.update(ind.sequence) { $0.outcome = .success(frame: r.frame, latency: r.timestamp &- ind.time) }
        case .unknown, .malformed:
            break
        case let pdu:
            response(pdu, op, c, sent, r)
        }
    }

    private func pending(
        _ op: UInt8, _ r: CaptureRecord, discovery: DiscoveryTarget? = nil,
        filter: BluetoothUUID? = nil
    ) -> PendingRequest {
        var p = PendingRequest(sequence: 0, opcode: op, frame: r.frame, time: r.timestamp, discovery: discovery)
        p.filter = filter
        return p
    }

    func operation(
        _ op: UInt8, _ handle: UInt16, _ c: ConnectionState, _ sent: Bool, serverSent: Bool,
        offset: UInt16?
    ) -> AttributeOperation {
        let remote = c.databaseIsRemote(serverSentPDU: serverSent, sent: sent)
        // Unknown ATT_MTU: the lower bound the PDUs so far (this one included) give.
        let known = c.mtuKnown
        return AttributeOperation(
            opcode: op, handle: handle, attribute: c.attribute(handle, remote: remote),
            mtu: known ? c.mtu : UInt16(clamping: Swift.max(23, c.largestATTPDU)), offset: offset, sent: sent,
            mtuKnown: known, serverIsPeer: remote)
    }

    /// Queues a request's event as pending and makes it the direction's outstanding request;
    /// an earlier one still unanswered is marked so.
    private func request(
        _ e: TimelineEvent, _ c: ConnectionState, _ sent: Bool, _ r: CaptureRecord,
        _ p: PendingRequest
    ) {
        if let old = c.request(sentByHost: sent), hot.queue.isPending(old.sequence) {
            hot.queue.update(old.sequence) { $0.outcome = .unanswered(frame: r.frame) }
        }
        var p = p
        p.sequence = add(e, pendingUntil: r.timestamp &+ Self.attTimeout)
        c.setRequest(p, sentByHost: sent)
    }

    private func discoveryRequest(
        _ target: DiscoveryTarget, _ start: UInt16, _ end: UInt16, filter: BluetoothUUID?,
        _ op: UInt8, _ c: ConnectionState, _ sent: Bool, _ r: CaptureRecord
    ) {
        let info = DiscoveryInfo(target: target, startHandle: start, endHandle: end, filter: filter, found: 0)
        request(
            event(r, c, .discovery(info, sent: sent)), c, sent, r, pending(op, r, discovery: target, filter: filter))
    }

    private func readRequest(
        _ handle: UInt16, _ variant: ReadVariant, offset: UInt16?, _ op: UInt8,
        _ c: ConnectionState, _ sent: Bool, _ r: CaptureRecord
    ) {
        let o = operation(op, handle, c, sent, serverSent: false, offset: offset)
        request(event(r, c, .read(o, variant)), c, sent, r, pending(op, r))
    }

    private func write(
        _ handle: UInt16, _ value: ByteView, _ variant: WriteVariant, offset: UInt16?, _ op: UInt8,
        _ c: ConnectionState, _ sent: Bool, _ r: CaptureRecord
    ) {
        let o = operation(op, handle, c, sent, serverSent: false, offset: offset)
        var e: TimelineEvent
        // A write of two bytes to a known CCCD is a subscription change (Vol 3 Part G 3.3.3.3);
        // two bytes left by a cut PDU are the start of a longer write.
        if variant == .request || variant == .command, o.attribute?.isCCCD == true, value.count == 2, !hot.truncatedPDU,
            let config = GATTClientConfiguration.bits(of: value)
        {
            e = event(r, c, .subscribe(o, configuration: config))
        } else {
            e = event(r, c, .write(o, variant))
        }
        e.value = InlineBytes(value)
        switch variant {
        case .command, .signed: add(e)
        case .request, .prepare, .execute: request(e, c, sent, r, pending(op, r))
        }
    }

    // MARK: responses

    private func response(_ pdu: ATTPDU, _ op: UInt8, _ c: ConnectionState, _ sent: Bool, _ r: CaptureRecord) {
        var errorCode: UInt8?
        var errorHandle: UInt16 = 0
        var answers: UInt8 = op &- 1
        if case .errorResponse(let er) = pdu {
            errorCode = er.errorCode
            errorHandle = er.handle
            answers = er.requestOpcode.rawValue
        }
        // The request came the other way.
        guard let req = c.request(sentByHost: !sent), hot.queue.isPending(req.sequence), req.opcode == answers else {
            add(
                event(
                    r, c,
                    .unmatchedResponse(
                        opcode: op, errorCode: errorCode,
                        handle: errorCode != nil ? errorHandle : nil, sent: sent)))
            return
        }
        c.setRequest(nil, sentByHost: !sent)
        let remote = c.databaseIsRemote(serverSentPDU: true, sent: sent)
        var found = 0
        var foundInStackServices = 0
        var value: ByteView?
        var mtu: (server: UInt16, effective: UInt16)?
        switch pdu {
        case .exchangeMTUResponse(let m):
            // ATT_MTU is the smaller Rx MTU, never below the LE default (Vol 3 Part F 3.4.2.2).
            let effective = Swift.max(23, Swift.min(req.clientRxMTU, m.serverRxMTU))
            c.mtu = effective
            c.mtuKnown = true
            mtu = (m.serverRxMTU, effective)
        case .findInformationResponse(let f):
            learn(c, remote) { db in
                for e in f.information {
                    db.add(GATTDescriptor(handle: e.handle, uuid: e.uuid, learnedIn: c.number))
                    found += 1
                }
            }
        case .findByTypeValueResponse(let f):
            learn(c, remote) { db in
                for e in f.handlesInformation {
                    found += 1
                    guard let uuid = req.filter else { continue }
                    db.add(
                        GATTService(
                            startHandle: e.handle, endHandle: e.endGroupHandle, uuid: uuid,
                            isPrimary: req.discovery != .secondaryServices, learnedIn: c.number))
                }
            }
        case .readByGroupTypeResponse(let g):
            learn(c, remote) { db in
                for e in g.attributeData {
                    found += 1
                    guard e.value.count == 2 || e.value.count == 16, let uuid = BluetoothUUID(littleEndian: e.value)
                    else { continue }
                    db.add(
                        GATTService(
                            startHandle: e.handle, endHandle: e.endGroupHandle, uuid: uuid,
                            isPrimary: req.discovery != .secondaryServices, learnedIn: c.number))
                }
            }
        case .readByTypeResponse(let t):
            switch req.discovery {
            case .characteristics:
                learn(c, remote) { db in
                    for e in t.attributeData {
                        found += 1
                        // Properties (1), Value Handle (2), UUID (2 or 16): Vol 3 Part G 3.3.1.
                        if let s = db.service(containing: e.handle), GATTService.stackServiceUUIDs.contains(s.uuid) {
                            foundInStackServices += 1
                        }
                        guard let d = GATTCharacteristicDeclarationValue(e.value), let uuid = d.uuid else { continue }
                        db.add(
                            GATTCharacteristic(
                                declarationHandle: e.handle, valueHandle: d.valueHandle, properties: d.properties,
                                uuid: uuid, learnedIn: c.number))
                    }
                }
            case .includes:
                learn(c, remote) { db in
                    for e in t.attributeData {
                        found += 1
                        // Included Service Handle, End Group Handle, optional 16-bit UUID (3.2).
                        guard let d = GATTIncludeDeclarationValue(e.value), let end = d.endGroupHandle else { continue }
                        let uuid = d.serviceUUID16.map { BluetoothUUID(uuid16: $0) }
                        db.add(
                            GATTInclude(
                                handle: e.handle, includedStart: d.includedServiceHandle, includedEnd: end, uuid: uuid,
                                learnedIn: c.number))
                    }
                }
            default:
                for e in t.attributeData {
                    if value == nil { value = e.value }
                    found += 1
                }
            }
        case .readResponse(let v): value = v.value
        case .readBlobResponse(let v): value = v.partValue
        case .readMultipleResponse(let v): value = v.values
        case .readMultipleVariableResponse(let v): value = v.tuples.bytes
        default: break
        }
        let latency = r.timestamp &- req.time
        let frame = r.frame
        let truncated = hot.truncatedPDU
        hot.queue.update(req.sequence) { e in
            if let errorCode {
                e.outcome = .error(frame: frame, latency: latency, code: errorCode, handle: errorHandle)
            } else {
                e.outcome = .success(frame: frame, latency: latency)
            }
            switch e.kind {
            case .discovery(var d, let s):
                d.found = found
                d.foundInStackServices = foundInStackServices
                e.kind = .discovery(d, sent: s)
            case .mtuExchange(let client, _, _, let s):
                if let mtu {
                    e.kind = .mtuExchange(
                        clientRxMTU: client, serverRxMTU: mtu.server, effective: mtu.effective, sent: s)
                }
            default: break
            }
            if let value {
                e.value = InlineBytes(value)
                e.valueTruncated = truncated
            }
        }
    }

    private func learn(_ c: ConnectionState, _ remote: Bool, _ body: (inout GATTDatabase) -> Void) {
        if remote { body(&c.remoteDatabase) } else { body(&c.localDatabase) }
    }

    // MARK: LE signalling and SMP

    func signaling(_ payload: ByteView, _ c: ConnectionState, _ sent: Bool, _ r: CaptureRecord) {
        for cmd in L2CAPSignalingCommands(payload, le: true) {
            switch cmd.code {
            case L2CAPConnectionParameterUpdateRequest.code:
                guard let q = L2CAPConnectionParameterUpdateRequest(data: cmd.data) else { continue }
                let e = event(
                    r, c,
                    .connectionParameterRequest(
                        identifier: cmd.identifier, intervalMin: q.intervalMin, intervalMax: q.intervalMax,
                        latency: q.latency, timeout: q.timeout, sent: sent, result: nil))
                if let old = c.parameterRequest, hot.queue.isPending(old.sequence) {
                    hot.queue.update(old.sequence) { $0.outcome = .unanswered(frame: r.frame) }
                }
                // The peer has 30 s to answer a signalling request (RTX, Vol 3 Part A 6.2.1).
                let seq = add(e, pendingUntil: r.timestamp &+ Self.attTimeout)
                c.parameterRequest = (seq, cmd.identifier, r.timestamp, sent)
            case L2CAPConnectionParameterUpdateResponse.code:
                guard let q = L2CAPConnectionParameterUpdateResponse(data: cmd.data) else { continue }
                add(event(r, c, .connectionParameterResponse(identifier: cmd.identifier, result: q.result, sent: sent)))
                // The response answers the request with the same identifier sent the other way.
                guard let p = c.parameterRequest, p.identifier == cmd.identifier, p.sent != sent,
                    hot.queue.isPending(p.sequence)
                else { continue }
                c.parameterRequest = nil
                let latency = r.timestamp &- p.time
                let frame = r.frame
                hot.queue.update(p.sequence) { e in
                    e.outcome = .success(frame: frame, latency: latency)
                    if case .connectionParameterRequest(let id, let a, let b, let l, let t, let s, _) = e.kind {
                        e.kind = .connectionParameterRequest(
                            identifier: id, intervalMin: a, intervalMax: b, latency: l,
                            timeout: t, sent: s, result: q.result)
                    }
                }
            default:
                break
            }
        }
    }

    func smp(_ payload: ByteView, _ c: ConnectionState, _ sent: Bool, _ r: CaptureRecord) {
        switch SMPPDU(payload) {
        case .pairingRequest(let q):
            c.pairingRequest = q.features
            add(
                event(
                    r, c,
                    .pairingRequest(PairingInfo(features: q.features, method: nil, secureConnections: nil), sent: sent))
            )
        case .pairingResponse(let q):
            var info = PairingInfo(features: q.features, method: nil, secureConnections: nil)
            if let i = c.pairingRequest {
                info.method = PairingMethod.select(initiator: i, responder: q.features)
                info.secureConnections = i.authReq.secureConnections && q.features.authReq.secureConnections
                c.security.pairingMethod = info.method
                c.security.secureConnections = info.secureConnections
                c.security.pairingFailed = false
            }
            add(event(r, c, .pairingResponse(info, sent: sent)))
        case .pairingFailed(let f):
            c.security.pairingFailed = true
            add(event(r, c, .pairingFailed(reason: f.reason, sent: sent)))
        case .securityRequest(let s):
            add(event(r, c, .securityRequest(authReq: s.authReq.rawValue, sent: sent)))
        case .identityAddressInformation(let i):
            if !sent { c.identity = i.address }
            add(event(r, c, .identityAddress(address: i.address, addressType: i.addressType, sent: sent)))
        // The LTK goes in the value (as sent) for lint's insecure-pairing, which states the key
        // an over-the-air pairing gave away; writers never print key values.
        case .encryptionInformation(let i):
            var e = event(r, c, .keyDistribution(.longTermKey, sent: sent))
            e.value = InlineBytes(i.longTermKey)
            add(e)
        case .centralIdentification:
            add(event(r, c, .keyDistribution(.centralIdentification, sent: sent)))
        case .identityInformation:
            add(event(r, c, .keyDistribution(.identityResolvingKey, sent: sent)))
        case .signingInformation:
            add(event(r, c, .keyDistribution(.signatureKey, sent: sent)))
        default:
            break
        }
    }
}
