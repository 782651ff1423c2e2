import BLETimeline
import TestSupport
import Testing

/// The peer's RSSI as facts of each connection's summary (issue 29): HCI Read RSSI results for
/// its handle, the sniffer's RSSI of the peripheral's PDUs; a bounded ring.
@Suite struct RSSIHistoryTests {
    @Test func readRSSIResultsAreTheLinksSamples() throws {
        // tshark -Y 'bthci_evt.opcode == 0x1405' -T fields -e frame.number -e bthci_evt.rssi:
        // frames 14, 16 … 34, -58 … -86 dBm, all for handle 0x0040: 11 results, the ring keeps them all.
        let t = try Timeline(Fixtures.capture("diagnose/rssi_falling.supervision_timeout.btsnoop"))
        let r = try #require(t.connections.first?.rssi)
        #expect(r.total == 11)
        #expect(r.samples.map(\.frame) == Array(stride(from: 14, through: 34, by: 2)))
        #expect(r.samples.map(\.dBm) == [-58, -59, -58, -60, -61, -64, -68, -72, -77, -82, -86])
        #expect(r.samples.allSatisfy { $0.source == .readRSSI })
    }

    @Test func theRingKeepsTheLastSamples() {
        var r = RSSIHistory()
        for i in 0..<(RSSIHistory.capacity + 5) {
            r.add(RSSISample(frame: i, time: Int64(i), dBm: Int8(-i), source: .sniffer))
        }
        #expect(r.total == RSSIHistory.capacity + 5)
        #expect(r.samples.count == RSSIHistory.capacity)
        #expect(r.samples.first?.frame == 5 && r.samples.last?.frame == RSSIHistory.capacity + 4)
    }

    @Test func noRSSIWithoutReadRSSI() throws {
        let t = try Timeline(Fixtures.capture("diagnose/buffer_stall.supervision_timeout.btsnoop"))
        #expect(t.connections.first?.rssi.total == 0)
    }
}
