import BLEBytes
import CArchive
import CaptureIO

#if canImport(Glibc)
    import Glibc
#endif

/// A capture found inside an archive, decompressed into a temporary file.
struct FoundCapture {
    /// Member path, levels joined by "!" (`inner.tar.gz!logs/a.pklg`); nil for the content of
    /// a compressed file that is not an archive (`x.btsnoop.gz`).
    var name: String?
    var file: ExtractedFile
    /// The compressed data ended (or broke) before this member did.
    var damage: String?
}

/// A text member that may hold a btsnooz section (an Android bug report's main file).
struct FoundText {
    var name: String?
    var file: ExtractedFile
}

/// Walks an archive (and the archives inside it) with libarchive, keeping the captures and
/// bug-report texts it finds in temporary files and only the names of everything else.
///
/// Reads gzip and xz streams, zip and tar; a compressed file that is not a tar is one member
/// (libarchive's "raw" format). Every byte that comes out counts against `ArchiveLimits`.
struct ArchiveWalker {
    let limits: ArchiveLimits
    /// `--member`: captures with another name are listed, not extracted.
    let wanted: String?
    var captures: [FoundCapture] = []
    var texts: [FoundText] = []
    /// Names of members that are no capture (the first `listedNames`), and how many there were.
    var others: [String] = []
    var otherCount = 0
    /// Every capture name seen (also the ones `wanted` left out).
    var captureNames: [String] = []
    /// Whether this looks like an Android bug report (`main_entry.txt`, an `FS/` tree).
    var isBugReport = false
    /// Names under `FS/` that mention Bluetooth, for the error when no log is there.
    var bluetoothNames: [String] = []
    var damage: String?
    var totalOut: Int64 = 0
    /// A sysdiagnose's `SystemVersion.plist` (the iOS version), the first one met.
    var systemVersion: ExtractedFile?

    static let listedNames = 20
    static let blockSize = 1 << 16

    /// What messages call the input itself.
    let rootName: String

    init(limits: ArchiveLimits, wanted: String?, rootName: String = "archive") {
        self.limits = limits
        self.wanted = wanted
        self.rootName = rootName
    }

    /// Reads the archive in `fd` (not closed here). `prefix` names the archive itself for
    /// members' names (nil at the top); `depth` is 1 for the input file.
    mutating func walk(fd: Int32, prefix: String?, depth: Int) throws(ArchiveError) {
        guard let a = archive_read_new() else {
            throw .unreadableArchive(kind: "archive", reason: "libarchive could not start")
        }
        defer { archive_read_free(a) }
        // Only built-in decoders: `support_filter_all` may run external programs.
        archive_read_support_filter_gzip(a)
        archive_read_support_filter_xz(a)
        archive_read_support_format_zip(a)
        archive_read_support_format_tar(a)
        archive_read_support_format_raw(a)
        let what = prefix ?? rootName
        guard archive_read_open_fd(a, fd, Self.blockSize) == ARCHIVE_OK else {
            throw .unreadableArchive(kind: what, reason: Self.error(a))
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.blockSize, alignment: 16)
        defer { buffer.deallocate() }
        var levelOut: Int64 = 0
        var entries = 0
        var entry: OpaquePointer?
        while true {
            let r = archive_read_next_header(a, &entry)
            if r == ARCHIVE_EOF { break }
            guard r == ARCHIVE_OK || r == ARCHIVE_WARN, let entry else {
                let reason = Self.error(a)
                if entries == 0 { throw .unreadableArchive(kind: what, reason: reason) }
                damage = damage ?? "\(what): archive damaged after \(entries) entries: \(reason)"
                break
            }
            entries += 1
            if entries > limits.maximumEntries { throw .refused(.tooManyEntries(limit: limits.maximumEntries)) }
            let isRaw = archive_format(a) == ARCHIVE_FORMAT_RAW
            let entryName: String? = isRaw ? nil : Self.pathname(entry)
            if let n = entryName, !Self.isSafe(n) { throw .refused(.unsafeName(n)) }
            let full: String? = entryName.map { n in prefix.map { "\($0)!\(n)" } ?? n } ?? prefix
            if let n = entryName {
                if n == "main_entry.txt" || n.hasPrefix("FS/") { isBugReport = true }
                if n.hasPrefix("FS/"), n.lowercased().contains("bluetooth") || n.hasPrefix("FS/data/log/bt/"),
                    bluetoothNames.count < Self.listedNames
                {
                    bluetoothNames.append(n)
                }
            }
            // Directories, links and devices hold no data worth reading.
            guard isRaw || archive_entry_filetype(entry) == 0o100000 else { continue }

            var reader = EntryReader(archive: a, buffer: buffer, name: full ?? what)
            let head = try reader.readPrefix(ContentKind.prefixLength, walker: &self, levelOut: &levelOut)
            let kind = ContentKind.of(ByteView(UnsafeRawBufferPointer(rebasing: buffer[0..<head])))
            switch kind {
            case .capture:
                let name = full ?? ""
                captureNames.append(name)
                if let wanted, !Self.matches(name, wanted) {
                    try reader.skip(isZip: archive_format(a) == ARCHIVE_FORMAT_ZIP, walker: &self, levelOut: &levelOut)
                    continue
                }
                let file = try ExtractedFile()
                let cut = try reader.copy(prefix: head, to: file, walker: &self, levelOut: &levelOut)
                captures.append(FoundCapture(name: full, file: file, damage: cut))
            case .archive:
                guard depth < limits.maximumDepth else {
                    throw .refused(.nestingTooDeep(name: full ?? what, limit: limits.maximumDepth))
                }
                let file = try ExtractedFile()
                let cut = try reader.copy(prefix: head, to: file, walker: &self, levelOut: &levelOut)
                if let cut { damage = damage ?? cut }
                let inner = try CaptureBundle.reopen(file)
                defer { close(inner) }
                try walk(fd: inner, prefix: full ?? what, depth: depth + 1)
            case .text where Self.mayHoldSummary(entryName):
                let file = try ExtractedFile()
                let cut = try reader.copy(prefix: head, to: file, walker: &self, levelOut: &levelOut)
                if let cut { damage = damage ?? cut }
                texts.append(FoundText(name: full, file: file))
            case .text where systemVersion == nil && entryName?.hasSuffix("/SystemVersion.plist") == true:
                let file = try ExtractedFile()
                _ = try reader.copy(prefix: head, to: file, walker: &self, levelOut: &levelOut)
                systemVersion = file
                otherCount += 1
                if others.count < Self.listedNames, let full { others.append(full) }
            case .text, .other:
                otherCount += 1
                if others.count < Self.listedNames, let full { others.append(full) }
                if head > 0 {
                    try reader.skip(isZip: archive_format(a) == ARCHIVE_FORMAT_ZIP, walker: &self, levelOut: &levelOut)
                }
            }
            if let cut = reader.cut {
                damage = damage ?? cut
                break
            }
        }
    }

    /// Bug-report text that may carry the btsnooz summary: the dumpstate main file (named by
    /// `main_entry.txt`, `bugreport-….txt`, `dumpstate*.txt`), or a bare compressed text.
    static func mayHoldSummary(_ name: String?) -> Bool {
        guard let name else { return true }
        let base = name.split(separator: "/").last.map(String.init) ?? name
        return !name.hasPrefix("FS/") && (base.hasPrefix("bugreport") || base.hasPrefix("dumpstate"))
            && base.hasSuffix(".txt")
    }

    /// `--member NAME` matches a capture's full name, its path inside the innermost archive, or
    /// its file name.
    static func matches(_ full: String, _ wanted: String) -> Bool {
        if full == wanted { return true }
        let inner = full.split(separator: "!").last.map(String.init) ?? full
        if inner == wanted { return true }
        return (inner.split(separator: "/").last.map(String.init) ?? inner) == wanted
    }

    /// Absolute paths, `..` components (either separator) and drive letters are refused: blecap
    /// never writes members by name, but a name like that only comes from a hostile archive.
    static func isSafe(_ name: String) -> Bool {
        if name.isEmpty || name.hasPrefix("/") || name.hasPrefix("\\") { return false }
        let bytes = Array(name.utf8)
        if bytes.count >= 2 && bytes[1] == UInt8(ascii: ":") { return false }
        if bytes.contains(0) { return false }
        for part in name.split(whereSeparator: { $0 == "/" || $0 == "\\" }) where part == ".." { return false }
        return true
    }

    static func pathname(_ entry: OpaquePointer) -> String {
        if let p = archive_entry_pathname_utf8(entry) { return String(cString: p) }
        if let p = archive_entry_pathname(entry) {
            return String(
                decoding: Array(UnsafeBufferPointer(start: p, count: strlen(p))).map { UInt8(bitPattern: $0) },
                as: UTF8.self)
        }
        return ""
    }

    static func error(_ a: OpaquePointer) -> String {
        archive_error_string(a).map { String(cString: $0) } ?? "unknown libarchive error"
    }

    /// Accounts `n` decompressed bytes of member `name`: the member, total and ratio limits.
    mutating func account(_ n: Int, member: Int64, levelOut: inout Int64, archive a: OpaquePointer, name: String)
        throws(ArchiveError)
    {
        levelOut += Int64(n)
        totalOut += Int64(n)
        if member > limits.maximumMemberBytes {
            throw .refused(.memberTooLarge(name: name, limit: limits.maximumMemberBytes))
        }
        if totalOut > limits.maximumTotalBytes { throw .refused(.totalTooLarge(limit: limits.maximumTotalBytes)) }
        if levelOut > limits.ratioFloorBytes {
            let consumed = max(1, archive_filter_bytes(a, -1))
            if levelOut > limits.maximumRatio * consumed {
                throw .refused(.compressionRatio(name: name, ratio: levelOut / consumed, limit: limits.maximumRatio))
            }
        }
    }
}

/// Reads one entry's data block by block through the walker's buffer.
struct EntryReader {
    let archive: OpaquePointer
    let buffer: UnsafeMutableRawBufferPointer
    let name: String
    var member: Int64 = 0
    var ended = false
    /// Why the data stopped early (truncated or corrupt compressed stream).
    var cut: String?

    init(archive: OpaquePointer, buffer: UnsafeMutableRawBufferPointer, name: String) {
        self.archive = archive
        self.buffer = buffer
        self.name = name
    }

    /// Reads into `buffer[offset...]`; 0 at the end of the entry or at damage.
    private mutating func read(at offset: Int, walker: inout ArchiveWalker, levelOut: inout Int64)
        throws(ArchiveError) -> Int
    {
        if ended { return 0 }
        let n = archive_read_data(archive, buffer.baseAddress! + offset, buffer.count - offset)
        if n == 0 {
            ended = true
            return 0
        }
        if n < 0 {
            ended = true
            cut = "\(name): compressed data ends or breaks after \(member) bytes: \(ArchiveWalker.error(archive))"
            return 0
        }
        member += Int64(n)
        try walker.account(n, member: member, levelOut: &levelOut, archive: archive, name: name)
        return n
    }

    /// Fills the buffer's start with at least `count` bytes (fewer at the end); returns how many.
    mutating func readPrefix(_ count: Int, walker: inout ArchiveWalker, levelOut: inout Int64) throws(ArchiveError)
        -> Int
    {
        var have = 0
        while have < count {
            let n = try read(at: have, walker: &walker, levelOut: &levelOut)
            if n == 0 { break }
            have += n
        }
        return have
    }

    /// Writes the `prefix` bytes already in the buffer, then the rest of the entry, to `file`.
    /// Returns why the data stopped early, if it did.
    mutating func copy(prefix: Int, to file: ExtractedFile, walker: inout ArchiveWalker, levelOut: inout Int64)
        throws(ArchiveError) -> String?
    {
        if prefix > 0 { try file.write(buffer.baseAddress!, count: prefix) }
        while true {
            let n = try read(at: 0, walker: &walker, levelOut: &levelOut)
            if n == 0 { break }
            try file.write(buffer.baseAddress!, count: n)
        }
        let c = cut
        cut = nil  // reported with the member, not as the archive's
        return c
    }

    /// Passes over the rest of the entry: a seek in a zip, otherwise decompressed and counted
    /// (a stream has no other way past it, and a bomb must not hide in a skipped member).
    mutating func skip(isZip: Bool, walker: inout ArchiveWalker, levelOut: inout Int64) throws(ArchiveError) {
        if isZip {
            if archive_read_data_skip(archive) != ARCHIVE_OK {
                cut = "\(name): \(ArchiveWalker.error(archive))"
            }
            ended = true
            return
        }
        while try read(at: 0, walker: &walker, levelOut: &levelOut) > 0 {}
    }
}
