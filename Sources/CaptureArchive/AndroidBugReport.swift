/// Where an Android bug report (`adb bugreport` → zip) keeps the HCI snoop log.
///
/// dumpstate copies `/data/misc/bluetooth/logs` into the zip's `FS/` tree: the current log, the
/// previous one rotated to `.last`, the "filtered" variant (headers kept, payloads cut) that
/// newer releases write when the full log is off, and `btsnooz_hci.log`. Some vendors log
/// elsewhere (Samsung under `/data/log/bt/`).
enum AndroidBugReport {
    static let logs = "FS/data/misc/bluetooth/logs/"

    /// File names in order of preference (lower is better).
    static let preference: [String] = [
        logs + "btsnoop_hci.log",
        logs + "btsnoop_hci.log.last",
        logs + "btsnoop_hci.log.filtered",
        logs + "btsnoop_hci.log.filtered.last",
        logs + "btsnooz_hci.log",
        logs + "btsnooz_hci.log.last",
    ]
    static let vendorFolders = ["FS/data/log/bt/"]

    static func rank(_ name: String?) -> Int {
        guard let name else { return Int.max }
        // A bug report nested in another archive is matched on its own part of the name.
        let inner = name.split(separator: "!").last.map(String.init) ?? name
        if let i = preference.firstIndex(of: inner) { return i }
        if vendorFolders.contains(where: { inner.hasPrefix($0) }) { return preference.count }
        if inner.hasPrefix(logs) { return preference.count + 1 }
        return preference.count + 2
    }

    /// The capture to read from a bug report, or nil when it holds none.
    static func preferred(_ captures: [FoundCapture]) -> FoundCapture? {
        captures.enumerated().min { a, b in
            let (ra, rb) = (rank(a.element.name), rank(b.element.name))
            return ra != rb ? ra < rb : a.offset < b.offset
        }?.element
    }
}
