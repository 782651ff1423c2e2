#if canImport(Glibc)
    import Glibc
#endif

/// What an archive says about the device it came from, for fleet rows. Each field is nil when
/// the archive does not name it: never a guess, never a placeholder.
///
/// Android bug reports: dumpstate's header (`Build fingerprint: '…'`) and the system properties
/// it prints in getprop's form (`[ro.product.model]: [Pixel 7]`, `[ro.build.fingerprint]: […]`);
/// app packages from the `Package [name] (…):` lines of `dumpsys package`, and the Bluetooth
/// stack's version from the `versionName=` line of the Bluetooth package's entry there
/// (`com.android.bluetooth`, or `com.google.android.bluetooth` on builds with Google's module):
/// Android has no system property for it. iOS sysdiagnose: the product version of
/// `SystemVersion.plist` when the archive holds one. The controller's firmware is not here: the
/// HCI log itself names it (Read Local Version Information).
public struct DeviceMetadata: Sendable, Equatable {
    public var model: String?
    public var manufacturer: String?
    public var buildFingerprint: String?
    /// `versionName` of the Bluetooth package in `dumpsys package`.
    public var bluetoothStack: String?
    /// Sorted, at most `maximumPackages`; nil when no package list is in the archive.
    public var appPackages: [String]?
    public var iosVersion: String?

    public init() {}

    /// The packages that are Android's Bluetooth stack: AOSP's name and Google's module build's.
    static let bluetoothPackages: Set<String> = ["com.android.bluetooth", "com.google.android.bluetooth"]

    /// The most packages kept (a phone has a few hundred; a hostile text could have millions).
    public static let maximumPackages = 2000
    /// Bytes of a text read for metadata: dumpstate prints the header and properties early.
    public static let maximumScanBytes = 64 << 20
    static let maximumLine = 4096

    public var isEmpty: Bool { self == DeviceMetadata() }

    /// Reads the metadata lines of a bug report's text from `fd` (from its start; not closed).
    static func scanBugReport(fd: Int32) -> DeviceMetadata {
        var m = DeviceMetadata()
        var packages: Set<String> = []
        var sawPackages = false
        // The package whose `dumpsys package` entry the lines are in, while it is a Bluetooth one.
        var inBluetoothPackage = false
        forEachLine(fd: fd) { line in
            let indented = line.drop { $0 == UInt8(ascii: " ") }
            if let v = value(line, after: "Build fingerprint: ") {
                m.buildFingerprint = m.buildFingerprint ?? trimQuotes(v)
            } else if let (key, v) = property(line) {
                switch key {
                case "ro.product.model": m.model = m.model ?? v
                case "ro.product.manufacturer": m.manufacturer = m.manufacturer ?? v
                case "ro.build.fingerprint": m.buildFingerprint = m.buildFingerprint ?? v
                default: break
                }
            } else if let rest = value(indented, after: "Package ["), let end = rest.firstIndex(of: "]") {
                sawPackages = true
                let name = String(rest[..<end])
                inBluetoothPackage = bluetoothPackages.contains(name)
                if packages.count < maximumPackages, isPackageName(name) { packages.insert(name) }
            } else if inBluetoothPackage, let v = value(indented, after: "versionName=") {
                if m.bluetoothStack == nil, v.count <= 64 { m.bluetoothStack = v }
                inBluetoothPackage = false
            } else if indented.startIndex == line.startIndex, !line.isEmpty {
                // A line at the left margin ends the package dump's entries.
                inBluetoothPackage = false
            }
        }
        if sawPackages { m.appPackages = packages.sorted() }
        return m
    }

    /// `ProductVersion` of a `SystemVersion.plist` (XML): the string after its key.
    static func iosVersion(plist fd: Int32) -> String? {
        var sawKey = false
        var found: String?
        forEachLine(fd: fd) { line in
            guard found == nil else { return }
            let s = String(decoding: line, as: UTF8.self)
            if s.contains("<key>ProductVersion</key>") {
                sawKey = true
                if let v = between(s.components(after: "<key>ProductVersion</key>"), "<string>", "</string>") {
                    found = v
                }
            } else if sawKey {
                found = between(s, "<string>", "</string>")
                sawKey = false
            }
        }
        return found.flatMap { $0.isEmpty || $0.count > 64 ? nil : $0 }
    }

    static func isPackageName(_ s: String) -> Bool {
        !s.isEmpty && s.count <= 255
            && s.utf8.allSatisfy { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || isalnum(Int32($0)) != 0 }
    }

    /// `[key]: [value]`, the form getprop prints; nil for other lines or an empty value.
    static func property(_ line: ArraySlice<UInt8>) -> (String, String)? {
        guard line.first == UInt8(ascii: "["), let close = line.firstIndex(of: UInt8(ascii: "]")) else { return nil }
        let key = String(decoding: line[(line.startIndex + 1)..<close], as: UTF8.self)
        let rest = line[(close + 1)...]
        guard rest.starts(with: Array(": [".utf8)), rest.last == UInt8(ascii: "]") else { return nil }
        let v = String(decoding: rest.dropFirst(3).dropLast(), as: UTF8.self)
        return v.isEmpty ? nil : (key, v)
    }

    static func value(_ line: ArraySlice<UInt8>, after prefix: String) -> String? {
        let p = Array(prefix.utf8)
        guard line.starts(with: p) else { return nil }
        let v = String(decoding: line.dropFirst(p.count), as: UTF8.self)
        return v.isEmpty ? nil : v
    }

    static func trimQuotes(_ s: String) -> String {
        var t = Substring(s)
        if t.hasPrefix("'") && t.hasSuffix("'") && t.count >= 2 { t = t.dropFirst().dropLast() }
        return String(t)
    }

    static func between(_ s: String, _ a: String, _ b: String) -> String? {
        guard let r1 = s.firstRange(of: a), let r2 = s[r1.upperBound...].firstRange(of: b) else { return nil }
        return String(s[r1.upperBound..<r2.lowerBound])
    }

    /// Each line (without its newline, at most `maximumLine` bytes: longer ones are cut) of the
    /// first `maximumScanBytes` of `fd`, read with pread from offset 0.
    static func forEachLine(fd: Int32, _ body: (ArraySlice<UInt8>) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var line: [UInt8] = []
        var offset = 0
        while offset < maximumScanBytes {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            if n <= 0 { break }
            offset += n
            for b in buffer[0..<n] {
                if b == 0x0A {
                    if line.last == 0x0D { line.removeLast() }
                    body(line[...])
                    line.removeAll(keepingCapacity: true)
                } else if line.count < maximumLine {
                    line.append(b)
                }
            }
        }
        if !line.isEmpty { body(line[...]) }
    }
}

extension String {
    fileprivate func components(after marker: String) -> String {
        guard let r = firstRange(of: marker) else { return "" }
        return String(self[r.upperBound...])
    }
}
