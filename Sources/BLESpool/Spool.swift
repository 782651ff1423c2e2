import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Spill storage: where a reader of a capture keeps what grows with the capture once it is more
/// than a little. Replay (BLEReplay) keeps a long connection's captured exchange and its
/// notification stream there, and the runs of the external sorts behind the max-speed clock
/// and the export. Fixed-size blocks in one temporary file, unlinked as soon as it is made
/// (nothing is left behind, whatever happens to the process), read back through a small cache.
///
/// Why a file and not a second read of the capture: replaying one connection needs its exchange
/// at several places at once (the client's next step, each subscription's next notification,
/// the comparison), an unbounded distance apart once a fault delays one side, and its server
/// model's answers come from the whole connection; reading the capture again for each would
/// decode it several times, and standard input cannot be read again at all. One decode, its
/// result spilled in blocks, bounds memory by the blocks in use instead.
///
/// Blocks are reference-counted by the `SpooledArray`s that hold them and reused once free, so
/// the file holds what is alive (a streamed replay: the connections open at once), not the
/// capture. When no temporary file can be made or written, blocks stay in memory: the replay
/// is the same, only not bounded.
public final class Spool: Sendable {
    /// The spool every user shares.
    public static let shared = Spool()

    /// Bytes a `SpooledArray` keeps in memory before it spills: a connection of up to about
    /// 40,000 PDUs stays in memory whole (a spooled read costs a lock and a block lookup), and
    /// each connection open at once holds at most this much per array. Bound lower to make a
    /// small connection spill (tests).
    @TaskLocal public static var arrayMemoryLimit = 1 << 20

    /// Bytes per block.
    public let blockSize: Int
    /// Blocks kept in memory after they were read or written.
    public let cacheBlocks: Int
    private let state: Mutex<State>

    private struct State {
        var fd: Int32 = -1
        /// No temporary file could be made (or written): blocks live in `memory`.
        var inMemory = false
        var memory: [Int: [UInt8]] = [:]
        var allocated = 0
        var free: [Int] = []
        var references: [UInt32] = []
        /// Cached blocks by id (an array, not a dictionary: a lookup per element read must
        /// not hash), `cached` of them.
        var cache: [[UInt8]?] = []
        var cached = 0
        /// Cached block ids, oldest first from `cacheHead` (evicted in that order).
        var cacheOrder: [Int] = []
        var cacheHead = 0
    }

    public init(blockSize: Int = 64 << 10, cacheBlocks: Int = 32) {
        precondition(blockSize > 0 && cacheBlocks > 0)
        self.blockSize = blockSize
        self.cacheBlocks = cacheBlocks
        state = Mutex(State())
    }

    deinit {
        state.withLock { if $0.fd >= 0 { close($0.fd) } }
    }

    /// Stores `bytes` (at most `blockSize`) in a new block referenced once.
    public func write(_ bytes: [UInt8]) -> Int {
        precondition(bytes.count <= blockSize)
        return state.withLock { s in
            let id: Int
            if let f = s.free.popLast() {
                id = f
                s.references[id] = 1
            } else {
                id = s.allocated
                s.allocated += 1
                s.references.append(1)
                s.cache.append(nil)
            }
            if !s.inMemory, s.fd < 0 { s.fd = Self.makeFile() }
            if s.fd < 0 || !Self.write(bytes, to: s.fd, at: id * blockSize) {
                s.inMemory = true
                s.memory[id] = bytes
                return id
            }
            // Just written: it is read back soon (a sealed tail, the newest run's block).
            Self.cache(id, bytes, in: &s, capacity: cacheBlocks)
            return id
        }
    }

    /// The bytes of block `id`, as written.
    public func block(_ id: Int) -> [UInt8] {
        state.withLock { s in
            if let b = s.cache[id] { return b }
            if let b = s.memory[id] { return b }
            let b = Self.read(from: s.fd, at: id * blockSize, count: blockSize)
            Self.cache(id, b, in: &s, capacity: cacheBlocks)
            return b
        }
    }

    public func retain(_ ids: [Int]) {
        state.withLock { s in for id in ids { s.references[id] += 1 } }
    }

    public func release(_ ids: [Int]) {
        state.withLock { s in
            for id in ids {
                s.references[id] -= 1
                guard s.references[id] == 0 else { continue }
                s.free.append(id)
                s.memory[id] = nil
                if s.cache[id] != nil {
                    s.cache[id] = nil
                    s.cached -= 1
                }
            }
        }
    }

    /// Blocks in use (tests: every array that held them has released them).
    public var blocksInUse: Int { state.withLock { $0.allocated - $0.free.count } }

    private static func cache(_ id: Int, _ bytes: [UInt8], in s: inout State, capacity: Int) {
        if s.cache[id] != nil {
            s.cache[id] = bytes
            return
        }
        s.cache[id] = bytes
        s.cached += 1
        s.cacheOrder.append(id)
        // Oldest first; stale ids (freed blocks) are skipped.
        while s.cached > capacity, s.cacheHead < s.cacheOrder.count {
            let old = s.cacheOrder[s.cacheHead]
            s.cacheHead += 1
            if old != id, s.cache[old] != nil {
                s.cache[old] = nil
                s.cached -= 1
            }
        }
        if s.cacheHead > 4 * capacity {
            s.cacheOrder.removeFirst(s.cacheHead)
            s.cacheHead = 0
        }
    }

    /// A new temporary file, already unlinked; -1 when none can be made.
    private static func makeFile() -> Int32 {
        var template = Array((FileManager.default.temporaryDirectory.path + "/blecap-spool.XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return -1 }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return fd
    }

    private static func write(_ bytes: [UInt8], to fd: Int32, at offset: Int) -> Bool {
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(offset + done))
                if n <= 0 { return false }
                done += n
            }
            return true
        }
    }

    /// Reads a block back; what the file cannot give (it cannot fail on a block just written
    /// short of an I/O error) reads as zeros rather than trapping.
    private static func read(from fd: Int32, at offset: Int, count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count {
                let n = pread(fd, buffer.baseAddress! + done, count - done, off_t(offset + done))
                if n <= 0 { break }
                done += n
            }
            for i in done..<count { buffer[i] = 0 }
            initialized = count
        }
    }
}
