import BLEPackets
import BLETimeline

/// BLE005: `scanForPeripherals(withServices: nil)`.
///
/// HCI scanning has no service filter: Core Bluetooth and BlueZ filter advertisements in the
/// host. So the filter is visible only above HCI: in BlueZ's management commands (Start
/// Discovery has no UUID list, Start Service Discovery has one; BlueZ doc/mgmt-api.txt) or in
/// an API trace. Android is the exception: on controllers that filter (LE Get Vendor
/// Capabilities, 0xFD53), it offloads the scan filters of every app and system component to
/// the controller with the APCF vendor command (0xFD57), and the timeline keeps that table
/// (`scan.filters`, one per scan start). A scan while an index that selects no feature is in
/// force (AOSP ScanManager's all-pass filter, installed for a scan without filters or with more
/// filters than the controller holds), or while APCF is disabled, lets every advertisement
/// through. On other HCI captures the rule says it cannot be evaluated rather than guessing.
///
/// BlueZ reports once per discovery session: the unfiltered Start Discovery (or Start Service
/// Discovery with no UUID) commands one management client sends to one controller with the same
/// parameters until that client sends Stop Discovery. The kernel ends each discovery on its own
/// (mgmt Discovering false) and bluetoothd starts it again every few seconds while a D-Bus
/// client keeps discovery on: those restarts belong to the same session and are listed in its
/// finding's frames. Android's all-pass set-ups are reported once per set-up (or disable
/// command), however many scans run under them.
public struct UnfilteredScan: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE005", slug: "unfiltered-scan", title: "Scan without a service filter",
        defaultSeverity: .warning,
        summary: """
            The app scanned for every peripheral instead of the services it needs \
            (scanForPeripherals(withServices: nil)). Seen in BlueZ mgmt Start Discovery (no UUID filter) \
            or Start Service Discovery with an empty UUID list (one finding per discovery session: the \
            restarts by the same mgmt client with the same parameters until that client sends Stop \
            Discovery), exactly in an API trace, and on Android captures whose controller filters \
            advertisements itself (Android's offloaded filter table, APCF, vendor command 0xFD57). \
            Android merges every client's filters into that table; blecap tells whose each index is \
            (docs/timeline.md, "Whose scan"): the all-pass index 1 (2 for batch scans) that AOSP's \
            ScanManager installs for a startScan call without ScanFilters is this app's unfiltered scan; \
            the index-0 all-pass filter next to HCI Inquiry is the stack's device discovery \
            (BluetoothAdapter.startDiscovery(), usually Settings' pairing screen), reported as \
            discovery with the Android stack as the party, never as the app's scan; filters of the \
            OS's own background scanners (Fast Pair 0xFE2C, Nearby / Find My Device 0xFEF3, Samsung \
            0x0075, …) are never blamed on the app. One finding per scanning session: removals and \
            re-installs of the all-pass filter, scan restarts and filter churn less than 15 s apart \
            are one session, and the finding says how many times it restarted and lists the frames. \
            Filtering disabled (APCF Enable off) while a scan runs is reported with the stack as the \
            party. Other HCI captures cannot show it: the filter is applied in the host.
            """,
        enforces: [
            "Scan for the service UUIDs the app needs, not for every peripheral (`withServices: nil`).",
            "Expect no results from an unfiltered scan in the background: iOS scans in the background only for named services.",
        ],
        references: [
            .apple("CBCentralManager.scanForPeripherals(withServices:options:)"),
            .apple("CBUUID"),
            .android("BluetoothLeScanner.startScan(List<ScanFilter>, ScanSettings, ScanCallback)"),
            .android("ScanFilter.Builder.setServiceUuid(ParcelUuid)"),
            .android("BluetoothAdapter.startDiscovery()"),
        ],
        evidence: [.inferred, .api],
        fix: """
            let heartRateServiceUUID = CBUUID(string: "180D")
            centralManager.scanForPeripherals(withServices: [heartRateServiceUUID], options: nil)
            """,
        android: PlatformAdvice(
            enforces: [
                "Scan with a `ScanFilter` for each service UUID the app needs, not with no filter (`BluetoothLeScanner.startScan` without filters).",
                "Expect no results from an unfiltered scan while the screen is off: Android stops delivering them then, and keeps only filtered scans running.",
            ],
            """
            On Android the filter is a list of `ScanFilter`s given to \
            `BluetoothLeScanner.startScan(filters, settings, callback)` (Android's `BluetoothLeScanner` and \
            `ScanFilter` references). With filters, the stack offloads them to the controller, which wakes \
            the host only for advertisements that match; `startScan(callback)`, or an empty list, makes the \
            stack install an all-pass filter, and every advertisement nearby reaches the app. Device \
            discovery (`BluetoothAdapter.startDiscovery()`) looks for classic and LE devices of every kind: \
            it is for pairing screens, not for finding one BLE peripheral.
            """,
            fix: """
                val filters = listOf(
                    ScanFilter.Builder()
                        .setServiceUuid(ParcelUuid.fromString("0000180d-0000-1000-8000-00805f9b34fb"))
                        .build()
                )
                val settings = ScanSettings.Builder().setScanMode(ScanSettings.SCAN_MODE_BALANCED).build()
                bluetoothAdapter.bluetoothLeScanner.startScan(filters, settings, scanCallback)
                """))

    /// The scan running (its start event), if any.
    var scan: TimelineEvent?

    public static let observedEvents: TimelineEventClasses = .scanning
    public static let observedFacts: HCIFactClasses = .management

    public init(settings: RuleSettings) {}

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        if f.isOverTheAir, !f.hasAPITrace {
            return "\(CaptureFacts.overTheAir): a scan's service filter lives in the host"
        }
        if f.hasManagement || f.hasAPITrace || f.apcfCommands > 0 { return nil }
        if f.vendorFilteringSupported == false {
            return
                "the controller does not filter advertisements itself (Android LE Get Vendor Capabilities: no filtering support or no filter indices), so the scan filter lives in the host; this capture has no API trace or BlueZ mgmt commands, and HCI scanning carries no UUID filter"
        }
        return
            "the service filter of a scan lives in the host; this capture has no API trace, no BlueZ mgmt commands and no Android offloaded scan filters (APCF, vendor command 0xFD57), and HCI scanning carries no UUID filter"
    }

    public mutating func observe(_ e: TimelineEvent, _ sink: FindingSink) {
        if !androidSessions.isEmpty { settle(now: e.time, sink) }
        switch e.kind {
        case .scanStart:
            if case .error = e.outcome { return }
            scan = e
        case .scanStop:
            if case .error = e.outcome { return }
            scan = nil
            for kind in [AndroidSession.Kind.app, .discovery, .disabled] { release(kind, at: e.time) }
        case .scanFilters(let snapshot):
            guard let start = scan, let t = sink.scanFilterTable(snapshot) else { return }
            checkAndroid(t, e, startFrame: start.frame, sink)
        default:
            break
        }
    }

    // MARK: Android (APCF)

    /// Android: how long the app may have no scan in force (controller scan off, or none of its
    /// filters in the table) and still be in the same scanning session. Android re-programs the
    /// controller for every client change (disable, new parameters, filters, enable: 2–70 ms
    /// apart in the real captures), and scan libraries cycle the app's scan: a scan period, then
    /// a pause (AltBeacon's CycledLeScanner: the between-scan period, 10 s in the shared
    /// nexxtender capture) and its own filters in between. A longer gap means the app called
    /// `stopScan` and scanned again later, for a new reason.
    static let sessionGap: Int64 = 15_000_000

    /// One Android scanning session reported as unfiltered: the app's, the stack's discovery, or
    /// the controller's filtering switched off.
    struct AndroidSession {
        enum Kind { case app, discovery, disabled }
        var kind: Kind
        /// The event where the unfiltered state was first seen, and the scan start it ran under.
        var first: TimelineEvent
        var scanStartFrame: Int
        /// Set-up frames of the unfiltered state in force (to tell a new set-up from the same).
        var setup: [Int]
        /// Frames of the first set-up and of each restart (bounded), and the restart count.
        var frames: [Int]
        var restarts = 0
        var indices: Set<UInt8> = []
        var inquiry: Int?
        var otherFilters: Set<String> = []
        var batch = false
        var incomplete = false
        var anomalies = 0
        /// When the state stopped holding (nil while it holds).
        var goneAt: Int64?
        /// The app's session goes on with only its filtered indices in force (a scan library
        /// cycling between its all-pass scan and its beacon filters).
        var paused = false
        var seenSetups: Set<Int> = []
        var lastTime: Int64
    }

    /// The controller scan is on (the last enable not followed by a disable).
    var scanOn = false
    var androidSessions: [AndroidSession.Kind: AndroidSession] = [:]

    /// Starts or continues the session of `kind` with the set-up `setup` seen at `e`.
    mutating func hold(
        _ kind: AndroidSession.Kind, setup: [Int], at e: TimelineEvent, startFrame: Int, _ t: ScanFilterTable,
        _ sink: FindingSink
    ) {
        if var s = androidSessions[kind] {
            if let gone = s.goneAt, e.time &- gone > Self.sessionGap {
                close(kind, sink)
            } else {
                // A restart: the unfiltered state had gone (the scan stopped, or only the app's
                // filtered indices were in force) and came back with a set-up not seen before.
                // The controller re-programmed with the same filters is no restart.
                let restarted = (s.goneAt != nil || s.paused) && !setup.allSatisfy(s.seenSetups.contains)
                s.goneAt = nil
                s.paused = false
                s.lastTime = e.time
                if restarted {
                    s.restarts += 1
                    if s.frames.count < 64 { s.frames.append(e.frame) }
                }
                s.setup = setup
                if s.seenSetups.count < 1024 { s.seenSetups.formUnion(setup) }
                note(&s, t)
                androidSessions[kind] = s
                return
            }
        }
        var s = AndroidSession(
            kind: kind, first: e, scanStartFrame: startFrame, setup: setup, frames: [e.frame], lastTime: e.time)
        s.seenSetups = Set(setup)
        s.incomplete = !t.complete
        note(&s, t)
        androidSessions[kind] = s
    }

    func note(_ s: inout AndroidSession, _ t: ScanFilterTable) {
        switch s.kind {
        case .app:
            for f in t.appAllPass {
                s.indices.insert(f.index)
                if t.owner(f) == .appUnfilteredBatch { s.batch = true }
            }
        case .discovery:
            s.indices.insert(0)
            // The Inquiry that follows the index-0 set-up (a Settings discovery sends both).
            if s.inquiry == nil, let i = t.inquiryFrame, let set = s.setup.min(), i >= set { s.inquiry = i }
        case .disabled: break
        }
        for f in t.active where !f.isAllPass {
            if s.otherFilters.count < 16 { s.otherFilters.insert(t.owner(f).description) }
        }
        s.anomalies = max(s.anomalies, t.anomalies)
    }

    /// The state of `kind` stopped holding at `time` (a restart within `sessionGap` continues it).
    mutating func release(_ kind: AndroidSession.Kind, at time: Int64) {
        guard var s = androidSessions[kind], s.goneAt == nil else { return }
        s.goneAt = time
        androidSessions[kind] = s
    }

    /// Closes sessions whose state has been gone longer than `sessionGap` by `now`.
    mutating func settle(now: Int64, _ sink: FindingSink) {
        for kind in [AndroidSession.Kind.app, .discovery, .disabled] {
            if let s = androidSessions[kind], let gone = s.goneAt, now &- gone > Self.sessionGap { close(kind, sink) }
        }
    }

    mutating func checkAndroid(_ t: ScanFilterTable, _ e: TimelineEvent, startFrame: Int, _ sink: FindingSink) {
        settle(now: e.time, sink)
        switch t.enabled {
        case false?:
            hold(.disabled, setup: [t.enableFrame ?? 0], at: e, startFrame: startFrame, t, sink)
            release(.app, at: e.time)
            release(.discovery, at: e.time)
            return
        case nil:
            if e.frame == startFrame {
                sink.notEvaluable(
                    "a scan started before the capture showed Android's offloaded advertising filter (APCF) enabled or disabled, so its filters are unknown"
                )
            }
            return
        case true?:
            release(.disabled, at: e.time)
        }
        let appAllPass = t.appAllPass
        if appAllPass.isEmpty, !t.appEntries.isEmpty, var s = androidSessions[.app],
            s.goneAt.map({ e.time &- $0 <= Self.sessionGap }) ?? true
        {
            // The app still scans, with its own filters only: the same session, paused.
            s.goneAt = nil
            s.paused = true
            androidSessions[.app] = s
        } else if appAllPass.isEmpty {
            release(.app, at: e.time)
            if !t.complete, e.frame == startFrame, t.allPass.isEmpty {
                sink.notEvaluable(
                    "the capture starts after the host set up its offloaded scan filters (no HCI Reset): filter indices set earlier, possibly all-pass ones, are not visible"
                )
            }
        } else {
            hold(.app, setup: appAllPass.flatMap(\.frames).sorted(), at: e, startFrame: startFrame, t, sink)
        }
        if let d = t.discovery, d.isAllPass {
            hold(.discovery, setup: d.frames, at: e, startFrame: startFrame, t, sink)
        } else {
            release(.discovery, at: e.time)
        }
    }

    /// Reports an Android session once, with the frames of its restarts.
    mutating func close(_ kind: AndroidSession.Kind, _ sink: FindingSink) {
        guard let s = androidSessions.removeValue(forKey: kind) else { return }
        let again =
            s.restarts == 0
            ? ""
            : ", restarted \(s.restarts) time\(s.restarts == 1 ? "" : "s") within the session (frames \(s.frames.dropFirst().map(String.init).joined(separator: ", ")); gaps under \(Describe.seconds(Self.sessionGap)) are one session)"
        let others =
            s.otherFilters.isEmpty
            ? "" : " Other filters in force meanwhile: \(s.otherFilters.sorted().joined(separator: "; "))."
        let partial =
            s.incomplete
            ? " The capture starts after the filter table was set up (no HCI Reset): entries made earlier are not visible."
            : ""
        let noted =
            s.anomalies > 0
            ? " \(s.anomalies) APCF command\(s.anomalies == 1 ? "" : "s") could not be applied as sent (unknown index or a length that lies) and were left out."
            : ""
        // Android's API in the advice only where the engine judges the capture Android's (the
        // APCF evidence stays either way).
        let advice = sink.platform == .android ? " " + Self.androidAdvice : ""
        let message: String
        switch s.kind {
        case .app:
            let idx = s.indices.sorted().map(String.init).joined(separator: ", ")
            let reserved = s.indices.isSubset(of: [1, 2])
            let evidence =
                reserved
                ? "AOSP's ScanManager reserves index 1 (\(s.batch ? "and 2 for batch scans" : "2 for batch scans")) for the all-pass filter of clients that call startScan without filters."
                : "this stack gives an unfiltered client's all-pass filter its own client index (\(idx)) instead of AOSP's reserved index 1; each was set up in a burst holding no OS scanner's filter, so it is attributed to the app by elimination."
            message =
                "Party: this app. Its scan ran without a ScanFilter: Android's offloaded advertising filter (APCF) held the all-pass filter index \(idx) (no feature selected) from frame \(s.first.frame), under the scan started at frame \(s.scanStartFrame)\(again), so the controller passed every advertisement up. Evidence for the attribution: \(evidence) The OS's own background scanners (Fast Pair, Nearby, Find My Device, vendor services) scan with filters, and the stack's device discovery uses index 0.\(others)\(partial)\(noted)\(advice)"
        case .discovery:
            let inquiry = s.inquiry.map { ", with HCI Inquiry at frame \($0)" } ?? " (no HCI Inquiry in the capture)"
            message =
                "Party: the Android stack's device discovery, not this app's LE scan. APCF index 0 held the all-pass filter AOSP installs for BluetoothAdapter.startDiscovery() (frame \(s.first.frame)\(inquiry))\(again): classic and LE discovery of every nearby device, usually Settings' pairing screen or an app calling startDiscovery. An app looking for its BLE peripheral should use BluetoothLeScanner.startScan(filters, settings, callback) with a ScanFilter instead of startDiscovery.\(partial)\(noted)"
        case .disabled:
            message =
                "Party: the Android stack (on behalf of whichever client scanned; the capture does not tell which). Android's offloaded advertising filter (APCF) was disabled (frame \(s.setup.first ?? 0)) while the scan started at frame \(s.scanStartFrame) ran\(again): the controller passed every advertisement up.\(partial)\(noted)"
        }
        var frames = s.frames + [s.scanStartFrame] + s.seenSetups.sorted().prefix(16)
        if let i = s.inquiry { frames.append(i) }
        let party: Party =
            switch s.kind {
            case .app: .app
            case .discovery: .otherApp
            case .disabled: .osStack
            }
        sink.report(
            message, connection: nil, peer: nil, handle: nil, time: s.first.time, frames: frames, evidence: .inferred,
            party: party)
    }

    static let androidAdvice =
        "On Android: pass a ScanFilter list to BluetoothLeScanner.startScan(filters, settings, callback) (ScanFilter.Builder().setServiceUuid(…) for the service your peripheral advertises, or setDeviceAddress / setManufacturerData), so the controller filters in hardware, and call stopScan(callback) once the target is found."

    /// A BlueZ discovery session: what one management client (bluetoothd, by its socket cookie)
    /// asked of one controller with one unfiltered discovery command and its parameters.
    struct DiscoveryKey: Hashable {
        var client: UInt32
        var index: UInt16
        var opcode: UInt16
        var parameters: [UInt8]
    }

    /// The session's Start commands (frames, bounded) and the time of the first.
    struct DiscoverySession {
        var order: Int
        var time: Int64
        var frames: [Int]
        var restarts = 0
    }

    /// Open unfiltered discovery sessions (bounded: at most 64, the oldest reported when full).
    var sessions: [DiscoveryKey: DiscoverySession] = [:]
    var sessionOrder = 0

    public mutating func observe(_ fact: HCIFact, _ sink: FindingSink) {
        guard case .managementCommand(let op, let filter, let client, let index, let parameters) = fact.kind else {
            return
        }
        switch op {
        case BlueZManagementOpcode.startDiscovery, BlueZManagementOpcode.startLimitedDiscovery:
            break
        case BlueZManagementOpcode.startServiceDiscovery where filter == 0:
            break
        case BlueZManagementOpcode.stopDiscovery:
            // The client stopped discovery: its sessions on this controller end.
            let ended = sessions.keys.filter { $0.client == client && $0.index == index }
            for key in ended.sorted(by: { sessions[$0]!.order < sessions[$1]!.order }) { close(key, sink) }
            return
        default: return
        }
        let key = DiscoveryKey(client: client, index: index, opcode: op, parameters: parameters)
        if var s = sessions[key] {
            // A restart: the kernel ended discovery on its own (Discovering false, no Stop
            // Discovery from the client) and the client started it again, e.g. bluetoothd every
            // few seconds while a D-Bus client keeps StartDiscovery in force.
            if s.frames.count < 32 { s.frames.append(fact.frame) }
            s.restarts += 1
            sessions[key] = s
            return
        }
        if sessions.count >= 64, let oldest = sessions.min(by: { $0.value.order < $1.value.order })?.key {
            close(oldest, sink)
        }
        sessionOrder += 1
        sessions[key] = DiscoverySession(order: sessionOrder, time: fact.time, frames: [fact.frame])
    }

    /// Reports a discovery session once, with the frames of its restarts.
    mutating func close(_ key: DiscoveryKey, _ sink: FindingSink) {
        guard let s = sessions.removeValue(forKey: key) else { return }
        let what =
            key.opcode == BlueZManagementOpcode.startServiceDiscovery
            ? "BlueZ Start Service Discovery with an empty UUID list"
            : "BlueZ Start Discovery without a service UUID filter"
        let client = String(key.client, radix: 16, uppercase: false)
        let again =
            s.restarts == 0
            ? ""
            : ", restarted \(s.restarts) time\(s.restarts == 1 ? "" : "s") in the same discovery session (same client and filter, never stopped by the client)"
        sink.report(
            "\(what) (mgmt client 0x\(client), usually bluetoothd on behalf of an app's D-Bus StartDiscovery)\(again): the application scanned for all peripherals",
            connection: nil, peer: nil, handle: nil, time: s.time, frames: s.frames, evidence: .inferred)
    }

    public mutating func finish(at time: Int64, _ sink: FindingSink) {
        for kind in androidSessions.keys.sorted(by: {
            androidSessions[$0]!.first.frame < androidSessions[$1]!.first.frame
        }) {
            close(kind, sink)
        }
        for key in sessions.keys.sorted(by: { sessions[$0]!.order < sessions[$1]!.order }) { close(key, sink) }
    }

    public mutating func observe(_ call: APICall, _ sink: FindingSink) {
        guard case .scanForPeripherals(let services, _) = call.kind, services?.isEmpty ?? true else { return }
        sink.report(
            "scanForPeripherals(withServices: nil): the app scanned for all peripherals", connection: nil,
            peer: nil, handle: nil, time: call.time, frames: [call.sequence], evidence: .api)
    }
}
