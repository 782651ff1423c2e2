import BLEBytes
import BLEPackets
import BLETimeline

/// What the capture's advertising reports showed of one address: whether it advertised
/// connectably, and when last. An attempt that never came up is read against it.
struct AdvertiserSeen {
    var connectable = 0
    var nonConnectable = 0
    var lastConnectable: (frame: Int, time: Int64)?
    var lastNonConnectable: (frame: Int, time: Int64)?
    /// The last non-connectable report's PDU type in words.
    var nonConnectableType: StaticString = "non-connectable"
    /// The last report's RSSI, when it gave one (127 is "not available").
    var lastRSSI: (frame: Int, time: Int64, dBm: Int8)?
}

/// One target's failed attempts, for `reconnect_loop` (Android's autoConnect background
/// connects and apps that reconnect on every failure).
struct LoopHistory {
    var pattern: StaticString
    var peer: String?
    /// The accept list's devices, in words (accept-list loops).
    var target: String?
    var count = 0
    var firstFrame = 0
    var lastFrame = 0
    /// The start times of the first `maximumTimes` cycles (the period's median).
    var starts: [Int64] = []
    /// The frames of the first cycles' creates and ends, cited by the verdict.
    var frames: [Int] = []
    /// The order the target first looped in (verdicts are handed out in that order).
    var order = 0
    /// The cycles are CONNECT_INDs a sniffer heard, not HCI commands.
    var overTheAir = false
}

extension Diagnoser {
    /// Advertisers remembered at most: a busy scan is not allowed to grow the table without bound.
    static let maximumAdvertisers = 2_048
    /// Targets whose attempts are followed for loops, at most.
    static let maximumLoopTargets = 256
    /// This many failed cycles for one target make a loop.
    public static let loopCycles = 3
    static let maximumLoopTimes = 64
    static let maximumLoopFrames = 8

    // MARK: advertising

    /// Legacy event types (7.7.65.2): 0 ADV_IND and 1 ADV_DIRECT_IND are connectable, 2
    /// ADV_SCAN_IND and 3 ADV_NONCONN_IND are not, 4 SCAN_RSP says nothing of it. Extended
    /// (7.7.65.13): bit 0 Connectable; bit 3 marks a scan response.
    func noteAdvertisement(_ e: TimelineEvent, _ info: AdvertisementInfo) {
        guard let peer = e.peer else { return }
        let connectable: Bool
        var type: StaticString = "non-connectable"
        if info.extended {
            if info.eventType & 0x08 != 0 { return }
            connectable = info.eventType & 0x01 != 0
            if !connectable { type = info.eventType & 0x10 != 0 ? "ADV_NONCONN_IND" : "non-connectable extended" }
        } else {
            switch info.eventType {
            case 0, 1: connectable = true
            case 2:
                connectable = false
                type = "ADV_SCAN_IND"
            case 3:
                connectable = false
                type = "ADV_NONCONN_IND"
            default: return
            }
        }
        if advertisers[peer] == nil, advertisers.count >= Self.maximumAdvertisers { return }
        advertisers[peer, default: AdvertiserSeen()].note(connectable, e.frame, e.time, type)
        if info.rssi != 127 { advertisers[peer]?.lastRSSI = (e.frame, e.time, info.rssi) }
    }

    // MARK: an attempt's context

    /// Adds to a verdict of an attempt that made no connection what the advertising reports
    /// say of its target(s), and follows the target for loops.
    func context(_ v: inout Verdict, _ a: Attempt?, endTime: Int64?) {
        guard let a else { return }
        if a.acceptList {
            acceptListStep(&v, a, endTime: endTime)
        } else if let peer = a.peer {
            targetStep(&v, a, peer)
        }
        v.finishFrames()
        follow(v, a, endTime: endTime)
    }

    /// (a) The devices on the accept list, and whether any advertised.
    private func acceptListStep(_ v: inout Verdict, _ a: Attempt, endTime: Int64?) {
        guard v.ended == "cancelled" || v.ended == "unfinished" else { return }
        guard let devices = a.acceptListDevices else {
            v.steps.append(
                Verdict.Step(
                    what: "accept_list",
                    text:
                        "which devices were on the filter accept list is not in the capture (no LE Add Device To Filter Accept List before the create)",
                    frames: [], certainty: .inferred, basis: "the capture's accept-list commands"))
            return
        }
        let end = endTime ?? Int64.max
        var advertisedDuring: [String] = []
        var advertisedBefore: [String] = []
        var frames: [Int] = []
        for d in devices {
            guard let s = advertisers[d], let last = s.lastConnectable else { continue }
            if last.time >= a.time && last.time <= end {
                advertisedDuring.append("\(d) (frame \(last.frame))")
                frames.append(last.frame)
            } else if last.time < a.time {
                advertisedBefore.append("\(d) (last at frame \(last.frame))")
                frames.append(last.frame)
            }
        }
        let list =
            devices.isEmpty
            ? "no device"
            : devices.map(\.description).joined(separator: ", ")
                + (a.acceptListMore > 0 ? " and \(a.acceptListMore) more" : "")
                + (a.acceptListComplete || a.acceptListMore > 0
                    ? "" : ", and possibly devices added before the capture began")
        var text = "the filter accept list held \(list)"
        let reportsDuring = advertisingReportsBetween(a.time, end)
        if !advertisedDuring.isEmpty {
            text +=
                "; \(advertisedDuring.joined(separator: ", ")) advertised connectably while the controller waited, yet no connection came"
        } else if !reportsDuring {
            text +=
                "; no advertising report of any device came while the controller waited (the host was not scanning), so whether they advertised cannot be told"
                + (advertisedBefore.isEmpty ? "" : " (before it: \(advertisedBefore.joined(separator: ", ")))")
        } else {
            text +=
                "; none of them advertised connectably while the controller waited, though other devices' reports came"
                + (advertisedBefore.isEmpty
                    ? " and none did anywhere in the capture before it"
                    : " (earlier: \(advertisedBefore.joined(separator: ", ")))")
            v.signals.append("accept_list_not_advertising")
        }
        v.steps.append(
            Verdict.Step(
                what: "accept_list", text: text, frames: frames, certainty: .inferred,
                basis:
                    "the capture's LE Add Device To Filter Accept List commands and the advertising reports between the create and its end"
            ))
    }

    /// (b) A direct connect to an address the capture only saw advertise non-connectably.
    private func targetStep(_ v: inout Verdict, _ a: Attempt, _ peer: BDAddr) {
        guard v.ended != "rejected", let s = advertisers[peer], s.connectable == 0, let last = s.lastNonConnectable
        else { return }
        v.steps.append(
            Verdict.Step(
                what: "target_not_connectable",
                text:
                    "\(peer) advertised only with \(s.nonConnectableType) (\(s.nonConnectable) report\(s.nonConnectable == 1 ? "" : "s"), the last at frame \(last.frame)) and never connectably in the capture: a device that does not advertise connectably cannot be connected to",
                frames: [last.frame], certainty: .inferred,
                basis: "the advertising reports' event types (Vol 4 Part E 7.7.65.2, 7.7.65.13)"))
        v.signals.append("target_non_connectable")
    }

    private func advertisingReportsBetween(_ start: Int64, _ end: Int64) -> Bool {
        for s in advertisers.values {
            if let c = s.lastConnectable, c.time >= start, c.time <= end { return true }
            if let n = s.lastNonConnectable, n.time >= start, n.time <= end { return true }
        }
        return lastAdvertisementTime.map { $0 >= start && $0 <= end } ?? false
    }

    // MARK: loops (c)

    private func follow(_ v: Verdict, _ a: Attempt, endTime: Int64?) {
        let pattern: StaticString
        let key: String
        if a.acceptList, v.ended == "cancelled", let devices = a.acceptListDevices, !devices.isEmpty,
            a.acceptListMore == 0
        {
            // Only a list the capture built names the target: cycles through lists it cannot
            // see may be for different devices.
            pattern = "accept_list_cancel"
            key = "accept_list " + devices.map(\.description).sorted().joined(separator: ",")
        } else if !a.acceptList, let peer = a.peer, v.reason == Int(HCIError.connectionFailedToBeEstablished) {
            pattern = "failed_to_be_established"
            key = "direct \(peer)"
        } else {
            return
        }
        if loops[key] == nil {
            guard loops.count < Self.maximumLoopTargets else { return }
            loops[key] = LoopHistory(
                pattern: pattern, peer: a.acceptList ? nil : a.peer?.description,
                target: a.acceptListDevices.map { $0.map(\.description).joined(separator: ", ") }, order: loops.count)
        }
        loops[key]?.add(start: a.time, frame: a.frame, endFrame: v.endFrame ?? a.frame)
    }

    /// Over the air the CONNECT_IND is the create: a direct connect to its AdvA (the initiator
    /// filter policy is the central's own, not on the air), failed when the peripheral never
    /// answered (0x3E). The same loop as a direct create answered by 0x3E on HCI.
    func followOverTheAir(_ v: Verdict, _ e: TimelineEvent) {
        guard v.reason == Int(HCIError.connectionFailedToBeEstablished), let peer = e.peer else { return }
        let key = "direct \(peer)"
        if loops[key] == nil {
            guard loops.count < Self.maximumLoopTargets else { return }
            loops[key] = LoopHistory(
                pattern: "failed_to_be_established", peer: peer.description, target: nil, order: loops.count,
                overTheAir: true)
        }
        loops[key]?.add(start: e.time, frame: e.frame, endFrame: v.endFrame ?? e.frame)
    }

    /// One verdict per target that failed `loopCycles` times or more in the same way.
    func loopVerdicts() -> [Verdict] {
        loops.values.filter { $0.count >= Self.loopCycles }.sorted { $0.order < $1.order }.map { $0.verdict() }
    }
}

extension AdvertiserSeen {
    mutating func note(_ isConnectable: Bool, _ frame: Int, _ time: Int64, _ type: StaticString) {
        if isConnectable {
            connectable += 1
            lastConnectable = (frame, time)
        } else {
            nonConnectable += 1
            lastNonConnectable = (frame, time)
            nonConnectableType = type
        }
    }
}

extension LoopHistory {
    mutating func add(start: Int64, frame: Int, endFrame: Int) {
        if count == 0 { firstFrame = frame }
        count += 1
        lastFrame = endFrame
        if starts.count < Diagnoser.maximumLoopTimes { starts.append(start) }
        if frames.count < Diagnoser.maximumLoopFrames { frames += [frame, endFrame] }
    }

    /// The median time between consecutive cycles' starts, and the shortest and longest.
    var period: (median: Int64, min: Int64, max: Int64)? {
        guard starts.count >= 2 else { return nil }
        var gaps: [Int64] = []
        for i in 1..<starts.count { gaps.append(starts[i] - starts[i - 1]) }
        gaps.sort()
        return (gaps[gaps.count / 2], gaps[0], gaps[gaps.count - 1])
    }

    func verdict() -> Verdict {
        let accept = pattern.description == "accept_list_cancel"
        var v = Verdict(
            kind: .loop, connection: nil, peer: peer, handle: nil, role: "central", startFrame: firstFrame,
            endFrame: lastFrame, ended: "repeated", reason: nil, reasonName: nil, cause: "reconnect_loop",
            party: accept ? "os-stack" : "host", summary: "", signature: "reconnect_loop pattern=\(pattern)",
            signals: [], frames: [], steps: [])
        let every = period.map { p in
            " about every \(Codes.duration(p.median)) (from \(Codes.duration(p.min)) to \(Codes.duration(p.max)))"
        }
        let cycles =
            accept
            ? "create-connection through the filter accept list (holding \(target ?? "the same devices")), then this host's cancel"
            : overTheAir
                ? "CONNECT_IND to \(peer ?? "the device") that the peripheral never answered (0x3E Connection Failed to be Established)"
                : "create-connection to \(peer ?? "the device"), then Connection Complete with 0x3E Connection Failed to be Established"
        v.steps.append(
            Verdict.Step(
                what: "cycles",
                text: "\(count) cycles of \(cycles)\(every ?? "") (the first cycles' frames are cited)",
                frames: frames, certainty: .observed,
                basis: overTheAir
                    ? "over the air: CONNECT_INDs to one advertiser, each unanswered on its access address, repeated"
                    : "HCI LE Create Connection and its end, repeated"))
        v.steps.append(
            Verdict.Step(
                what: "why",
                text: accept
                    ? "a background connect waiting for the device to advertise: Android's BluetoothDevice.connectGatt with autoConnect=true, like Core Bluetooth's connect(_:options:) (which does not time out), keeps the device on the accept list, and the stack cancels and restarts the connect whenever it changes the list or scans; the device never connected in these cycles"
                    : "the peer kept failing to answer the connection request and the host kept asking again: an app reconnecting on every failure (Android reports each as GATT status 62 or 133 to BluetoothGattCallback.onConnectionStateChange)",
                frames: [firstFrame], certainty: .inferred,
                basis: "the same target failing the same way \(count) times in a row"))
        v.summary =
            accept
            ? "A background (accept-list) connect was cancelled and restarted \(count) times\(every ?? ""), with no device connecting."
            : "The host tried \(count) times to connect to \(peer ?? "the device")\(every ?? ""), each failing with 0x3E."
        v.finishFrames()
        return v
    }
}
