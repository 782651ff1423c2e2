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
                out += "    \(label): \(server.serviceCount) services, \(server.characteristicCount) characteristics, "
                    + "\(server.attributes.count) attributes"
                if server.inferredCount > 0 { out += " (\(server.inferredCount) inferred from traffic)" }
                if let mtu = server.serverRxMTU { out += ", Rx MTU \(mtu)" }
                out += "\n"
            }
            out += "    script: \(m.steps.count) client PDUs, \(m.stream.count) server-initiated PDUs"
            if let end = m.linkEnd {
                out += "; captured end \(end.side.name) \(Hex.string(UInt64(end.reason), digits: 2)) at +\(Self.seconds(end.capturedOffset)) s"
            }
            out += "\n"
            let r = c.replayed
            if let t = r.silentFrom { out += "    link silent from +\(Self.seconds(t)) s\n" }
            if let t = r.poweredOffAt { out += "    adapter powered off at +\(Self.seconds(t)) s\n" }
            if let e = r.end { out += "    replayed end: \(e.side.name) \(Hex.string(UInt64(e.reason), digits: 2)) at +\(Self.seconds(e.offset)) s\n" }
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
            }
            if let max = f.maximumTimingDelta, let mean = f.meanTimingDelta {
                out += "    timing: max |Δt| \(max) µs, mean \(Int(mean.rounded())) µs"
                out += max <= conn.intervalMicros ? " (within one connection interval)\n" : " (beyond one connection interval)\n"
            }
        }
        let diverged = connections.filter { !$0.fidelity.isIdentical }.count
        out += "replay: \(connections.count) connection\(connections.count == 1 ? "" : "s"), \(diverged) diverged\n"
        return out
    }

    /// One JSON document (docs/replay.md describes its fields).
    public func json() -> String {
        var o = "{\"file\":\(JSONQuoting.quoted(session.path)),\"format\":\(JSONQuoting.quoted(session.format))"
        o += ",\"frames\":\(session.frames),\"speed\":\(JSONQuoting.quoted(speed.description))"
        o += ",\"faults\":" + faults.json
        o += ",\"identical\":\(isIdentical),\"connections\":["
        for (i, c) in connections.enumerated() {
            if i > 0 { o += "," }
            let m = c.model
            let f = c.fidelity
            o += "{\"connection\":\(m.number)"
            if let p = m.peer { o += ",\"peer\":\"\(p)\"" }
            o += ",\"host_role\":\"\(m.connection.hostIsCentral ? "central" : "peripheral")\""
            o += ",\"connection_interval_us\":\(m.connection.intervalMicros)"
            o += ",\"client_pdus\":\(m.steps.count),\"server_initiated_pdus\":\(m.stream.count)"
            o += ",\"peer_server\":" + Self.json(m.peerServer) + ",\"host_server\":" + Self.json(m.hostServer)
            o += ",\"captured\":\(f.captured),\"replayed\":\(f.replayed),\"matching\":\(f.matching)"
            o += ",\"identical\":\(f.isIdentical),\"ordered\":\(f.ordered)"
            if let max = f.maximumTimingDelta, let mean = f.meanTimingDelta {
                o += ",\"timing\":{\"max_delta_us\":\(max),\"mean_delta_us\":\(Int(mean.rounded()))}"
            }
            if let d = f.divergence {
                o += ",\"divergence\":{\"position\":\(d.position),\"captured\":\(Self.json(d.captured)),\"replayed\":\(Self.json(d.replayed))}"
            }
            let r = c.replayed
            if let e = r.end {
                o += ",\"end\":{\"offset_us\":\(e.offset),\"reason\":\(e.reason),\"side\":\"\(e.side.name)\"}"
            }
            if let t = r.silentFrom { o += ",\"silent_from_us\":\(t)" }
            if let t = r.poweredOffAt { o += ",\"powered_off_at_us\":\(t)" }
            o += ",\"dropped_notifications\":\(r.droppedNotifications),\"unsent_client_pdus\":\(r.unsentSteps)}"
        }
        return o + "]}\n"
    }

    static func describe(_ s: ReplayFidelity.Side?, server m: ReplayConnectionModel) -> String {
        guard let s else { return "nothing (the exchange ended)" }
        let op = ATTOpcode(s.bytes.first ?? 0)
        var t = "+\(seconds(s.offset)) s  \(s.sentByHost ? "sent" : "rcvd")  \(op.name)"
        if op.carriesSingleHandle, let h = s.bytes.u16le(op.entry?.handleOffset ?? 1) {
            t += " " + Hex.string(UInt64(h), digits: 4)
        }
        if let e = s.bytes.withByteView(ATTErrorResponse.init(pdu:)) {
            t += " (" + "\(e.requestOpcode.name)" + ": " + ("\(ATTErrorCode.name(e.errorCode) ?? "error")") + ")"
        }
        let hex = Hex.string(s.bytes.prefix(32))
        return t + "  " + hex + (s.bytes.count > 32 ? "…" : "")
    }

    static func json(_ s: ReplayFidelity.Side?) -> String {
        guard let s else { return "null" }
        var o = "{\"index\":\(s.index),\"offset_us\":\(s.offset),\"direction\":\"\(s.sentByHost ? "sent" : "received")\""
        if let f = s.frame { o += ",\"frame\":\(f)" }
        o += ",\"opcode\":\(s.bytes.first ?? 0),\"opcode_name\":\"\(ATTOpcode(s.bytes.first ?? 0).name)\""
        return o + ",\"bytes\":\"" + Hex.string(s.bytes) + "\"}"
    }

    static func json(_ m: ReplayServerModel) -> String {
        var o = "{\"attributes\":\(m.attributes.count),\"services\":\(m.serviceCount),\"characteristics\":\(m.characteristicCount)"
        o += ",\"inferred\":\(m.inferredCount)"
        if let mtu = m.serverRxMTU { o += ",\"server_rx_mtu\":\(mtu)" }
        return o + "}"
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
        if notificationDropProbability > 0 { parts.append("drop notifications p=\(notificationDropProbability) seed \(seed)") }
        return parts.joined(separator: ", ")
    }

    var json: String {
        var o = "{"
        var first = true
        func field(_ k: String, _ v: String) {
            o += (first ? "" : ",") + "\"\(k)\":\(v)"
            first = false
        }
        if let t = dropLinkAtMicros { field("drop_link_at_us", "\(t)") }
        if let t = powerOffAtMicros { field("power_off_at_us", "\(t)") }
        if dropLinkAtMicros != nil || powerOffAtMicros != nil {
            field("clock", timesFromCaptureStart ? "\"capture\"" : "\"connection\"")
        }
        if responseDelayMicros != 0 { field("response_delay_us", "\(responseDelayMicros)") }
        if let m = serverMTU { field("server_mtu", "\(m)") }
        if !errors.isEmpty {
            field("errors", "{" + errors.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}")
        }
        if notificationDropProbability > 0 {
            field("drop_notifications", "\(notificationDropProbability)")
            field("seed", "\(seed)")
        }
        return o + "}"
    }
}
