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
            a threshold after the last connection ended with nothing connected. From an API trace: \
            connect(_:options:) called while the scan was running.
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
    let lingerLimit: Int64

    var scanning = false
    var scanStart: TimelineEvent?
    /// Advertisers this scan reported (bounded), with the frame of their last report.
    var seen: [BDAddr: Int] = [:]
    /// LE Create Connection to a peer the scan had found, sent while scanning.
    var pending: [BDAddr: TimelineEvent] = [:]
    var openConnections = 0
    var connectedDuringScan = false
    var lastDisconnection: TimelineEvent?

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

    public mutating func observe(_ e: TimelineEvent, _ sink: FindingSink) {
        checkLinger(now: e.time, sink)
        switch e.kind {
        case .scanStart:
            if case .error = e.outcome { return }
            if !scanning {
                scanning = true
                scanStart = e
                seen.removeAll(keepingCapacity: true)
                connectedDuringScan = false
                lastDisconnection = nil
            }
        case .scanStop:
            if case .error = e.outcome { return }
            scanning = false
            pending.removeAll()
            lastDisconnection = nil
        case .advertisement:
            guard scanning, let p = e.peer else { return }
            if seen[p] != nil || seen.count < Self.maximumPeers { seen[p] = e.frame }
        case .connectionCreate:
            guard scanning, let p = e.peer, seen[p] != nil, pending.count < 64 else { return }
            pending[p] = e
        case .connectionFailed:
            if let p = e.peer { pending[p] = nil }
        case .connectionComplete(let info):
            openConnections += 1
            lastDisconnection = nil
            if scanning { connectedDuringScan = true }
            guard info.role == 0, let p = e.peer, let create = pending.removeValue(forKey: p), scanning,
                let start = scanStart
            else { return }
            sink.report(
                "the scan was still running when this host connected to \(p), which the scan had found: stop scanning before connecting",
                connection: e.connection, peer: p, handle: nil, time: create.time,
                frames: [create.frame, e.frame, start.frame] + (seen[p].map { [$0] } ?? []), evidence: .hci)
        case .disconnection:
            openConnections = max(0, openConnections - 1)
            if scanning, openConnections == 0, connectedDuringScan { lastDisconnection = e }
        default: break
        }
    }

    mutating func checkLinger(now: Int64, _ sink: FindingSink) {
        guard scanning, let d = lastDisconnection, let start = scanStart, now - d.time > lingerLimit else { return }
        sink.report(
            "the scan kept running more than \(Describe.seconds(lingerLimit)) after the last connection ended, with nothing connected",
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

    public mutating func finish(at time: Int64, _ sink: FindingSink) { checkLinger(now: time, sink) }
}
