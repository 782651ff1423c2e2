/// Every rule blecap knows, in id order. Adding a rule: its file in `Rules/`, its tests, and
/// one line here.
public enum RuleRegistry {
    public static let all: [any LintRule.Type] = [
        ScanBeforePoweredOn.self,
        OversizedWrite.self,
        UncheckedWrite.self,
        ScanLeftRunning.self,
        UnfilteredScan.self,
        WriteWithoutResponseFlow.self,
        ReadOrNotifyWithoutProperty.self,
        NotifyWithoutSubscription.self,
        AttProtocol.self,
        InsecurePairing.self,
        GattBeforeConnected.self,
        FullDiscovery.self,
        ReconnectStorm.self,
        PeripheralNotRetained.self,
        CCCDWrittenDirectly.self,
        StaleAttribute.self,
    ]

    public static var descriptors: [RuleDescriptor] { all.map { $0.descriptor } }

    /// A rule by id (`BLE002`, case-insensitive) or slug (`oversized-write`).
    public static func rule(named name: String) -> (any LintRule.Type)? {
        let n = name.lowercased()
        return all.first { $0.descriptor.id.lowercased() == n || $0.descriptor.slug == n }
    }
}
