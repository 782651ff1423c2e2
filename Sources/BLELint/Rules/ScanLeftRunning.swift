import BLEBytes
import BLETimeline

/// BLE004: scanning left running.
///
/// Scanning costs radio time and power on the phone and slows the connection it competes with.
/// The guidance is to stop the scan once the target peripheral is found, before connecting,
/// and not to leave it running when no connection needs it.
public struct ScanLeftRunning: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE004", slug: "scan-left-running", title: "Scan left running",
        defaultSeverity: .warning,
        summary: """
            The scan was still enabled when this host connected to a peripheral that the same scan had \
            found (the app should call stopScan() once it has its target), or kept running longer than \
            a threshold after the last connection ended with nothing connected. A scan disabled and \
            enabled again within a second is the same scan (Android re-programs the controller for \
            every client change); one finding per scan, however many connections it ran through. On \
            Android and BlueZ the controller's scan is the OS stack's, merged from every client's, and \
            the message says so. From an API trace: connect(_:options:) called while the scan was running.
            """,
        guidance: [
            GuidanceReference(
                GuidanceReference.primary, "Review Checklist: Scanning stopped after discovering the target peripheral"),
            GuidanceReference(
                GuidanceReference.primary, "Central Role: Scanning (didDiscover: stopScan before connect)"),
        ],
        evidence: [.hci, .api],
        thresholds: [
            ThresholdSpec(
                "after_last_connection_s", 30, unit: "s",
                "How long a scan may keep running after the last connection ended, with no connection open")
        ],
        fix: """
            func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                                advertisementData: [String: Any], rssi RSSI: NSNumber) {
                discoveredPeripheral = peripheral
                central.stopScan()
                central.connect(peripheral, options: nil)
            }
            """)

    static let maximumPeers = 4096
    /// A scan disabled and enabled again within this gap is one scan session. Android re-programs
    /// the controller whenever any client's scan changes (disable, new parameters, enable): the
    /// gaps in the shared Android captures are 2–22 ms (domyos 181→187, 229→235, 241→247,
    /// 258→264, 272→278), against seconds or minutes between scans an app starts and stops.
    static let restartGap: Int64 = 1_000_000
    let lingerLimit: Int64

    /// The scan session is running (or paused for a restart that has not come yet).
    var scanning = false
    var scanStart: TimelineEvent?
    /// The last disable of the session, until the gap tells whether a restart follows.
    var stopped: TimelineEvent?
    /// Advertisers this scan session reported (bounded), with the frame of their last report.
    var seen: [BDAddr: Int] = [:]
    /// LE Create Connection to a peer the scan had found, sent while scanning.
    var pending: [BDAddr: TimelineEvent] = [:]
    var openConnections = 0
    var connectedDuringScan = false
    var lastDisconnection: TimelineEvent?
    /// Connections this session's scan ran through (the first few kept), reported once when the
    /// session ends: one act, however many connections it spans.
    var connectedWhileScanning: [(create: TimelineEvent, complete: TimelineEvent, seen: Int?)] = []
    var connectedWhileScanningCount = 0
    var hostStack: HostStack?

    public init(settings: RuleSettings) {
        lingerLimit = Int64(settings.threshold("after_last_connection_s", in: Self.descriptor) * 1_000_000)
    }

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        if f.isOverTheAir, !f.hasAPITrace {
            return
                "\(CaptureFacts.overTheAir): scan enable/disable are host commands (a scanner shows over the air only by its SCAN_REQs)"
        }
        return f.hciCommands == 0 && !f.hasAPITrace
            ? "the input holds no HCI commands (scan enable/disable are host commands) and no API trace" : nil
    }

    public mutating func observe(_ fact: HCIFact, _ sink: FindingSink) {
        if case .hostStack(let s) = fact.kind { hostStack = s }
    }

    /// Whose scan it is, where the host stack tells: on Android and BlueZ the controller's scan
    /// is the OS stack's, merged from every client's.
    var owner: String {
        switch hostStack {
        case .android:
            " (Android's stack runs one controller scan for every app and system client, so this shows the OS kept scanning, not which app asked)"
        case .bluez: " (bluetoothd runs the controller's scan for its clients, so this shows the OS kept scanning)"
        case nil: ""
        }
    }

    /// Ends the session when its last disable was not followed by a restart in time.
    mutating func settle(now: Int64, _ sink: FindingSink) {
        guard let s = stopped, now - s.time > Self.restartGap else { return }
        stopped = nil
        scanning = false
        pending.removeAll()
        lastDisconnection = nil
        reportConnections(sink)
    }

    /// One finding for every connection the session's scan ran through.
    mutating func reportConnections(_ sink: FindingSink) {
        guard let first = connectedWhileScanning.first, let start = scanStart else { return }
        let peers = Set(connectedWhileScanning.map { $0.complete.peer })
        let whom =
            peers.count == 1
            ? (first.complete.peer.map { "\($0)" } ?? "a peripheral") : "\(peers.count) peripherals"
        let times = connectedWhileScanningCount == 1 ? "" : " (\(connectedWhileScanningCount) connections)"
        var frames = [first.create.frame, first.complete.frame, start.frame] + (first.seen.map { [$0] } ?? [])
        for c in connectedWhileScanning.dropFirst() { frames += [c.create.frame, c.complete.frame] }
        sink.report(
            "the scan was still running when this host connected to \(whom)\(times), which the scan had found: stop scanning before connecting\(owner)",
            connection: first.complete.connection, peer: first.complete.peer, handle: nil, time: first.create.time,
            frames: frames, evidence: .hci)
        connectedWhileScanning.removeAll()
        connectedWhileScanningCount = 0
    }

    var isScanning: Bool { scanning && stopped == nil }

    public mutating func observe(_ e: TimelineEvent, _ sink: FindingSink) {
        // Both need a scan (`stopped` is set only while `scanning`, and cleared with it): most
        // events come while none runs, and testing the optional events first was 4 % of `lint`.
        if scanning {
            settle(now: e.time, sink)
            checkLinger(now: e.time, sink)
        }
        // Nothing below is about notifications; told apart before the switch binds a payload
        // (which copied the event's kind, a `memcpy` per event).
        if case .notification = e.kind { return }
        switch e.kind {
        case .scanStart:
            if case .error = e.outcome { return }
            if stopped != nil {
                stopped = nil  // a restart: the same session goes on
            } else if !scanning {
                scanning = true
                scanStart = e
                seen.removeAll(keepingCapacity: true)
                connectedDuringScan = false
                lastDisconnection = nil
            }
        case .scanStop:
            if case .error = e.outcome { return }
            if scanning { stopped = e }
        case .advertisement:
            guard isScanning, let p = e.peer else { return }
            if seen[p] != nil || seen.count < Self.maximumPeers { seen[p] = e.frame }
        case .connectionCreate:
            guard isScanning, let p = e.peer, seen[p] != nil, pending.count < 64 else { return }
            pending[p] = e
        case .connectionFailed:
            if let p = e.peer { pending[p] = nil }
        case .connectionComplete(let info):
            openConnections += 1
            lastDisconnection = nil
            if isScanning { connectedDuringScan = true }
            guard info.role == 0, let p = e.peer, let create = pending.removeValue(forKey: p), isScanning else {
                return
            }
            connectedWhileScanningCount += 1
            if connectedWhileScanning.count < 8 { connectedWhileScanning.append((create, e, seen[p])) }
        case .disconnection:
            openConnections = max(0, openConnections - 1)
            if isScanning, openConnections == 0, connectedDuringScan { lastDisconnection = e }
        default: break
        }
    }

    mutating func checkLinger(now: Int64, _ sink: FindingSink) {
        guard isScanning, let d = lastDisconnection, let start = scanStart, now - d.time > lingerLimit else { return }
        sink.report(
            "the scan kept running more than \(Describe.seconds(lingerLimit)) after the last connection ended, with nothing connected\(owner)",
            connection: nil, peer: nil, handle: nil, time: start.time, frames: [start.frame, d.frame], evidence: .hci)
        lastDisconnection = nil
    }

    /// Exact from an API trace: `connect` made while the same manager was still scanning. (The
    /// linger check needs disconnection times, which the API calls do not carry.)
    public mutating func observe(_ call: APICall, _ sink: FindingSink) {
        guard case .connect = call.kind, call.isScanning, call.disposition == .performed else { return }
        sink.report(
            "connect(_:options:) was called while the scan was still running: call stopScan() once the target is found",
            connection: nil, peer: call.peer, handle: nil, time: call.time, frames: [call.sequence], evidence: .api)
    }

    public mutating func finish(at time: Int64, _ sink: FindingSink) {
        checkLinger(now: time, sink)
        reportConnections(sink)
    }
}
