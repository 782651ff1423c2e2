import FoundationEssentials

/// Spilled blocks of one `SpooledArray`, handed back to the spool when no array holds them.
@usableFromInline final class SpoolBlocks: @unchecked Sendable {
    // Mutated only through a uniquely referenced instance (`SpooledArray`'s copy on write).
    @usableFromInline var ids: [Int] = []
    @usableFromInline let spool: Spool

    @usableFromInline init(_ spool: Spool, ids: [Int] = []) {
        self.spool = spool
        self.ids = ids
    }

    @usableFromInline func copy() -> SpoolBlocks {
        spool.retain(ids)
        return SpoolBlocks(spool, ids: ids)
    }

    deinit { spool.release(ids) }
}

/// An append-only array of plain values that keeps its newest elements in memory (at most
/// `memoryLimit` bytes of them) and the rest in spool blocks: a value type like `Array`
/// (copies share spilled blocks, which never change), with element access through the spool's
/// cache for spilled elements. Its methods are `@inlinable`: a client module gets them
/// specialised for its element type, where a call across the module boundary would be generic
/// (metadata looked up per element; docs/performance.md, "Spill storage across a module").
public struct SpooledArray<Element: BitwiseCopyable & Sendable>: Sendable {
    @usableFromInline var tail: [Element] = []
    /// Its spool and spilled blocks (one reference, not two: arrays are copied often).
    @usableFromInline var spilled: SpoolBlocks
    /// Elements in `spilled` blocks; every block but a sealed last one is full.
    @usableFromInline var spilledCount = 0
    /// The last block holds fewer than `perBlock` elements (`seal()`).
    @usableFromInline var lastBlockPartial = false
    @inlinable public var spool: Spool { spilled.spool }
    /// Elements per block, and per in-memory tail before it spills.
    public let perBlock: Int
    public let tailLimit: Int

    /// `memoryLimit`: bytes of elements kept in memory before they spill (rounded to blocks).
    @inlinable public init(spool: Spool = .shared, memoryLimit: Int = Spool.arrayMemoryLimit) {
        spilled = SpoolBlocks(spool)
        perBlock = Swift.max(1, spool.blockSize / MemoryLayout<Element>.stride)
        tailLimit = perBlock * Swift.max(1, memoryLimit / spool.blockSize)
    }

    @inlinable public var count: Int { spilledCount + tail.count }
    @inlinable public var isEmpty: Bool { count == 0 }

    @inlinable public subscript(i: Int) -> Element {
        precondition(i >= 0 && i < count, "SpooledArray index out of range")
        if i >= spilledCount { return tail[i - spilledCount] }
        let block = spool.block(spilled.ids[i / perBlock])
        return block.withUnsafeBytes {
            $0.loadUnaligned(fromByteOffset: (i % perBlock) * MemoryLayout<Element>.stride, as: Element.self)
        }
    }

    @inlinable public var last: Element? { isEmpty ? nil : self[count - 1] }

    /// Element `i`'s block and byte offset in it, nil while it is in memory.
    @inlinable public func location(of i: Int) -> (block: Int, offset: Int)? {
        i < spilledCount ? (i / perBlock, (i % perBlock) * MemoryLayout<Element>.stride) : nil
    }

    /// The spool block id of spilled block `b`.
    @inlinable public func blockID(_ b: Int) -> Int { spilled.ids[b] }

    /// The elements of the block-sized stretch that holds element `i` (`perBlock` of them from
    /// a multiple of `perBlock`, fewer at the end), spilled or not: their count and a reader.
    @inlinable public func withBlock<R>(containing i: Int, _ body: (_ count: Int, _ element: (Int) -> Element) -> R)
        -> R
    {
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
    @inlinable public mutating func update(_ i: Int, _ body: (inout Element) -> Void) {
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

    @inlinable public mutating func append(_ e: Element) {
        if lastBlockPartial { unseal() }
        tail.append(e)
        if tail.count >= tailLimit { spill(upTo: tail.count) }
    }

    @inlinable public mutating func append(contentsOf elements: some Collection<Element>) {
        if lastBlockPartial { unseal() }
        tail.append(contentsOf: elements)
        // Whole blocks go; the rest of the last one stays in memory.
        if tail.count >= tailLimit { spill(upTo: tail.count / perBlock * perBlock) }
    }

    /// Writes what is still in memory to the spool: for an array complete for now that stays
    /// around (a connection's exchange while its replay is waited for). Small arrays stay.
    @inlinable public mutating func seal(minimumBytes: Int = 4096) {
        guard !tail.isEmpty, tail.count * MemoryLayout<Element>.stride >= minimumBytes else { return }
        let partial = tail.count % perBlock != 0
        spill(upTo: tail.count)
        lastBlockPartial = partial
    }

    /// Writes `tail[..<n]` to new blocks (`n` a multiple of `perBlock`, or all of the tail).
    @usableFromInline mutating func spill(upTo n: Int) {
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
    @usableFromInline mutating func unseal() {
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
    @inlinable public func bytes(_ range: Range<Int>) -> ArraySlice<UInt8> {
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

extension SpooledArray {
    /// Reads the elements holding one block at a time: in order (a merge reads many runs at
    /// once, whose blocks would otherwise evict each other from the spool's small cache), or
    /// anywhere near the last read (the replay engine: a step, the one it waits for, their
    /// PDUs), each read then costing no spool lookup.
    public struct Reader {
        public let array: SpooledArray
        @usableFromInline var block: [UInt8] = []
        @usableFromInline var blockIndex = -1
        @usableFromInline var position = 0

        @inlinable public init(_ array: SpooledArray) { self.array = array }

        @inlinable public mutating func next() -> Element? {
            guard position < array.count else { return nil }
            defer { position += 1 }
            return element(at: position)
        }

        /// Element `i` (the order of `next()` is left alone).
        @inlinable public mutating func element(at i: Int) -> Element {
            guard let (b, offset) = array.location(of: i) else { return array[i] }
            hold(b)
            return block.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Element.self) }
        }

        @usableFromInline mutating func hold(_ b: Int) {
            if b != blockIndex {
                block = array.spool.block(array.blockID(b))
                blockIndex = b
            }
        }
    }
}

extension SpooledArray.Reader where Element == UInt8 {
    /// The next `n` bytes (fewer at the end), from the block held when they lie in it.
    @inlinable public mutating func take(_ n: Int) -> ArraySlice<UInt8> {
        guard n > 0, position < array.count else { return [] }
        let end = Swift.min(array.count, position + n)
        defer { position = end }
        return bytes(position..<end)
    }

    /// Bytes `range`, from a held block when they lie in one (the order of `take` is left alone).
    @inlinable public mutating func bytes(_ range: Range<Int>) -> ArraySlice<UInt8> {
        guard !range.isEmpty else { return [] }
        if let (b, offset) = array.location(of: range.lowerBound), array.location(of: range.upperBound - 1)?.block == b
        {
            hold(b)
            return block[offset..<(offset + range.count)]
        }
        return array.bytes(range)
    }
}
