import CaptureIO

/// Why an input could not be turned into captures.
public enum ArchiveError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file (or a member) could not be opened or read.
    case capture(CaptureError)
    /// libarchive could not read the archive (not damage after good members: see `damage`).
    case unreadableArchive(kind: String, reason: String)
    /// An archive that holds no capture blecap reads. `contents` are the first names in it.
    case noCapture(kind: String, contents: [String], total: Int)
    /// An Android bug report without Bluetooth HCI logs and without a btsnooz section.
    case bugReportWithoutBluetoothLog(contents: [String])
    /// A safety limit or an unsafe member name stopped the read (see `ArchiveLimits`).
    case refused(Refusal)
    /// `--member NAME` names no capture of the archive.
    case noSuchMember(String, available: [String])
    /// Several captures where one subcommand needs exactly one.
    case severalCaptures([String])
    /// A btsnooz section that cannot be decoded (version, base64, compression).
    case btsnooz(String)

    public enum Refusal: Equatable, Sendable, CustomStringConvertible {
        case memberTooLarge(name: String, limit: Int64)
        case totalTooLarge(limit: Int64)
        case compressionRatio(name: String, ratio: Int64, limit: Int64)
        case nestingTooDeep(name: String, limit: Int)
        case unsafeName(String)
        case tooManyEntries(limit: Int)

        public var description: String {
            switch self {
            case .memberTooLarge(let n, let l): "member \(n) decompresses to more than \(l) bytes"
            case .totalTooLarge(let l): "the archive decompresses to more than \(l) bytes in all"
            case .compressionRatio(let n, let r, let l):
                "member \(n) expands more than \(r):1 (limit \(l):1): a decompression bomb?"
            case .nestingTooDeep(let n, let l): "\(n) nests archives deeper than \(l) levels"
            case .unsafeName(let n):
                "member name \(quoted(n)) is absolute or climbs out of the archive (path traversal)"
            case .tooManyEntries(let l): "more than \(l) entries"
            }
        }
    }

    public var description: String {
        switch self {
        case .capture(let e): e.description
        case .unreadableArchive(let k, let r): "cannot read \(k): \(r)"
        case .noCapture(let k, let names, let total):
            if names.isEmpty {
                "\(k) holds no file"
            } else {
                "\(k) holds no capture blecap reads; it contains: \(listing(names, total: total))"
            }
        case .bugReportWithoutBluetoothLog(let names):
            """
            Android bug report without Bluetooth HCI logs (no FS/data/misc/bluetooth/logs/btsnoop_hci.log, \
            no btsnooz section in the bug report text\(names.isEmpty ? "" : "; Bluetooth files present: \(names.joined(separator: ", "))")). \
            Enable Developer options → Bluetooth HCI snoop log ("Enabled"), toggle Bluetooth off and on, \
            reproduce the problem, then take a new bug report
            """
        case .refused(let r): "refused: \(r)"
        case .noSuchMember(let n, let available):
            "no capture named \(quoted(n)) in the archive; captures: \(available.isEmpty ? "none" : available.joined(separator: ", "))"
        case .severalCaptures(let names):
            "the archive holds \(names.count) captures; choose one with --member: \(names.joined(separator: ", "))"
        case .btsnooz(let m): "btsnooz section: \(m)"
        }
    }
}

func quoted(_ s: String) -> String { "'\(s)'" }

func listing(_ names: [String], total: Int) -> String {
    let more = total - names.count
    return names.joined(separator: ", ") + (more > 0 ? " (and \(more) more)" : "")
}
