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

    public init(index: UInt8) { self.index = index }

    /// In force and selecting no feature: lets every advertisement through.
    public var isAllPass: Bool { featureSelection == 0 }

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
/// copied and destroyed through its value witness, ~230 instructions per copy of every event).
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
}
