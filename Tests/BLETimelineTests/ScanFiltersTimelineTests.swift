import BLEBytes
import BLEPackets
import BLETimeline
import TestSupport
import Testing

/// `scan.filters`: Android's offloaded scan filters (APCF, 0xFD57) at each scan start, on the
/// shipped Android capture public/btsnoop-android_domyos-treadmill-ftms.log. What its bytes
/// show (tshark frame numbers; each APCF command is answered with status 0 in the next frame):
///   23/24  LE Get Vendor Capabilities: filtering supported, 16 filters.
///   165    APCF enable. 167/169: index 3 = Service UUID FE2C (feature 0x0004).
///   173/175 index 4 = service data 2CFE00 (feature 0x0040).
///   179    scan enable (LE Set Scan Enable 01 00): filters 3 and 4 in force.
///   191–210 indices 5–9: manufacturer 0x00E0, UUID FEA0, Apple iBeacon, UUIDs FEAA, FEF3.
///   211    delete index 4; 215/217 index 10 = service data 2CFE00; 219–227 delete 5–9.
///   235    scan enable: filters 3 and 10.
///   239    index 1 with feature selection 0x0000 (AOSP's all-pass filter), answered in 240
///          while the scan of 235 runs; 247 scan enable with 1, 3, 10.
///   256    delete index 1; 264 scan enable with 3 and 10; 270 index 1 all-pass again
///          (answered 271, scan of 264 running); 278 scan enable with 1, 3, 10.
@Suite struct ScanFiltersTimelineTests {
    static let domyos = "public/btsnoop-android_domyos-treadmill-ftms.log"

    @Test func filterTableAtEachScanStartOfDomyos() throws {
        let t = try Timeline(Fixtures.capture(Self.domyos))
        let filters = t.of("scan.filters")
        let tables: [(frame: Int, table: ScanFilterTable)] = filters.compactMap {
            if case .scanFilters(let s) = $0.kind, let table = t.scanFilterTables[s] { return ($0.frame, table) }
            return nil
        }
        // One per scan start, and one per change of the filters in force confirmed while a scan
        // ran: the scan of 187 saw indices 5–9 selected (194 … 210) and 4–9 deleted (212 …
        // 228), index 10 selected (218); the scan of 235 the all-pass index 1 (240), the one of
        // 247 its deletion (257), the one of 264 it again (271). Enable again (190 …) and conditions of unselected indices (192 …)
        // change nothing in force.
        let starts = t.of("scan.start").map(\.frame)
        #expect(starts == [179, 187, 235, 247, 264, 278])
        for start in starts { #expect(tables.contains { $0.frame == start }, "scan.start \(start)") }
        #expect(
            tables.map(\.frame) == [
                179, 187, 194, 198, 202, 206, 210, 212, 218, 220, 222, 224, 226, 228,
                235, 240, 247, 257, 264, 271, 278,
            ])
        #expect(tables.filter { $0.table.passesEverything }.map(\.frame) == [240, 247, 271, 278])

        let first = try #require(tables.first?.table)
        #expect(first.enabled == true && first.complete && first.filteringSupported == true && first.maxFilters == 16)
        #expect(first.active.map(\.index) == [3, 4])
        #expect(first.active.first?.serviceUUIDs == [BluetoothUUID(uuid16: 0xFE2C)])
        #expect(first.active.first?.featureSelection == APCFFeature.serviceUUID)
        #expect(first.active.last?.serviceData == ["2cfe00"])
        #expect(first.active.first?.frames == [167, 169])
        #expect(!first.passesEverything && first.allPass.isEmpty)

        let at235 = try #require(tables.first { $0.frame == 235 }?.table)
        #expect(at235.active.map(\.index) == [3, 10] && !at235.passesEverything)

        for frame in [240, 247, 271, 278] {
            let table = try #require(tables.first { $0.frame == frame }?.table)
            #expect(table.passesEverything, "frame \(frame)")
            #expect(table.allPass.map(\.index) == [1], "frame \(frame)")
            #expect(table.active.map(\.index) == [1, 3, 10], "frame \(frame)")
        }
        #expect(tables.first { $0.frame == 247 }?.table.allPass.first?.frames == [239])
        #expect(tables.first { $0.frame == 278 }?.table.allPass.first?.frames == [270])
        let at264 = try #require(tables.first { $0.frame == 264 }?.table)
        #expect(!at264.passesEverything && at264.active.map(\.index) == [3, 10])
    }

    /// Whose scan each index serves (issue 27; docs/timeline.md "Whose scan"): on domyos the
    /// all-pass index 1 is an app's scan without filters (AOSP's ALL_PASS_FILTER_INDEX_REGULAR_SCAN),
    /// index 3 (UUID FE2C) and 10 (service data 2CFE00) are Fast Pair's; indices 5–9, set up in
    /// one burst (191–210) with Google's 0x00E0 and FEF3 filters, are Google Play services' too,
    /// FEA0, Apple iBeacon and FEAA included. The scan parameters of 247 are the balanced mode.
    @Test func filterOwnersOfDomyos() throws {
        let t = try Timeline(Fixtures.capture(Self.domyos))
        var tables: [Int: ScanFilterTable] = [:]
        for e in t.of("scan.filters") {
            if case .scanFilters(let s) = e.kind, let table = t.scanFilterTables[s] { tables[e.frame] = table }
        }
        let at240 = try #require(tables[240])
        #expect(at240.active.map { at240.owner($0).name } == ["app_unfiltered", "system", "system"])
        #expect(at240.appEntries.map(\.index) == [1] && at240.appAllPass.map(\.index) == [1])
        #expect(at240.discovery == nil)
        let at210 = try #require(tables[210])
        #expect(at210.active.filter { at210.owner($0).isApp }.isEmpty, "\(at210.active.map(\.index))")
        let at264 = try #require(tables[264])
        #expect(at264.appEntries.isEmpty && at264.systemEntries.map(\.index) == [3, 10])
        if case .system(let name) = at264.owner(at264.active[0]) { #expect(name.contains("Fast Pair")) }
        #expect(tables[247]?.scanMode != nil)
    }

    /// Bad input: deletes of an index never added, a condition deleted from an unknown index, a
    /// command too short to name its sub-command: decoded as far as they go, counted in
    /// `anomalies`, nothing invented.
    @Test func anomaliesAreNotedNotApplied() throws {
        let c = APCFCapture()
        c.s.feed(.hciCommand, .sent, [0x03, 0x0C, 0x00], at: 0)
        c.command([0x00, 0x01])
        c.complete([0x00, 0x00, 0x01])
        c.command([0x01, 0x01, 0x07])
        c.complete([0x00, 0x01, 0x01, 0x0F])  // delete index 7, never added
        c.command([0x03, 0x01, 0x09, 0x0D, 0x18, 0xFF, 0xFF])
        c.complete([0x00, 0x03, 0x01, 0x0F])  // delete a condition of index 9, never added
        c.command([])  // no sub-command
        c.scan(true)
        let tables = c.tables
        let t = try #require(tables.first?.table)
        #expect(t.anomalies == 3 && t.entries.isEmpty)
        #expect(t.firstAnomalyFrame != nil)
    }

    /// Bad input (issue 27 acceptance): a capture that starts mid-scan (no Reset), conditions for
    /// an index never set up, a clear of an unknown index's conditions, and sub-commands whose
    /// lengths lie (a UUID one byte long, manufacturer data cut short, filtering parameters cut
    /// short, an Enable without its byte): each decoded as far as it goes and noted; nothing
    /// guessed (no UUID invented, no index taken as set up from parameters it lacks).
    @Test func lyingLengthsAndAMidScanStartAreNotedNotGuessed() throws {
        let c = APCFCapture()
        c.scan(true)  // no Reset: the capture starts mid-scan
        c.command([0x00])
        c.complete([0x00, 0x00])  // Enable without its byte: noted, APCF state stays unknown
        c.command([0x03, 0x00, 0x06, 0x0D])
        c.complete([0x00, 0x03, 0x00, 0x0F])  // a UUID condition one byte long: an unknown condition
        c.command([0x06, 0x00, 0x05, 0x75])
        c.complete([0x00, 0x06, 0x00, 0x0F])  // manufacturer data cut short: an unknown condition
        c.command([0x03, 0x02, 0x0A])
        c.complete([0x00, 0x03, 0x02, 0x0F])  // clear the UUIDs of index 10, never seen
        c.command([0x01, 0x00, 0x06, 0x04, 0x00])
        c.complete([0x00, 0x01, 0x00, 0x0F])  // filtering parameters cut short: index 6 not set up
        c.scan(false)
        c.scan(true)
        let tables = c.tables
        let t = try #require(tables.last?.table)
        #expect(!t.complete && t.enabled == nil)
        #expect(t.anomalies == 5, "\(t.anomalies)")
        #expect(t.active.isEmpty)  // no index has filtering parameters the controller confirmed
        let six = try #require(t.entries.first { $0.index == 6 })
        #expect(six.serviceUUIDs.isEmpty && six.otherConditions == 1 && six.featureSelection == nil)
        #expect(t.entries.first { $0.index == 5 }?.manufacturerCompanies.isEmpty == true)
        #expect(!t.entries.contains { $0.index == 10 })
    }

    @Test func noScanFiltersWithoutAPCFTraffic() throws {
        // Bumble's host sends no Android vendor commands: no scan.filters at its scan starts.
        let t = try Timeline.bumble("nil_scan_all_services.central")
        #expect(!t.of("scan.start").isEmpty)
        #expect(t.of("scan.filters").isEmpty)
    }

    /// Hand-made APCF traffic (AOSP layouts) for what the shipped captures do not show.
    final class APCFCapture {
        let s = SyntheticCapture()
        var time: Int64 = 0
        func command(_ params: [UInt8]) {
            time += 1000
            s.feed(.hciCommand, .sent, [0x57, 0xFD, UInt8(params.count)] + params, at: time)
        }
        func complete(_ ret: [UInt8]) {
            time += 1000
            s.feed(.hciEvent, .received, [0x0E, UInt8(ret.count + 3), 0x01, 0x57, 0xFD] + ret, at: time)
        }
        func scan(_ on: Bool) {
            time += 1000
            s.feed(.hciCommand, .sent, [0x0C, 0x20, 0x02, on ? 1 : 0, 0], at: time)
            time += 1000
            s.feed(.hciEvent, .received, [0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00], at: time)
        }
        var tables: [(frame: Int, table: ScanFilterTable)] {
            s.builder.finish()
            return s.events.compactMap {
                if case .scanFilters(let snapshot) = $0.kind, let t = s.builder.scanFilterTables[snapshot] {
                    return ($0.frame, t)
                }
                return nil
            }
        }
    }

    @Test func failedCommandsChangeNothingAndConditionsComeAndGo() throws {
        let c = APCFCapture()
        c.s.feed(.hciCommand, .sent, [0x03, 0x0C, 0x00], at: 0)  // HCI Reset: table complete
        c.command([0x00, 0x01])
        c.complete([0x00, 0x00, 0x01])  // enable
        c.command([0x03, 0x00, 0x04, 0x0D, 0x18, 0xFF, 0xFF])
        c.complete([0x00, 0x03, 0x00, 0x0F])  // UUID 180D
        c.command([0x03, 0x00, 0x04, 0x0F, 0x18, 0xFF, 0xFF])
        c.complete([0x00, 0x03, 0x00, 0x0E])  // UUID 180F
        c.command([0x05, 0x00, 0x04, 0x48, 0x52])
        c.complete([0x00, 0x05, 0x00, 0x0D])  // name "HR"
        c.command([0x01, 0x00, 0x04, 0x14, 0x00, 0x11, 0x11, 0x01, 0x80, 0x00] + [UInt8](repeating: 0, count: 6))
        c.complete([0x00, 0x01, 0x00, 0x0C])  // index 4: UUID + name
        // An all-pass index the controller refuses (0x07 Memory Capacity Exceeded): not in force.
        c.command([0x01, 0x00, 0x01, 0x00, 0x00, 0x11, 0x11, 0x01, 0x80, 0x00] + [UInt8](repeating: 0, count: 6))
        c.complete([0x07, 0x01, 0x00, 0x00])
        c.command([0x03, 0x01, 0x04, 0x0F, 0x18, 0xFF, 0xFF])
        c.complete([0x00, 0x03, 0x01, 0x0F])  // delete 180F
        c.scan(true)
        c.command([0x05, 0x02, 0x04])
        c.complete([0x00, 0x05, 0x02, 0x0E])  // clear names of index 4, while scanning
        c.command([0x00, 0x00])
        c.complete([0x00, 0x00, 0x00])  // disable, while scanning
        let tables = c.tables
        #expect(tables.count == 3)
        let atStart = try #require(tables.first?.table)
        #expect(atStart.complete && atStart.enabled == true && !atStart.passesEverything)
        #expect(atStart.active.map(\.index) == [4] && atStart.allPass.isEmpty)
        #expect(atStart.active.first?.serviceUUIDs == [BluetoothUUID(uuid16: 0x180D)])
        #expect(atStart.active.first?.localNames == ["HR"])
        #expect(tables[1].table.active.first?.localNames == [] && !tables[1].table.passesEverything)
        #expect(tables[2].table.enabled == false && tables[2].table.passesEverything)
    }
}
