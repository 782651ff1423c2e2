import BLESpool

/// The `.max` clock's captured instants, ascending and distinct, spooled past 1 MiB: the
/// clock asks for the last one at or before a time (`last(atOrBefore:)`), twice per PDU it
/// schedules. While the instants fit in a spooled array's memory, they are kept as one plain
/// array and found by one binary search, without a block lookup (docs/performance.md); past
/// that they move to `table`, where the first instant of every spilled block stays in memory
/// (8 bytes per 8192 instants), so a lookup reads one block.
struct ReplayInstants: Sendable {
    /// Every instant, while they fit in `table`'s memory limit; empty once they spill.
    private var resident: [Int64] = []
    private var table = SpooledArray<Int64>()
    /// `fences[b]`: the first instant of block `b` of `table`.
    private var fences: [Int64] = []

    /// The distinct values of `sorter`, which it empties.
    init(_ sorter: inout ExternalSorter<Int64>) {
        var resident: [Int64] = []
        var table = SpooledArray<Int64>()
        var fences: [Int64] = []
        var last: Int64?
        func append(_ t: Int64) {
            if table.count % table.perBlock == 0 { fences.append(t) }
            table.append(t)
        }
        sorter.drain { t in
            guard t != last else { return }
            last = t
            if table.isEmpty {
                if resident.count < table.tailLimit { return resident.append(t) }
                for r in resident { append(r) }
                resident = []
            }
            append(t)
        }
        self.resident = resident
        self.table = table
        self.fences = fences
    }

    init() {}

    var count: Int { resident.isEmpty ? table.count : resident.count }
    /// The earliest instant.
    var first: Int64? { resident.first ?? fences.first }

    /// The last instant at or before `t` and how many instants come before it; nil when
    /// every instant is later than `t`.
    func last(atOrBefore t: Int64) -> (index: Int, instant: Int64)? {
        if !resident.isEmpty {
            return resident.withUnsafeBufferPointer { b in
                var lo = 0
                var hi = b.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if b[mid] <= t { lo = mid + 1 } else { hi = mid }
                }
                return lo == 0 ? nil : (lo - 1, b[lo - 1])
            }
        }
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
