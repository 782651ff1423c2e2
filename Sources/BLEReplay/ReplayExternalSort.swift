extension SpooledArray {
    /// Reads the elements holding one block at a time: in order (a merge reads many runs at
    /// once, whose blocks would otherwise evict each other from the spool's small cache), or
    /// anywhere near the last read (the replay engine: a step, the one it waits for, their
    /// PDUs), each read then costing no spool lookup.
    struct Reader {
        let array: SpooledArray
        private var block: [UInt8] = []
        private var blockIndex = -1
        private var position = 0

        init(_ array: SpooledArray) { self.array = array }

        mutating func next() -> Element? {
            guard position < array.count else { return nil }
            defer { position += 1 }
            return element(at: position)
        }

        /// Element `i` (the order of `next()` is left alone).
        mutating func element(at i: Int) -> Element {
            guard let (b, offset) = array.location(of: i) else { return array[i] }
            hold(b)
            return block.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Element.self) }
        }

        private mutating func hold(_ b: Int) {
            if b != blockIndex {
                block = array.spool.block(array.blockID(b))
                blockIndex = b
            }
        }
    }
}

extension SpooledArray.Reader where Element == UInt8 {
    /// The next `n` bytes (fewer at the end), from the block held when they lie in it.
    mutating func take(_ n: Int) -> ArraySlice<UInt8> {
        guard n > 0, position < array.count else { return [] }
        let end = Swift.min(array.count, position + n)
        defer { position = end }
        return bytes(position..<end)
    }

    /// Bytes `range`, from a held block when they lie in one (the order of `take` is left alone).
    mutating func bytes(_ range: Range<Int>) -> ArraySlice<UInt8> {
        guard !range.isEmpty else { return [] }
        if let (b, offset) = array.location(of: range.lowerBound), array.location(of: range.upperBound - 1)?.block == b
        {
            hold(b)
            return block[offset..<(offset + range.count)]
        }
        return array.bytes(range)
    }
}

/// Sorts more elements than replay keeps in memory: runs of `runLength` are sorted in memory
/// and spooled (`ReplaySpool`), then merged. Memory: one run plus a block per run while merging.
struct ExternalSorter<Element: BitwiseCopyable & Sendable & Comparable> {
    let runLength: Int
    private var buffer: [Element] = []
    private var runs: [SpooledArray<Element>] = []

    /// Runs of 4 MiB: a run's array doubles up to it and is sorted in place, so about
    /// 6 MiB at the peak; ten million instants make 20 runs, a block each while merged.
    static var defaultRunBytes: Int { 4 << 20 }

    init(runBytes: Int = defaultRunBytes) {
        runLength = Swift.max(1, runBytes / MemoryLayout<Element>.stride)
    }

    var isEmpty: Bool { buffer.isEmpty && runs.isEmpty }

    mutating func append(_ e: Element) {
        buffer.append(e)
        if buffer.count >= runLength { spillRun() }
    }

    private mutating func spillRun() {
        buffer.sort()
        var run = SpooledArray<Element>(memoryLimit: 0)
        run.append(contentsOf: buffer)
        run.seal(minimumBytes: 0)
        runs.append(run)
        buffer = []
    }

    /// Hands every element to `body` in ascending order (equal ones in no particular order),
    /// and empties the sorter.
    mutating func drain(_ body: (Element) -> Void) {
        buffer.sort()
        if runs.isEmpty {
            for e in buffer { body(e) }
            buffer = []
            return
        }
        if !buffer.isEmpty { spillRun() }
        // A binary min-heap of the runs' next elements.
        var heap: [(value: Element, reader: SpooledArray<Element>.Reader)] = []
        func siftDown(_ start: Int) {
            var i = start
            while true {
                let l = 2 * i + 1
                let r = l + 1
                var m = i
                if l < heap.count, heap[l].value < heap[m].value { m = l }
                if r < heap.count, heap[r].value < heap[m].value { m = r }
                if m == i { return }
                heap.swapAt(i, m)
                i = m
            }
        }
        for run in runs {
            var reader = SpooledArray<Element>.Reader(run)
            if let v = reader.next() { heap.append((v, reader)) }
        }
        runs = []
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
        while !heap.isEmpty {
            body(heap[0].value)
            if let v = heap[0].reader.next() {
                heap[0].value = v
            } else {
                heap.swapAt(0, heap.count - 1)
                heap.removeLast()
            }
            siftDown(0)
        }
    }
}

/// The `.max` clock's captured instants, ascending and distinct, spooled past 1 MiB: the
/// clock asks for the last one at or before a time (`last(atOrBefore:)`). The first
/// instant of every spilled block stays in memory (8 bytes per 8192 instants), so a lookup
/// reads one block.
struct ReplayInstants: Sendable {
    private var table = SpooledArray<Int64>()
    /// `fences[b]`: the first instant of block `b` of `table`.
    private var fences: [Int64] = []

    /// The distinct values of `sorter`, which it empties.
    init(_ sorter: inout ExternalSorter<Int64>) {
        var table = SpooledArray<Int64>()
        var fences: [Int64] = []
        var last: Int64?
        sorter.drain { t in
            guard t != last else { return }
            last = t
            if table.count % table.perBlock == 0 { fences.append(t) }
            table.append(t)
        }
        self.table = table
        self.fences = fences
    }

    init() {}

    var count: Int { table.count }
    /// The earliest instant.
    var first: Int64? { fences.first }

    /// The last instant at or before `t` and how many instants come before it; nil when
    /// every instant is later than `t`.
    func last(atOrBefore t: Int64) -> (index: Int, instant: Int64)? {
        // The last block whose first instant is at or before t, then within it.
        var lo = 0
        var hi = fences.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if fences[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0 else { return nil }
        let base = (lo - 1) * table.perBlock
        return table.withBlock(containing: base) { count, value in
            // value(0) is the block's fence, at or before t: the answer is in this block.
            var lo = 1
            var hi = count
            while lo < hi {
                let mid = (lo + hi) / 2
                if value(mid) <= t { lo = mid + 1 } else { hi = mid }
            }
            return (base + lo - 1, value(lo - 1))
        }
    }
}
