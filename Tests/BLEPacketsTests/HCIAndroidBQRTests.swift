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
        // Frame 10: report id 0x09 (RF stats), another layout: kept whole.
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
