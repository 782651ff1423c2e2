import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where replay keeps what grows with a capture once it is more than a little: a long
/// connection's captured exchange and its notification stream, the runs of the external sorts
/// behind the max-speed clock and the export. Fixed-size blocks in one temporary file, unlinked
/// as soon as it is made (nothing is left behind, whatever happens to the process), read back
/// through a small cache.
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
final class ReplaySpool: Sendable {
    /// The spool every replay shares.
    static let shared = ReplaySpool()

    /// Bytes a `SpooledArray` keeps in memory before it spills: a connection of up to about
    /// 40,000 PDUs stays in memory whole (a spooled read costs a lock and a block lookup), and
    /// each connection open at once holds at most this much per array. Bound lower to make a
    /// small connection spill (tests).
    @TaskLocal static var arrayMemoryLimit = 1 << 20

    /// Bytes per block.
    let blockSize: Int
    /// Blocks kept in memory after they were read or written.
    let cacheBlocks: Int
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

    init(blockSize: Int = 64 << 10, cacheBlocks: Int = 32) {
        precondition(blockSize > 0 && cacheBlocks > 0)
        self.blockSize = blockSize
        self.cacheBlocks = cacheBlocks
        state = Mutex(State())
    }

    deinit {
        state.withLock { if $0.fd >= 0 { close($0.fd) } }
    }

    /// Stores `bytes` (at most `blockSize`) in a new block referenced once.
    func write(_ bytes: [UInt8]) -> Int {
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
    func block(_ id: Int) -> [UInt8] {
        state.withLock { s in
            if let b = s.cache[id] { return b }
            if let b = s.memory[id] { return b }
            let b = Self.read(from: s.fd, at: id * blockSize, count: blockSize)
            Self.cache(id, b, in: &s, capacity: cacheBlocks)
            return b
        }
    }

    func retain(_ ids: [Int]) {
        state.withLock { s in for id in ids { s.references[id] += 1 } }
    }

    func release(_ ids: [Int]) {
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
    var blocksInUse: Int { state.withLock { $0.allocated - $0.free.count } }

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
        var template = Array((FileManager.default.temporaryDirectory.path + "/blecap-replay-spool.XXXXXX").utf8CString)
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

/// Spilled blocks of one `SpooledArray`, handed back to the spool when no array holds them.
final class SpoolBlocks: @unchecked Sendable {
    // Mutated only through a uniquely referenced instance (`SpooledArray`'s copy on write).
    var ids: [Int] = []
    let spool: ReplaySpool

    init(_ spool: ReplaySpool, ids: [Int] = []) {
        self.spool = spool
        self.ids = ids
    }

    func copy() -> SpoolBlocks {
        spool.retain(ids)
        return SpoolBlocks(spool, ids: ids)
    }

    deinit { spool.release(ids) }
}

/// An append-only array of plain values that keeps its newest elements in memory (at most
/// `memoryLimit` bytes of them) and the rest in spool blocks: a value type like `Array`
/// (copies share spilled blocks, which never change), with element access through the spool's
/// cache for spilled elements.
struct SpooledArray<Element: BitwiseCopyable & Sendable>: Sendable {
    private var tail: [Element] = []
    /// Its spool and spilled blocks (one reference, not two: arrays are copied often).
    private var spilled: SpoolBlocks
    /// Elements in `spilled` blocks; every block but a sealed last one is full.
    private var spilledCount = 0
    /// The last block holds fewer than `perBlock` elements (`seal()`).
    private var lastBlockPartial = false
    var spool: ReplaySpool { spilled.spool }
    /// Elements per block, and per in-memory tail before it spills.
    let perBlock: Int
    let tailLimit: Int

    /// `memoryLimit`: bytes of elements kept in memory before they spill (rounded to blocks).
    init(spool: ReplaySpool = .shared, memoryLimit: Int = ReplaySpool.arrayMemoryLimit) {
        spilled = SpoolBlocks(spool)
        perBlock = Swift.max(1, spool.blockSize / MemoryLayout<Element>.stride)
        tailLimit = perBlock * Swift.max(1, memoryLimit / spool.blockSize)
    }

    var count: Int { spilledCount + tail.count }
    var isEmpty: Bool { count == 0 }

    subscript(i: Int) -> Element {
        precondition(i >= 0 && i < count, "SpooledArray index out of range")
        if i >= spilledCount { return tail[i - spilledCount] }
        let block = spool.block(spilled.ids[i / perBlock])
        return block.withUnsafeBytes {
            $0.loadUnaligned(fromByteOffset: (i % perBlock) * MemoryLayout<Element>.stride, as: Element.self)
        }
    }

    var last: Element? { isEmpty ? nil : self[count - 1] }

    /// Element `i`'s block and byte offset in it, nil while it is in memory.
    func location(of i: Int) -> (block: Int, offset: Int)? {
        i < spilledCount ? (i / perBlock, (i % perBlock) * MemoryLayout<Element>.stride) : nil
    }

    /// The spool block id of spilled block `b`.
    func blockID(_ b: Int) -> Int { spilled.ids[b] }

    /// The elements of the block-sized stretch that holds element `i` (`perBlock` of them from
    /// a multiple of `perBlock`, fewer at the end), spilled or not: their count and a reader.
    func withBlock<R>(containing i: Int, _ body: (_ count: Int, _ element: (Int) -> Element) -> R) -> R {
        let start = i / perBlock * perBlock
        if start >= spilledCount {
            let lo = start - spilledCount
            return body(Swift.min(tail.count - lo, perBlock)) { tail[lo + $0] }
        }
        let n = Swift.min(perBlock, spilledCount - start)
        return spool.block(spilled.ids[i / perBlock]).withUnsafeBytes { raw in
            body(n) { raw.loadUnaligned(fromByteOffset: $0 * MemoryLayout<Element>.stride, as: Element.self) }
        }
    }

    /// Changes element `i` in place. A spilled element's block is written anew with the change
    /// (blocks never change: copies of the array share them): rare, for a value that becomes
    /// known late (a request's response, after the script spilled past the request).
    mutating func update(_ i: Int, _ body: (inout Element) -> Void) {
        precondition(i >= 0 && i < count, "SpooledArray index out of range")
        if i >= spilledCount { return body(&tail[i - spilledCount]) }
        if !isKnownUniquelyReferenced(&spilled) { spilled = spilled.copy() }
        let b = i / perBlock
        var bytes = spool.block(spilled.ids[b])
        bytes.withUnsafeMutableBytes { raw in
            let offset = (i % perBlock) * MemoryLayout<Element>.stride
            var e = raw.loadUnaligned(fromByteOffset: offset, as: Element.self)
            body(&e)
            raw.storeBytes(of: e, toByteOffset: offset, as: Element.self)
        }
        let old = spilled.ids[b]
        spilled.ids[b] = spool.write(bytes)
        spool.release([old])
    }

    mutating func append(_ e: Element) {
        if lastBlockPartial { unseal() }
        tail.append(e)
        if tail.count >= tailLimit { spill(upTo: tail.count) }
    }

    mutating func append(contentsOf elements: some Collection<Element>) {
        if lastBlockPartial { unseal() }
        tail.append(contentsOf: elements)
        // Whole blocks go; the rest of the last one stays in memory.
        if tail.count >= tailLimit { spill(upTo: tail.count / perBlock * perBlock) }
    }

    /// Writes what is still in memory to the spool: for an array complete for now that stays
    /// around (a connection's exchange while its replay is waited for). Small arrays stay.
    mutating func seal(minimumBytes: Int = 4096) {
        guard !tail.isEmpty, tail.count * MemoryLayout<Element>.stride >= minimumBytes else { return }
        let partial = tail.count % perBlock != 0
        spill(upTo: tail.count)
        lastBlockPartial = partial
    }

    /// Writes `tail[..<n]` to new blocks (`n` a multiple of `perBlock`, or all of the tail).
    private mutating func spill(upTo n: Int) {
        if !isKnownUniquelyReferenced(&spilled) { spilled = spilled.copy() }
        var start = 0
        while start < n {
            let end = Swift.min(n, start + perBlock)
            let bytes = tail[start..<end].withUnsafeBytes { Array($0) }
            spilled.ids.append(spool.write(bytes))
            start = end
        }
        spilledCount += n
        if n == tail.count { tail = [] } else { tail.removeFirst(n) }
    }

    /// Takes a sealed partial last block back into memory to append after it.
    private mutating func unseal() {
        lastBlockPartial = false
        if !isKnownUniquelyReferenced(&spilled) { spilled = spilled.copy() }
        let id = spilled.ids.removeLast()
        let n = spilledCount - spilled.ids.count * perBlock
        let block = spool.block(id)
        spool.release([id])
        spilledCount -= n
        tail = (0..<n).map { i in
            block.withUnsafeBytes {
                $0.loadUnaligned(fromByteOffset: i * MemoryLayout<Element>.stride, as: Element.self)
            }
        }
    }
}

extension SpooledArray where Element == UInt8 {
    /// Bytes `range` without copying when they lie in one block or in memory.
    func bytes(_ range: Range<Int>) -> ArraySlice<UInt8> {
        if range.isEmpty { return [] }
        if range.lowerBound >= spilledCount {
            return tail[(range.lowerBound - spilledCount)..<(range.upperBound - spilledCount)]
        }
        let first = range.lowerBound / perBlock
        if range.upperBound <= spilledCount, (range.upperBound - 1) / perBlock == first {
            let base = first * perBlock
            return spool.block(spilled.ids[first])[(range.lowerBound - base)..<(range.upperBound - base)]
        }
        return ArraySlice(range.map { self[$0] })
    }
}
