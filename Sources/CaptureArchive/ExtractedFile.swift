import CaptureIO

#if canImport(Glibc)
    import Glibc
#endif

/// A decompressed member, held in an anonymous temporary file.
///
/// The file is created inside a fresh private directory (mode 0700) under `$TMPDIR`, and both
/// are unlinked at once: nothing named by the archive ever reaches the file system, nothing is
/// left behind if blecap is killed, and the space is returned when the descriptor closes.
final class ExtractedFile: @unchecked Sendable {
    let fd: Int32
    private(set) var size: Int64 = 0

    init() throws(ArchiveError) {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
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
        self.fd = fd
    }

    deinit { close(fd) }

    /// Appends `count` bytes.
    func write(_ bytes: UnsafeRawPointer, count: Int) throws(ArchiveError) {
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
        // An unlinked file can only be reopened through /proc; a dup would share the offset.
        var fd2 = open("/proc/self/fd/\(fd)", O_RDONLY | O_CLOEXEC)
        if fd2 < 0 {
            fd2 = dup(fd)
            if fd2 >= 0 { lseek(fd2, 0, SEEK_SET) }
        }
        guard fd2 >= 0 else { throw .cannotOpen(path: "temporary file", reason: errnoText()) }
        return fd2
    }
}

func errnoText(_ e: Int32 = errno) -> String { String(cString: strerror(e)) }
