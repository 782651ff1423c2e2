import BLEBytes
import BLEController
import BLEPackets
import CaptureIO
import TestSupport
import Testing

/// The capture's advertisers on the virtual air with their captured event types: an Android
/// capture (domyos treadmill) whose scan saw connectable ADV_IND advertisers, scannable but
/// non-connectable ADV_SCAN_IND ones (Exposure Notification beacons), and the treadmill it
/// connected to.
/// What the host is shown is checked against the capture's own LE Advertising Reports, read
/// here straight from its HCI events (not through the replay model the controller uses).
@Suite struct AdvertisingTests {
    static let domyos = Fixtures.capture("public/btsnoop-android_domyos-treadmill-ftms.log")
    static let treadmill = BDAddr("E8:5D:86:0A:72:7F")!
    static let scannableOnly = BDAddr("40:33:74:62:75:47")!

    /// Per advertiser in the capture: the event type of its last report other than SCAN_RSP,
    /// and whether a SCAN_RSP from it was seen.
    static func captured(_ path: String) throws -> [BDAddr: (type: UInt8, scanResponse: Bool)] {
        let reader = try CaptureFile.open(path: path)
        var out: [BDAddr: (type: UInt8, scanResponse: Bool)] = [:]
        while let r = reader.next() {
            guard r.kind == .hciEvent, r.direction == .received else { continue }
            let b = r.payload.toArray()
            guard b.count > 3, b[0] == HCIEventCode.leMeta, b[2] == HCILESubeventCode.advertisingReport else {
                continue
            }
            let entries = Array(b[3...]).withByteView { v in
                HCILEAdvertisingReport(parameters: v).map { $0.reports.map { ($0.address, $0.eventType) } } ?? []
            }
            for (a, t) in entries {
                var e = out[a] ?? (HCILEAdvertisingReportEntry.advInd, false)
                if t == HCILEAdvertisingReportEntry.scanResponse { e.scanResponse = true } else { e.type = t }
                out[a] = e
            }
        }
        return out
    }

    static func scan(_ bench: Bench, active: Bool, extended: Bool) -> [Event] {
        if extended {
            var p = ByteWriter()
            for v: UInt8 in [1, 0, 1, active ? 1 : 0] { p.appendUInt8(v) }
            p.appendUInt16LE(96)
            p.appendUInt16LE(96)
            _ = bench.command(HCIOpcode.leSetExtendedScanParameters, p.bytes)
            _ = bench.command(HCIOpcode.leSetExtendedScanEnable, [1, 0, 0, 0, 0, 0])
        } else {
            _ = bench.command(
                HCIOpcode.leSetScanParameters,
                HCILESetScanParameters(
                    scanType: active ? 1 : 0, interval: 96, window: 96, ownAddressType: 1, filterPolicy: 0
                ).parameterBytes)
            _ = bench.command(HCIOpcode.leSetScanEnable, [1, 0])
        }
        // Long enough for the slowest captured advertiser's interval.
        let out = bench.wait(6_000_000).compactMap(Event.init)
        if extended {
            _ = bench.command(HCIOpcode.leSetExtendedScanEnable, [0, 0, 0, 0, 0, 0])
        } else {
            _ = bench.command(HCIOpcode.leSetScanEnable, [0, 0])
        }
        return out
    }

    @Test func legacyScanShowsEachAdvertiserWithItsCapturedEventType() throws {
        let captured = try Self.captured(Self.domyos)
        #expect(captured[Self.scannableOnly]?.type == HCILEAdvertisingReportEntry.advScanInd)
        #expect(captured.count >= 5)
        let bench = try LinkLayerTests.initialised(Self.domyos)
        let seen = LinkLayerTests.reports(
            Self.scan(bench, active: true, extended: false).map {
                [4, $0.code, UInt8($0.parameters.count)] + $0.parameters
            })
        var types: [BDAddr: Set<UInt8>] = [:]
        for (a, _, _, t) in seen { types[a, default: []].insert(t) }
        // Every captured advertiser is on the air, with its captured type; scannable ones
        // (ADV_IND, ADV_SCAN_IND) answer the active scan, the others do not.
        #expect(Set(types.keys) == Set(captured.keys))
        for (a, c) in captured {
            let got = try #require(types[a])
            let scannable =
                c.type == HCILEAdvertisingReportEntry.advInd || c.type == HCILEAdvertisingReportEntry.advScanInd
            let expected: Set<UInt8> = scannable ? [c.type, HCILEAdvertisingReportEntry.scanResponse] : [c.type]
            #expect(got == expected, "\(a)")
        }
        // The captured data: the treadmill's ADV_IND and SCAN_RSP, the ADV_SCAN_IND
        // advertiser's (an Exposure Notification beacon, its scan response empty).
        let data = { (a: BDAddr, t: UInt8) in Set(seen.filter { $0.0 == a && $0.3 == t }.map { Hex.string($0.1) }) }
        #expect(data(Self.treadmill, HCILEAdvertisingReportEntry.advInd) == ["0201060f09446f6d796f732d54432d30313234"])
        #expect(data(Self.treadmill, HCILEAdvertisingReportEntry.scanResponse) == ["020a00"])
        #expect(data(Self.scannableOnly, HCILEAdvertisingReportEntry.advScanInd).count == 1)
        #expect(data(Self.scannableOnly, HCILEAdvertisingReportEntry.scanResponse) == [""])
        // Passive scanning: no scan responses at all.
        let passive = LinkLayerTests.reports(
            Self.scan(bench, active: false, extended: false).map {
                [4, $0.code, UInt8($0.parameters.count)] + $0.parameters
            })
        #expect(!passive.isEmpty && !passive.contains { $0.3 == HCILEAdvertisingReportEntry.scanResponse })
    }

    @Test func extendedScanCarriesTheLegacyEventTypesAsBits() throws {
        let bench = try LinkLayerTests.initialised(Self.domyos, enhanced: true)
        let events = Self.scan(bench, active: true, extended: true)
        let entries = events.filter { $0.subevent == HCILESubeventCode.extendedAdvertisingReport }.flatMap { e in
            Array(e.parameters.dropFirst()).withByteView { v in
                HCILEExtendedAdvertisingReport(parameters: v).map { $0.reports.map { ($0.address, $0.eventType) } }
                    ?? []
            }
        }
        typealias E = HCILEExtendedAdvertisingReportEntry
        // 7.7.65.13: ADV_IND 0x13, ADV_SCAN_IND 0x12, their SCAN_RSP 0x1B and 0x1A.
        #expect(Set(entries.filter { $0.0 == Self.treadmill }.map(\.1)) == [0x13, 0x1B])
        #expect(Set(entries.filter { $0.0 == Self.scannableOnly }.map(\.1)) == [0x12, 0x1A])
        #expect(entries.allSatisfy { $0.1 & E.legacyBit != 0 })
    }

    /// LE Create Connection to the scannable, non-connectable advertiser: no connection, as a
    /// controller whose CONNECT_IND no one accepts; the host's cancel ends it with 0x02, and
    /// the report says why. The treadmill itself connects.
    @Test func aNonConnectableAdvertiserIsNeverConnected() throws {
        let bench = try LinkLayerTests.initialised(Self.domyos)
        func create(_ peer: BDAddr, type: UInt8) -> HCILECreateConnection {
            HCILECreateConnection(
                scanInterval: 96, scanWindow: 96, initiatorFilterPolicy: 0, peerAddressType: type,
                peerAddress: peer, ownAddressType: 1,
                connection: HCIConnectionParameters(
                    intervalMin: 24, intervalMax: 24, maxLatency: 0, supervisionTimeout: 72, minCELength: 0,
                    maxCELength: 0))
        }
        let status = bench.send(create(Self.scannableOnly, type: 1).h4Encoded()).compactMap { Event($0)?.commandStatus }
        #expect(status.first?.status == HCIError.success)
        #expect(!bench.wait(5_000_000).compactMap(Event.init).contains { isConnectionComplete($0) })
        let cancelled = bench.command(HCIOpcode.leCreateConnectionCancel).compactMap(Event.init)
        let complete = try #require(cancelled.first { $0.subevent == HCILESubeventCode.connectionComplete })
        #expect(complete.parameters[1] == HCIError.unknownConnectionIdentifier)
        #expect(bench.controller.connectedHandles.isEmpty)
        let report = bench.controller.report()
        #expect(report.unansweredConnections.count == 1)
        #expect(report.unansweredConnections.first?.contains("ADV_SCAN_IND (not connectable)") == true)
        #expect(report.text().contains("connection attempt not answered: 40:33:74:62:75:47"))

        bench.send(create(Self.treadmill, type: 0).h4Encoded())
        let up = bench.wait(1_000_000).compactMap(Event.init).first { isConnectionComplete($0) }
        #expect(up != nil)
        #expect(bench.controller.connectedHandles.count == 1)
    }
}
