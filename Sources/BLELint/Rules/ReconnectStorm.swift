import BLEBytes
import BLEPackets
import BLETimeline

/// BLE013: reconnecting to a peer again and again without backing off, and the opposite:
/// losing a link and never trying again.
///
/// The rule asks for every disconnection to be handled, with a reconnection that backs off
/// where the app still needs the link (docs/rules/reconnect-storm.md). Both ways of getting it
/// wrong show in HCI:
///
/// - **Storm.** `connect()` called from `didDisconnectPeripheral` every time, at once: LE
///   Create Connection to the same peer within a millisecond of each Disconnection Complete.
///   When the peer keeps dropping the link (out of range, firmware resetting, rejecting the
///   bond) this burns the radio of both sides. A *reconnection attempt* is an LE Create
///   Connection to a peer whose previous connection or attempt in the capture has ended
///   (Disconnection Complete, failed Connection Complete, cancel). `attempts` of them within
///   `window_s` make a storm, reported once with all its attempts.
/// - **No reconnect (note).** A link this host held as central ended by link loss —
///   0x08 Connection Timeout (supervision timeout, Core Vol 6 Part B 4.5.2), 0x3D Connection
///   Terminated due to MIC Failure, 0x3E Connection Failed to be Established — and no new
///   attempt to that peer followed within `reconnect_within_s` while the capture went on.
///   A connection through the filter accept list (no peer address in the command) that is
///   pending at the loss or issued after it may be the reconnection, so it counts as one.
///   The default of 30 s is generous: a back-off starting at 1 s and doubling has tried four
///   times by then.
public struct ReconnectStorm: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE013", slug: "reconnect-storm", title: "Reconnection storm, or link loss without reconnect",
        defaultSeverity: .warning,
        summary: """
            Repeated reconnection attempts to one peer without back-off: at least `attempts` LE \
            Create Connection commands to the same peer within `window_s`, each issued after the \
            previous connection or attempt to it had ended (the app calls connect() from \
            didDisconnectPeripheral at once, every time). Reported as a note instead: a link this \
            host held as central lost to supervision timeout (0x08), MIC failure (0x3D) or failed \
            establishment (0x3E) with no new attempt to that peer within `reconnect_within_s` \
            while the capture continued.
            """,
        enforces: [
            "Handle every disconnection: after an unexpected one, reconnect if the app still needs the link.",
            "Wait longer after each failed attempt instead of reconnecting from the disconnection callback at once, every time.",
        ],
        references: [
            .apple(
                "CBCentralManagerDelegate.centralManager(_:didDisconnectPeripheral:timestamp:isReconnecting:error:)"),
            .apple("CBCentralManager.connect(_:options:)"),
            .android("BluetoothDevice.connectGatt(Context, boolean, BluetoothGattCallback, int)"),
            .android("BluetoothGattCallback.onConnectionStateChange"),
            .android("BluetoothGatt.close()"),
            .spec("Vol 6 Part B 4.5.2", "supervision timeout"),
        ],
        evidence: [.hci],
        thresholds: [
            ThresholdSpec("attempts", 4, unit: "attempts", "Reconnection attempts to one peer that make a storm"),
            ThresholdSpec("window_s", 10, unit: "s", "…when made within this many seconds"),
            ThresholdSpec(
                "reconnect_within_s", 30, unit: "s",
                "How long after an unexpected disconnect a reconnection attempt is expected"),
        ],
        fix: """
            private var retryDelay: TimeInterval = 1

            func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
                                timestamp: CFAbsoluteTime, isReconnecting: Bool, error: Error?) {
                guard !isReconnecting, error != nil else { return }  // system reconnects, or we hung up
                DispatchQueue.main.asyncAfter(deadline: .now() + retryDelay) {
                    central.connect(peripheral, options: nil)       // connect() never times out
                }
                retryDelay = min(retryDelay * 2, 60)                 // back off
            }
            """,
        android: PlatformAdvice(
            """
            On Android, reconnecting to a known peer is what `BluetoothDevice.connectGatt(context, true, …)` \
            (autoConnect) is for: the stack connects in the background when the peer advertises, with no \
            attempt loop in the app. An app that reconnects itself first closes the old `BluetoothGatt` \
            (`close()`) in `onConnectionStateChange` and waits longer after each failure, notably status 133 \
            `GATT_ERROR` (Android's `BluetoothDevice` and `BluetoothGatt` references).
            """,
            fix: """
                private var retryDelayMs = 1_000L

                override fun onConnectionStateChange(gatt: BluetoothGatt, status: Int, newState: Int) {
                    if (newState != BluetoothProfile.STATE_DISCONNECTED) return
                    gatt.close()  // one BluetoothGatt per attempt
                    handler.postDelayed({
                        device.connectGatt(context, true, this, BluetoothDevice.TRANSPORT_LE)  // autoConnect
                    }, retryDelayMs)
                    retryDelayMs = minOf(retryDelayMs * 2, 60_000L)  // back off
                }
                """))

    /// HCI reasons that mean the link was lost rather than ended by either host.
    static let linkLossReasons: Set<UInt8> = [
        HCIError.connectionTimeout, HCIError.connectionTerminatedMICFailure, HCIError.connectionFailedToBeEstablished,
    ]
    static let maximumPeers = 256
    static let keptFrames = 16

    struct Storm {
        var first: TimelineEvent
        var count: Int
        var last: Int64
        var frames: [Int]
        var minGap: Int64
        var maxGap: Int64
        var reported = false
    }

    struct Peer {
        /// When (and in which frame) the previous connection or attempt ended; nil while one
        /// is open or pending.
        var ended: (time: Int64, frame: Int)?
        /// The last `attempts` reconnection attempts (time, frame, gap since the end).
        var recent: [(time: Int64, frame: Int, endFrame: Int, gap: Int64, event: TimelineEvent)] = []
        var storm: Storm?
    }

    struct Drop {
        var event: TimelineEvent
        var reason: UInt8
    }

    let attempts: Int
    let window: Int64
    let reconnectWithin: Int64
    var peers: [BDAddr: Peer] = [:]
    /// Connections this host holds as central, by connection number (bounded by open links).
    var central: Set<Int> = []
    /// Link losses waiting for a reconnection attempt, by peer.
    var drops: [BDAddr: Drop] = [:]
    var lastCreate: BDAddr?
    /// An LE Create Connection through the filter accept list is outstanding.
    var acceptListPending = false

    public init(settings: RuleSettings) {
        attempts = max(2, Int(settings.threshold("attempts", in: Self.descriptor)))
        window = Int64(settings.threshold("window_s", in: Self.descriptor) * 1_000_000)
        reconnectWithin = Int64(settings.threshold("reconnect_within_s", in: Self.descriptor) * 1_000_000)
    }

    public static let observedFacts: HCIFactClasses = []

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        if f.isOverTheAir, !f.hasAPITrace {
            return
                "\(CaptureFacts.overTheAir): connection attempts are host commands (the air shows only the CONNECT_INDs that succeeded)"
        }
        return f.hciCommands == 0 && f.hciEvents == 0
            ? "the input holds no HCI commands or events (connections are made by them)" : nil
    }

    public mutating func observe(_ e: TimelineEvent, _ sink: FindingSink) {
        checkDrops(now: e.time, sink)
        switch e.kind {
        case .connectionCreate:
            guard let p = e.peer, p.rawValue != 0 else {
                // Filter accept list: any pending link loss may be what it reconnects.
                drops.removeAll()
                lastCreate = nil
                if case .error = e.outcome {} else { acceptListPending = true }
                return
            }
            drops[p] = nil
            lastCreate = p
            acceptListPending = false  // one LE Create Connection at a time (7.8.12)
            attempt(p, e, sink)
        case .connectionCancel:
            acceptListPending = false
            if let p = lastCreate { ended(p, e) }
        case .connectionFailed(let info):
            acceptListPending = false
            // A failed attempt through the accept list reports the zero address.
            guard let p = e.peer, p.rawValue != 0 else { return }
            ended(p, e)
            if info.role == 0, Self.linkLossReasons.contains(info.status) { drop(p, e, info.status) }
        case .connectionComplete(let info):
            if info.role == 0, let c = e.connection {
                central.insert(c)
                acceptListPending = false  // the outstanding create, whichever it was, completed
            }
            if let p = e.peer {
                drops[p] = nil
                if peers[p] != nil { peers[p]!.ended = nil }
            }
        case .disconnection(let status, let reason, _):
            guard status == 0 else { return }
            let wasCentral = e.connection.map { central.remove($0) != nil } ?? false
            guard let p = e.peer else { return }
            ended(p, e)
            if wasCentral, Self.linkLossReasons.contains(reason) { drop(p, e, reason) }
        default: break
        }
    }

    mutating func ended(_ p: BDAddr, _ e: TimelineEvent) {
        if peers[p] == nil {
            guard peers.count < Self.maximumPeers else { return }
            peers[p] = Peer()
        }
        peers[p]!.ended = (e.time, e.frame)
    }

    mutating func drop(_ p: BDAddr, _ e: TimelineEvent, _ reason: UInt8) {
        guard !acceptListPending, drops[p] != nil || drops.count < Self.maximumPeers else { return }
        drops[p] = Drop(event: e, reason: reason)
    }

    mutating func attempt(_ p: BDAddr, _ e: TimelineEvent, _ sink: FindingSink) {
        guard var peer = peers[p], let end = peer.ended else { return }  // a first attempt
        peer.ended = nil
        let gap = e.time - end.time
        peer.recent.append((e.time, e.frame, end.frame, gap, e))
        if peer.recent.count > attempts { peer.recent.removeFirst() }
        if var s = peer.storm {
            if e.time - s.last <= window {
                s.count += 1
                s.last = e.time
                if s.frames.count < Self.keptFrames { s.frames += [end.frame, e.frame] }
                s.minGap = min(s.minGap, gap)
                s.maxGap = max(s.maxGap, gap)
                peer.storm = s
                peers[p] = peer
                return
            }
            report(s, sink)
            peer.storm = nil
        }
        if peer.recent.count >= attempts, let oldest = peer.recent.first, e.time - oldest.time <= window {
            var s = Storm(
                first: oldest.event, count: peer.recent.count, last: e.time, frames: [],
                minGap: .max, maxGap: 0)
            for r in peer.recent {
                s.frames += [r.endFrame, r.frame]
                s.minGap = min(s.minGap, r.gap)
                s.maxGap = max(s.maxGap, r.gap)
            }
            peer.storm = s
            peer.recent.removeAll()
        }
        peers[p] = peer
    }

    func report(_ s: Storm, _ sink: FindingSink) {
        guard let p = s.first.peer else { return }
        sink.report(
            "\(s.count) reconnection attempts to \(p) within \(Describe.duration(s.last - s.first.time)), each \(Describe.duration(s.minGap))–\(Describe.duration(s.maxGap)) after the previous connection or attempt ended: reconnect with a growing delay",
            connection: nil, peer: p, handle: nil, time: s.first.time, frames: [s.first.frame] + s.frames,
            evidence: .hci)
    }

    mutating func checkDrops(now: Int64, _ sink: FindingSink) {
        guard !drops.isEmpty else { return }
        for (p, d) in drops where now - d.event.time > reconnectWithin {
            reportDrop(p, d, waited: now - d.event.time, sink)
            drops[p] = nil
        }
    }

    func reportDrop(_ p: BDAddr, _ d: Drop, waited: Int64, _ sink: FindingSink) {
        let what = d.reason == HCIError.connectionFailedToBeEstablished ? "failed to be established" : "was lost"
        sink.reportAtMost(
            .note,
            "the link to \(p) \(what) (\(Describe.hciStatus(d.reason))) and this host made no new connection attempt to it within \(Describe.duration(reconnectWithin))",
            connection: d.event.connection, peer: p, time: d.event.time, frames: [d.event.frame])
    }

    public mutating func finish(at time: Int64, _ sink: FindingSink) {
        for (_, peer) in peers.sorted(by: { ($0.value.storm?.first.frame ?? 0) < ($1.value.storm?.first.frame ?? 0) }) {
            if let s = peer.storm { report(s, sink) }
        }
        checkDrops(now: time, sink)
        for (p, d) in drops.sorted(by: { $0.value.event.frame < $1.value.event.frame }) {
            sink.notEvaluable(
                "the capture ended \(Describe.duration(time - d.event.time)) after the link to \(p) was lost, before reconnect_within_s (\(Describe.duration(reconnectWithin))): whether the app reconnects is not in it"
            )
        }
        drops.removeAll()
    }
}

extension FindingSink {
    /// Reports at `severity` or the rule's configured severity, whichever is lower: for the
    /// lesser half of a rule (e.g. a note next to a warning).
    func reportAtMost(
        _ severity: Severity, _ message: String, connection: Int?, peer: BDAddr?, time: Int64,
        frames: [Int]
    ) {
        report(
            message, connection: connection, peer: peer, handle: nil, time: time, frames: frames, evidence: .hci,
            severity: min(self.severity, severity))
    }
}
