import BLEBytes
import BLEPackets
import BLETimeline

/// One connection's part of the report while the pass runs: counters, parameter history,
/// notification density, and its sequence chart kept as a head (the first
/// `Limits.sequenceHead` rows) and a ring of the last `Limits.sequenceTail` rows, with what
/// fell between them counted in `omitted`. Consecutive identical exchanges (same operation,
/// handle and direction, no error) collapse into the previous row: a run of 5,000
/// notifications is one band.
final class ConnectionAccumulator {
    typealias Limits = SessionReportModel.Limits

    // Unchecked exclusivity on what every event touches: see `SessionAggregator.frames`.
    @exclusivity(unchecked) var model: ConnectionModel
    /// This host's role decides which lifeline a sent PDU starts from (unknown: central).
    @exclusivity(unchecked) var hostIsCentral = true
    @exclusivity(unchecked) var head: [SequenceItem] = []
    @exclusivity(unchecked) var tail: [SequenceItem] = []
    var tailNext = 0
    var omitted: OmittedRun?
    /// The row the next identical exchange merges into.
    @exclusivity(unchecked) var last: (signature: SequenceSignature, inTail: Bool, index: Int)?
    /// A sniffed connection's access address (its radio series are kept by it).
    var accessAddress: UInt32?

    init(number: Int, detailed: Bool, start: Int64, startFrame: Int) {
        model = ConnectionModel(
            number: number, start: start, end: start, startFrame: startFrame, ended: "open",
            mtu: nil, unknownStart: false, detailed: detailed)
        if detailed {
            model.density = BucketSeries(start: start, width: 1_000, capacity: Limits.densityBuckets)
        }
    }

    func add(_ e: TimelineEvent, t: Int64) {
        if model.peer == nil, let p = e.peer { model.peer = p.description }
        if t > model.end { model.end = t }
        switch e.kind {
        case .connectionComplete(let info):
            if let r = info.role {
                hostIsCentral = r != 1
                model.role = r == 0 ? "central" : "peripheral"
            }
            if let timing = info.timing { parameter(t, e.frame, "initial", timing, accepted: nil) }
        case .connectionUpdate(let status, let timing) where status == 0:
            parameter(t, e.frame, "update", timing, accepted: nil)
        case .connectionParameterRequest(_, let lo, let hi, let latency, let timeout, _, let result):
            if model.detailed {
                record(
                    ParameterChange(
                        t: t, frame: e.frame, kind: "request", intervalMs: Double(lo) * 1.25,
                        intervalMaxMs: Double(hi) * 1.25, latency: Int(latency),
                        timeoutMs: Int(timeout) * 10, accepted: result.map { $0 == 0 }))
            }
        case .notification, .indication:
            model.notifications += 1
            model.notificationBytes += e.value.count
            model.density?.add(at: t) { $0.count += 1 }
        case .write(_, let v) where v != .execute:
            model.writes += 1
            model.writeBytes += e.value.count
        default: break
        }
        if case .error(_, _, let code, _) = e.outcome, Self.isATT(e.kind), !Self.isEndOfDiscovery(e.kind, code) {
            model.attErrors += 1
        }
        guard model.detailed else { return }
        // The common case of a long run (the 5,000th notification) merges without building a
        // row: no names or detail strings per member.
        if let l = last, let signature = SequenceSignature(e, hostIsCentral: hostIsCentral), signature == l.signature {
            // Merged from its numbers: a member row built and destroyed for every event (its
            // strings released) was 2 % of `blecap report`.
            let n = e.value.count
            let latency = e.outcome.latency
            if l.inTail {
                Self.extend(&tail[l.index], frame: e.frame, t: t, bytes: n, latency: latency)
            } else {
                Self.extend(&head[l.index], frame: e.frame, t: t, bytes: n, latency: latency)
            }
            return
        }
        guard let row = SequenceMapping.row(e, t: t, hostIsCentral: hostIsCentral) else { return }
        append(row.item, row.signature)
    }

    func parameter(_ t: Int64, _ frame: Int, _ kind: String, _ timing: ConnectionTiming, accepted: Bool?) {
        guard model.detailed else { return }
        record(
            ParameterChange(
                t: t, frame: frame, kind: kind, intervalMs: Double(timing.interval) * 1.25,
                intervalMaxMs: nil, latency: Int(timing.latency),
                timeoutMs: Int(timing.supervisionTimeout) * 10, accepted: accepted))
    }

    func record(_ p: ParameterChange) {
        if model.parameters.count < Limits.parameterChanges {
            model.parameters.append(p)
        } else {
            model.parametersOmitted += 1
        }
    }

    // MARK: sequence

    func append(_ item: SequenceItem, _ signature: SequenceSignature?) {
        if let signature, let l = last, l.signature == signature {
            if l.inTail { Self.merge(&tail[l.index], item) } else { Self.merge(&head[l.index], item) }
            return
        }
        var item = item
        item.samples = nil
        if head.count < Limits.sequenceHead {
            head.append(item)
            last = signature.map { ($0, false, head.count - 1) }
            return
        }
        if tail.count < Limits.sequenceTail {
            tail.append(item)
            last = signature.map { ($0, true, tail.count - 1) }
            return
        }
        let evicted = tail[tailNext]
        if var o = omitted {
            o.items += 1
            o.events += evicted.count
            o.lastFrame = evicted.lastFrame
            omitted = o
        } else {
            omitted = OmittedRun(
                items: 1, events: evicted.count, firstFrame: evicted.frame, lastFrame: evicted.lastFrame)
        }
        tail[tailNext] = item
        last = signature.map { ($0, true, tailNext) }
        tailNext = (tailNext + 1) % Limits.sequenceTail
    }

    /// Folds `next` into the run `row`: counts, bytes, length range, and the first few members
    /// as examples.
    /// `merge` with a one-event member of `bytes` bytes (`SequenceMapping.sized`), at `frame`
    /// and `t`, answered after `latency`.
    static func extend(_ row: inout SequenceItem, frame: Int, t: Int64, bytes: Int, latency: Int64?) {
        if row.count == 1 {
            row.samples = [[Int64(row.frame), row.t, Int64(row.bytes)]]
        }
        row.count += 1
        row.lastFrame = frame
        row.lastT = t
        row.bytes += bytes
        row.minLength = min(row.minLength ?? bytes, bytes)
        row.maxLength = max(row.maxLength ?? bytes, bytes)
        if let l = latency { row.latency = max(row.latency ?? l, l) }
        if (row.samples?.count ?? 0) < Limits.bandSamples {
            row.samples?.append([Int64(frame), t, Int64(bytes)])
        }
    }

    static func merge(_ row: inout SequenceItem, _ next: SequenceItem) {
        if row.count == 1 {
            row.samples = [[Int64(row.frame), row.t, Int64(row.bytes)]]
        }
        row.count += 1
        row.lastFrame = next.lastFrame
        row.lastT = next.lastT
        row.bytes += next.bytes
        if let n = next.minLength { row.minLength = min(row.minLength ?? n, n) }
        if let n = next.maxLength { row.maxLength = max(row.maxLength ?? n, n) }
        if let l = next.latency { row.latency = max(row.latency ?? l, l) }
        if (row.samples?.count ?? 0) < Limits.bandSamples {
            row.samples?.append([Int64(next.frame), next.t, Int64(next.bytes)])
        }
    }

    func end(_ s: ConnectionSummary, start: Int64, end: Int64?) {
        model.start = start
        model.startFrame = s.startFrame
        model.endFrame = s.endFrame
        if let end { model.end = max(model.end, end) }
        // Read from the connection's facts, never recomputed from the events (issue 28).
        let f = s.facts
        model.facts = f
        model.unknownStart = f.unknownStart
        model.mtu = f.mtu
        model.mtuAtLeast = f.mtuAtLeast
        if let p = f.peer { model.peer = p }
        if let r = f.role { model.role = r }
        model.ended = f.ended
        model.reason = f.endReason
        model.reasonName = f.endReasonName
        if let ll = s.linkLayer {
            accessAddress = ll.accessAddress
            model.linkLayer = LinkLayerModel(
                accessAddress: "0x" + String(ll.accessAddress, radix: 16, uppercase: true),
                dataPDUs: ll.dataPDUs, emptyPDUs: ll.emptyPDUs, retransmissions: ll.retransmissions,
                retransmissionRate: ll.dataPDUs > 0 ? Double(ll.retransmissions) / Double(ll.dataPDUs) : 0,
                crcErrors: ll.crcErrors, encryptedPDUs: ll.encryptedPDUs, encryptedFromFrame: ll.encryptedFromFrame,
                decryptedPDUs: ll.decryptedPDUs, micFailures: ll.micFailures, missedEvents: ll.missedEvents,
                directionInferred: ll.senderInferred)
        }
    }

    func finish(captureEnd: Int64) -> ConnectionModel {
        var m = model
        if m.ended == "open" { m.end = max(m.end, captureEnd) }
        var rows = head
        if !tail.isEmpty {
            m.tailStart = rows.count
            // The ring's oldest row is at tailNext once it has wrapped.
            rows += tail.count < Limits.sequenceTail ? tail : Array(tail[tailNext...] + tail[..<tailNext])
        }
        // Runs get their summary line once, here, not per member.
        for i in rows.indices where rows[i].count > 1 { rows[i].detail = SequenceMapping.runDetail(rows[i]) }
        m.sequence = rows
        m.omitted = omitted
        if omitted == nil { m.tailStart = nil }
        return m
    }

    static func isATT(_ k: TimelineEvent.Kind) -> Bool {
        switch k {
        case .mtuExchange, .discovery, .read, .write, .subscribe, .indication, .unmatchedResponse: true
        default: false
        }
    }

    /// Attribute Not Found (0x0A) ends every discovery procedure (Vol 3 Part G 4.4–4.7): it is
    /// how the server says "nothing more", not a failure.
    static func isEndOfDiscovery(_ k: TimelineEvent.Kind, _ code: UInt8) -> Bool {
        if case .discovery = k { return code == ATTErrorCode.attributeNotFound }
        return false
    }
}

/// What makes two consecutive exchanges "the same" for collapsing: the operation, the
/// attribute handle and the direction.
struct SequenceSignature: Equatable {
    var operation: UInt16
    var handle: UInt16
    var c2p: Bool
}

extension SequenceSignature {
    /// The signature of an event that may join a run (notifications, indications, reads and
    /// writes that succeeded or need no answer, values that fit ATT_MTU), nil for any other.
    /// Must agree with `SequenceMapping.row`'s.
    /// `e` is borrowed: an initializer takes its arguments owned, which copied the whole event
    /// (through its value witness) for every event of a connection.
    init?(_ e: borrowing TimelineEvent, hostIsCentral: Bool) {
        switch e.outcome {
        case .none, .success: break
        default: return nil
        }
        let op: AttributeOperation
        switch e.kind {
        case .notification(let o), .indication(let o), .read(let o, _): op = o
        case .write(let o, let v) where v == .command || v == .request:
            // An oversized value is a row of its own (its detail says so).
            guard e.value.count <= Int(o.mtu) - 3 else { return nil }
            op = o
        default: return nil
        }
        self.init(operation: UInt16(op.opcode), handle: op.handle, c2p: op.sent == hostIsCentral)
    }
}
