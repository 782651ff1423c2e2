import BLEBytes
import BLEPackets
import BLETimeline

/// Turns a connection's timeline event into a sequence-chart row: which lifeline it starts
/// from, what to call it, the attribute's name, and what failed.
enum SequenceMapping {
    static func row(_ e: TimelineEvent, t: Int64, hostIsCentral: Bool) -> (
        item: SequenceItem, signature: SequenceSignature?
    )? {
        func dir(_ sent: Bool) -> String { sent == hostIsCentral ? "c2p" : "p2c" }
        func item(_ op: String, _ dir: String, handle: UInt16? = nil, name: String? = nil, detail: String? = nil)
            -> SequenceItem
        {
            var i = SequenceItem(frame: e.frame, t: t, dir: dir, op: op, lastFrame: e.frame, lastT: t)
            i.handle = handle.map(Int.init)
            i.name = name
            i.detail = detail
            i.responseFrame = e.outcome.responseFrame
            i.latency = e.outcome.latency
            return i
        }
        func hciStatus(_ status: UInt8) -> String? {
            status == 0 ? nil : "status 0x\(hex(status)) \(HCIError.name(status).map { $0.description } ?? "")"
        }
        var row: SequenceItem
        var collapsible = false
        var handle: UInt16 = 0
        var opcode: UInt16 = 0
        switch e.kind {
        case .connectionComplete(let info):
            var d = info.role == 1 ? "this host peripheral" : "this host central"
            if let timing = info.timing { d += ", " + Self.timing(timing) }
            row = item("Connection Complete", "link", detail: d)
        case .connectionUpdate(let status, let timing):
            row = item("Connection Update", "link", detail: Self.timing(timing))
            row.error = hciStatus(status)
        case .connectionParameterRequest(_, let lo, let hi, let latency, let timeout, let sent, let result):
            row = item(
                "Connection Parameter Update Request", dir(sent),
                detail:
                    "interval \(ms(Double(lo) * 1.25))–\(ms(Double(hi) * 1.25)) ms, latency \(latency), timeout \(Int(timeout) * 10) ms"
                    + (result == 0 ? ", accepted" : ""))
            if let r = result, r != 0 { row.error = "rejected" }
        case .dataLengthChange(let tx, let rx):
            row = item("Data Length Change", "link", detail: "max tx \(tx) B, max rx \(rx) B")
        case .phyUpdate(let status, let tx, let rx):
            row = item("PHY Update", "link", detail: "tx \(phy(tx)), rx \(phy(rx))")
            row.error = hciStatus(status)
        case .channelMapUpdate(let map):
            let used = (map & LinkLayerCounters.dataChannels).nonzeroBitCount
            row = item("Channel Map Update", "link", detail: "\(used) data channels")
        case .encryptionChange(let status, let enabled):
            row = item("Encryption Change", "link", detail: enabled != 0 ? "encrypted" : "not encrypted")
            row.error = hciStatus(status)
        case .disconnection(let status, let reason, let side):
            row = item(
                "Disconnection", "link",
                detail: "reason 0x\(hex(reason)) \(HCIError.name(reason).map { $0.description } ?? ""), \(side.name)")
            row.error = hciStatus(status)
        case .mtuExchange(let client, let server, let effective, let sent):
            row = item(
                "MTU Exchange", dir(sent),
                detail: "client \(client), server \(server.map(String.init) ?? "?") → ATT_MTU \(effective)")
        case .discovery(let d, let sent):
            let what: String =
                switch d.target {
                case .primaryServices: "Discover primary services"
                case .secondaryServices: "Discover secondary services"
                case .includes: "Find included services"
                case .characteristics: "Discover characteristics"
                case .descriptors: "Discover descriptors"
                }
            var detail = "0x\(hex16(d.startHandle))–0x\(hex16(d.endHandle))"
            if let u = d.filter {
                detail += " by \(GATTAssignedNumbers.name(for: u).map { $0.description } ?? u.description)"
            }
            detail += ", found \(d.found)"
            row = item(what, dir(sent), detail: detail)
            if case .error(_, _, ATTErrorCode.attributeNotFound, _) = e.outcome {
                row.detail = detail + " (end: Attribute Not Found)"
            }
        case .read(let op, let v):
            let name: String =
                switch v {
                case .read: "Read"
                case .blob: "Read Blob"
                case .multiple: "Read Multiple"
                case .multipleVariable: "Read Multiple Variable"
                case .byType: "Read By Type"
                }
            row = item(name, dir(op.sent), handle: op.handle, name: op.attribute?.displayName)
            if case .success = e.outcome {
                row.detail = "\(e.value.count) B"
                sized(&row, e.value.count)
            }
            collapsible = true
            handle = op.handle
            opcode = UInt16(op.opcode)
        case .write(let op, let v):
            let name: String =
                switch v {
                case .request: "Write Request"
                case .command: "Write Command"
                case .signed: "Signed Write Command"
                case .prepare: "Prepare Write Request"
                case .execute: "Execute Write Request"
                }
            row = item(
                name, dir(op.sent), handle: v == .execute ? nil : op.handle,
                name: v == .execute ? nil : op.attribute?.displayName)
            if v != .execute {
                let n = e.value.count
                var d = "\(n) B"
                if let o = op.offset, v == .prepare { d += " at offset \(o)" }
                if op.mtuKnown {
                    if v != .prepare, n > Int(op.mtu) - 3 { d += " > ATT_MTU−3 (\(Int(op.mtu) - 3))" }
                    d += ", MTU \(op.mtu)"
                } else {
                    // The capture missed the exchange: the PDUs only bound ATT_MTU from below.
                    d += ", MTU unknown (at least \(op.mtu))"
                }
                row.detail = d
                sized(&row, n)
                collapsible = (v == .command || v == .request) && n <= Int(op.mtu) - 3
            }
            handle = op.handle
            opcode = UInt16(op.opcode)
        case .subscribe(let op, let configuration):
            var what: [String] = []
            if configuration & 1 != 0 { what.append("notifications") }
            if configuration & 2 != 0 { what.append("indications") }
            row = item(
                configuration == 0 ? "Unsubscribe" : "Subscribe", dir(op.sent), handle: op.handle,
                name: op.attribute?.displayName, detail: what.isEmpty ? "0x0000" : what.joined(separator: " + "))
        case .notification(let op), .indication(let op):
            let isNotification: Bool = if case .notification = e.kind { true } else { false }
            row = item(
                isNotification ? "Notification" : "Indication", dir(op.sent), handle: op.handle,
                name: op.attribute?.displayName, detail: "\(e.value.count) B")
            sized(&row, e.value.count)
            collapsible = true
            handle = op.handle
            opcode = UInt16(op.opcode)
        case .unmatchedResponse(let op, let code, let h, let sent):
            row = item("Unmatched \(ATTOpcode(op).name.description)", dir(sent), handle: h)
            if let code { row.error = "0x\(hex(code)) \(ATTErrorCode.name(code).map { $0.description } ?? "")" }
        case .pairingRequest(_, let sent): row = item("Pairing Request", dir(sent))
        case .pairingResponse(let p, let sent):
            row = item("Pairing Response", dir(sent), detail: p.method.map { $0.name.description })
        case .pairingFailed(let reason, let sent):
            row = item("Pairing Failed", dir(sent))
            row.error = "reason 0x\(hex(reason))"
        case .securityRequest(_, let sent): row = item("Security Request", dir(sent))
        case .identityAddress(let a, _, let sent): row = item("Identity Address", dir(sent), detail: a.description)
        case .keyDistribution(let k, let sent): row = item("Key Distribution", dir(sent), detail: k.name.description)
        default:
            return nil
        }
        switch e.outcome {
        case .error(_, _, let code, let h):
            if row.error == nil && !(code == ATTErrorCode.attributeNotFound && isDiscovery(e.kind)) {
                let name = isATTKind(e.kind) ? ATTErrorCode.name(code) : HCIError.name(code)
                row.error =
                    "0x\(hex(code)) \(name.map { $0.description } ?? "error")"
                    + (h != 0 && isATTKind(e.kind) ? " on 0x\(hex16(h))" : "")
            }
            collapsible = false
        case .timeout:
            row.error = "no response (timeout)"
            collapsible = false
        case .unanswered(let f):
            row.error = "never answered (next request frame \(f))"
            collapsible = false
        case .disconnected:
            row.error = "no response before disconnection"
            collapsible = false
        case .endOfCapture:
            row.detail = (row.detail.map { $0 + ", " } ?? "") + "no response in the capture"
            collapsible = false
        default: break
        }
        if row.error != nil { collapsible = false }
        let signature = collapsible ? SequenceSignature(operation: opcode, handle: handle, c2p: row.dir == "c2p") : nil
        return (row, signature)
    }

    static func sized(_ row: inout SequenceItem, _ n: Int) {
        row.bytes = n
        row.minLength = n
        row.maxLength = n
    }

    /// The detail line of a collapsed run.
    static func runDetail(_ row: SequenceItem) -> String {
        let span = Double(row.lastT - row.t) / 1e6
        var d = "×\(row.count)"
        if let lo = row.minLength, let hi = row.maxLength { d += lo == hi ? ", \(lo) B each" : ", \(lo)–\(hi) B" }
        d += ", \(row.bytes) B in \(String(format2(span))) s"
        if span > 0 { d += " (\(String(format1(Double(row.count) / span))) /s)" }
        return d
    }

    static func timing(_ t: ConnectionTiming) -> String {
        "interval \(ms(Double(t.interval) * 1.25)) ms, latency \(t.latency), timeout \(Int(t.supervisionTimeout) * 10) ms"
    }

    static func isDiscovery(_ k: TimelineEvent.Kind) -> Bool {
        if case .discovery = k { return true }
        return false
    }
    static func isATTKind(_ k: TimelineEvent.Kind) -> Bool { ConnectionAccumulator.isATT(k) }

    static func phy(_ p: UInt8) -> String {
        switch p {
        case 1: "LE 1M"
        case 2: "LE 2M"
        case 3: "LE Coded"
        default: "PHY \(p)"
        }
    }
}

func hex(_ v: UInt8) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return s.count == 1 ? "0" + s : s
}

func hex16(_ v: UInt16) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return String(repeating: "0", count: 4 - s.count) + s
}

/// Milliseconds with at most two decimals, trailing zeros dropped (7.5, 11.25, 15).
func ms(_ v: Double) -> String { format2(v) }

func format2(_ v: Double) -> String {
    let r = (v * 100).rounded() / 100
    if r == r.rounded() { return String(Int(r)) }
    return String(r)
}

func format1(_ v: Double) -> String {
    let r = (v * 10).rounded() / 10
    if r == r.rounded() { return String(Int(r)) }
    return String(r)
}
