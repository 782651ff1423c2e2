import CCaptureSupport
import CaptureIO
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A decompressed member, held in an anonymous file: in memory while the process's in-memory
/// members fit `ExtractedFile.memoryBudget`, on disk beyond it.
///
/// In memory it is a `memfd_create` file: no name, no directory, nothing for the file system to
/// journal. Every decompressed member used to go through a directory and a file on `$TMPDIR`
/// (mkdir, create, unlink, rmdir: two per Android bug report), and on an ext4 disk those
/// metadata operations were a quarter of batch mode's time (docs/performance.md). A member that
/// would take the budget past its limit moves to disk: the bytes so far are copied into a file
/// created inside a fresh private directory (mode 0700) under `$TMPDIR`, and both are unlinked at
/// once. Either way nothing named by the archive reaches the file system, nothing is left behind
/// if blecap is killed, and the space is returned when the descriptor closes.
final class ExtractedFile: @unchecked Sendable {
    /// Bytes held in memory by every extracted file of the process at once. An archive walk
    /// keeps its captures, texts and open nesting levels extracted together; the budget, not
    /// their count, bounds the memory they take.
    static let memoryBudget: Int64 = 64 << 20
    private static let inMemory = Atomic<Int64>(0)

    private(set) var fd: Int32
    private(set) var size: Int64 = 0
    /// Bytes of `inMemory` this file holds (0 once it is on disk).
    private var reserved: Int64 = 0
    private let budget: Int64

    /// `budget` is for tests: a smaller one moves a member to disk sooner.
    init(budget: Int64 = ExtractedFile.memoryBudget) throws(ArchiveError) {
        self.budget = budget
        let fd = blecap_memfd("blecap-member")
        self.fd = fd >= 0 ? fd : try Self.diskFile()
        if fd < 0 { reserved = -1 }  // no memfd here (an old kernel, a seccomp filter): disk only
    }

    deinit {
        close(fd)
        if reserved > 0 { Self.inMemory.subtract(reserved, ordering: .relaxed) }
    }

    /// Whether the bytes are in memory (false once moved to disk).
    var isInMemory: Bool { reserved >= 0 }

    /// Appends `count` bytes.
    func write(_ bytes: UnsafeRawPointer, count: Int) throws(ArchiveError) {
        if reserved >= 0 {
            let total = Self.inMemory.add(Int64(count), ordering: .relaxed).newValue
            reserved += Int64(count)
            if total > budget { try moveToDisk() }
        }
        var done = 0
        while done < count {
            let n = Glibc.write(fd, bytes + done, count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw .capture(.cannotOpen(path: "temporary file", reason: "write failed: \(errnoText())"))
            }
            done += n
        }
        size += Int64(count)
    }

    /// A new descriptor reading the file from its start (each reader gets its own).
    func reopen() throws(CaptureError) -> Int32 {
        // An unlinked file or a memfd can only be reopened through /proc; a dup would share the offset.
        var fd2 = open("/proc/self/fd/\(fd)", O_RDONLY | O_CLOEXEC)
        if fd2 < 0 {
            fd2 = dup(fd)
            if fd2 >= 0 { lseek(fd2, 0, SEEK_SET) }
        }
        guard fd2 >= 0 else { throw .cannotOpen(path: "temporary file", reason: errnoText()) }
        return fd2
    }

    /// Copies what is written so far to a disk file, which takes the memfd's place, and returns
    /// the bytes to the budget. Called only while writing, before any reader has reopened it.
    private func moveToDisk() throws(ArchiveError) {
        Self.inMemory.subtract(reserved, ordering: .relaxed)
        reserved = -1
        let disk = try Self.diskFile()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: Int64 = 0
        while offset < size {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                close(disk)
                throw .capture(.cannotOpen(path: "temporary file", reason: "read back failed: \(errnoText())"))
            }
            var done = 0
            while done < n {
                let w = buffer.withUnsafeBytes { Glibc.write(disk, $0.baseAddress! + done, n - done) }
                if w < 0, errno == EINTR { continue }
                guard w > 0 else {
                    close(disk)
                    throw .capture(.cannotOpen(path: "temporary file", reason: "write failed: \(errnoText())"))
                }
                done += w
            }
            offset += Int64(n)
        }
        close(fd)
        fd = disk
    }

    /// An anonymous disk file: created in a fresh private directory under `base` (`$TMPDIR`, else
    /// /tmp), then both unlinked.
    static func diskFile(in base: String = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp")
        throws(ArchiveError) -> Int32
    {
        var template = Array("\(base.isEmpty ? "/tmp" : base)/blecap-XXXXXX".utf8CString)
        let dir: String? = template.withUnsafeMutableBufferPointer { buf in
            mkdtemp(buf.baseAddress!).map { String(cString: $0) }
        }
        guard let dir else {
            throw .capture(.cannotOpen(path: base, reason: "cannot create a temporary directory: \(errnoText())"))
        }
        let path = dir + "/member"
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        let openErrno = errno
        if fd >= 0 { unlink(path) }
        rmdir(dir)
        guard fd >= 0 else {
            throw .capture(.cannotOpen(path: dir, reason: "cannot create a temporary file: \(errnoText(openErrno))"))
        }
        return fd
    }
}

func errnoText(_ e: Int32 = errno) -> String { String(cString: strerror(e)) }
