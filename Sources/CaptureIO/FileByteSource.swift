import BLEBytes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Streams a file descriptor through one fixed buffer: readers ask for the next `n` bytes,
/// look at them in place, and consume them. Memory stays at `capacity` whatever the file size,
/// and no allocation happens per record.
public final class FileByteSource {
    public let fd: Int32
    let ownsFD: Bool
    let buffer: UnsafeMutableRawBufferPointer
    /// The unconsumed bytes are `buffer[start..<end]`; `offset` is the file offset of
    /// `buffer[start]`. Unchecked: `peek` and `consume` touch them for every record, and each
    /// checked access to a class's `var` is a `swift_beginAccess` call (docs/performance.md).
    /// A source is read from one thread, and no access spans a call
    /// that could reach the source again (`read(2)` and the monitor framer get a pointer).
    @exclusivity(unchecked) var start = 0
    @exclusivity(unchecked) var end = 0
    @exclusivity(unchecked) public private(set) var offset: Int64 = 0
    public private(set) var reachedEOF = false
    /// errno of a failed read(2), if any; the source behaves as if the file ended there.
    public private(set) var readErrno: Int32? = nil
    /// Follow a file that is still being written (`tail -f`): at its current end, wait
    /// `followInterval` and read again instead of ending. A reader waiting for the rest of a
    /// record the writer has half written simply waits with it.
    public var follow = false
    public var followInterval: Duration = .milliseconds(100)
    /// Asked whenever a read is interrupted by a signal or comes back empty while following:
    /// true ends the source there (Ctrl-C in `blecap watch`).
    public var shouldStop: (() -> Bool)? = nil

    /// Set for a socket of HCI monitor datagrams: each read turns one datagram into one btsnoop
    /// record (after the file header, handed out first), so the bytes read like `btmon -w`'s file.
    var monitor: MonitorDatagramFramer? = nil

    /// Largest `peek` the source can satisfy.
    public var capacity: Int { buffer.count }

    public init(fd: Int32, ownsFD: Bool, capacity: Int = 2 * maximumRecordLength + 65536) {
        self.fd = fd
        self.ownsFD = ownsFD
        buffer = .allocate(byteCount: capacity, alignment: 16)
    }

    /// Reads HCI monitor datagrams from `fd` (the kernel's monitor channel, or any datagram socket
    /// that carries them) as a btsnoop 2001 stream; `index` keeps one controller's packets.
    public convenience init(monitorDatagramsFrom fd: Int32, ownsFD: Bool, index: UInt16? = nil) {
        self.init(fd: fd, ownsFD: ownsFD)
        monitor = MonitorDatagramFramer(index: index)
        let header = MonitorDatagramFramer.fileHeader
        header.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        end = header.count
    }

    /// Opens `path` for reading ("-" is standard input).
    public convenience init(path: String) throws(CaptureError) {
        if path == "-" {
            self.init(fd: 0, ownsFD: false)
            return
        }
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw .cannotOpen(path: path, reason: "is a directory")
        }
        self.init(fd: fd, ownsFD: true)
    }

    deinit {
        buffer.deallocate()
        if ownsFD { close(fd) }
    }

    /// Bytes currently buffered and not consumed.
    public var buffered: Int { end - start }

    /// The next `count` bytes without consuming them, or nil if the file ends (or a read fails)
    /// first. `count` must not exceed `capacity`. The view is valid until the next call to
    /// `peek`, `peekAvailable` or `consume`.
    @inline(__always) public func peek(_ count: Int) -> ByteView? {
        // Bytes already buffered (nearly every record) are handed out inline; reading more is
        // the separate slow path (as one call it cost twice per record; docs/performance.md).
        guard count >= 0, end - start >= count, let base = buffer.baseAddress else { return peekReading(count) }
        return ByteView(UnsafeRawBufferPointer(start: base + start, count: count))
    }

    @inline(never) func peekReading(_ count: Int) -> ByteView? {
        precondition(count >= 0 && count <= buffer.count, "peek larger than the source buffer")
        if end - start < count { fill(atLeast: count) }
        guard end - start >= count else { return nil }
        return ByteView(UnsafeRawBufferPointer(rebasing: buffer[start..<(start + count)]))
    }

    /// Up to `count` next bytes (fewer only at the end of the file).
    public func peekAvailable(upTo count: Int) -> ByteView {
        let want = min(count, buffer.count)
        if end - start < want { fill(atLeast: want) }
        let n = min(want, end - start)
        return ByteView(UnsafeRawBufferPointer(rebasing: buffer[start..<(start + n)]))
    }

    /// Drops `count` bytes that were peeked.
    public func consume(_ count: Int) {
        precondition(count >= 0 && count <= end - start)
        start += count
        offset += Int64(count)
    }

    /// Whether no byte is left (reads ahead to find out).
    public var isAtEnd: Bool {
        if end > start { return false }
        fill(atLeast: 1)
        return end == start
    }

    private func fill(atLeast count: Int) {
        if start > 0 && buffer.count - start < count {
            // Compact: move the unconsumed tail to the front so `count` bytes fit.
            let n = end - start
            if n > 0, let base = buffer.baseAddress {
                memmove(base, base + start, n)
            }
            start = 0
            end = n
        }
        while end - start < count && !reachedEOF {
            if let monitor {
                // Makes its own room: a record fills the buffer to its very end only when it is
                // the largest a datagram can be, and the next one compacts first.
                fillRecord(from: monitor)
                continue
            }
            let room = buffer.count - end
            if room == 0 { break }
            let r = read(fd, buffer.baseAddress! + end, room)
            if r > 0 {
                end += r
            } else if r == 0 {
                if follow, shouldStop?() != true {
                    let ns = followInterval.components.attoseconds / 1_000_000_000
                    var t = timespec(tv_sec: Int(followInterval.components.seconds), tv_nsec: Int(ns))
                    nanosleep(&t, nil)
                    continue
                }
                reachedEOF = true
            } else if errno == EINTR {
                if shouldStop?() == true { reachedEOF = true }
            } else {
                readErrno = errno
                reachedEOF = true
            }
        }
    }

    /// One monitor datagram as one btsnoop record at `end`, after making room for the largest.
    private func fillRecord(from monitor: MonitorDatagramFramer) {
        if buffer.count - end < MonitorDatagramFramer.largestRecord {
            let n = end - start
            if n > 0, let base = buffer.baseAddress { memmove(base, base + start, n) }
            start = 0
            end = n
            // Only a peek as large as the whole buffer could leave no room; none is.
            guard buffer.count - end >= MonitorDatagramFramer.largestRecord else {
                reachedEOF = true
                return
            }
        }
        switch monitor.receive(from: fd, into: buffer.baseAddress! + end) {
        case .record(let n): end += n
        case .skipped: break
        case .interrupted: if shouldStop?() == true { reachedEOF = true }
        case .ended: reachedEOF = true
        case .failed(let e):
            readErrno = e
            reachedEOF = true
        }
    }
}
