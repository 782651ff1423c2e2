import BLEBytes
import BLEPackets
import BLEPass
import BLETimeline
import CaptureIO

/// Counters filled in the decoding pass: fixed-size tables, no allocation per frame.
package struct CaptureStatistics {
    /// Text only: section headings bold, damage red (`info --color`).
    package var paint = Paint(on: false)

    package init() {}

    /// A section's heading line.
    func heading(_ out: OutputBuffer, _ title: StaticString) {
        if paint.on { out.ascii(Palette.header) }
        out.ascii(title)
        if paint.on { out.ascii(ANSI.reset) }
        out.newline()
    }
    package var frames = 0
    var firstTime: Int64? = nil
    var lastTime: Int64? = nil
    var minTime = Int64.max
    var maxTime = Int64.min
    var backwardSteps = 0
    var kindCounts = [Int](repeating: 0, count: RecordKind.allCases.count)
    var attCounts = [Int](repeating: 0, count: 256)
    var smpCounts = [Int](repeating: 0, count: 256)
    var signalingCounts = [Int](repeating: 0, count: 256)
    var otherL2CAP = 0
    /// `--ltk` keys that decrypted no link (`CapturePass.unmatchedKeys`).
    package var unmatchedKeys: [String] = []
    var aclFragments = 0
    package var malformed = 0
    /// Records the capture kept only the start of (btsnooz, filtered logs, a snap length).
    package var truncated = 0
    /// Bit set of controller indexes seen (monitor captures), 0…63 tracked individually.
    var controllers: UInt64 = 0
    var controllerOverflow = false
    /// Devices, connections and event counts from the timeline of the same pass.
    package var timeline = TimelineStatistics()

    package mutating func add(_ frame: DecodedFrame) {
        let r = frame.record
        frames += 1
        if firstTime == nil { firstTime = r.timestamp }
        if let last = lastTime, r.timestamp < last { backwardSteps += 1 }
        lastTime = r.timestamp
        minTime = min(minTime, r.timestamp)
        maxTime = max(maxTime, r.timestamp)
        kindCounts[Int(r.kind.rawValue)] += 1
        if r.kind.isHCI && r.controllerIndex != 0xFFFF {
            if r.controllerIndex < 64 {
                controllers |= 1 << UInt64(r.controllerIndex)
            } else {
                controllerOverflow = true
            }
        }
        if r.isTruncated { truncated += 1 }
        if let pdu = frame.l2cap { countPDU(pdu) }
        // The reassembly's verdict counts for ACL only: a Link Layer PDU's damage is the LL
        // decoder's to report.
        switch r.kind {
        case .aclData:
            switch frame.reassembly {
            case .incomplete?: aclFragments += 1
            // A PDU the capture cut is decoded as far as it goes: truncated, not malformed.
            case .malformed? where !r.isTruncated: malformed += 1
            case nil: if case .malformed = frame.layer { malformed += 1 }
            default: break
            }
        case .hciCommand, .hciEvent:
            if case .malformed = frame.layer { malformed += 1 }
        default: break
        }
    }

    private mutating func countPDU(_ pdu: L2CAPPDU) {
        switch pdu.channel {
        case L2CAPChannel.att: if let h = ATTPDUHeader(pdu.payload) { attCounts[Int(h.opcode)] += 1 }
        case L2CAPChannel.smp: if let c = SMPCode.code(of: pdu.payload) { smpCounts[Int(c)] += 1 }
        case L2CAPChannel.leSignaling:
            if let c = L2CAPSignalingCode.code(of: pdu.payload) { signalingCounts[Int(c)] += 1 }
        default: otherL2CAP += 1
        }
    }

    var controllerCount: Int { controllers.nonzeroBitCount }

    package func writeText(
        to out: OutputBuffer, path: String, format: CaptureFormat, damage: CaptureDamage?, source: String? = nil,
        containerDamage: String? = nil
    ) {
        line(out, "file") { out.string(path == "-" ? "(standard input)" : path) }
        if let source { line(out, "source") { out.string(source) } }
        line(out, "container") { out.string(format.description) }
        line(out, "frames") { out.decimal(frames) }
        if let first = firstTime, let last = lastTime {
            line(out, "first frame") { out.rfc3339(microseconds: first) }
            line(out, "last frame") { out.rfc3339(microseconds: last) }
            line(out, "duration") {
                out.seconds(microseconds: maxTime &- minTime)
                out.ascii(" s")
            }
            if backwardSteps > 0 {
                line(out, "clock") {
                    out.decimal(backwardSteps)
                    out.ascii(" backward time steps")
                }
            }
        }
        line(out, "controllers") { out.decimal(max(controllerCount, frames > 0 ? 1 : 0)) }
        out.newline()
        heading(out, "records by kind")
        for kind in RecordKind.allCases where kindCounts[Int(kind.rawValue)] > 0 {
            count(out, kind.name, kindCounts[Int(kind.rawValue)])
        }
        if aclFragments > 0 { count(out, "acl fragments (PDU continues)", aclFragments) }
        if malformed > 0 { count(out, "malformed", malformed) }
        if truncated > 0 { count(out, "truncated by the capture", truncated) }
        table(out, "ATT PDUs by opcode", attCounts) { ATTOpcode($0).name }
        table(out, "SMP PDUs by code", smpCounts) { SMPCode.name($0) }
        table(out, "LE signaling commands", signalingCounts) { L2CAPSignalingCode.name($0) }
        writeTimelineText(to: out)
        out.newline()
        line(out, "damage") {
            if let damage { out.string(paint(damage.description, Palette.error)) } else { out.ascii("none") }
        }
        if let containerDamage { line(out, "archive") { out.string(containerDamage) } }
        for key in unmatchedKeys {
            line(out, "--ltk") {
                out.string(key)
                out.ascii(" matched no link")
            }
        }
    }

    private func line(_ out: OutputBuffer, _ label: StaticString, _ value: () -> Void) {
        out.ascii(label)
        out.byte(UInt8(ascii: ":"))
        out.spaces(14 - label.utf8CodeUnitCount)
        value()
        out.newline()
    }

    private func count(_ out: OutputBuffer, _ label: StaticString, _ n: Int) {
        out.ascii("  ")
        let start = out.count
        out.decimal(n)
        out.spaces(9 - (out.count - start))
        out.ascii(label)
        out.newline()
    }

    private func table(_ out: OutputBuffer, _ title: StaticString, _ counts: [Int], _ name: (UInt8) -> StaticString) {
        guard counts.contains(where: { $0 > 0 }) else { return }
        out.newline()
        heading(out, title)
        for (code, n) in counts.enumerated() where n > 0 {
            out.ascii("  ")
            let start = out.count
            out.decimal(n)
            out.spaces(9 - (out.count - start))
            out.hex(UInt64(code), digits: 2)
            out.byte(0x20)
            out.ascii(name(UInt8(code)))
            out.newline()
        }
    }

    package func writeJSON(
        to out: OutputBuffer, path: String, format: CaptureFormat, damage: CaptureDamage?, source: String? = nil,
        containerDamage: String? = nil
    ) {
        out.ascii("{\"file\":")
        out.jsonString(path)
        if let source {
            out.ascii(",\"source\":")
            out.jsonString(source)
        }
        out.ascii(",\"container\":")
        out.jsonString(format.container)
        out.ascii(",\"format\":")
        out.jsonString(format.description)
        out.ascii(",\"frames\":")
        out.decimal(frames)
        if !unmatchedKeys.isEmpty {
            out.ascii(",\"unmatched_ltks\":[")
            for (i, key) in unmatchedKeys.enumerated() {
                if i > 0 { out.byte(UInt8(ascii: ",")) }
                out.jsonString(key)
            }
            out.byte(UInt8(ascii: "]"))
        }
        if let first = firstTime, let last = lastTime {
            out.ascii(",\"first_time\":\"")
            out.rfc3339(microseconds: first)
            out.ascii("\",\"last_time\":\"")
            out.rfc3339(microseconds: last)
            out.ascii("\",\"duration_us\":")
            out.decimal(maxTime &- minTime)
            out.ascii(",\"backward_time_steps\":")
            out.decimal(backwardSteps)
        }
        if truncated > 0 {
            out.ascii(",\"truncated_frames\":")
            out.decimal(truncated)
        }
        out.ascii(",\"controllers\":")
        out.decimal(max(controllerCount, frames > 0 ? 1 : 0))
        out.ascii(",\"kinds\":{")
        var first = true
        for kind in RecordKind.allCases where kindCounts[Int(kind.rawValue)] > 0 {
            if !first { out.byte(UInt8(ascii: ",")) }
            first = false
            out.jsonString(kind.name)
            out.byte(UInt8(ascii: ":"))
            out.decimal(kindCounts[Int(kind.rawValue)])
        }
        out.ascii("},\"acl_fragments\":")
        out.decimal(aclFragments)
        out.ascii(",\"malformed\":")
        out.decimal(malformed)
        jsonTable(out, "att", attCounts) { ATTOpcode($0).name }
        jsonTable(out, "smp", smpCounts) { SMPCode.name($0) }
        jsonTable(out, "signaling", signalingCounts) { L2CAPSignalingCode.name($0) }
        writeTimelineJSON(to: out)
        out.ascii(",\"damage\":")
        if let damage {
            out.ascii("{\"offset\":")
            out.decimal(damage.offset)
            out.ascii(",\"frame\":")
            out.decimal(damage.frame)
            out.ascii(",\"reason\":")
            out.jsonString(damage.reason)
            out.byte(UInt8(ascii: "}"))
        } else {
            out.ascii("null")
        }
        if let containerDamage {
            out.ascii(",\"archive_damage\":")
            out.jsonString(containerDamage)
        }
        out.ascii("}\n")
    }

    private func jsonTable(_ out: OutputBuffer, _ key: StaticString, _ counts: [Int], _ name: (UInt8) -> StaticString) {
        out.ascii(",\"")
        out.ascii(key)
        out.ascii("\":[")
        var first = true
        for (code, n) in counts.enumerated() where n > 0 {
            if !first { out.byte(UInt8(ascii: ",")) }
            first = false
            out.ascii("{\"code\":")
            out.decimal(code)
            out.ascii(",\"name\":")
            out.jsonString(name(UInt8(code)))
            out.ascii(",\"count\":")
            out.decimal(n)
            out.byte(UInt8(ascii: "}"))
        }
        out.byte(UInt8(ascii: "]"))
    }
}

// MARK: devices, connections, timeline counts

extension CaptureStatistics {
    func writeTimelineText(to out: OutputBuffer) {
        let t = timeline
        if !t.devices.isEmpty {
            out.newline()
            heading(out, "devices seen (advertising reports, address, type, local name, frames)")
            for d in t.devices {
                out.ascii("  ")
                let start = out.count
                out.decimal(d.reports)
                out.spaces(9 - (out.count - start))
                out.address(d.address)
                out.ascii(addressTypeName(d.addressType))
                if var n = d.name {
                    out.ascii("  \"")
                    n.withUTF8 { out.sanitizedText(ByteView(UnsafeRawBufferPointer($0))) }
                    out.ascii("\"")
                }
                out.ascii("  frames ")
                out.decimal(d.firstFrame)
                out.ascii("–")
                out.decimal(d.lastFrame)
                out.newline()
            }
            if t.reportsFromUnlistedDevices > 0 {
                out.ascii("  ")
                out.decimal(t.reportsFromUnlistedDevices)
                out.ascii(" reports from further devices (not listed)")
                out.newline()
            }
        }
        if t.connectionCount > 0 {
            out.newline()
            heading(out, "connections")
            for c in t.connections {
                out.ascii("  #")
                out.decimal(c.number)
                out.spaces(c.number < 10 ? 3 : c.number < 100 ? 2 : 1)
                if let p = c.peer { out.address(p) } else { out.ascii("(unknown peer)   ") }
                out.ascii(c.role == 0 ? "  central   " : c.role == 1 ? "  peripheral" : "            ")
                out.ascii("  frames ")
                out.decimal(c.startFrame)
                out.ascii("–")
                if let e = c.endFrame { out.decimal(e) } else { out.ascii("end") }
                if let d = c.duration {
                    out.ascii("  ")
                    out.seconds(microseconds: d)
                    out.ascii(" s")
                }
                out.ascii("  ATT_MTU ")
                out.string(c.facts.mtuText)
                if let reason = c.endReason {
                    out.ascii("  ended ")
                    out.hex(UInt64(reason), digits: 2)
                    if let n = HCIError.name(reason) {
                        out.byte(0x20)
                        out.ascii(n)
                    }
                    if let side = c.endSide {
                        out.ascii(" (")
                        out.ascii(side.name)
                        out.ascii(")")
                    }
                } else {
                    out.ascii("  not ended in the capture")
                }
                if c.unknownStart { out.ascii("  (started before the capture)") }
                out.newline()
                if let p = c.facts.parameters, p.count > 1 { writeParametersText(p, to: out) }
                if let ll = c.linkLayer { writeLinkLayerText(ll, to: out) }
            }
            if t.connectionCount > t.connections.count {
                out.ascii("  ")
                out.decimal(t.connectionCount - t.connections.count)
                out.ascii(" more (not listed)")
                out.newline()
            }
        }
        // Attempts no connection came of (connection.failed: an HCI status, a CONNECT_IND the
        // peripheral never answered): reported, never counted as connections.
        let failed = t.count(of: "connection.failed")
        if failed > 0 {
            if t.connectionCount == 0 {
                out.newline()
                heading(out, "connections")
            }
            out.ascii("  ")
            out.decimal(failed)
            out.ascii(failed == 1 ? " failed connection attempt" : " failed connection attempts")
            out.ascii(" (connection.failed, not counted as connections)")
            out.newline()
        }
        let counts = t.eventCounts
        if !counts.isEmpty {
            out.newline()
            heading(out, "timeline events by type")
            for (type, n) in counts {
                out.ascii("  ")
                let start = out.count
                out.decimal(n)
                out.spaces(9 - (out.count - start))
                out.ascii(type)
                out.newline()
            }
        }
    }

    /// A connection's parameters over time (its record's `parameters`), when they changed:
    /// "interval / latency / timeout from frame N", oldest first.
    private func writeParametersText(_ p: [ConnectionParameters], to out: OutputBuffer) {
        out.ascii("        parameters:")
        for (i, s) in p.enumerated() {
            out.ascii(i == 0 ? " " : ", then ")
            out.string(Self.milliseconds(s.intervalUs))
            out.ascii(" ms latency ")
            out.decimal(s.latency)
            out.ascii(" timeout ")
            out.decimal(s.timeoutMs)
            out.ascii(" ms from frame ")
            out.decimal(s.frame)
            if let instant = s.instant {
                out.ascii(" (instant ")
                out.decimal(instant)
                out.ascii(")")
            }
        }
        out.newline()
    }

    package static func milliseconds(_ us: Int) -> String {
        guard us % 1000 != 0 else { return String(us / 1000) }
        var fraction = String(String(us % 1000 + 1000).dropFirst())
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return String(us / 1000) + "." + fraction
    }

    private func addressTypeName(_ t: UInt8?) -> StaticString {
        switch t {
        case 0: "  public  "
        case 1: "  random  "
        case 2: "  public (resolved)"
        case 3: "  random (resolved)"
        default: "          "
        }
    }

    func writeTimelineJSON(to out: OutputBuffer) {
        let t = timeline
        out.ascii(",\"devices\":[")
        for (i, d) in t.devices.enumerated() {
            if i > 0 { out.byte(UInt8(ascii: ",")) }
            out.ascii("{\"address\":\"")
            out.address(d.address)
            out.byte(0x22)
            out.jsonOptional("address_type", d.addressType.map(Int.init))
            if let n = d.name {
                out.ascii(",\"name\":")
                out.jsonString(n)
            }
            out.ascii(",\"reports\":")
            out.decimal(d.reports)
            out.ascii(",\"first_frame\":")
            out.decimal(d.firstFrame)
            out.ascii(",\"last_frame\":")
            out.decimal(d.lastFrame)
            out.ascii(",\"connectable\":")
            out.ascii(d.connectable ? "true" : "false")
            out.byte(UInt8(ascii: "}"))
        }
        out.ascii("],\"unlisted_device_reports\":")
        out.decimal(t.reportsFromUnlistedDevices)
        out.ascii(",\"connection_count\":")
        out.decimal(t.connectionCount)
        out.ascii(",\"failed_connection_attempts\":")
        out.decimal(t.count(of: "connection.failed"))
        out.ascii(",\"connections\":[")
        for (i, c) in t.connections.enumerated() {
            if i > 0 { out.byte(UInt8(ascii: ",")) }
            out.ascii("{\"connection\":")
            out.decimal(c.number)
            out.jsonOptional("peer", address: c.peer)
            out.jsonOptional("peer_address_type", c.peerAddressType.map(Int.init))
            if let r = c.role {
                out.ascii(",\"role\":")
                out.jsonString(r == 0 ? "central" : "peripheral")
            }
            out.ascii(",\"handle\":")
            out.decimal(Int(c.handle))
            out.ascii(",\"start_frame\":")
            out.decimal(c.startFrame)
            out.jsonOptional("end_frame", c.endFrame)
            out.jsonOptional("duration_us", c.duration.map(Int.init))
            if let reason = c.endReason {
                out.ascii(",\"end_reason\":")
                out.decimal(Int(reason))
                if let n = HCIError.name(reason) {
                    out.ascii(",\"end_reason_name\":")
                    out.jsonString(n)
                }
            }
            if let s = c.endSide {
                out.ascii(",\"side\":")
                out.jsonString(s.name)
            }
            if let ll = c.linkLayer { writeLinkLayerJSON(ll, to: out) }
            // ATT_MTU only when it is a fact; otherwise what it is at least (issue 28).
            if let mtu = c.facts.mtu {
                out.ascii(",\"mtu\":")
                out.decimal(mtu)
            }
            out.ascii(",\"unknown_start\":")
            out.ascii(c.unknownStart ? "true" : "false")
            writeFacts(c.facts, to: out)
            out.byte(UInt8(ascii: "}"))
        }
        out.ascii("],\"events\":{")
        for (i, (type, n)) in t.eventCounts.enumerated() {
            if i > 0 { out.byte(UInt8(ascii: ",")) }
            out.jsonString(type)
            out.byte(UInt8(ascii: ":"))
            out.decimal(n)
        }
        out.byte(UInt8(ascii: "}"))
    }
}

// MARK: link-layer connections

extension CaptureStatistics {
    /// The air's view of a sniffed connection, under its connection line.
    func writeLinkLayerText(_ ll: LinkLayerCounters, to out: OutputBuffer) {
        out.ascii("        link layer: AA ")
        out.hex(UInt64(ll.accessAddress), digits: 8)
        out.ascii(", ")
        out.decimal(ll.dataPDUs)
        out.ascii(" data PDUs (")
        out.decimal(ll.emptyPDUs)
        out.ascii(" empty), ")
        out.decimal(ll.retransmissions)
        out.ascii(" retransmissions, ")
        out.decimal(ll.crcErrors)
        out.ascii(" CRC errors, ")
        out.decimal(ll.encryptedPDUs)
        out.ascii(" encrypted")
        if let f = ll.encryptedFromFrame {
            out.ascii(" (ATT not visible from frame ")
            out.decimal(f)
            out.byte(UInt8(ascii: ")"))
        }
        if ll.decryptedPDUs > 0 {
            out.ascii(", ")
            out.decimal(ll.decryptedPDUs)
            out.ascii(" decrypted")
        }
        if ll.snifferDecryptedPDUs > 0 {
            out.ascii(", ")
            out.decimal(ll.snifferDecryptedPDUs)
            out.ascii(" decrypted by the sniffer")
        }
        if ll.micFailures > 0 {
            out.ascii(", ")
            out.decimal(ll.micFailures)
            out.ascii(" MIC failures")
        }
        out.ascii(", ")
        out.decimal(ll.missedEvents)
        out.ascii(" missed connection events (estimated)")
        if ll.txPHY != nil || ll.rxPHY != nil {
            out.ascii(", PHY tx ")
            out.ascii(Self.phyName(ll.txPHY))
            out.ascii(" rx ")
            out.ascii(Self.phyName(ll.rxPHY))
        }
        if let used = ll.usedChannels {
            out.ascii(", ")
            out.decimal(used)
            out.ascii(" of 37 data channels")
        }
        if ll.senderInferred { out.ascii(", direction inferred from timing") }
        out.newline()
    }

    /// An HCI PHY number's name (Vol 4 Part E 7.8.47).
    static func phyName(_ phy: UInt8?) -> StaticString {
        switch phy {
        case 1: "LE 1M"
        case 2: "LE 2M"
        case 3: "LE Coded"
        default: "unknown"
        }
    }

    func writeLinkLayerJSON(_ ll: LinkLayerCounters, to out: OutputBuffer) {
        out.ascii(",\"link_layer\":{\"access_address\":")
        out.decimal(UInt64(ll.accessAddress))
        out.ascii(",\"data_pdus\":")
        out.decimal(ll.dataPDUs)
        out.ascii(",\"empty_pdus\":")
        out.decimal(ll.emptyPDUs)
        out.ascii(",\"retransmissions\":")
        out.decimal(ll.retransmissions)
        out.ascii(",\"crc_errors\":")
        out.decimal(ll.crcErrors)
        out.ascii(",\"encrypted_pdus\":")
        out.decimal(ll.encryptedPDUs)
        if let f = ll.encryptedFromFrame {
            out.ascii(",\"encrypted_from_frame\":")
            out.decimal(f)
        }
        out.ascii(",\"decrypted_pdus\":")
        out.decimal(ll.decryptedPDUs)
        if ll.snifferDecryptedPDUs > 0 {
            out.ascii(",\"sniffer_decrypted_pdus\":")
            out.decimal(ll.snifferDecryptedPDUs)
        }
        out.ascii(",\"mic_failures\":")
        out.decimal(ll.micFailures)
        out.ascii(",\"missed_events\":")
        out.decimal(ll.missedEvents)
        out.ascii(",\"direction_inferred\":")
        out.ascii(ll.senderInferred ? "true" : "false")
        out.jsonOptional("tx_phy", ll.txPHY.map(Int.init))
        out.jsonOptional("rx_phy", ll.rxPHY.map(Int.init))
        if let map = ll.channelMap {
            out.ascii(",\"channel_map\":")
            out.decimal(map)
            out.ascii(",\"used_channels\":")
            out.decimal((map & LinkLayerCounters.dataChannels).nonzeroBitCount)
        }
        out.byte(UInt8(ascii: "}"))
    }
}

extension CaptureStatistics {
    /// `info`'s counts of one capture from one pass over it; the `--ltk` keys it found no link
    /// for are the pass's (`unmatchedKeys`).
    package static func collect(_ pass: CapturePass) -> CaptureStatistics {
        let counts = CaptureStatisticsConsumer()
        pass.run(counts)
        var statistics = counts.statistics
        statistics.unmatchedKeys = pass.unmatchedKeys
        return statistics
    }

    /// One capture's `info --format json` object on one line (batch mode's jsonl), and whether
    /// the capture or its container was damaged.
    package static func jsonLine(
        _ reader: any CaptureReader, name: String, keys: LinkLayerKeys, source: String?, containerDamage: String?
    ) -> (json: String, damaged: Bool) {
        let statistics = collect(CapturePass(reader: reader, name: name, keys: keys))
        let out = OutputBuffer(fd: nil)
        statistics.writeJSON(
            to: out, path: name, format: reader.format, damage: reader.damage, source: source,
            containerDamage: containerDamage)
        return (String(decoding: out.bytes, as: UTF8.self), reader.damage != nil || containerDamage != nil)
    }

    /// The line in its place for a capture that could not be opened.
    package static func jsonLine(name: String, error: String) -> String {
        let out = OutputBuffer(fd: nil)
        out.ascii("{\"file\":")
        out.jsonString(name)
        out.ascii(",\"error\":")
        out.jsonString(error)
        out.ascii("}")
        return String(decoding: out.bytes, as: UTF8.self)
    }
}

/// `info`'s consumer of the capture pass: every decoded frame's counts and the timeline's,
/// from one decode per frame. Beside `collect`, the one caller of the loop `run` specialises
/// for it: called from another module, its hooks were calls through witness thunks, not
/// inlined (+1.6 % on `info`, docs/performance.md). Unchecked: every access of a class's
/// property is otherwise checked at run time (a `swift_beginAccess` call per event;
/// docs/performance.md); the pass calls back on the thread that runs it, never while another
/// call is running.
final class CaptureStatisticsConsumer: CaptureConsumer {
    @exclusivity(unchecked) var statistics = CaptureStatistics()
    var observes: CaptureObservations { [.frames, .events, .connections] }
    func frame(_ frame: DecodedFrame) { statistics.add(frame) }
    func event(_ event: TimelineEvent) { statistics.timeline.add(event) }
    func connectionEnded(_ summary: ConnectionSummary) { statistics.timeline.add(summary) }
}
