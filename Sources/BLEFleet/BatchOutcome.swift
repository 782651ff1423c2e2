import CaptureArchive

/// The exit-status class of one capture of a batch, as docs/exit-codes.md numbers them. A batch
/// exits with the highest of its captures' classes (with 1 below 3, 4 and 5 as everywhere).
public enum ExitClass: Int, Sendable, Comparable, CaseIterable {
    case ok = 0
    case findings = 1
    case damaged = 3
    case unreadable = 4
    case refused = 5
    case internalError = 7

    public static func < (a: ExitClass, b: ExitClass) -> Bool { a.rawValue < b.rawValue }

    /// The name rows carry (`error.class`).
    public var name: String {
        switch self {
        case .ok: "ok"
        case .findings: "findings"
        case .damaged: "damaged"
        case .unreadable: "unreadable"
        case .refused: "refused"
        case .internalError: "internal"
        }
    }

    /// An input that could not be turned into captures (CaptureInput's mapping; `--member`
    /// problems are usage errors there, and unreadable here: a batch has no one to ask).
    public init(_ error: ArchiveError) {
        switch error {
        case .refused: self = .refused
        default: self = .unreadable
        }
    }
}

/// Why one capture of a batch has no result, for its error row.
public struct BatchFailure: Sendable, Equatable {
    /// What broke: "open" (the input or archive), "read" (a member's reader), "limit" (`--max-seconds`,
    /// `--max-memory`), "crash" (the analysis ended abnormally in its child process).
    public var stage: String
    public var cause: String
    public var exitClass: ExitClass
    /// The limit that was broken ("max-seconds", "max-memory"), when one was.
    public var limit: String?

    public init(stage: String, cause: String, exitClass: ExitClass, limit: String? = nil) {
        self.stage = stage
        self.cause = cause
        self.exitClass = exitClass
        self.limit = limit
    }
}

/// An input as rows name it: its path, the SHA-256 of its bytes (nil when it cannot be read),
/// its size.
public struct InputIdentity: Sendable, Equatable {
    public var path: String
    public var sha256: String?
    public var size: Int64?

    public init(path: String, sha256: String?, size: Int64?) {
        self.path = path
        self.sha256 = sha256
        self.size = size
    }

    /// Hashes the file at `path` in 64 KiB blocks (constant memory).
    public static func of(path: String) -> InputIdentity {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return InputIdentity(path: path, sha256: nil, size: nil) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            return InputIdentity(path: path, sha256: nil, size: nil)
        }
        var hash = SHA256()
        var size: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return InputIdentity(path: path, sha256: nil, size: nil) }
            if n == 0 { break }
            hash.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            size += Int64(n)
        }
        return InputIdentity(path: path, sha256: hash.finish().hexString, size: size)
    }
}

#if canImport(Glibc)
    import Glibc
#endif
