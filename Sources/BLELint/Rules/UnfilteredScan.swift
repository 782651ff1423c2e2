import BLEPackets

/// BLE005: `scanForPeripherals(withServices: nil)`.
///
/// HCI scanning has no service filter: Core Bluetooth, BlueZ and Android filter advertisements
/// in the host. So the filter is visible only above HCI: in BlueZ's management commands (Start
/// Discovery has no UUID list, Start Service Discovery has one; BlueZ doc/mgmt-api.txt) or in
/// an API trace. On plain HCI the rule says it cannot be evaluated rather than guessing.
public struct UnfilteredScan: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE005", slug: "unfiltered-scan", title: "Scan without a service filter",
        defaultSeverity: .warning,
        summary: """
            The app scanned for every peripheral instead of the services it needs \
            (scanForPeripherals(withServices: nil)). Seen in BlueZ mgmt Start Discovery (no UUID filter) \
            or Start Service Discovery with an empty UUID list, and exactly in an API trace. Plain HCI \
            captures cannot show it: the filter is applied in the host.
            """,
        guidance: [GuidanceReference(GuidanceReference.primary, "Common Mistakes: DON'T: Scan for nil services in production"),
                   GuidanceReference(GuidanceReference.primary, "Review Checklist: Scanning uses specific service UUIDs (not nil) in production"),
                   GuidanceReference(GuidanceReference.primary, "Background BLE: nil scans are foreground-only")],
        evidence: [.inferred, .api],
        fix: """
            let heartRateServiceUUID = CBUUID(string: "180D")
            centralManager.scanForPeripherals(withServices: [heartRateServiceUUID], options: nil)
            """)

    public init(settings: RuleSettings) {}

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        if f.hasManagement || f.hasAPITrace { return nil }
        return "the service filter of a scan lives in the host; this capture has no API trace or BlueZ mgmt commands, and HCI scanning carries no UUID filter"
    }

    public mutating func observe(_ fact: HCIFact, _ sink: FindingSink) {
        guard case .managementCommand(let op, let filter) = fact.kind else { return }
        let msg: String
        switch op {
        case BlueZManagementOpcode.startDiscovery, BlueZManagementOpcode.startLimitedDiscovery:
            msg = "BlueZ Start Discovery without a service UUID filter: the app scanned for all peripherals"
        case BlueZManagementOpcode.startServiceDiscovery where filter == 0:
            msg = "BlueZ Start Service Discovery with an empty UUID list: the app scanned for all peripherals"
        default: return
        }
        sink.report(msg, connection: nil, peer: nil, handle: nil, time: fact.time, frames: [fact.frame], evidence: .inferred)
    }

    public mutating func observe(_ call: APICall, _ sink: FindingSink) {
        guard case .scanForPeripherals(let services, _) = call.kind, services?.isEmpty ?? true else { return }
        sink.report("scanForPeripherals(withServices: nil): the app scanned for all peripherals", connection: nil,
                    peer: nil, handle: nil, time: call.time, frames: [call.sequence], evidence: .api)
    }
}
