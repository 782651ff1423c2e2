import BLEBytes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A byte buffer that formats text and JSON without creating Strings, flushed to a file
/// descriptor in large writes. One is reused for a whole run, so printing a frame allocates
/// nothing. Public: it is the sink a library client hands to `TimelineWriter` (`fd: nil` keeps
/// the bytes in memory, `bytes`), and the one JSON escaper of the per-frame streams.
public final class OutputBuffer {
    /// The bytes live behind an unsafe pointer rather than in an Array property: appending to
    /// a class's Array property costs a dynamic exclusivity check per byte, which was most of
    /// the time `packets --format jsonl` took.
    package struct Storage {
        package var base: UnsafeMutablePointer<UInt8>
        package var count: Int
        package var capacity: Int
    }

    package let storage: UnsafeMutablePointer<Storage>
    /// Addresses of constant names found to need no JSON escaping (`jsonString(_: StaticString)`),
    /// direct-mapped by address: a slot holds the last name that hashed there.
    let plainNames: UnsafeMutablePointer<UInt>
    static let plainSlots = 64
    /// `digitPairTable`, read through the buffer: reading the static itself went through
    /// `swift_once` every time (not inlined on Linux; docs/performance.md).
    let digitPairs = OutputBuffer.digitPairTable
    package let fd: Int32?
    let flushThreshold: Int
    /// What messages call this output: "standard output", or the file `-o` named.
    public let name: String
    /// The temporary file beside `name` that this buffer writes (`file(_:)`), renamed to `name`
    /// by `commit()` once whole, removed when a write fails.
    package let partial: String?

    /// Writes to `fd` (nil: only collect, for tests and in-memory use). Every write is checked:
    /// a failed one ends the process (`fail`), so no command can lose output silently.
    public init(fd: Int32?, flushThreshold: Int = 1 << 16, name: String? = nil, partial: String? = nil) {
        self.fd = fd
        self.name = name ?? (fd == 1 ? "standard output" : "output")
        self.partial = partial
        self.flushThreshold = flushThreshold
        let capacity = flushThreshold + 4096
        plainNames = .allocate(capacity: Self.plainSlots)
        plainNames.initialize(repeating: 0, count: Self.plainSlots)
        storage = .allocate(capacity: 1)
        storage.initialize(to: Storage(base: .allocate(capacity: capacity), count: 0, capacity: capacity))
    }

    deinit {
        plainNames.deallocate()
        storage.pointee.base.deallocate()
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// Bytes buffered and not yet flushed.
    @inline(__always) public var count: Int { storage.pointee.count }

    /// The bytes written since `start` (a `count` read before writing them, with no flush
    /// in between), valid until the next write.
    func written(since start: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage.pointee.base + start, count: storage.pointee.count - start)
    }

    /// What was written and not flushed (tests, in-memory use).
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: storage.pointee.base, count: storage.pointee.count)) }

    @inline(__always) public func maybeFlush() {
        if storage.pointee.count >= flushThreshold { flush() }
    }

    public func flush() {
        let n = storage.pointee.count
        guard n > 0 else { return }
        if let fd {
            let base = storage.pointee.base
            var off = 0
            while off < n {
                let w = write(fd, base + off, n - off)
                if w > 0 {
                    off += w
                } else if w < 0 && errno == EINTR {
                    continue
                } else {
                    fail(w < 0 ? errno : ENOSPC)
                }
            }
        }
        if fd != nil { storage.pointee.count = 0 }
    }

    /// The exit status of a failed write: `BlecapExit.writeError` (docs/exit-codes.md), stated
    /// here because the buffer ends the process itself.
    static let writeErrorStatus: Int32 = 6

    /// A write failed. The reader went away (EPIPE, `blecap packets F | head -1`): end quietly
    /// as Unix tools do, killed by SIGPIPE (shells show 141). Anything else (ENOSPC, EIO): remove
    /// the partial file, say what could not be written, exit 6 (docs/exit-codes.md).
    package func fail(_ error: Int32) -> Never {
        if error == EPIPE {
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
            _exit(128 + SIGPIPE)
        }
        if let partial { unlink(partial) }
        writeStandardError("blecap: \(name): cannot write: \(String(cString: strerror(error)))\n")
        exit(Self.writeErrorStatus)
    }

    /// A buffer writing the file `path` names (`-o`). A new or regular file is written to a
    /// temporary file beside it and renamed over it by `commit()` when whole: a run that fails
    /// half-way leaves no partial file and the previous one as it was. Anything else
    /// (/dev/stdout, a FIFO, a device such as /dev/full) is written in place, as a user who
    /// named it expects. A file that cannot be created ends the process as a failed write does.
    public static func file(_ path: String, flushThreshold: Int = 1 << 16) -> OutputBuffer {
        var existing = stat()
        let exists = lstat(path, &existing) == 0
        let replace = !exists || existing.st_mode & S_IFMT == S_IFREG
        let directory = (path.lastIndex(of: "/").map { String(path[...$0]) }) ?? ""
        let base = path.split(separator: "/").last.map(String.init) ?? path
        let target = replace ? "\(directory).\(base).\(getpid()).partial" : path
        let fd =
            replace
            ? open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            : open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        let out = OutputBuffer(
            fd: fd >= 0 ? fd : nil, flushThreshold: flushThreshold, name: path, partial: replace ? target : nil)
        if fd < 0 {
            let e = errno
            out.partialFD = -1
            out.fail(e)
        }
        out.partialFD = fd
        return out
    }

    /// The descriptor `file(_:)` opened, closed by `commit()`.
    var partialFD: Int32 = -1

    /// Finishes a `file(_:)` output: flushes, closes, renames the temporary file over the name
    /// `-o` gave. Any failure ends the process as a failed write does.
    public func commit() {
        flush()
        guard partialFD >= 0 else { return }
        let fd = partialFD
        partialFD = -1
        if close(fd) != 0 { fail(errno) }
        if let partial, rename(partial, name) != 0 { fail(errno) }
    }

    /// Writes `bytes` whole to the file `path` names, as `file(_:)` and `commit()` do.
    public static func writeFile(_ path: String, _ bytes: [UInt8]) {
        let out = file(path)
        bytes.withUnsafeBytes { out.append($0) }
        out.commit()
    }

    /// Writes `text` whole to the file `path` names, as `file(_:)` and `commit()` do.
    public static func writeFile(_ path: String, text: String) {
        let out = file(path)
        out.string(text)
        out.commit()
    }

    /// What was written so far, as text (tests).
    public var text: String {
        String(decoding: UnsafeBufferPointer(start: storage.pointee.base, count: storage.pointee.count), as: UTF8.self)
    }

    /// Makes room for `n` more bytes (growing only when a single item is huge or the buffer
    /// only collects).
    @inline(__always) func reserve(_ n: Int) {
        if storage.pointee.count + n > storage.pointee.capacity { grow(n) }
    }

    @inline(never) func grow(_ n: Int) {
        let newCapacity = max(storage.pointee.capacity * 2, storage.pointee.count + n)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: storage.pointee.base, count: storage.pointee.count)
        storage.pointee.base.deallocate()
        storage.pointee.base = newBase
        storage.pointee.capacity = newCapacity
    }

    @inline(__always) package func append(_ b: UInt8) {
        reserve(1)
        let c = storage.pointee.count
        storage.pointee.base[c] = b
        storage.pointee.count = c + 1
    }

    /// Writes at most `n` bytes through `body` (which returns how many it wrote) after one
    /// capacity check, instead of one check and one count update per byte: the per-byte
    /// `append` of keys, addresses and hex made up most of `timeline --format jsonl`.
    @inline(__always) func fill(upTo n: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(n)
        let c = storage.pointee.count
        storage.pointee.count = c + body(storage.pointee.base + c)
    }

    /// Copies a constant (keys, type names). Up to 32 bytes as two or four word moves that
    /// may overlap (the first and last 4, 8 or 16 bytes), never reading or writing outside the
    /// `n` bytes: a call to `memcpy` for the 9–32-byte keys of `packets --format jsonl` cost
    /// more than the copy, and a byte loop ~5 instructions a byte (docs/performance.md).
    @inline(__always) static func copy(_ s: StaticString, to p: UnsafeMutablePointer<UInt8>) -> Int {
        s.withUTF8Buffer { src in
            let n = src.count
            guard let from = src.baseAddress else { return n }
            copySmall(UnsafeRawPointer(from), to: UnsafeMutableRawPointer(p), count: n)
            return n
        }
    }

    /// `n` bytes from `src` to `dst` (not overlapping), in word moves when `n` ≤ 32.
    @inline(__always) static func copySmall(
        _ src: UnsafeRawPointer, to dst: UnsafeMutableRawPointer, count n: Int
    ) {
        if n >= 8 {
            if n <= 16 {
                let a = src.loadUnaligned(as: UInt64.self)
                let b = src.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
                dst.storeBytes(of: a, as: UInt64.self)
                dst.storeBytes(of: b, toByteOffset: n &- 8, as: UInt64.self)
            } else if n <= 32 {
                let a = src.loadUnaligned(as: UInt64.self)
                let b = src.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                let c = src.loadUnaligned(fromByteOffset: n &- 16, as: UInt64.self)
                let d = src.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
                dst.storeBytes(of: a, as: UInt64.self)
                dst.storeBytes(of: b, toByteOffset: 8, as: UInt64.self)
                dst.storeBytes(of: c, toByteOffset: n &- 16, as: UInt64.self)
                dst.storeBytes(of: d, toByteOffset: n &- 8, as: UInt64.self)
            } else {
                dst.copyMemory(from: src, byteCount: n)
            }
        } else if n >= 4 {
            let a = src.loadUnaligned(as: UInt32.self)
            let b = src.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
            dst.storeBytes(of: a, as: UInt32.self)
            dst.storeBytes(of: b, toByteOffset: n &- 4, as: UInt32.self)
        } else if n > 0 {
            // 1–3 bytes: first, middle and last (the same byte more than once when shorter).
            dst.storeBytes(of: src.load(as: UInt8.self), as: UInt8.self)
            dst.storeBytes(of: src.load(fromByteOffset: n >> 1, as: UInt8.self), toByteOffset: n >> 1, as: UInt8.self)
            dst.storeBytes(of: src.load(fromByteOffset: n &- 1, as: UInt8.self), toByteOffset: n &- 1, as: UInt8.self)
        }
    }

    /// Writes `v`'s decimal digits ending just before `end`, two at a time from a table (a
    /// division per digit pair instead of per digit); returns how many it wrote.
    @inline(__always) func digits(_ v: UInt64, endingAt end: UnsafeMutablePointer<UInt8>) -> Int {
        var y = v
        var p = end
        let pairs = digitPairs
        while y >= 100 {
            let (q, r) = y.quotientAndRemainder(dividingBy: 100)
            p -= 2
            p[0] = pairs[Int(r) * 2]
            p[1] = pairs[Int(r) * 2 + 1]
            y = q
        }
        if y >= 10 {
            p -= 2
            p[0] = pairs[Int(y) * 2]
            p[1] = pairs[Int(y) * 2 + 1]
        } else {
            p -= 1
            p[0] = UInt8(truncatingIfNeeded: y) &+ 0x30
        }
        return end - p
    }

    /// "00" … "99", for `digits`: 200 bytes made once and never freed, read through a plain
    /// pointer (an Array's storage was retained and released around each read, see `upperNibble`).
    /// `nonisolated(unsafe)`: written only by its one-time initializer, read-only afterwards.
    nonisolated(unsafe) static let digitPairTable: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 200)
        for i in 0..<100 {
            table[2 * i] = UInt8(i / 10) + 0x30
            table[2 * i + 1] = UInt8(i % 10) + 0x30
        }
        return UnsafePointer(table)
    }()

    /// How many decimal digits `v` has.
    @inline(__always) static func digitCount(_ v: UInt64) -> Int {
        var n = 1
        var x = v
        while x >= 10_000 {
            x /= 10_000
            n += 4
        }
        if x >= 1000 { return n + 3 }
        if x >= 100 { return n + 2 }
        if x >= 10 { return n + 1 }
        return n
    }

    @inline(__always) package func append(_ p: UnsafeRawBufferPointer) {
        let n = p.count
        guard n > 0, let src = p.baseAddress else { return }
        reserve(n)
        let c = storage.pointee.count
        let dst = storage.pointee.base + c
        UnsafeMutableRawPointer(dst).copyMemory(from: src, byteCount: n)
        storage.pointee.count = c + n
    }

    // MARK: plain text

    @inline(__always) public func byte(_ b: UInt8) { append(b) }

    public func ascii(_ s: StaticString) {
        fill(upTo: s.utf8CodeUnitCount) { OutputBuffer.copy(s, to: $0) }
    }

    public func string(_ s: String) {
        var s = s
        s.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    public func cString(_ p: UnsafePointer<CChar>) {
        var q = p
        while q.pointee != 0 {
            append(UInt8(bitPattern: q.pointee))
            q += 1
        }
    }

    public func newline() { append(0x0A) }

    public func spaces(_ n: Int) {
        for _ in 0..<max(n, 0) { append(0x20) }
    }

    public func decimal(_ v: Int) { decimal(Int64(v)) }

    public func decimal(_ v: Int64) {
        if v < 0 {
            append(UInt8(ascii: "-"))
            decimal(UInt64(v.magnitude))
        } else {
            decimal(UInt64(v))
        }
    }

    public func decimal(_ v: UInt64) {
        let n = Self.digitCount(v)
        fill(upTo: n) { p in self.digits(v, endingAt: p + n) }
    }

    /// Fixed-width decimal with leading zeros.
    public func decimal(_ v: UInt64, width: Int) {
        let n = max(width, Self.digitCount(v))
        fill(upTo: n) { p in
            let written = self.digits(v, endingAt: p + n)
            for i in 0..<(n - written) { p[i] = 0x30 }
            return n
        }
    }

    /// "0x" + `digits` uppercase hex digits.
    public func hex(_ v: UInt64, digits: Int) {
        append(0x30)
        append(UInt8(ascii: "x"))
        hexDigits(v, digits: digits)
    }

    /// The ASCII hex digit of a nibble, computed: going through `Hex`'s digit tables retained
    /// and released a global array for every digit (the peer address alone is 12 per event).
    @inline(__always) static func upperNibble(_ n: UInt8) -> UInt8 { n < 10 ? 0x30 &+ n : 0x37 &+ n }
    @inline(__always) static func lowerNibble(_ n: UInt8) -> UInt8 { n < 10 ? 0x30 &+ n : 0x57 &+ n }

    public func hexDigits(_ v: UInt64, digits: Int) {
        var i = digits
        while i > 0 {
            i -= 1
            append(Self.upperNibble(UInt8(truncatingIfNeeded: v >> UInt64(4 * i)) & 0xF))
        }
    }

    /// Lowercase hex of every byte, no separators (tshark's value style).
    /// `view`'s octets last first: a little-endian number written most significant digit first.
    public func hexBytesReversed(_ view: ByteView) {
        let n = view.count
        fill(upTo: 2 * n) { p in
            for i in 0..<n {
                let b = view.base[n - 1 - i]
                p[2 * i] = Self.lowerNibble(b >> 4)
                p[2 * i + 1] = Self.lowerNibble(b & 0xF)
            }
            return 2 * n
        }
    }

    public func hexBytes(_ view: ByteView) {
        let n = view.count
        fill(upTo: 2 * n) { p in
            for i in 0..<n {
                let b = view.base[i]
                p[2 * i] = Self.lowerNibble(b >> 4)
                p[2 * i + 1] = Self.lowerNibble(b & 0xF)
            }
            return 2 * n
        }
    }

    /// `hexBytes` between JSON quotes, in one go.
    public func jsonHexString(_ view: ByteView) {
        let n = view.count
        fill(upTo: 2 * n + 2) { p in
            p[0] = 0x22
            for i in 0..<n {
                let b = view.base[i]
                p[1 + 2 * i] = Self.lowerNibble(b >> 4)
                p[2 + 2 * i] = Self.lowerNibble(b & 0xF)
            }
            p[2 * n + 1] = 0x22
            return 2 * n + 2
        }
    }

    /// Every octet's two uppercase hex digits, octet `b` at `2 * b`: an address (written on every
    /// `packets` and `timeline` JSONL line that has a peer) is six two-byte copies from here,
    /// not twelve digit choices (docs/performance.md, "Spill storage across a module").
    @usableFromInline static let upperHexPairs: StaticString = """
        000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F\
        303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F\
        606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F\
        909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBF\
        C0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEF\
        F0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF
        """

    public func address(_ a: BDAddr) {
        fill(upTo: 17) { p in
            Self.address(a, to: p)
            return 17
        }
    }

    /// `a` as "AA:BB:CC:DD:EE:FF", its 17 bytes written at `p`.
    @inline(__always) package static func address(_ a: BDAddr, to p: UnsafeMutablePointer<UInt8>) {
        let pairs = UnsafeRawPointer(Self.upperHexPairs.utf8Start)
        let out = UnsafeMutableRawPointer(p)
        for i in 0..<6 {
            let digits = pairs.loadUnaligned(fromByteOffset: 2 * Int(a.byte(i)), as: UInt16.self)
            out.storeBytes(of: digits, toByteOffset: 3 * i, as: UInt16.self)
            if i < 5 { p[3 * i + 2] = UInt8(ascii: ":") }
        }
    }

    /// Text from a packet, with control bytes and invalid UTF-8 escaped so one frame is always
    /// one line.
    public func sanitizedText(_ view: ByteView) {
        escaped(view, json: false)
    }

    // MARK: JSON

    /// A JSON string literal (with quotes) of UTF-8 text from a packet; invalid UTF-8 bytes
    /// become U+FFFD so the output always parses.
    public func jsonString(_ view: ByteView) {
        append(0x22)
        escaped(view, json: true)
        append(0x22)
    }

    public func jsonString(_ s: StaticString) {
        // A name checked before is copied without looking at its bytes again: the same few
        // names (event types, directions, attribute roles) are written for every event, and
        // the byte-by-byte check was 8 % of `timeline --format jsonl`.
        if s.hasPointerRepresentation {
            let address = UInt(bitPattern: s.utf8Start)
            let slot = Int(truncatingIfNeeded: (address >> 3) & UInt(Self.plainSlots - 1))
            if plainNames[slot] == address {
                fill(upTo: s.utf8CodeUnitCount + 2) { p in
                    p[0] = 0x22
                    let n = OutputBuffer.copy(s, to: p + 1)
                    p[n + 1] = 0x22
                    return n + 2
                }
                return
            }
            if Self.isPlainJSON(s) { plainNames[slot] = address }
        }
        s.withUTF8Buffer { buf in
            // Table names almost never need escaping: check, then copy in one go.
            if Self.isPlainJSON(s) {
                fill(upTo: buf.count + 2) { p in
                    p[0] = 0x22
                    let n = OutputBuffer.copy(s, to: p + 1)
                    p[n + 1] = 0x22
                    return n + 2
                }
            } else {
                append(0x22)
                escaped(ByteView(UnsafeRawBufferPointer(buf)), json: true)
                append(0x22)
            }
        }
    }

    /// Whether `s` can go between JSON quotes as it is (no quote, backslash, control or
    /// non-ASCII byte).
    static func isPlainJSON(_ s: StaticString) -> Bool {
        s.withUTF8Buffer { buf in
            for b in buf where b < 0x20 || b == 0x22 || b == 0x5C || b >= 0x7F { return false }
            return true
        }
    }

    public func jsonString(_ s: String) {
        var s = s
        append(0x22)
        s.withUTF8 { escaped(ByteView(UnsafeRawBufferPointer($0)), json: true) }
        append(0x22)
    }

    /// `"key":` — keys are fixed ASCII names, so they need no escaping.
    @inline(__always) public func jsonKey(_ k: StaticString) {
        fill(upTo: k.utf8CodeUnitCount + 3) { p in
            p[0] = 0x22
            let n = OutputBuffer.copy(k, to: p + 1)
            p[n + 1] = 0x22
            p[n + 2] = UInt8(ascii: ":")
            return n + 3
        }
    }

    /// `,"key":` — a member after the first.
    @inline(__always) public func jsonNextKey(_ k: StaticString) {
        fill(upTo: k.utf8CodeUnitCount + 4) { p in
            p[0] = UInt8(ascii: ",")
            p[1] = 0x22
            let n = OutputBuffer.copy(k, to: p + 2)
            p[n + 2] = 0x22
            p[n + 3] = UInt8(ascii: ":")
            return n + 4
        }
    }

    /// `,"key":value` when there is a value; nothing when there is none (JSON outputs leave an
    /// unknown member out rather than write null).
    @inline(__always) public func jsonOptional(_ k: StaticString, _ v: Int?) {
        guard let v else { return }
        jsonNextKey(k)
        decimal(v)
    }

    /// `,"key":"AA:BB:CC:DD:EE:FF"` when there is an address; nothing when there is none.
    @inline(__always) public func jsonOptional(_ k: StaticString, address a: BDAddr?) {
        guard let a else { return }
        jsonNextKey(k)
        append(0x22)
        address(a)
        append(0x22)
    }

    private func escaped(_ view: ByteView, json: Bool) {
        var i = 0
        let n = view.count
        let base = view.base
        while i < n {
            let b = base[i]
            if b >= 0x20 && b < 0x7F {
                if json && (b == 0x22 || b == 0x5C) { append(0x5C) }
                append(b)
                i += 1
                continue
            }
            if b < 0x80 {
                // Control character (or DEL).
                switch b {
                case 0x0A:
                    append(0x5C)
                    append(UInt8(ascii: "n"))
                case 0x0D:
                    append(0x5C)
                    append(UInt8(ascii: "r"))
                case 0x09:
                    append(0x5C)
                    append(UInt8(ascii: "t"))
                default:
                    if json {
                        ascii("\\u00")
                        hexDigits(UInt64(b), digits: 2)
                    } else {
                        ascii("\\x")
                        hexDigits(UInt64(b), digits: 2)
                    }
                }
                i += 1
                continue
            }
            let len = utf8SequenceLength(base, i, n)
            if len > 0 {
                for k in 0..<len { append(base[i + k]) }
                i += len
            } else {
                if json {
                    append(0xEF)
                    append(0xBF)
                    append(0xBD)  // U+FFFD
                } else {
                    ascii("\\x")
                    hexDigits(UInt64(b), digits: 2)
                }
                i += 1
            }
        }
    }

    /// Length of a valid UTF-8 sequence starting at `i`, or 0 if it is not valid.
    private func utf8SequenceLength(_ p: UnsafeRawBufferPointer, _ i: Int, _ n: Int) -> Int {
        let b = p[i]
        let len: Int
        var minScalar: UInt32
        var scalar: UInt32
        switch b {
        case 0xC2...0xDF:
            len = 2
            scalar = UInt32(b & 0x1F)
            minScalar = 0x80
        case 0xE0...0xEF:
            len = 3
            scalar = UInt32(b & 0x0F)
            minScalar = 0x800
        case 0xF0...0xF4:
            len = 4
            scalar = UInt32(b & 0x07)
            minScalar = 0x10000
        default: return 0
        }
        guard i + len <= n else { return 0 }
        for k in 1..<len {
            let c = p[i + k]
            guard c & 0xC0 == 0x80 else { return 0 }
            scalar = scalar << 6 | UInt32(c & 0x3F)
        }
        if scalar < minScalar || scalar > 0x10FFFF || (0xD800...0xDFFF).contains(scalar) { return 0 }
        return len
    }

    // MARK: time

    /// The last second formatted by `rfc3339` and its 20-byte text "YYYY-MM-DDTHH:MM:SS.":
    /// consecutive frames mostly share the second, so only the microseconds are new.
    /// Unchecked: read on every event, and a checked access to a class's `var` is a
    /// `swift_beginAccess` call (docs/performance.md). A buffer is used from
    /// one thread and no access to these spans a call.
    @exclusivity(unchecked) private var cachedSecond: Int64 = .min
    @exclusivity(unchecked) private var cachedPrefix: (UInt64, UInt64, UInt64) = (0, 0, 0)

    /// RFC 3339 UTC with microseconds: "2026-11-22T13:07:01.123456Z".
    public func rfc3339(microseconds t: Int64) {
        var (secs, us) = t.quotientAndRemainder(dividingBy: 1_000_000)
        if us < 0 {
            us += 1_000_000
            secs -= 1
        }
        if secs != cachedSecond {
            let (days0, rem0) = secs.quotientAndRemainder(dividingBy: 86_400)
            var days = days0
            var rem = rem0
            if rem < 0 {
                rem += 86_400
                days -= 1
            }
            let (y, m, d) = OutputBuffer.civil(fromDays: days)
            if y < 0 || y > 9999 {
                // Out of RFC 3339's range: keep the raw number so nothing is lost.
                decimal(t)
                return
            }
            let start = count
            decimal(UInt64(y), width: 4)
            append(UInt8(ascii: "-"))
            decimal(UInt64(m), width: 2)
            append(UInt8(ascii: "-"))
            decimal(UInt64(d), width: 2)
            append(UInt8(ascii: "T"))
            decimal(UInt64(rem / 3600), width: 2)
            append(UInt8(ascii: ":"))
            decimal(UInt64(rem % 3600 / 60), width: 2)
            append(UInt8(ascii: ":"))
            decimal(UInt64(rem % 60), width: 2)
            append(UInt8(ascii: "."))
            withUnsafeMutableBytes(of: &cachedPrefix) { dst in
                dst.copyMemory(from: UnsafeRawBufferPointer(start: storage.pointee.base + start, count: 20))
            }
            cachedSecond = secs
        } else {
            // The cached second, the microseconds and the Z in one go (the same bytes the
            // three separate appends wrote; most events share the previous one's second).
            let prefix = cachedPrefix
            fill(upTo: 27) { p in
                withUnsafeBytes(of: prefix) {
                    UnsafeMutableRawPointer(p).copyMemory(from: $0.baseAddress!, byteCount: 20)
                }
                self.sixDigits(UInt64(us), at: p + 20)
                p[26] = UInt8(ascii: "Z")
                return 27
            }
            return
        }
        decimal(UInt64(us), width: 6)
        append(UInt8(ascii: "Z"))
    }

    /// `{"frame":F,"time":"T","elapsed":E` (E seconds with six decimals), how every timeline
    /// JSONL line starts: the same bytes as `ascii`, `decimal`, `rfc3339` and `seconds` one
    /// after the other, written in one reservation when T falls in the second `rfc3339` wrote
    /// last (most lines of a busy capture).
    public func timelineLineStart(frame: Int, microseconds t: Int64, elapsed: Int64) {
        var (secs, us) = t.quotientAndRemainder(dividingBy: 1_000_000)
        if us < 0 {
            us += 1_000_000
            secs -= 1
        }
        guard secs == cachedSecond, frame >= 0 else {
            ascii("{\"frame\":")
            decimal(frame)
            ascii(",\"time\":\"")
            rfc3339(microseconds: t)
            ascii("\",\"elapsed\":")
            seconds(microseconds: elapsed)
            return
        }
        let f = UInt64(frame)
        let frameDigits = Self.digitCount(f)
        let m = elapsed.magnitude
        let whole = m / 1_000_000
        let sign = elapsed < 0 ? 1 : 0
        let elapsedLength = sign + Self.digitCount(whole) + 7
        let prefix = cachedPrefix
        let n = 9 + frameDigits + 9 + 27 + 12 + elapsedLength
        fill(upTo: n) { p in
            var q = p + OutputBuffer.copy("{\"frame\":", to: p)
            _ = self.digits(f, endingAt: q + frameDigits)
            q += frameDigits
            q += OutputBuffer.copy(",\"time\":\"", to: q)
            withUnsafeBytes(of: prefix) {
                UnsafeMutableRawPointer(q).copyMemory(from: $0.baseAddress!, byteCount: 20)
            }
            self.sixDigits(UInt64(us), at: q + 20)
            q[26] = UInt8(ascii: "Z")
            q += 27
            q += OutputBuffer.copy("\",\"elapsed\":", to: q)
            if sign == 1 { q[0] = UInt8(ascii: "-") }
            _ = self.digits(whole, endingAt: q + elapsedLength - 7)
            q[elapsedLength - 7] = UInt8(ascii: ".")
            self.sixDigits(m % 1_000_000, at: q + elapsedLength - 6)
            return n
        }
    }

    /// `v` (below 1,000,000) as six digits with leading zeros at `p`.
    @inline(__always) func sixDigits(_ v: UInt64, at p: UnsafeMutablePointer<UInt8>) {
        let pairs = digitPairs
        let (hi, lo) = v.quotientAndRemainder(dividingBy: 10_000)
        let (mid, low) = lo.quotientAndRemainder(dividingBy: 100)
        p[0] = pairs[Int(hi) * 2]
        p[1] = pairs[Int(hi) * 2 + 1]
        p[2] = pairs[Int(mid) * 2]
        p[3] = pairs[Int(mid) * 2 + 1]
        p[4] = pairs[Int(low) * 2]
        p[5] = pairs[Int(low) * 2 + 1]
    }

    /// Seconds with 6 decimals ("12.345678"), for relative times, written in one go.
    public func seconds(microseconds t: Int64) {
        let m = t.magnitude
        let whole = m / 1_000_000
        let sign = t < 0 ? 1 : 0
        let n = sign + Self.digitCount(whole) + 7
        fill(upTo: n) { p in
            if sign == 1 { p[0] = UInt8(ascii: "-") }
            _ = self.digits(whole, endingAt: p + n - 7)
            p[n - 7] = UInt8(ascii: ".")
            self.sixDigits(m % 1_000_000, at: p + n - 6)
            return n
        }
    }

    /// Days since 1970-01-01 → proleptic Gregorian (year, month, day) (H. Hinnant's algorithm).
    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
