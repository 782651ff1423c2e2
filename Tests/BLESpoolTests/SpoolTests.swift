import BLEBytes
import BLESpool
import Testing

/// Spill storage reads back what was written: a `SpooledArray` across blocks, seals, copies and
/// in-place updates, its bytes and readers, the blocks freed once no array holds them; an
/// `ExternalSorter` merging spooled runs in order. Tiny blocks and caches make every few
/// elements spill and reads miss the cache.
@Suite struct SpoolTests {
    /// Blocks of 64 bytes and a cache of 2: every few elements spill, and reads miss the cache.
    static func tinySpool() -> Spool { Spool(blockSize: 64, cacheBlocks: 2) }

    @Test func spooledArrayReadsBackAsAppendedAcrossSealsAndCopies() {
        let spool = Self.tinySpool()
        do {
            var a = SpooledArray<Int64>(spool: spool, memoryLimit: 64)
            var expected: [Int64] = []
            var rng = SplitMix64(seed: 3)
            for i in 0..<1000 {
                let v = Int64(bitPattern: rng.next())
                a.append(v)
                expected.append(v)
                // A seal in the middle of a block, then more appends after it.
                if i % 97 == 0 { a.seal(minimumBytes: 0) }
            }
            #expect(a.count == expected.count)
            #expect((0..<a.count).allSatisfy { a[$0] == expected[$0] })
            var reader = SpooledArray<Int64>.Reader(a)
            var read: [Int64] = []
            while let v = reader.next() { read.append(v) }
            #expect(read == expected)
            // A copy shares the spilled blocks; appending to it leaves the original alone.
            var b = a
            b.append(42)
            a.seal(minimumBytes: 0)
            b.seal(minimumBytes: 0)
            b.append(43)
            #expect(a.count == 1000 && b.count == 1002)
            #expect((0..<a.count).allSatisfy { a[$0] == expected[$0] && b[$0] == expected[$0] })
            #expect(b[1000] == 42 && b[1001] == 43)
            #expect(spool.blocksInUse > 0)
        }
        // Every block is free again once no array holds it.
        #expect(spool.blocksInUse == 0)
    }

    @Test func bytesAcrossBlocksAreTheBytesAppended() {
        var a = SpooledArray<UInt8>(spool: Self.tinySpool(), memoryLimit: 64)
        let bytes = (0..<700).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        a.append(contentsOf: bytes[..<300])
        a.append(contentsOf: bytes[300...])
        for (lo, hi) in [(0, 0), (0, 64), (60, 70), (63, 200), (299, 301), (640, 700), (0, 700)] {
            #expect(Array(a.bytes(lo..<hi)) == Array(bytes[lo..<hi]), "\(lo)..<\(hi)")
        }
    }

    @Test func externalSortMergesRunsInOrder() {
        var sorter = ExternalSorter<Int64>(runBytes: 80)
        var rng = SplitMix64(seed: 9)
        let values = (0..<5000).map { _ in Int64(rng.next() % 2000) - 1000 }
        for v in values { sorter.append(v) }
        var sorted: [Int64] = []
        sorter.drain { sorted.append($0) }
        #expect(sorted == values.sorted())
    }

    /// A spilled element changed in place: its block is written anew for this array, so a copy
    /// that shares the old block keeps the old value, and the old block is freed with the copy.
    @Test func updatingASpilledElementLeavesCopiesAlone() {
        let spool = Self.tinySpool()
        do {
            var a = SpooledArray<Int64>(spool: spool, memoryLimit: 64)
            for i in 0..<100 { a.append(Int64(i)) }
            #expect(a.location(of: 3) != nil)
            let b = a
            a.update(3) { $0 = -3 }
            #expect(a[3] == -3 && b[3] == 3)
            #expect((0..<100).allSatisfy { $0 == 3 || (a[$0] == Int64($0) && b[$0] == Int64($0)) })
            var reader = SpooledArray<Int64>.Reader(a)
            #expect(reader.element(at: 3) == -3 && reader.element(at: 99) == 99)
        }
        #expect(spool.blocksInUse == 0)
    }

    /// A byte reader takes runs across block boundaries as they were appended.
    @Test func aByteReaderTakesAcrossBlocks() {
        var a = SpooledArray<UInt8>(spool: Self.tinySpool(), memoryLimit: 64)
        let bytes = (0..<500).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        a.append(contentsOf: bytes)
        a.seal(minimumBytes: 0)
        var reader = SpooledArray<UInt8>.Reader(a)
        var taken: [UInt8] = []
        for n in [1, 63, 64, 65, 100, 1000] { taken += reader.take(n) }
        #expect(taken == bytes)
        #expect(reader.take(1).isEmpty)
    }
}
