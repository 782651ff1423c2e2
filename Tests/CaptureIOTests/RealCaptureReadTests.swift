import BLEBytes
import CaptureIO
import TestSupport
import Testing

/// Real captures read to the end, without damage, with the frame counts their provenance notes
/// (captures/public/SOURCES.md, captures/bumble/README.md) give. Those counts were taken with tshark.
/// Captures we may not redistribute are read the same way by `make conformance` (against tshark).
@Suite struct RealCaptureReadTests {
    static let publicBTSnoop: [(String, Int, UInt32)] = [
        ("btsnoop-android_domyos-treadmill-ftms.log", 5218, 1002),
        ("btsnoop-android_revcar-acl-only.log", 149, 1002),
        ("btsnoop-btmon_rgbctf2020-magicintheair", 1795, 2001),
    ]

    static let bumble: [(String, Int)] = [
        ("clean_heart_rate.central", 123), ("clean_heart_rate.peripheral", 136),
        ("nil_scan_all_services.central", 600), ("nil_scan_all_services.peripheral", 87),
        ("oversized_and_unchecked_writes.central", 483), ("oversized_and_unchecked_writes.peripheral", 286),
        ("reconnect_storm.central", 115), ("reconnect_storm.peripheral", 118),
        ("indications_and_errors.central", 135), ("indications_and_errors.peripheral", 143),
        ("long_notify_stream.central", 28602), ("long_notify_stream.peripheral", 57146),
        ("two_peripherals_concurrent.central", 118), ("two_peripherals_concurrent.peripheral", 86),
        ("two_peripherals_concurrent.peripheral_b", 91),
        ("cached_reconnect.central", 126), ("cached_reconnect.peripheral", 131),
        ("hr_short_notification.central", 70), ("hr_short_notification.peripheral", 87),
        ("scan_before_init.central", 75), ("scan_before_init.peripheral", 69),
    ]

    @Test(arguments: publicBTSnoop.map { $0.0 })
    func publicBTSnoopReadsToTheEnd(_ name: String) throws {
        let (_, frames, datalink) = try #require(Self.publicBTSnoop.first { $0.0 == name })
        let r = try readAll(path: Fixtures.capture("public/\(name)"))
        #expect(r.format == .btsnoop(datalink: datalink))
        #expect(r.damage == nil)
        #expect(r.records.count == frames)
        #expect(r.records.last?.frame == frames)
        checkContiguous(r.records, fileSize: try fileBytes(Fixtures.capture("public/\(name)")).count, headerLength: 16)
    }

    @Test(arguments: bumble.map { $0.0 })
    func bumbleReadsToTheEnd(_ name: String) throws {
        let frames = try #require(Self.bumble.first { $0.0 == name }).1
        let r = try readAll(path: Fixtures.capture("bumble/\(name).btsnoop"))
        #expect(r.format == .btsnoop(datalink: 1002))
        #expect(r.damage == nil)
        #expect(r.records.count == frames)
        // Bumble writes only HCI traffic.
        #expect(r.records.allSatisfy { $0.kind.isHCI && $0.direction != .unknown })
    }

    /// The same session in H4, H1 and monitor btsnoop gives the same HCI records.
    @Test func btsnoopDatalinksAgree() throws {
        let dir = "formats/clean_heart_rate.central"
        let h4 = try readAll(path: Fixtures.capture("\(dir).h4.btsnoop"))
        let h1 = try readAll(path: Fixtures.capture("\(dir).h1.btsnoop"))
        let mon = try readAll(path: Fixtures.capture("\(dir).monitor.btsnoop"))
        #expect(h4.format == .btsnoop(datalink: 1002))
        #expect(h1.format == .btsnoop(datalink: 1001))
        #expect(mon.format == .btsnoop(datalink: 2001))
        #expect([h4.damage, h1.damage, mon.damage] == [nil, nil, nil])
        #expect(h4.records.count == 123 && h1.records.count == 123 && mon.records.count == 126)
        #expect(h1.records.map(\.hciIdentity) == h4.records.map(\.hciIdentity))
        #expect(mon.records.dropFirst(3).map(\.hciIdentity) == h4.records.map(\.hciIdentity))
        #expect(mon.records.prefix(3).map(\.kind) == [.indexNew, .indexOpen, .systemNote])
        #expect(mon.records.dropFirst(3).map(\.frame) == Array(4...126))
        // Bumble's first packet is HCI Reset at 2026 wall-clock time.
        let first = try #require(h4.records.first)
        #expect(first.kind == .hciCommand && first.payload == [0x03, 0x0C, 0x00])
    }

    /// A monitor capture with metadata and no HCI traffic at all (as `btmon -w` leaves when
    /// nothing happens): the nine-container matrix's monitor btsnoop cut after its three
    /// leading records (New Index, Open Index, System Note — formats/README.md).
    @Test func monitorMetadataOnlyFile() throws {
        let bytes = try Fixtures.bytes("formats/clean_heart_rate.central.monitor.btsnoop")
        let whole = try readAll(path: Fixtures.capture("formats/clean_heart_rate.central.monitor.btsnoop"))
        let cut = Int(try #require(whole.records.dropFirst(3).first).fileOffset)
        let r = try readAll(bytes: Array(bytes[..<cut]))
        #expect(r.damage == nil)
        #expect(r.records.map(\.kind) == [.indexNew, .indexOpen, .systemNote])
        #expect(r.records.map(\.controllerIndex) == [0, 0, 0])
        #expect(r.records.allSatisfy { !$0.kind.isHCI })
    }
}

/// Records tile the file: each starts where the previous ended, and the last ends at EOF.
func checkContiguous(_ records: [OwnedRecord], fileSize: Int, headerLength: Int64) {
    var expected = headerLength
    for r in records {
        if r.fileOffset != expected {
            Issue.record("frame \(r.frame) at \(r.fileOffset), expected \(expected)")
            return
        }
        expected += Int64(r.recordLength)
    }
    #expect(expected == Int64(fileSize))
}

@Suite struct RealPacketLoggerReadTests {
    static let publicPklg: [(String, Int)] = [
        ("pklg-be_hciparse-test00-macos.pklg", 2239),
        ("pklg-be_ios-sysdiagnose-bafang-ebike.pklg", 50027),
    ]

    @Test(arguments: publicPklg.map { $0.0 })
    func publicPacketLoggerReadsToTheEnd(_ name: String) throws {
        let frames = try #require(Self.publicPklg.first { $0.0 == name }).1
        let path = Fixtures.capture("public/\(name)")
        let r = try readAll(path: path)
        #expect(r.format == .packetLogger(bigEndian: true))
        #expect(r.damage == nil)
        #expect(r.records.count == frames)
        checkContiguous(r.records, fileSize: try fileBytes(path).count, headerLength: 0)
    }

    /// Type counts from `tshark -T fields -e packetlogger.type` (SOURCES.md lists the types).
    @Test func recordTypesOfTheIOSCapture() throws {
        let r = try readAll(path: Fixtures.capture("public/pklg-be_ios-sysdiagnose-bafang-ebike.pklg"))
        var counts: [UInt32: Int] = [:]
        for rec in r.records { counts[rec.rawType, default: 0] += 1 }
        #expect(
            counts == [
                0x00: 21177, 0x01: 24486, 0x02: 1417, 0x03: 1349, 0x0A: 598, 0x21: 7, 0xFB: 103, 0xFC: 55, 0xFD: 835,
            ])
        let first = try #require(r.records.first)
        #expect(first.kind == .note && first.payload == Array("Product: iPhone18,2".utf8))
        #expect(r.records.filter { $0.kind == .unknown }.count == 598 + 7)
        #expect(r.records.filter { $0.kind == .config }.count == 835)
    }

    @Test func textRecordsOfTheMacOSCapture() throws {
        let r = try readAll(path: Fixtures.capture("public/pklg-be_hciparse-test00-macos.pklg"))
        let kinds = r.records.map(\.kind)
        #expect(kinds.filter { $0 == .kernel }.count == 159)
        #expect(kinds.filter { $0 == .power }.count == 21)
        #expect(r.records[0].kind == .power && r.records[0].payload == Array("OFF->ON+\n".utf8))
        #expect(r.records[2].kind == .kernel && r.records[2].payload == Array("Set BTLP GPIO to FALSE successful".utf8))
    }

    /// The same session as PacketLogger (both byte orders) and btsnoop H4 gives the same records.
    @Test func packetLoggerAgreesWithBTSnoop() throws {
        let dir = "formats/clean_heart_rate.central"
        let h4 = try readAll(path: Fixtures.capture("\(dir).h4.btsnoop"))
        let le = try readAll(path: Fixtures.capture("\(dir).le.pklg"))
        let be = try readAll(path: Fixtures.capture("\(dir).be.pklg"))
        #expect(le.format == .packetLogger(bigEndian: false))
        #expect(be.format == .packetLogger(bigEndian: true))
        #expect(le.damage == nil && be.damage == nil)
        #expect(le.records.count == 123 && be.records.count == 123)
        #expect(le.records.map(\.hciIdentity) == h4.records.map(\.hciIdentity))
        #expect(be.records.map(\.hciIdentity) == h4.records.map(\.hciIdentity))
        #expect(be.records.map(\.originalLength) == h4.records.map(\.originalLength))
    }
}
