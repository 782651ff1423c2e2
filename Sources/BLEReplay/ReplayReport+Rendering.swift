import BLEBytes
import BLEPackets
import BLETimeline

extension ReplayServerModel {
    /// Service declarations (primary and secondary) in the table.
    var serviceCount: Int {
        attributes.count { $0.type == ReplayAttribute.primaryService || $0.type == ReplayAttribute.secondaryService }
    }
    var characteristicCount: Int { attributes.count { $0.type == ReplayAttribute.characteristic } }
    var inferredCount: Int { attributes.count(where: \.isInferred) }
}

extension ReplayReport {
    /// The human report: per connection what was modelled, whether the replayed ATT exchange
    /// equals the captured one, the first divergence with both sides, and timing deltas.
    public func text() -> String {
        var out = "replay of \(session.path) (\(session.format), \(session.frames) frames), speed \(speed.description)"
        if !faults.isEmpty { out += ", faults: " + faults.summary }
        out += "\n"
        if connections.isEmpty { out += "no connections to replay\n" }
        for c in connections {
            let m = c.model
            let conn = m.connection
            out += "#\(m.number)  " + (m.peer.map { "\($0)" } ?? "unknown peer")
            out += conn.hostIsCentral ? "  host central" : "  host peripheral"
            out += "  interval \(Self.ms(conn.intervalMicros)) ms\n"
            for (label, server) in [("peer's server", m.peerServer), ("host's server", m.hostServer)]
            where !server.attributes.isEmpty {
                out +=
                    "    \(label): \(server.serviceCount) services, \(server.characteristicCount) characteristics, "
                    + "\(server.attributes.count) attributes"
                if server.inferredCount > 0 { out += " (\(server.inferredCount) inferred from traffic)" }
                if let mtu = server.serverRxMTU { out += ", Rx MTU \(mtu)" }
                out += "\n"
            }
            out += "    script: \(c.clientPDUs) client PDUs, \(c.serverInitiatedPDUs) server-initiated PDUs"
            if let end = m.linkEnd {
                out +=
                    "; captured end \(end.side.name) \(Hex.string(UInt64(end.reason), digits: 2)) at +\(Self.seconds(end.capturedOffset)) s"
            }
            out += "\n"
            let r = c.replayed
            if let t = r.silentFrom { out += "    link silent from +\(Self.seconds(t)) s\n" }
            if let t = r.poweredOffAt { out += "    adapter powered off at +\(Self.seconds(t)) s\n" }
            if let e = r.end {
                out +=
                    "    replayed end: \(e.side.name) \(Hex.string(UInt64(e.reason), digits: 2)) at +\(Self.seconds(e.offset)) s\n"
            }
            if r.droppedNotifications > 0 { out += "    dropped \(r.droppedNotifications) notifications/indications\n" }
            if r.unsentSteps > 0 { out += "    \(r.unsentSteps) client PDUs never sent\n" }
            let f = c.fidelity
            out += "    ATT exchange: \(f.captured) captured, \(f.replayed) replayed, \(f.matching) identical"
            out += f.isIdentical ? " — no divergence\n" : "\n"
            if let d = f.divergence {
                let frame = d.captured?.frame.map { " (capture frame \($0))" } ?? ""
                out += "    first divergence at PDU \(d.position + 1)\(frame):\n"
                out += "      captured  " + Self.describe(d.captured, server: m) + "\n"
                out += "      replayed  " + Self.describe(d.replayed, server: m) + "\n"
                if let u = c.unreproducible { out += "    cannot be reproduced: \(u.detail)\n" }
            }
            if let max = f.maximumTimingDelta, let mean = f.meanTimingDelta {
                out += "    timing: max |Δt| \(max) µs, mean \(Int(mean.rounded())) µs"
                out +=
                    max <= conn.intervalMicros
                    ? " (within one connection interval)\n" : " (beyond one connection interval)\n"
            }
        }
        let diverged = connections.filter { !$0.fidelity.isIdentical }.count
        out += "replay: \(connections.count) connection\(connections.count == 1 ? "" : "s"), \(diverged) diverged\n"
        return out
    }

    /// One JSON document (docs/replay.md describes its fields).
    public func json() -> String { JSONDocument.render(document, style: .compact) }

    /// The JSON document as a value.
    public var document: ReplayJSONDocument {
        ReplayJSONDocument(
            file: session.path, format: session.format, frames: session.frames, speed: speed.description,
            faults: faults, identical: isIdentical,
            connections: connections.map { c in
                let m = c.model
                let f = c.fidelity
                let r = c.replayed
                let timing = f.maximumTimingDelta.flatMap { max in
                    f.meanTimingDelta.map {
                        ReplayJSONDocument.Timing(maxDeltaMicros: max, meanDeltaMicros: Int64($0.rounded()))
                    }
                }
                return .init(
                    connection: m.number, peer: m.peer.map { "\($0)" },
                    hostRole: m.connection.hostIsCentral ? "central" : "peripheral",
                    connectionIntervalMicros: Int64(m.connection.intervalMicros),
                    clientPDUs: c.clientPDUs, serverInitiatedPDUs: c.serverInitiatedPDUs,
                    peerServer: .init(m.peerServer), hostServer: .init(m.hostServer),
                    captured: f.captured, replayed: f.replayed, matching: f.matching, identical: f.isIdentical,
                    ordered: f.ordered, timing: timing,
                    divergence: f.divergence.map {
                        .init(
                            position: $0.position, captured: $0.captured.map(ReplayJSONDocument.PDU.init),
                            replayed: $0.replayed.map(ReplayJSONDocument.PDU.init))
                    },
                    unreproducible: c.unreproducible.map(ReplayJSONDocument.Unreproducible.init),
                    end: r.end.map {
                        .init(offsetMicros: Int64($0.offset), reason: Int($0.reason), side: "\($0.side.name)")
                    },
                    silentFromMicros: r.silentFrom.map { Int64($0) },
                    poweredOffAtMicros: r.poweredOffAt.map { Int64($0) },
                    droppedNotifications: r.droppedNotifications, unsentClientPDUs: r.unsentSteps)
            })
    }

    static func describe(_ s: ReplayFidelity.Side?, server m: ReplayConnectionModel) -> String {
        guard let s else { return "nothing (the exchange ended)" }
        let op = ATTOpcode(s.bytes.first ?? 0)
        var t = "+\(seconds(s.offset)) s  \(s.sentByHost ? "sent" : "rcvd")  \(op.name)"
        if let h = s.bytes.withByteView(ATTPDU.handle(of:)) {
            t += " " + Hex.string(UInt64(h), digits: 4)
        }
        if let e = s.bytes.withByteView(ATTErrorResponse.init(pdu:)) {
            t += " (" + "\(e.requestOpcode.name)" + ": " + ("\(ATTErrorCode.name(e.errorCode) ?? "error")") + ")"
        }
        let hex = Hex.string(s.bytes.prefix(32))
        return t + "  " + hex + (s.bytes.count > 32 ? "…" : "")
    }

    static func seconds(_ micros: Int64) -> String {
        let sign = micros < 0 ? "-" : ""
        let m = abs(micros)
        let frac = String(m % 1_000_000)
        return sign + "\(m / 1_000_000)." + String(repeating: "0", count: 6 - frac.count) + frac
    }

    static func ms(_ micros: Int64) -> String {
        micros % 1000 == 0 ? "\(micros / 1000)" : "\(Double(micros) / 1000)"
    }
}

extension ReplayFaults {
    /// "drop link at 2.000000 s, mtu 23, …" for the report header.
    public var summary: String {
        var parts: [String] = []
        let clock = timesFromCaptureStart ? "" : " after connection start"
        if let t = dropLinkAtMicros { parts.append("drop link at \(ReplayReport.seconds(t)) s\(clock)") }
        if let t = powerOffAtMicros { parts.append("power off at \(ReplayReport.seconds(t)) s\(clock)") }
        if responseDelayMicros != 0 { parts.append("responses +\(ReplayReport.ms(responseDelayMicros)) ms") }
        if let m = serverMTU { parts.append("server MTU \(m)") }
        for (h, code) in errors.sorted(by: { $0.key < $1.key }) {
            parts.append("error \(Hex.string(UInt64(code), digits: 2)) on \(Hex.string(UInt64(h), digits: 4))")
        }
        if notificationDropProbability > 0 {
            parts.append("drop notifications p=\(notificationDropProbability) seed \(seed)")
        }
        return parts.joined(separator: ", ")
    }
}

extension ReplayFaults: Encodable {
    enum CodingKeys: String, CodingKey {
        case dropLinkAt = "drop_link_at_us"
        case powerOffAt = "power_off_at_us"
        case clock
        case responseDelay = "response_delay_us"
        case serverMTU = "server_mtu"
        case errors
        case dropNotifications = "drop_notifications"
        case seed
    }

    /// Only the faults that were injected; `errors` keyed by decimal handle, in handle order.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(dropLinkAtMicros, forKey: .dropLinkAt)
        try c.encodeIfPresent(powerOffAtMicros, forKey: .powerOffAt)
        if dropLinkAtMicros != nil || powerOffAtMicros != nil {
            try c.encode(timesFromCaptureStart ? "capture" : "connection", forKey: .clock)
        }
        if responseDelayMicros != 0 { try c.encode(responseDelayMicros, forKey: .responseDelay) }
        try c.encodeIfPresent(serverMTU, forKey: .serverMTU)
        if !errors.isEmpty {
            var e = c.nestedContainer(keyedBy: AnyKey.self, forKey: .errors)
            for (handle, code) in errors.sorted(by: { $0.key < $1.key }) {
                try e.encode(code, forKey: AnyKey("\(handle)"))
            }
        }
        if notificationDropProbability > 0 {
            try c.encode(notificationDropProbability, forKey: .dropNotifications)
            try c.encode(seed, forKey: .seed)
        }
    }
}

/// `blecap replay --format json` (docs/replay.md).
public struct ReplayJSONDocument: Encodable, Sendable {
    public var file: String
    public var format: String
    public var frames: Int
    public var speed: String
    public var faults: ReplayFaults
    public var identical: Bool
    public var connections: [Connection]

    public struct Connection: Encodable, Sendable {
        public var connection: Int
        public var peer: String?
        public var hostRole: String
        public var connectionIntervalMicros: Int64
        public var clientPDUs: Int
        public var serverInitiatedPDUs: Int
        public var peerServer: Server
        public var hostServer: Server
        public var captured: Int
        public var replayed: Int
        public var matching: Int
        public var identical: Bool
        public var ordered: Bool
        public var timing: Timing?
        public var divergence: Divergence?
        /// Present when the capture explains the first divergence (`ReplayUnreproducible`).
        public var unreproducible: Unreproducible?
        public var end: End?
        public var silentFromMicros: Int64?
        public var poweredOffAtMicros: Int64?
        public var droppedNotifications: Int
        public var unsentClientPDUs: Int

        enum CodingKeys: String, CodingKey {
            case connection, peer
            case hostRole = "host_role"
            case connectionIntervalMicros = "connection_interval_us"
            case clientPDUs = "client_pdus"
            case serverInitiatedPDUs = "server_initiated_pdus"
            case peerServer = "peer_server"
            case hostServer = "host_server"
            case captured, replayed, matching, identical, ordered, timing, divergence, unreproducible, end
            case silentFromMicros = "silent_from_us"
            case poweredOffAtMicros = "powered_off_at_us"
            case droppedNotifications = "dropped_notifications"
            case unsentClientPDUs = "unsent_client_pdus"
        }
    }

    /// A captured behaviour no replay can reproduce: `kind` (`ReplayUnreproducible.Kind`),
    /// its capture frame and why.
    public struct Unreproducible: Encodable, Sendable {
        public var kind: String
        public var frame: Int
        public var detail: String

        init(_ u: ReplayUnreproducible) {
            kind = u.kind.rawValue
            frame = u.frame
            detail = u.detail
        }
    }

    public struct Server: Encodable, Sendable {
        public var attributes: Int
        public var services: Int
        public var characteristics: Int
        public var inferred: Int
        public var serverRxMTU: UInt16?

        enum CodingKeys: String, CodingKey {
            case attributes, services, characteristics, inferred
            case serverRxMTU = "server_rx_mtu"
        }

        init(_ m: ReplayServerModel) {
            attributes = m.attributes.count
            services = m.serviceCount
            characteristics = m.characteristicCount
            inferred = m.inferredCount
            serverRxMTU = m.serverRxMTU.map { UInt16($0) }
        }
    }

    public struct Timing: Encodable, Sendable {
        public var maxDeltaMicros: Int64
        public var meanDeltaMicros: Int64
        enum CodingKeys: String, CodingKey {
            case maxDeltaMicros = "max_delta_us"
            case meanDeltaMicros = "mean_delta_us"
        }
    }

    /// The first PDU pair that differs; a side is `null` where that exchange had ended.
    public struct Divergence: Encodable, Sendable {
        public var position: Int
        public var captured: PDU?
        public var replayed: PDU?

        enum CodingKeys: String, CodingKey { case position, captured, replayed }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(position, forKey: .position)
            try c.encode(captured, forKey: .captured)  // explicit null
            try c.encode(replayed, forKey: .replayed)
        }
    }

    public struct PDU: Encodable, Sendable {
        public var index: Int
        public var offsetMicros: Int64
        public var direction: String
        public var frame: Int?
        public var opcode: UInt8
        public var opcodeName: String
        /// Hex.
        public var bytes: String

        enum CodingKeys: String, CodingKey {
            case index
            case offsetMicros = "offset_us"
            case direction, frame, opcode
            case opcodeName = "opcode_name"
            case bytes
        }

        init(_ s: ReplayFidelity.Side) {
            index = s.index
            offsetMicros = s.offset
            direction = s.sentByHost ? "sent" : "received"
            frame = s.frame
            opcode = s.bytes.first ?? 0
            opcodeName = "\(ATTOpcode(s.bytes.first ?? 0).name)"
            bytes = Hex.string(s.bytes)
        }
    }

    public struct End: Encodable, Sendable {
        public var offsetMicros: Int64
        public var reason: Int
        public var side: String
        enum CodingKeys: String, CodingKey {
            case offsetMicros = "offset_us"
            case reason, side
        }
    }
}
