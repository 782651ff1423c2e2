import BLETimeline
import Testing

/// The side table `scan.filters` events name their filter table in: one version per change,
/// the same table kept once, and bounded (the oldest versions dropped past `capacity`).
@Suite struct ScanFilterTablesTests {
    static func table(_ n: Int) -> ScanFilterTable {
        var t = ScanFilterTable()
        t.capabilitiesFrame = n
        return t
    }

    @Test func aTableIsKeptOncePerChange() throws {
        let tables = ScanFilterTables()
        let a = tables.keep(Self.table(1))
        #expect(tables.keep(Self.table(1)) == a)
        let b = tables.keep(Self.table(2))
        #expect(b != a)
        #expect(try #require(tables[a]).capabilitiesFrame == 1)
        #expect(try #require(tables[b]).capabilitiesFrame == 2)
        // Back to an earlier table: a new version (only the newest is compared).
        #expect(tables.keep(Self.table(1)) != a)
        // A version another (busier) builder's tables gave out is none of these.
        let other = ScanFilterTables()
        let far = (1...10).map { other.keep(Self.table($0)) }.last!
        #expect(tables[far] == nil)
    }

    @Test func onlyTheNewestTablesAreKept() throws {
        let tables = ScanFilterTables()
        let count = ScanFilterTables.capacity + 10
        let snapshots = (1...count).map { tables.keep(Self.table($0)) }
        for (i, s) in snapshots.enumerated() {
            if i < 10 {
                #expect(tables[s] == nil, "version \(s.version)")
            } else {
                #expect(tables[s]?.capabilitiesFrame == i + 1, "version \(s.version)")
            }
        }
    }
}
