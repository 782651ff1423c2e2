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
            Discovery), exactly in an API trace, and on Android \
            captures whose controller filters advertisements itself: a scan ran while Android's \
            offloaded filter table (APCF, vendor command 0xFD57) held an all-pass filter index (no \
            feature selected) or had filtering disabled. Android merges the filters of every app and \
            system component, so such a finding says the OS stack scanned unfiltered on behalf of some \
            app, not which one. Other HCI captures cannot show it: the filter is applied in the host.
            """,
        guidance: [
            GuidanceReference(GuidanceReference.primary, "Common Mistakes: DON'T: Scan for nil services in production"),
            GuidanceReference(
                GuidanceReference.primary,
                "Review Checklist: Scanning uses specific service UUIDs (not nil) in production"),
            GuidanceReference(GuidanceReference.primary, "Background BLE: nil scans are foreground-only"),
        ],
        evidence: [.inferred, .api],
        fix: """
            let heartRateServiceUUID = CBUUID(string: "180D")
            centralManager.scanForPeripherals(withServices: [heartRateServiceUUID], options: nil)
            """)

    /// The scan running (its start event), if any.
    var scan: TimelineEvent?
    /// All-pass set-ups and disable commands already reported (bounded), by their frames.
    var reported: Set<[Int]> = []

    public static let observedEvents: TimelineEventClasses = .scanning

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
        switch e.kind {
        case .scanStart:
            if case .error = e.outcome { return }
            scan = e
        case .scanStop:
            if case .error = e.outcome { return }
            scan = nil
        case .scanFilters(let snapshot):
            guard let start = scan, let t = sink.scanFilterTable(snapshot) else { return }
            check(t, start, change: e.frame == start.frame ? nil : e, sink)
        default:
            break
        }
    }

    /// `change`: the `scan.filters` event of a change made while the scan ran (nil at its start).
    mutating func check(_ t: ScanFilterTable, _ start: TimelineEvent, change: TimelineEvent?, _ sink: FindingSink) {
        let when =
            change.map { "the scan running since frame \(start.frame) kept running after frame \($0.frame), when" }
            ?? "the scan at frame \(start.frame) ran while"
        let at = change ?? start
        let owner =
            "Android merges the scan filters of every app and system component into this table, so this shows that the OS stack scanned unfiltered on behalf of some app, not which one"
        switch t.enabled {
        case false?:
            let key = [t.enableFrame ?? 0]
            guard remember(key) else { return }
            sink.report(
                "\(when) Android's offloaded advertising filter (APCF) was disabled\(t.enableFrame.map { " (frame \($0))" } ?? ""): the controller passed every advertisement up. \(owner)",
                connection: nil, peer: nil, handle: nil, time: at.time,
                frames: [at.frame, start.frame] + (t.enableFrame.map { [$0] } ?? []), evidence: .inferred)
        case true?:
            let allPass = t.allPass
            guard !allPass.isEmpty else {
                if !t.complete, change == nil {
                    sink.notEvaluable(
                        "the capture starts after the host set up its offloaded scan filters (no HCI Reset): filter indices set earlier, possibly all-pass ones, are not visible"
                    )
                }
                return
            }
            let setup = allPass.flatMap(\.frames).sorted()
            guard remember(setup) else { return }
            let indices = allPass.map { "\($0.index)" }.joined(separator: ", ")
            let others = t.active.count - allPass.count
            sink.report(
                "\(when) Android's offloaded advertising filter (APCF) held an all-pass filter (index \(indices), no feature selected, set up at frame \(setup.map(String.init).joined(separator: ", "))): the controller passed every advertisement up\(others > 0 ? ", whatever the \(others) other filter\(others == 1 ? "" : "s") in force select" : ""). AOSP installs this filter for a scan without filters (or with more filters than the controller holds). \(owner)",
                connection: nil, peer: nil, handle: nil, time: at.time,
                frames: [at.frame, start.frame] + setup + (t.enableFrame.map { [$0] } ?? []), evidence: .inferred)
        case nil:
            guard change == nil else { return }
            sink.notEvaluable(
                "a scan started before the capture showed Android's offloaded advertising filter (APCF) enabled or disabled, so its filters are unknown"
            )
        }
    }

    /// True the first time a set-up is seen (bounded memory: at most 256 remembered).
    mutating func remember(_ key: [Int]) -> Bool {
        guard !reported.contains(key) else { return false }
        if reported.count >= 256 { reported.removeAll() }
        reported.insert(key)
        return true
    }

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
        for key in sessions.keys.sorted(by: { sessions[$0]!.order < sessions[$1]!.order }) { close(key, sink) }
    }

    public mutating func observe(_ call: APICall, _ sink: FindingSink) {
        guard case .scanForPeripherals(let services, _) = call.kind, services?.isEmpty ?? true else { return }
        sink.report(
            "scanForPeripherals(withServices: nil): the app scanned for all peripherals", connection: nil,
            peer: nil, handle: nil, time: call.time, frames: [call.sequence], evidence: .api)
    }
}
