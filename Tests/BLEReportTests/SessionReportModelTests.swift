import BLEBytes
import BLELint
import BLETimeline
import Foundation
import TestSupport
import Testing

@testable import BLEReport

/// The model the HTML page is drawn from, built from the shared Bumble captures whose facts
/// are documented frame by frame in captures/bumble/README.md.
@Suite struct SessionReportModelTests {
    static func model(_ name: String) -> (model: SessionReportModel, report: CaptureReport) {
        SessionReportBuilder.build(path: Fixtures.capture("bumble/\(name).btsnoop"))
    }

    /// Android's offloaded scan filters on the scans of the shipped domyos capture (the bytes are
    /// described in BLETimelineTests/ScanFiltersTimelineTests): scans at 179 and 187 with index 3
    /// (UUID FE2C) and 4 (service data 2CFE00); the scan of 235 got the all-pass index 1 at 240;
    /// 247 started with it; 264 without; 278 with it again.
    @Test func domyosScansCarryTheirOffloadedFilters() throws {
        let (m, _) = SessionReportBuilder.build(
            path: Fixtures.capture("public/btsnoop-android_domyos-treadmill-ftms.log"))
        #expect(m.scanning.map(\.startFrame) == [179, 187, 235, 247, 264, 278])
        #expect(m.scanning.first?.filters == "APCF enabled: index 3 UUID FE2C; index 4 service data 2cfe00")
        #expect(m.scanning.map(\.passesEverything) == [false, false, true, true, true, true])
        #expect(
            m.scanning.first { $0.startFrame == 247 }?.filters?.hasPrefix(
                "APCF enabled: index 1 all-pass; index 3 UUID FE2C") == true)
    }

    /// A sniffed connection carries its link-layer counters into the page: the whad capture's
    /// AA 0x92DDA6F5 (tshark: btle.link_layer_data.access_address of frame 1), 1603 data PDUs
    /// (every frame after the AUX_CONNECT_REQ), 1415 of them empty; encrypted from frame 1287 on,
    /// but decrypted (the capture's legacy pairing gives the key), so none is unreadable.
    @Test func sniffedConnectionsShowTheirLinkLayerCounters() throws {
        let (m, report) = SessionReportBuilder.build(
            path: Fixtures.capture("public/pcap-lell256_whad-pairing-gatt-conn-update.pcap"))
        #expect(report.error == nil)
        let ll = try #require(m.connections.first?.linkLayer)
        #expect(ll.accessAddress == "0x92DDA6F5")
        #expect(ll.dataPDUs == 1603 && ll.emptyPDUs == 1415)
        #expect(ll.encryptedFromFrame == nil && ll.encryptedPDUs == 0)
        #expect(ll.decryptedPDUs > 0 && ll.micFailures == 0)
        #expect(ll.retransmissions > 0 && ll.retransmissionRate == Double(ll.retransmissions) / 1603)
        #expect(!ll.directionInferred)
    }

    /// The link-layer charts' data against tshark on the nRF Sniffer capture (272, which gives
    /// channel index, RSSI and direction per packet): `tshark -Y btle.data_header -T fields -e
    /// nordic_ble.channel` counts per channel 0–36 (below), `-e nordic_ble.rssi -e
    /// nordic_ble.direction`: 758 PDUs from the central (direction 1) summing to -47,843 dBm and
    /// 760 from the peripheral summing to -47,864; no CRC errors.
    @Test func sniffedConnectionsCarryChannelUseAndRSSIPerSide() throws {
        let (m, _) = SessionReportBuilder.build(
            path: Fixtures.capture("public/pcap-nordic272_bsniffhub-encrypted-bad-mic.pcap"))
        let ll = try #require(m.connections.first?.linkLayer)
        let radio = try #require(ll.radio)
        #expect(
            radio.channelPDUs == [
                42, 42, 34, 50, 36, 56, 28, 38, 30, 50, 44, 42, 36, 41, 34, 32, 40, 30, 61, 29, 40, 47, 50, 28, 32, 46,
                36, 30, 44, 28, 56, 56, 52, 52, 44, 36, 46,
            ])
        // tshark's 1,518 data PDUs on the access address: the connection's 1,517 up to the
        // LL_TERMINATE_IND blecap decrypts (frame 1522) and the peripheral's acknowledgement
        // after it (1523), which is on the air but after the link's end.
        #expect(radio.channelPDUs.reduce(0, +) == 1518 && ll.dataPDUs == 1517)
        #expect(radio.channelCRCErrors.allSatisfy { $0 == 0 })
        let central = radio.rssiCentral.buckets.reduce(into: (0, 0)) {
            $0.0 += $1.count
            $0.1 += $1.sum
        }
        let peripheral = radio.rssiPeripheral.buckets.reduce(into: (0, 0)) {
            $0.0 += $1.count
            $0.1 += $1.sum
        }
        #expect(central == (758, -47_843))
        #expect(peripheral == (760, -47_864))
        let retransmissions = radio.retransmissions.buckets.reduce(into: (0, 0)) {
            $0.0 += $1.pdus
            $0.1 += $1.retransmitted
        }
        #expect(retransmissions == (ll.dataPDUs + 1, ll.retransmissions))
        // An HCI capture has no radio to chart.
        #expect(Self.model("clean_heart_rate.central").model.connections.allSatisfy { $0.linkLayer == nil })
    }

    @Test func cleanHeartRateCollapsesTheTwentyNotificationsIntoOneBand() throws {
        let (m, report) = Self.model("clean_heart_rate.central")
        #expect(report.error == nil)
        #expect(m.header.frames == 123)
        #expect(m.header.connections == 1)
        #expect(m.connections.count == 1)
        #expect(m.findings.isEmpty)
        #expect(m.header.findings == SeverityCounts(error: 0, warning: 0, note: 0))
        let c = try #require(m.connections.first)
        #expect(c.peer == "D8:0D:18:00:00:01")
        #expect(c.peerName == "PulseBelt HR")
        #expect(c.role == "central")
        #expect(c.mtu == 247)
        #expect(c.ended == "local")
        #expect(c.notifications == 20)
        // README: 20 notifications at 1 Hz on Heart Rate Measurement, and nothing between them.
        let notificationRows = c.sequence.filter { $0.op == "Notification" }
        #expect(notificationRows.count == 1)
        let band = try #require(notificationRows.first)
        #expect(band.count == 20)
        #expect(band.name == "Heart Rate Measurement")
        #expect(band.dir == "p2c")
        #expect(band.samples?.count == SessionReportModel.Limits.bandSamples)
        #expect(band.lastFrame > band.frame)
        // Every other exchange stays a row of its own: MTU, discovery, reads, subscribe, disconnect.
        #expect(c.sequence.contains { $0.op == "MTU Exchange" && $0.detail?.contains("ATT_MTU 247") == true })
        #expect(c.sequence.filter { $0.op == "Read" }.count == 4)
        #expect(c.sequence.contains { $0.op == "Subscribe" && $0.name == "Heart Rate Measurement CCCD" })
        #expect(c.sequence.last?.op == "Disconnection")
        // Discovery ends with Attribute Not Found 6 times: the normal end, not an error.
        #expect(c.sequence.allSatisfy { $0.error == nil })
        #expect(c.attErrors == 0)
        // The 20 notifications are all in the throughput series.
        #expect(m.throughput.buckets.reduce(0) { $0 + $1.notifyPDUs } == 20)
        // Two advertisers with RSSI series, the decoy included.
        #expect(Set(m.devices.compactMap(\.name)) == ["PulseBelt HR", "Thermo-1"])
        #expect(m.devices.allSatisfy { $0.rssi.map { !$0.buckets.isEmpty } ?? false })
        #expect(m.scanning.count >= 1)
        // The GATT tree of the peer: Heart Rate service with a notifying measurement.
        let db = try #require(m.databases.first { $0.side == "remote" })
        #expect(db.peer == "D8:0D:18:00:00:01")
        let hr = try #require(db.services.first { $0.name == "Heart Rate" })
        let measurement = try #require(hr.characteristics.first { $0.name == "Heart Rate Measurement" })
        #expect(measurement.properties.contains("Notify"))
        #expect(measurement.descriptors.contains { $0.uuid == "2902" || $0.uuid.hasPrefix("00002902") })
        #expect(m.latency.first { $0.operation == "Read" }?.count == 4)
    }

    @Test func oversizedWritesHaveLintsFindingsEachAnchoredInTheSequenceChart() throws {
        let path = Fixtures.capture("bumble/oversized_and_unchecked_writes.central.btsnoop")
        let (m, report) = SessionReportBuilder.build(path: path)
        // The same findings as a plain lint run (`blecap lint`), in the same order.
        let lint = CaptureLinter.lint(path: path)
        #expect(!lint.findings.isEmpty)
        #expect(m.findings.count == lint.findings.count)
        #expect(m.findings.map(\.rule) == lint.findings.map(\.ruleID))
        #expect(
            m.findings.map(\.frames)
                == lint.findings.map { Array($0.frames.prefix(SessionReportModel.Limits.findingFrames)) })
        #expect(report.findings.map(\.fingerprint) == lint.findings.map(\.fingerprint))
        let bySeverity = m.header.findings
        #expect(bySeverity.error == lint.findings.filter { $0.severity == .error }.count)
        #expect(bySeverity.warning == lint.findings.filter { $0.severity == .warning }.count)
        #expect(bySeverity.note == lint.findings.filter { $0.severity == .note }.count)
        let c = try #require(m.connections.first)
        for f in m.findings {
            #expect(!f.explanation.isEmpty && !f.fix.isEmpty && f.docs == "docs/rules/\(f.slug).md")
            // A Bumble capture's fix is Core Bluetooth's, and so are its API references.
            #expect(f.references.contains { $0.hasPrefix("Core Bluetooth: ") })
            #expect(!f.references.contains { $0.hasPrefix("Android: ") })
            // Every finding on the connection points at a row that holds one of its frames.
            let anchor = try #require(f.anchors.first, "\(f.rule) \(f.message) has no row")
            #expect(anchor.connection == c.number)
            #expect(f.frames.contains { c.sequence[anchor.item].covers($0) })
        }
        // README (e): 200 Write Commands to 0x0014, back to back: one band.
        let band = try #require(c.sequence.first { $0.count > 1 })
        #expect(band.count == 200)
        #expect(band.op == "Write Command" && band.handle == 0x0014)
        #expect(band.bytes == 200 * 20)
        // (c): the write to the read-only value is answered 0x03: a red row, not collapsed.
        let refused = try #require(c.sequence.first { $0.frame == 73 })
        #expect(refused.error?.contains("Write Not Permitted") == true)
        #expect(refused.responseFrame == 75)
        #expect(c.attErrors == 1)
        // (a): the 40-byte Write Request says it exceeds ATT_MTU−3.
        let oversized = try #require(c.sequence.first { $0.frame == 57 })
        #expect(oversized.detail?.contains("> ATT_MTU−3 (20)") == true)
        // 201 Write Commands + 1 + 3 prepare parts + 2 Write Requests… all writes counted.
        #expect(m.throughput.buckets.reduce(0) { $0 + $1.writePDUs } == c.writes)
    }

    @Test func longNotifyStreamStaysSmall() throws {
        let (m, _) = Self.model("long_notify_stream.central")
        #expect(m.header.frames == 28_602)
        let c = try #require(m.connections.first)
        #expect(m.connections.count == 1)
        #expect(c.notifications == 5_040)
        #expect(c.notificationBytes == 668_645)
        // 5,040 notifications are one band; the chart has a handful of rows.
        #expect(c.sequence.count < 30)
        #expect(c.sequence.filter { $0.op == "Notification" }.map(\.count) == [5_040])
        // Buckets: bounded, and nothing lost when they merged.
        #expect(m.throughput.buckets.count <= SessionReportModel.Limits.throughputBuckets)
        #expect(m.throughput.buckets.reduce(0) { $0 + $1.notifyPDUs } == 5_040)
        #expect(m.throughput.buckets.reduce(0) { $0 + $1.notifyBytes } == 668_645)
        let density = try #require(c.density)
        #expect(density.buckets.count <= SessionReportModel.Limits.densityBuckets)
        #expect(density.buckets.reduce(0) { $0 + $1.count } == 5_040)
        // README: the peripheral asks for 7.5–11.25 ms (accepted), the update sets 11.25 ms.
        let request = try #require(c.parameters.first { $0.kind == "request" })
        #expect(request.intervalMs == 7.5 && request.intervalMaxMs == 11.25 && request.accepted == true)
        #expect(c.parameters.contains { $0.kind == "update" && $0.intervalMs == 11.25 && $0.timeoutMs == 4000 })
        let html = HTMLReportRenderer.render([m])
        #expect(html.utf8.count < 200_000, "page is \(html.utf8.count) bytes")
    }

    @Test func bucketSeriesCoarsensWithinCapacityAndKeepsTotals() {
        var s = BucketSeries<CountBucket>(start: 0, width: 1_000, capacity: 8)
        for t in stride(from: Int64(0), to: 1_000_000, by: 1_000) { s.add(at: t) { $0.count += 1 } }
        #expect(s.buckets.count <= 8)
        #expect(s.buckets.reduce(0) { $0 + $1.count } == 1_000)
        #expect(s.width * 8 >= 1_000_000 && s.width * 4 < 1_000_000)
        // A clock stepping backwards lands in bucket 0, it does not grow the series.
        var back = BucketSeries<CountBucket>(start: 5_000, width: 1_000, capacity: 8)
        back.add(at: -1_000_000) { $0.count += 1 }
        #expect(back.buckets.count == 1 && back.width == 1_000)
    }

    @Test func longSequencesKeepHeadAndTailAndCountTheRest() throws {
        let aggregator = SessionAggregator(path: "synthetic")
        let peer = BDAddrValue.peer
        var frame = 1
        // 1,000 alternating reads and writes: nothing collapses, so the chart must be capped.
        for i in 0..<1_000 {
            let write = i % 2 == 1
            let op = AttributeOperation.make(
                opcode: write ? 0x12 : 0x0A, handle: 0x10, attribute: nil, mtu: 23, offset: nil, sent: true)
            var e = TimelineEvent(
                frame: frame, time: Int64(frame) * 1_000, connection: 1, peer: peer,
                kind: write ? .write(op, .request) : .read(op, .read))
            e.outcome = .success(frame: frame + 1, latency: 1_000)
            aggregator.event(e)
            frame += 2
        }
        let m = aggregator.finish(CaptureReport(path: "synthetic"))
        let c = try #require(m.connections.first)
        let limits = (head: SessionReportModel.Limits.sequenceHead, tail: SessionReportModel.Limits.sequenceTail)
        #expect(c.sequence.count == limits.head + limits.tail)
        #expect(c.tailStart == limits.head)
        let omitted = try #require(c.omitted)
        #expect(omitted.items == 1_000 - limits.head - limits.tail)
        #expect(omitted.events == omitted.items)
        #expect(omitted.firstFrame == c.sequence[limits.head - 1].frame + 2)
        #expect(omitted.lastFrame + 2 == c.sequence[limits.head].frame)
        // The tail is the last rows in order, ending at the last event.
        #expect(c.sequence.last?.frame == frame - 2)
        #expect(
            zip(c.sequence.dropFirst(limits.head), c.sequence.dropFirst(limits.head + 1)).allSatisfy {
                $0.frame < $1.frame
            })
        #expect(m.latency.first { $0.operation == "Read" }?.count == 500)
        #expect(
            m.latency.first { $0.operation == "Write Request" }?.bins[LatencyHistogram.edges.firstIndex(of: 1_000)!]
                == 500)
    }

    @Test func pageEmbedsTheDataWithoutLettingAnyStringEndTheScript() {
        var header = ReportHeader(path: "</script><script>alert(1)</script><!--.btsnoop")
        header.frames = 1
        let model = SessionReportModel(header: header, throughput: BucketSeries(start: 0, width: 1, capacity: 2))
        let html = HTMLReportRenderer.render([model])
        // Only the two script elements of the page close; the hostile name is escaped.
        #expect(html.components(separatedBy: "</script>").count - 1 == 2)
        #expect(!html.contains("<script>alert"))
        #expect(html.contains("\\u003c/script\\u003e"))
        let title = html.components(separatedBy: "<title>")[1].components(separatedBy: "</title>")[0]
        #expect(!title.contains("<") && title.contains("&lt;"))
    }
}

enum BDAddrValue {
    static let peer = BDAddr(rawValue: 0xD8_0D_18_00_00_01)
}
