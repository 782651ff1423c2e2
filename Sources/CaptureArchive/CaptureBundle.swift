import BLEBytes
import CaptureIO

#if canImport(Glibc)
    import Glibc
#endif

/// One capture of an input: the file itself, or a member of an archive, or the btsnooz
/// section of an Android bug report. Readers are made on demand, each from the start.
public final class CaptureMember: @unchecked Sendable {
    /// Member path inside the archive (levels joined by "!"), nil for the input itself.
    public let name: String?
    /// What reports show: the input path, or `input!member` (`bugreport.zip!FS/data/misc/…`).
    public let displayName: String
    /// How the capture was chosen or decoded, for people ("Android bug report: …").
    public let note: String?
    /// The compressed data stopped before this member's end (its records up to there are read).
    public let damage: String?

    enum Storage {
        case path(String)
        /// Standard input: one reader, once.
        case stdin(FileByteSource)
        case extracted(ExtractedFile)
        case btsnooz(BTSnoozLog)
    }
    let storage: Storage
    private var stdinTaken = false

    init(name: String?, displayName: String, note: String?, damage: String?, storage: Storage) {
        self.name = name
        self.displayName = displayName
        self.note = note
        self.damage = damage
        self.storage = storage
    }

    /// Whether `makeReader()` can be called more than once (not for standard input).
    public var isRereadable: Bool {
        if case .stdin = storage { return false }
        return true
    }

    /// A streaming reader over the capture, from its first record. A plain file is opened by
    /// path exactly as `CaptureFile.open(path:)` does: no copy, the same hot path.
    public func makeReader() throws(CaptureError) -> any CaptureReader {
        switch storage {
        case .path(let p): return try CaptureFile.open(path: p)
        case .stdin(let source):
            guard !stdinTaken else { throw .cannotOpen(path: "-", reason: "standard input can be read only once") }
            stdinTaken = true
            return try CaptureFile.open(source: source, path: nil)
        case .extracted(let file):
            let fd = try file.reopen()
            return try CaptureFile.open(source: FileByteSource(fd: fd, ownsFD: true), path: nil)
        case .btsnooz(let log): return BTSnoozReader(log)
        }
    }

    /// Timestamp of the first record (nil if none or unreadable): orders several captures.
    func firstTimestamp() -> Int64? {
        guard isRereadable, let r = try? makeReader() else { return nil }
        return r.next()?.timestamp
    }
}

/// An input opened for reading: a plain capture (one member, read in place) or an archive,
/// compressed file, Android bug report or iOS sysdiagnose holding one or more captures.
public struct CaptureBundle: Sendable {
    public let path: String
    /// "gzip", "zip", "Android bug report (zip)", … ; nil for a plain capture.
    public let container: String?
    /// The captures, in the order they are read: by first timestamp when there are several
    /// (a sysdiagnose's rotated PacketLogger files come out in time order).
    public let members: [CaptureMember]
    /// The archive broke after some members (they are still read).
    public let damage: String?
    /// What the archive names of its device (a bug report's model, build; a sysdiagnose's iOS
    /// version): empty for a plain capture.
    public var metadata = DeviceMetadata()

    /// Standard input as `open(path: "-")` reads it, from a source already opened on it (and
    /// perhaps peeked at: `blecap watch -` looks at the first bytes before choosing to stream
    /// them or to read a compressed stream whole).
    public static func open(
        standardInput source: FileByteSource, member: String? = nil, limits: ArchiveLimits = .standard
    )
        throws(ArchiveError) -> CaptureBundle
    {
        try open(stream: source, path: "-", display: "standard input", member: member, limits: limits)
    }

    /// A stream that can be read once (standard input, a FIFO, a character device): sniffed from
    /// its first bytes, never opened a second time.
    static func open(
        stream source: FileByteSource, path: String, display: String, member: String?, limits: ArchiveLimits
    ) throws(ArchiveError) -> CaptureBundle {
        let head = source.peekAvailable(upTo: ContentKind.prefixLength)
        let kind = ContentKind.of(head)
        switch kind {
        case .archive:
            // Spooled to a private file first: libarchive wants to seek (zip).
            let file = try spool(source, limits: limits)
            let fd = try reopen(file)
            defer { close(fd) }
            return try openContainer(
                fd: fd, kind: kind, path: path, display: display, member: member, limits: limits)
        case .text:
            // A bug report text piped in: spooled and scanned; without a section it is read
            // (and refused) as the capture it is not.
            let file = try spool(source, limits: limits)
            let fd = try reopen(file)
            defer { close(fd) }
            if let bundle = try textBundle(fd: fd, path: path, member: member, limits: limits) { return bundle }
            let m = CaptureMember(name: nil, displayName: path, note: nil, damage: nil, storage: .extracted(file))
            return CaptureBundle(path: path, container: nil, members: [m], damage: nil)
        case .capture, .other:
            let m = CaptureMember(name: nil, displayName: path, note: nil, damage: nil, storage: .stdin(source))
            return CaptureBundle(path: path, container: nil, members: [m], damage: nil)
        }
    }

    /// Opens `path` ("-" for standard input). `member` picks one capture by name; `limits`
    /// bound what an archive may make blecap decompress.
    public static func open(path: String, member: String? = nil, limits: ArchiveLimits = .standard)
        throws(ArchiveError) -> CaptureBundle
    {
        let display = path == "-" ? "standard input" : path
        if path == "-" {
            let source: FileByteSource
            do { source = try FileByteSource(path: "-") } catch { throw .capture(error) }
            return try open(standardInput: source, member: member, limits: limits)
        }
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        var kind = ContentKind.other
        if fd >= 0 {
            var st = stat()
            let type = fstat(fd, &st) == 0 ? st.st_mode & S_IFMT : 0
            if type == S_IFIFO || type == S_IFCHR || type == S_IFSOCK {
                // A FIFO (or /dev/stdin, a device) is read from this one open: closing it and
                // opening the path again would lose what the writer already wrote, or wait for
                // a writer that has gone.
                return try open(
                    stream: FileByteSource(fd: fd, ownsFD: true), path: path, display: display, member: member,
                    limits: limits)
            }
            if type == S_IFREG {
                var head = [UInt8](repeating: 0, count: ContentKind.prefixLength)
                let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
                kind = ContentKind.of(ByteView(head.withUnsafeBytes { $0 }).prefix(max(0, n)))
            }
        }
        defer { if fd >= 0 { close(fd) } }
        switch kind {
        case .archive:
            return try openContainer(fd: fd, kind: kind, path: path, display: display, member: member, limits: limits)
        case .text:
            // A bug report's text with a btsnooz section; any other text (a simulator trace,
            // a note) stays the plain input it was.
            if let bundle = try textBundle(fd: fd, path: path, member: member, limits: limits) { return bundle }
            fallthrough
        case .capture, .other:
            // Errors (missing file, unknown format) come from CaptureIO when the reader opens,
            // with the messages they always had.
            if let member { throw .noSuchMember(member, available: []) }
            let m = CaptureMember(name: nil, displayName: path, note: nil, damage: nil, storage: .path(path))
            return CaptureBundle(path: path, container: nil, members: [m], damage: nil)
        }
    }

    /// Whether `prefix` (the first 512 bytes of a file) starts an archive or compressed file
    /// blecap opens (gzip, xz, zip, tar).
    public static func isArchive(_ prefix: ByteView) -> Bool {
        ContentKind.archiveName(prefix) != nil
    }

    /// The btsnooz section of a bare bug-report text, or nil when the text has none.
    static func textBundle(fd: Int32, path: String, member: String?, limits: ArchiveLimits) throws(ArchiveError)
        -> CaptureBundle?
    {
        guard let log = try BTSnoozLog.find(fd: fd, limits: limits) else { return nil }
        if let member { throw .noSuchMember(member, available: []) }
        let m = CaptureMember(
            name: nil, displayName: path,
            note:
                "btsnooz v\(log.version) summary in the bug report text: ACL payloads are truncated as Android stored them",
            damage: nil, storage: .btsnooz(log))
        var bundle = CaptureBundle(path: path, container: "bug report text", members: [m], damage: nil)
        bundle.metadata = DeviceMetadata.scanBugReport(fd: fd)
        return bundle
    }

    static func reopen(_ file: ExtractedFile) throws(ArchiveError) -> Int32 {
        do { return try file.reopen() } catch { throw .capture(error) }
    }

    /// Copies standard input into a private temporary file (at most the member limit).
    static func spool(_ source: FileByteSource, limits: ArchiveLimits) throws(ArchiveError) -> ExtractedFile {
        let file = try ExtractedFile()
        while true {
            let chunk = source.peekAvailable(upTo: 1 << 16)
            if chunk.isEmpty { break }
            if let base = chunk.base.baseAddress { try file.write(base, count: chunk.count) }
            source.consume(chunk.count)
            if file.size > limits.maximumMemberBytes {
                throw .refused(.memberTooLarge(name: "standard input", limit: limits.maximumMemberBytes))
            }
        }
        return file
    }

    static func openContainer(
        fd: Int32, kind: ContentKind, path: String, display: String, member: String?, limits: ArchiveLimits
    ) throws(ArchiveError) -> CaptureBundle {
        var walker = ArchiveWalker(limits: limits, wanted: member, rootName: display)
        var containerName = "archive"
        if case .archive(let name) = kind { containerName = name }
        try walker.walk(fd: fd, prefix: nil, depth: 1)
        if walker.isBugReport { containerName = "Android bug report (\(containerName))" }

        func qualified(_ name: String?) -> String { name.map { "\(path)!\($0)" } ?? path }
        var members: [CaptureMember] = []
        if walker.isBugReport && member == nil {
            // One log, by the order of preference; the others stay reachable with --member.
            if let best = AndroidBugReport.preferred(walker.captures) {
                let others = walker.captureNames.filter { $0 != best.name }
                var note = "Android bug report: read \(best.name ?? path)"
                if !others.isEmpty { note += " (also present: \(others.joined(separator: ", ")))" }
                members = [
                    CaptureMember(
                        name: best.name, displayName: qualified(best.name), note: note, damage: best.damage,
                        storage: .extracted(best.file))
                ]
            }
        } else {
            members = walker.captures.map {
                CaptureMember(
                    name: $0.name, displayName: qualified($0.name),
                    note: $0.name == nil ? "\(containerName)-compressed capture" : nil, damage: $0.damage,
                    storage: .extracted($0.file))
            }
        }
        if members.isEmpty {
            // No capture file: the btsnooz summary of a bug report's main text, if it has one
            // (`--member` may name that text).
            for text in walker.texts where member.map({ ArchiveWalker.matches(text.name ?? "", $0) }) ?? true {
                if let log = try BTSnoozLog.find(in: text.file, limits: limits) {
                    let source = text.name ?? (path as String)
                    members = [
                        CaptureMember(
                            name: text.name, displayName: qualified(text.name),
                            note:
                                "btsnooz v\(log.version) summary in \(source) (no btsnoop_hci.log\(walker.isBugReport ? " in the bug report" : "")): ACL payloads are truncated as Android stored them",
                            damage: nil, storage: .btsnooz(log))
                    ]
                    break
                }
            }
        }
        if let member, members.isEmpty {
            throw .noSuchMember(member, available: walker.captureNames)
        }
        if members.isEmpty {
            if walker.isBugReport { throw .bugReportWithoutBluetoothLog(contents: walker.bluetoothNames) }
            let names = walker.others + walker.texts.compactMap(\.name)
            throw .noCapture(
                kind: "\(display) (\(containerName))", contents: names, total: walker.otherCount + walker.texts.count)
        }
        if let member, members.count > 1 {
            // Ambiguous file name: the full names tell them apart.
            let exact = members.filter { $0.name == member || $0.displayName == member }
            guard exact.count == 1 else { throw .severalCaptures(members.compactMap(\.name)) }
            members = exact
        }
        if members.count > 1 {
            let keyed = members.map { ($0, $0.firstTimestamp()) }
            members = keyed.sorted { a, b in
                switch (a.1, b.1) {
                case (let x?, let y?) where x != y: return x < y
                case (.some, nil): return true
                case (nil, .some): return false
                default: return (a.0.name ?? "") < (b.0.name ?? "")
                }
            }.map(\.0)
        }
        var bundle = CaptureBundle(path: path, container: containerName, members: members, damage: walker.damage)
        if walker.isBugReport, let text = walker.texts.first {
            bundle.metadata = DeviceMetadata.scanBugReport(fd: text.file.fd)
        }
        if let plist = walker.systemVersion { bundle.metadata.iosVersion = DeviceMetadata.iosVersion(plist: plist.fd) }
        return bundle
    }
}
