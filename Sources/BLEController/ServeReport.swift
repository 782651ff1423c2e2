import BLEBytes
import BLEPackets
import BLEReplay

/// One client operation of the captured central's script against what the host did.
public struct OperationComparison: Sendable, Equatable, Encodable {
    public enum Verdict: String, Sendable, Encodable {
        /// The host sent the same PDU, in the captured order.
        case same
        /// The host sent it, but after a later captured operation.
        case reordered
        /// Same opcode and handle, other bytes (a value, an MTU, a range).
        case differentValue = "different_value"
        /// The host never sent it.
        case missing
        /// The host sent it; the capture has nothing like it.
        case extra
    }
    public var verdict: Verdict
    /// The captured PDU (hex), for all but `extra`.
    public var captured: String?
    /// The host's PDU (hex), for all but `missing`.
    public var host: String?
    public var operation: String
}

/// What a `blecap serve` session became: `blecap replay`'s report of each served connection
/// (the host's ATT exchange against the captured one, PDU by PDU), the captured central's
/// operations one by one against the host's, the requests the capture could not answer, and
/// the host input the controller refused.
public struct ServeReport: Sendable {
    public var replay: ReplayReport
    public var operations: [[OperationComparison]]
    public var unmodelled: [[String]]
    /// Captured connections (host central) the host never made.
    public var notServed: [Int]
    public var rejectedHostInput: Int
    /// Connection attempts no captured connection answered (a non-connectable advertiser, or
    /// one the capture never connected to), with why.
    public var unansweredConnections: [String] = []
    /// How late the timed events ran on the wall clock (nil when the controller ran on
    /// virtual time).
    public var pace: Pace?
    /// Over a real radio as central (`blecap replay --role central --controller`): what the
    /// device did otherwise than the captured peripheral beyond the ATT exchange (a request
    /// unanswered within ATT's transaction timeout, the link ended early or not as captured).
    /// Nil elsewhere.
    public var radio: [String]?

    /// The pace measure as reported: lateness of the timed events against their deadlines.
    public struct Pace: Sendable, Equatable, Encodable {
        /// realtime, max or a factor such as 2.0x.
        public var speed: String
        public var events: Int
        public var meanLatenessMicros: Int64
        public var p99LatenessMicros: Int64
        public var worstLatenessMicros: Int64
        /// The shortest captured connection interval among the served connections (µs): "at
        /// captured pace" means within one of it.
        public var connectionIntervalMicros: Int64?

        init(speed: ReplaySpeed, measure m: PaceMeasure, interval: Int64?) {
            self.speed = speed.description
            events = m.events
            meanLatenessMicros = m.meanMicros
            p99LatenessMicros = m.percentileMicros(0.99)
            worstLatenessMicros = m.worstMicros
            connectionIntervalMicros = interval
        }

        var text: String {
            func ms(_ us: Int64) -> String { us < 1000 ? "\(us) µs" : "\(Double(us / 10) / 100) ms" }
            var t =
                "pace (\(speed)): \(events) timed events, late by \(ms(meanLatenessMicros)) on average, "
                + "\(ms(p99LatenessMicros)) at the 99th percentile, \(ms(worstLatenessMicros)) at worst"
            if let i = connectionIntervalMicros { t += " (connection interval \(ms(i)))" }
            return t + "\n"
        }
    }

    /// Operations of every connection that are not `same`.
    public var differences: Int { operations.reduce(0) { $0 + $1.count { $0.verdict != .same } } }

    public func text() -> String {
        var out = replay.text().replacing("replay of ", with: "served ")
        for (i, c) in replay.connections.enumerated() {
            let ops = operations[i]
            let count = { (v: OperationComparison.Verdict) in ops.count { $0.verdict == v } }
            out +=
                "#\(c.model.number) the host's ATT PDUs against the captured host's: \(count(.same)) same, "
                + "\(count(.reordered)) reordered, \(count(.differentValue)) different value, "
                + "\(count(.missing)) missing, \(count(.extra)) extra\n"
            for o in ops where o.verdict != .same {
                out += "    \(o.verdict.rawValue): \(o.operation)\n"
            }
            for u in unmodelled[i] { out += "    not in the capture: \(u)\n" }
        }
        if !notServed.isEmpty {
            out += "never connected by the host: " + notServed.map { "#\($0)" }.joined(separator: ", ") + "\n"
        }
        if rejectedHostInput > 0 { out += "host input dropped or refused: \(rejectedHostInput) (see the log)\n" }
        for u in unansweredConnections { out += "connection attempt not answered: \(u)\n" }
        if let pace { out += pace.text }
        for r in radio ?? [] { out += "over the radio: \(r)\n" }
        return out
    }

    struct Document: Encodable {
        var replay: ReplayJSONDocument
        var operations: [[OperationComparison]]
        var unmodelled: [[String]]
        var notServed: [Int]
        var rejectedHostInput: Int
        var unansweredConnections: [String]
        var pace: Pace?
        var radio: [String]?
    }

    public func json() -> String {
        JSONDocument.render(
            Document(
                replay: replay.document, operations: operations, unmodelled: unmodelled, notServed: notServed,
                rejectedHostInput: rejectedHostInput, unansweredConnections: unansweredConnections, pace: pace,
                radio: radio),
            style: .compact)
    }

    /// Aligns the captured central's client PDUs with the host's, in order: an identical PDU
    /// at or a little after the host's position (within `window`) is the same operation; an
    /// identical one anywhere else is reordered; same opcode and handle a little ahead is a
    /// different value; nothing is missing. The host's PDUs left over are extra.
    static func compare(captured: [[UInt8]], host: [[UInt8]], window: Int = 64) -> [OperationComparison] {
        var out: [OperationComparison] = []
        var used = [Bool](repeating: false, count: host.count)
        var j = 0
        func key(_ b: [UInt8]) -> [UInt8] {
            let op = ATTOpcode(b.first ?? 0)
            guard op.carriesSingleHandle, let off = op.entry?.handleOffset, b.count >= off + 2 else {
                return [b.first ?? 0]
            }
            return [b[0], b[off], b[off + 1]]
        }
        func entry(_ v: OperationComparison.Verdict, _ c: [UInt8]?, _ h: [UInt8]?) -> OperationComparison {
            .init(verdict: v, captured: c.map(Hex.string), host: h.map(Hex.string), operation: Self.name(c ?? h ?? []))
        }
        for c in captured {
            while j < host.count, used[j] { j += 1 }
            let ahead = j..<min(host.count, j + window)
            if let k = ahead.first(where: { !used[$0] && host[$0] == c }) {
                used[k] = true
                out.append(entry(.same, c, host[k]))
                j = k + 1
            } else if let k = host.indices.first(where: { !used[$0] && host[$0] == c }) {
                used[k] = true
                out.append(entry(.reordered, c, host[k]))
            } else if let k = ahead.first(where: { !used[$0] && key(host[$0]) == key(c) }) {
                used[k] = true
                out.append(entry(.differentValue, c, host[k]))
            } else {
                out.append(entry(.missing, c, nil))
            }
        }
        for (x, h) in host.enumerated() where !used[x] { out.append(entry(.extra, nil, h)) }
        return out
    }

    static func name(_ b: [UInt8]) -> String {
        let op = ATTOpcode(b.first ?? 0)
        var t = "\(op.name)"
        if let h = b.withByteView(ATTPDU.handle(of:)) {
            t += " " + Hex.string(UInt64(h), digits: 4)
        }
        return t
    }
}

extension VirtualController {
    /// The session so far as a report; connections still open are reported as they stand.
    public func report() -> ServeReport {
        var all = served
        for c in connections.values.sorted(by: { $0.id < $1.id }) {
            all.append(
                ServedConnection(
                    model: c.model, handle: c.handle, startedAt: c.startedAt,
                    replayed: ReplayedConnection(number: replay.models[c.model].number, pdus: c.pdus),
                    unmodelled: c.unmodelled, bearer: c.bearer))
        }
        let clock = ReplayClock(speed: configuration.speed, session: replay.session)
        var results: [ReplayConnectionResult] = []
        var operations: [[OperationComparison]] = []
        for s in all {
            let m = replay.models[s.model]
            results.append(
                .served(
                    model: m, replayed: s.replayed,
                    fidelity: ReplayFidelity(connection: m.connection, replayed: s.replayed, clock: clock)))
            // Everything the captured host sent: its client's requests (role peripheral), its
            // server's answers and notifications (role central).
            let captured = m.connection.att.filter(\.sentByHost).map(\.bytes)
            let host = s.replayed.pdus.filter(\.sentByHost).map(\.bytes)
            operations.append(ServeReport.compare(captured: captured, host: host))
        }
        let reached = Set(all.map(\.model))
        let notServed = replay.models.indices.filter {
            replay.models[$0].connection.hostIsCentral == (configuration.role == .peripheral) && !reached.contains($0)
                && (chosen ?? $0) == $0
        }.map { replay.models[$0].number }
        return ServeReport(
            replay: .served(session: replay.session, connections: results, faults: configuration.faults, clock: clock),
            operations: operations, unmodelled: all.map(\.unmodelled), notServed: notServed,
            rejectedHostInput: rejectedInput, unansweredConnections: unansweredConnections,
            pace: self.clock == nil
                ? nil
                : ServeReport.Pace(
                    speed: configuration.speed, measure: pace,
                    interval: all.map { replay.models[$0.model].connection.intervalMicros }.min()))
    }
}

extension ATTOpcode {
    /// Requests, commands and confirmations: what an ATT client sends (Vol 3 Part F 3.3).
    var isClientPDU: Bool {
        switch method {
        case .request?, .command?, .confirmation?: true
        default: false
        }
    }
}
