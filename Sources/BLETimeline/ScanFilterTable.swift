import BLEBytes

/// The advertising filters an Android host had offloaded to its controller when a scan
/// started (AOSP `HCI_BLE_ADV_FILTER`, opcode 0xFD57, "APCF"; BLEPackets `HCILEAdvFilter`),
/// as far as the capture shows them. Android merges the scan filters of every app and system
/// component that scans into this one table, so it says what the controller let through for
/// everyone, not which app asked for what.
///
/// A filter index is in force once Set Filtering Parameters added it (`featureSelection` set);
/// its conditions are the service UUIDs, names, addresses … added for the same index. An index
/// with no feature selected lets every advertisement through: that is how AOSP's ScanManager
/// serves a scan without filters (`ALL_PASS_FILTER_SELECTION = 0` at index 1 for regular
/// scans, 2 for batch scans), or one with more filters than the controller has room for.
/// Changes are applied when the controller confirms them (Command Complete with success).
public struct ScanFilterTable: Sendable, Equatable {
    /// APCF Enable's last confirmed state; nil when the capture shows none (since its start or
    /// the last HCI Reset).
    public var enabled: Bool?
    /// Frame of that Enable command.
    public var enableFrame: Int?
    /// True when the capture shows the table from an HCI Reset on, so `entries` is all of it;
    /// false when filters set before the capture began may be missing.
    public var complete = false
    /// LE Get Vendor Capabilities (0xFD53): whether the controller filters, and how many
    /// filter indices it has (nil when the capture holds no answer).
    public var filteringSupported: Bool?
    public var maxFilters: UInt8?
    public var capabilitiesFrame: Int?
    /// Filter indices with a feature selection or conditions, by index.
    public var entries: [ScanFilterEntry] = []
    /// Frame of the last HCI Inquiry the host sent since the capture began or the last HCI
    /// Reset: the classic half of device discovery (`BluetoothAdapter.startDiscovery()`), whose
    /// LE half is the all-pass filter at index 0.
    public var inquiryFrame: Int?
    /// The Android scan mode of the scan parameters in force when the table was reported (nil:
    /// parameters unknown).
    public var scanMode: AndroidScanMode?
    /// APCF commands the table could not apply as sent (a filter or condition for an index never
    /// added, a delete of an unknown index, a sub-command whose length field lies): counted,
    /// with the first frame, so a reader can say the table is partly guessed.
    public var anomalies = 0
    public var firstAnomalyFrame: Int?

    public init() {}

    /// Indices in force (their filtering parameters were added).
    public var active: [ScanFilterEntry] { entries.filter { $0.featureSelection != nil } }

    /// Indices in force that select no feature: they pass every advertisement.
    public var allPass: [ScanFilterEntry] { entries.filter { $0.isAllPass } }

    /// True when the controller passes every advertisement: filtering disabled, or an all-pass
    /// index in force while it is enabled.
    public var passesEverything: Bool {
        if enabled == false { return true }
        return enabled == true && !allPass.isEmpty
    }

    /// Whose scan `e` serves (docs/timeline.md, "Whose scan: APCF filter owners"): its index
    /// and conditions, and a client index set up in the same burst as a recognised OS scanner's
    /// filter is that scanner's too (one burst is one client's `startScan`).
    public func owner(_ e: ScanFilterEntry) -> ScanFilterOwner {
        let own = e.indexOwner
        // Index 1/2 all-pass filters are AOSP's reserved ones; a client index (Samsung's stack
        // gives an unfiltered client its own) is judged by its burst like any other.
        guard own == .app || (own == .appUnfiltered && e.index >= 3), e.group != 0 else { return own }
        for o in entries where o.group == e.group && o.index != e.index {
            if case .system(let name) = o.indexOwner { return .system(name) }
        }
        return own
    }

    /// Indices in force that serve this app's scans (see `ScanFilterOwner.isApp`).
    public var appEntries: [ScanFilterEntry] { entries.filter { $0.featureSelection != nil && owner($0).isApp } }

    /// All-pass indices in force that serve an app's scan without filters (index 1 regular,
    /// 2 batch, or any other index but 0 that selects no feature).
    public var appAllPass: [ScanFilterEntry] { entries.filter { $0.isAllPass && $0.index != 0 && owner($0).isApp } }

    /// The index-0 all-pass filter of the stack's device discovery, when in force.
    public var discovery: ScanFilterEntry? { entries.first { $0.index == 0 && $0.featureSelection != nil } }

    /// Indices in force recognised as the OS's own background scanners.
    public var systemEntries: [ScanFilterEntry] {
        entries.filter {
            guard $0.featureSelection != nil, case .system = owner($0) else { return false }
            return true
        }
    }

    /// The entry for `index`, created when missing.
    mutating func entry(_ index: UInt8) -> Int {
        if let i = entries.firstIndex(where: { $0.index == index }) { return i }
        let i = entries.firstIndex(where: { $0.index > index }) ?? entries.count
        entries.insert(ScanFilterEntry(index: index), at: i)
        return i
    }
}

/// One APCF filter index.
public struct ScanFilterEntry: Sendable, Equatable {
    public var index: UInt8
    /// `APCF_feature_selection` of Set Filtering Parameters (BLEPackets `APCFFeature` bits);
    /// nil until the index is added.
    public var featureSelection: UInt16?
    public var deliveryMode: UInt8?
    public var rssiHighThreshold: Int8?
    /// Service UUID conditions (sub-command 0x03) and solicitation UUIDs (0x04).
    public var serviceUUIDs: [BluetoothUUID] = []
    public var solicitationUUIDs: [BluetoothUUID] = []
    /// Local name conditions (0x05), as UTF-8 (invalid bytes replaced).
    public var localNames: [String] = []
    /// Broadcaster address conditions (0x02).
    public var addresses: [BDAddr] = []
    /// Manufacturer data conditions (0x06): their company identifiers.
    public var manufacturerCompanies: [UInt16] = []
    /// Service data conditions (0x07): the patterns, hex.
    public var serviceData: [String] = []
    /// Conditions of sub-commands whose layout differs between stack versions (0x08, 0x09) or
    /// that are unknown.
    public var otherConditions = 0
    /// Frames of the APCF commands that set the index up, in order (bounded).
    public var frames: [Int] = []
    /// The burst of APCF commands that added the index (one client's set-up; 0: unknown).
    public var group = 0

    public init(index: UInt8) { self.index = index }

    /// In force and selecting no feature: lets every advertisement through.
    public var isAllPass: Bool { featureSelection == 0 }

    /// Whose scan this index serves, judged from the index and its own conditions alone
    /// (`ScanFilterTable.owner(_:)` also looks at the other indices of its set-up burst).
    public var indexOwner: ScanFilterOwner {
        switch index {
        case 0: return .discovery
        case 1 where isAllPass || featureSelection == nil: return .appUnfiltered
        case 2 where isAllPass || featureSelection == nil: return .appUnfilteredBatch
        default:
            if isAllPass { return .appUnfiltered }
            if let s = ScanFilterOwner.systemService(self) { return .system(s) }
            return .app
        }
    }

    static let maximumFrames = 32
    static let maximumConditions = 64

    mutating func note(frame: Int) {
        if frames.count < Self.maximumFrames { frames.append(frame) }
    }

    var conditionCount: Int {
        serviceUUIDs.count + solicitationUUIDs.count + localNames.count + addresses.count
            + manufacturerCompanies.count + serviceData.count + otherConditions
    }
}

/// Names one `ScanFilterTable` kept in a `ScanFilterTables`: what a `scan.filters` event
/// carries, so the event stays plain data (a table holds arrays, and an event holding one was
/// copied and destroyed through its value witness at every copy of every event;
/// docs/performance.md).
public struct ScanFilterSnapshot: Sendable, Equatable {
    /// 1, 2, … in the order the tables were kept.
    public let version: Int
}

/// The scan filter tables a timeline's `scan.filters` events name, kept by the builder that
/// emits them and looked up where the event is read (`tables[snapshot]`). Bounded: the last
/// `capacity` distinct tables: more events than the builder's queue holds after any frame
/// (`EventQueue.capacity`, plus the few one frame adds), so the table of an event being emitted
/// is always there; an event kept long after (thousands of filter changes later) may find none.
///
/// A class: the builder adds to it and the event's readers (timeline writer, lint engine, report)
/// hold the same one. Confined, like the builder, to the thread that feeds the builder.
public final class ScanFilterTables {
    public static let capacity = EventQueue.capacity + 64

    private var tables: [ScanFilterTable] = []
    /// Version of `tables[first]`; the ring's oldest entry once it is full.
    private var firstVersion = 1
    private var first = 0

    public init() {}

    /// The table `snapshot` names, nil when it is no longer kept.
    public subscript(_ snapshot: ScanFilterSnapshot) -> ScanFilterTable? {
        let age = snapshot.version - firstVersion
        guard age >= 0, age < tables.count else { return nil }
        return tables[(first + age) % tables.count]
    }

    /// The newest snapshot (or a new one when `table` differs from the newest table).
    public func keep(_ table: ScanFilterTable) -> ScanFilterSnapshot {
        let newest = firstVersion + tables.count - 1
        if !tables.isEmpty, let last = self[ScanFilterSnapshot(version: newest)], last == table {
            return ScanFilterSnapshot(version: newest)
        }
        if tables.count < Self.capacity {
            tables.append(table)
        } else {
            tables[first] = table
            first = (first + 1) % tables.count
            firstVersion += 1
        }
        return ScanFilterSnapshot(version: firstVersion + tables.count - 1)
    }

    // The Filter Accept Lists `connection.create` events name (TimelineBuilder+AcceptList),
    // kept the same way: the last `capacity` distinct lists.
    private var lists: [FilterAcceptList] = []
    private var firstListVersion: UInt32 = 1
    private var firstList = 0

    /// The list `snapshot` names, nil when it is no longer kept.
    public func acceptList(_ snapshot: FilterAcceptListSnapshot) -> FilterAcceptList? {
        guard snapshot.version >= firstListVersion else { return nil }
        let age = Int(snapshot.version - firstListVersion)
        guard age < lists.count else { return nil }
        return lists[(firstList + age) % lists.count]
    }

    /// The newest list's snapshot (or a new one when `list` differs from the newest).
    public func keep(_ list: FilterAcceptList) -> FilterAcceptListSnapshot {
        let newest = FilterAcceptListSnapshot(version: firstListVersion &+ UInt32(lists.count) &- 1)
        if !lists.isEmpty, acceptList(newest) == list { return newest }
        if lists.count < Self.capacity {
            lists.append(list)
        } else {
            lists[firstList] = list
            firstList = (firstList + 1) % lists.count
            firstListVersion &+= 1
        }
        return FilterAcceptListSnapshot(version: firstListVersion &+ UInt32(lists.count) &- 1)
    }

    // The host's own advertising each `advertising.start` event names
    // (TimelineBuilder+Advertising), kept the same way: the last `capacity` setups.
    private var setups: [AdvertisingSetup] = []
    private var firstSetupVersion = 1
    private var firstSetup = 0

    /// The setup `snapshot` names, nil when it is no longer kept.
    public func advertising(_ snapshot: AdvertisingSnapshot) -> AdvertisingSetup? {
        let age = snapshot.version - firstSetupVersion
        guard age >= 0, age < setups.count else { return nil }
        return setups[(firstSetup + age) % setups.count]
    }

    /// A new snapshot of `setup` (each enable is its own, even when nothing changed).
    public func keep(_ setup: AdvertisingSetup) -> AdvertisingSnapshot {
        if setups.count < Self.capacity {
            setups.append(setup)
        } else {
            setups[firstSetup] = setup
            firstSetup = (firstSetup + 1) % setups.count
            firstSetupVersion += 1
        }
        return AdvertisingSnapshot(version: firstSetupVersion + setups.count - 1)
    }
}

/// Whose scan an APCF filter index serves on an Android stack. AOSP's ScanManager
/// (`initFilterIndexStack`, packages/modules/Bluetooth) reserves index 0 for the all-pass
/// filter of device discovery ("Settings app"; the stack installs it for
/// `BluetoothAdapter.startDiscovery()` with OR logic and RSSI −127, next to HCI Inquiry),
/// index 1 for the all-pass filter of regular scans without filters
/// (`ALL_PASS_FILTER_INDEX_REGULAR_SCAN`), index 2 for batch scans without filters
/// (`ALL_PASS_FILTER_INDEX_BATCH_SCAN`), index 3 for LE Audio broadcast announcements on
/// Android 13 and later, and hands the other indices (3 or 4 up to the controller's
/// `max_filter`) to scan clients, one per `ScanFilter` of a `startScan(filters, …)` call. The
/// OS's own background scanners are clients too; their filters are recognised by what they
/// match (`systemService`).
public enum ScanFilterOwner: Sendable, Equatable {
    /// Index 0: the stack's device discovery (classic Inquiry + LE), usually Settings' pairing
    /// screen or an app calling `BluetoothAdapter.startDiscovery()`.
    case discovery
    /// An all-pass index (1, or another client index selecting no feature): an app's scan
    /// without filters (`startScan` with no `ScanFilter`, or more filters than the controller
    /// holds).
    case appUnfiltered
    /// Index 2 all-pass: a batch scan (report delay > 0) without filters.
    case appUnfilteredBatch
    /// A client index whose conditions match an OS background scanner: its name.
    case system(String)
    /// A client index created from an app's `ScanFilter` list (not recognised as the OS's).
    case app

    /// True for the app's own scans (attributed by elimination: not discovery, not a
    /// recognised OS scanner).
    public var isApp: Bool {
        switch self {
        case .appUnfiltered, .appUnfilteredBatch, .app: true
        case .discovery, .system: false
        }
    }

    /// The JSONL/text name (`scan.filters` `filters[].owner`).
    public var name: String {
        switch self {
        case .discovery: "discovery"
        case .appUnfiltered: "app_unfiltered"
        case .appUnfilteredBatch: "app_unfiltered_batch"
        case .system: "system"
        case .app: "app"
        }
    }

    /// What the owner is, in words.
    public var description: String {
        switch self {
        case .discovery: "the Android stack's device discovery (BluetoothAdapter.startDiscovery(), usually Settings)"
        case .appUnfiltered: "an app's scan without filters (AOSP's all-pass index)"
        case .appUnfilteredBatch: "an app's batch scan without filters (AOSP's batch all-pass index 2)"
        case .system(let s): "the OS's \(s)"
        case .app: "an app's ScanFilter"
        }
    }

    /// OS background scanners, recognised by the 16-bit service UUID (service UUID, service data
    /// or solicitation condition) or the manufacturer company their filter matches. 16-bit UUIDs
    /// and company identifiers: Bluetooth SIG Assigned Numbers (member UUIDs, company identifiers).
    static let systemUUIDs: [UInt16: String] = [
        0xFE2C: "Fast Pair scanner (Google Play services, service 0xFE2C)",
        0xFEF3: "Nearby / Find My Device scanner (Google Play services, service 0xFEF3)",
        0xFCF1: "Nearby Presence scanner (Google Play services, service 0xFCF1)",
        0xFE9F: "Google scanner (service 0xFE9F)",
        0xFEA0: "Google scanner (service 0xFEA0)",
        0xFD6F: "Exposure Notification scanner (Google/Apple, service 0xFD6F)",
        0xFD5A: "Samsung SmartThings Find scanner (service 0xFD5A)",
        0xFD69: "Samsung scanner (service 0xFD69)",
        0x1852: "LE Audio broadcast scanner (Broadcast Audio Announcement 0x1852)",
    ]
    static let systemCompanies: [UInt16: String] = [
        0x0075: "Samsung scanner (manufacturer data of Samsung Electronics, 0x0075)",
        0x00E0: "Google scanner (manufacturer data of Google, 0x00E0)",
    ]

    /// The OS scanner an entry's conditions belong to, nil when none is recognised.
    static func systemService(_ e: ScanFilterEntry) -> String? {
        for u in e.serviceUUIDs + e.solicitationUUIDs {
            if let v = u.uuid16, let s = systemUUIDs[v] { return s }
        }
        for d in e.serviceData {
            // Service data patterns start with the 16-bit UUID, little-endian (AD type 0x16).
            guard d.count >= 4, let lo = UInt8(d.prefix(2), radix: 16),
                let hi = UInt8(d.dropFirst(2).prefix(2), radix: 16)
            else { continue }
            if let s = systemUUIDs[UInt16(hi) << 8 | UInt16(lo)] { return s }
        }
        for c in e.manufacturerCompanies {
            if let s = systemCompanies[c] { return s }
        }
        return nil
    }
}

/// Android's scan modes (`ScanSettings.SCAN_MODE_*`) as the controller sees them: the window
/// and interval AOSP's ScanManager programs for the most demanding client's mode (values in
/// docs/timeline.md, from ScanManager/ScanUtil across Android releases).
public enum AndroidScanMode: String, Sendable {
    case lowPower = "low_power"
    case screenOffLowPower = "screen_off_low_power"
    case balanced
    case lowLatency = "low_latency"

    /// Higher is more radio time.
    public var rank: Int {
        switch self {
        case .screenOffLowPower: 0
        case .lowPower: 1
        case .balanced: 2
        case .lowLatency: 3
        }
    }

    /// `ScanSettings` constant name.
    public var apiName: String {
        switch self {
        case .lowPower: "SCAN_MODE_LOW_POWER"
        case .screenOffLowPower: "SCAN_MODE_LOW_POWER (screen off)"
        case .balanced: "SCAN_MODE_BALANCED"
        case .lowLatency: "SCAN_MODE_LOW_LATENCY"
        }
    }
}

extension ScanParameters {
    /// The Android scan mode these parameters program, from the duty cycle (window/interval):
    /// ≥ 95 % low latency (100/100 ms, 4096/4096, 5000/5000), 20–95 % balanced (183/730 ms,
    /// 1024/4096, 2000/5000), 7–20 % low power (140/1400 ms, 512/5120, 500/5000), below that the
    /// screen-off low power mode (512/10240 ms). Nil when the parameters are unknown.
    public var androidScanMode: AndroidScanMode? {
        guard parametersKnown, interval > 0, window > 0 else { return nil }
        let duty = Double(window) / Double(interval)
        if duty >= 0.95 { return .lowLatency }
        if duty >= 0.2 { return .balanced }
        if duty >= 0.07 { return .lowPower }
        return .screenOffLowPower
    }

    /// Window/interval pairs (ms) AOSP's ScanManager programs for its scan modes, across
    /// releases: low latency 100/100, 4096/4096, 5000/5000; balanced 183/730, 1024/4096,
    /// 2000/5000; low power 140/1400, 512/5120, 500/5000; screen-off low power 512/10240.
    static let androidModesMs: [(window: Double, interval: Double)] = [
        (100, 100), (4096, 4096), (5000, 5000), (183, 730), (1024, 4096), (2000, 5000), (140, 1400),
        (512, 5120), (500, 5000), (512, 10240),
    ]

    /// True when window and interval are exactly (to a slot) one of AOSP's scan-mode pairs.
    public var isExactAndroidScanMode: Bool {
        guard parametersKnown else { return false }
        let w = Double(window) * 0.625
        let i = Double(interval) * 0.625
        return Self.androidModesMs.contains { abs($0.window - w) <= 0.7 && abs($0.interval - i) <= 0.7 }
    }
}
