import BLEBytes
import BLEPackets
import CaptureIO
import TestSupport
import Testing

// Android's Bluetooth Quality Report: HCI Vendor-Specific event 0xFF, sub-event 0x58. The
// bytes are frame 11 of captures/diagnose/bqr.supervision_timeout.btsnoop (tshark -x; tshark
// leaves the event undecoded), built by make_diagnose_scenarios.py from AOSP's layout.
@Suite struct HCIAndroidBQRTests {
    static let approachingLSTO =
        "ff 31 58 02 01 40 00 00 04 a8 04 03 01 20 03 cd 36 01 00 2f 00 00 00 26 00 00 00 13 00 00 00 88 13 01 00"
        + " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"

    @Test func linkQualityDecodesAndRoundTrips() throws {
        let bytes = hciBytes(Self.approachingLSTO)
        let e = try #require(bytes.withByteView { HCIBluetoothQualityReport(parameters: $0.suffix(from: 2)!) })
        guard case .linkQuality(let q, let trailing) = e.report else {
            Issue.record("not a link-quality report")
            return
        }
        #expect(q.reportID == 0x02 && q.handle == 0x0040 && q.role == 0 && q.txPower == 4)
        #expect(q.rssi == -88 && q.snr == 4 && q.unusedAFHChannels == 3 && q.afhSelectUnidealChannels == 1)
        #expect(q.lsto == 800 && q.piconetClock == 0x0001_36CD)
        #expect(q.retransmissions == 47 && q.noRX == 38 && q.nak == 19 && q.lastTXAckTimestamp == 0x0001_1388)
        #expect(q.flowOff == 0 && q.overflowBytes == 0 && q.underflowBytes == 0)
        #expect(trailing.isEmpty)
        // Encoder beside decoder: the same bytes back, H4 type first.
        #expect(e.h4Encoded() == [0x04] + bytes)
    }

    @Test func laterFieldsAndUnknownIdsAreKept() throws {
        let extra = hciBytes(Self.approachingLSTO + " aa bb").dropFirst(2)
        let withTrailing = try #require(Array(extra).withByteView { HCIBluetoothQualityReport(parameters: $0) })
        guard case .linkQuality(_, let trailing) = withTrailing.report else {
            Issue.record("not a link-quality report")
            return
        }
        #expect(trailing == [0xAA, 0xBB])
        // Frame 10: report id 0x09 (RF stats) cut short of its 82 bytes: kept whole, not guessed.
        let other = try #require(
            hciBytes("58 09 01 02 03 04 05 06 07 08").withByteView { HCIBluetoothQualityReport(parameters: $0) })
        #expect(other.report == .other(id: 0x09, bytes: [0x09, 1, 2, 3, 4, 5, 6, 7, 8]))
        #expect(other.h4Encoded() == hciBytes("04 ff 0a 58 09 01 02 03 04 05 06 07 08"))
        // A Vendor-Specific event of another sub-event is no BQR.
        #expect(hciBytes("57 01 02").withByteView { HCIBluetoothQualityReport(parameters: $0) } == nil)
    }

    @Test func packetsDescribesTheReport() {
        let e = hciDescribeEvent(Self.approachingLSTO)
        #expect(e.lines.contains("subevent_code=0x58 Bluetooth Quality Report"))
        #expect(e.lines.contains("quality_report_id=0x02 Approaching LSTO"))
        #expect(e.lines.contains("connection_handle=0x0040"))
        #expect(e.lines.contains("no_rx_count=38") && e.lines.contains("retransmission_count=47"))
        #expect(e.lines.contains { $0.hasPrefix("rssi=-88") })
        // Anything else stays raw.
        #expect(hciDescribeEvent("ff 03 57 01 02").lines.contains { $0.hasPrefix("parameters=") })
    }

    // Frame 6 of captures/diagnose/bqr.root_inflammation.btsnoop (tshark -x): Root Inflammation,
    // Error_Code 0x00, Vendor_Specific_Error_Code 0x2a, then 5 vendor-defined bytes.
    static let rootInflammation = "ff 09 58 05 00 2a 01 01 02 34 12"

    @Test func rootInflammationDecodesAndRoundTrips() throws {
        let bytes = hciBytes(Self.rootInflammation)
        let e = try #require(bytes.withByteView { HCIBluetoothQualityReport(parameters: $0.suffix(from: 2)!) })
        #expect(
            e.report
                == .rootInflammation(
                    BQRRootInflammation(
                        errorCode: 0x00, vendorErrorCode: 0x2A, vendorParameters: [1, 1, 2, 0x34, 0x12])))
        #expect(e.h4Encoded() == [0x04] + bytes)
        // Only the three bytes every report has: no vendor parameters, and the same bytes back.
        let bare = try #require(hciBytes("58 05 03 17").withByteView { HCIBluetoothQualityReport(parameters: $0) })
        #expect(bare.report == .rootInflammation(BQRRootInflammation(errorCode: 0x03, vendorErrorCode: 0x17)))
        #expect(bare.h4Encoded() == hciBytes("04 ff 04 58 05 03 17"))
        // Cut short before the vendor code: kept whole, not guessed.
        let short = try #require(hciBytes("58 05 03").withByteView { HCIBluetoothQualityReport(parameters: $0) })
        #expect(short.report == .other(id: 0x05, bytes: [0x05, 0x03]))
    }

    @Test func packetsDescribesTheRootInflammation() {
        let e = hciDescribeEvent(Self.rootInflammation)
        #expect(e.lines.contains("quality_report_id=0x05 Root inflammation"))
        #expect(e.lines.contains("error_code=0x00 Success"))
        #expect(e.lines.contains("vendor_specific_error_code=0x2A"))
        #expect(e.lines.contains { $0.hasPrefix("vendor_specific_parameters=") })
        #expect(!e.lines.contains { $0.hasPrefix("report=") })
    }

    // Frames 6 and 7 of captures/diagnose/bqr.rf_stats.supervision_timeout.btsnoop (tshark -x;
    // tshark leaves both undecoded), laid out as AOSP's btif_bqr reads them.
    static let energyMonitoring =
        "ff 52 58 06 0c 00 1c 0c 00 00 28 00 00 00 6c 07 00 00 29 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
        + " 00 00 00 00 00 6c 02 00 00 7c 01 00 00 04 c6 02 00 00 8b 01 00 00 88 13 00 00 bc 02 00 00 0a 00 00 00"
        + " 58 02 00 00 14 00 00 00 00 00 00 00 00 00 00 00"
    static let rfStats =
        "ff 53 58 09 01 88 13 00 00 00 00 00 00 00 00 00 00 34 03 00 00 00 00 00 00 00 00 00 00 00 00 00 00 0a"
        + " 00 00 00 14 00 00 00 28 00 00 00 50 00 00 00 96 00 00 00 90 01 00 00 fa 00 00 00 32 00 00 00 ca 03 00"
        + " 00 14 00 00 00 06 00 00 00 03 00 00 00 01 00 00 00"

    @Test func energyMonitoringDecodesAndRoundTrips() throws {
        let bytes = hciBytes(Self.energyMonitoring)
        let e = try #require(bytes.withByteView { HCIBluetoothQualityReport(parameters: $0.suffix(from: 2)!) })
        guard case .energyMonitoring(let em) = e.report else {
            Issue.record("not an energy monitoring report: \(e.report)")
            return
        }
        #expect(em.averageCurrent == 12 && em.idleTime == 3100 && em.idleEntries == 40)
        #expect(em.activeTime == 1900 && em.activeEntries == 41 && em.bredrTXTime == 0 && em.bredrTXPowerLevel == 0)
        #expect(em.leTXTime == 620 && em.leTXEntries == 380 && em.leTXPowerLevel == 4)
        #expect(em.leRXTime == 710 && em.leRXEntries == 395 && em.period == 5000)
        #expect(em.chainTimes == [700, 10, 600, 20, 0, 0] && em.later.isEmpty)
        #expect(e.h4Encoded() == [0x04] + bytes)
        // BQR v7's two scan RX times after the 81 bytes: kept as sent, and encoded back.
        let longer = Array(bytes.dropFirst(2)) + [1, 0, 0, 0, 2, 0, 0, 0]
        let v7 = try #require(longer.withByteView { HCIBluetoothQualityReport(parameters: $0) })
        guard case .energyMonitoring(let em7) = v7.report else {
            Issue.record("not an energy monitoring report")
            return
        }
        #expect(em7.later == [1, 0, 0, 0, 2, 0, 0, 0])
        #expect(v7.h4Encoded() == [0x04, 0xFF, UInt8(longer.count)] + longer)
        // One byte short of the 81: kept whole.
        let short = Array(bytes.dropFirst(2).dropLast())
        let cut = try #require(short.withByteView { HCIBluetoothQualityReport(parameters: $0) })
        #expect(cut.report == .other(id: 0x06, bytes: Array(short.dropFirst())))
    }

    @Test func rfStatsDecodesAndRoundTrips() throws {
        let bytes = hciBytes(Self.rfStats)
        let e = try #require(bytes.withByteView { HCIBluetoothQualityReport(parameters: $0.suffix(from: 2)!) })
        guard case .rfStats(let rf) = e.report else {
            Issue.record("not an RF stats report: \(e.report)")
            return
        }
        #expect(rf.extensionInfo == 0x01 && rf.period == 5000)
        #expect(rf.txPower == [0, 0, 820, 0])
        #expect(rf.rssiBuckets == [0, 0, 10, 20, 40, 80, 150, 400, 250, 50])
        #expect(rf.rssiDeltaBuckets == [970, 20, 6, 3, 1])
        #expect(rf.received == 1000 && rf.weak == 700 && rf.later.isEmpty)
        #expect(e.h4Encoded() == [0x04] + bytes)
        let short = Array(bytes.dropFirst(2).dropLast(4))
        let cut = try #require(short.withByteView { HCIBluetoothQualityReport(parameters: $0) })
        #expect(cut.report == .other(id: 0x09, bytes: Array(short.dropFirst())))
    }

    @Test func packetsDescribesEnergyAndRFStats() {
        let em = hciDescribeEvent(Self.energyMonitoring)
        #expect(em.lines.contains("quality_report_id=0x06 Energy monitoring"))
        #expect(em.lines.contains("average_current=12") && em.lines.contains("period=5000"))
        #expect(
            em.lines.contains("le_tx_average_power_level=4") && em.lines.contains("tx_ipa_active_one_chain_time=600"))
        #expect(!em.lines.contains { $0.hasPrefix("report=") || $0.hasPrefix("connection_handle=") })
        let rf = hciDescribeEvent(Self.rfStats)
        #expect(rf.lines.contains("quality_report_id=0x09 RF stats"))
        #expect(rf.lines.contains("rssi_80_85=400") && rf.lines.contains("rssi_below_90=50"))
        #expect(rf.lines.contains("tx_ipa_div_packets=820") && rf.lines.contains("rssi_delta_above_11=1"))
        #expect(!rf.lines.contains { $0.hasPrefix("report=") })
    }

    @Test func everyBQREventOfTheScenarioRoundTrips() throws {
        // The generator's bytes (Python) and this encoder agree on every report of the capture.
        let reader = try CaptureFile.open(path: Fixtures.capture("diagnose/bqr.supervision_timeout.btsnoop"))
        var seen = 0
        while let r = reader.next() {
            var packet = r.payload.toArray()
            if packet.first == 0x04 { packet.removeFirst() }  // the H4 type, when the record keeps it
            guard packet.count > 2, packet[0] == 0xFF else { continue }
            let e = try #require(Array(packet.dropFirst(2)).withByteView { HCIBluetoothQualityReport(parameters: $0) })
            #expect(e.h4Encoded() == [0x04] + packet)
            seen += 1
        }
        #expect(seen == 6)
    }
}
