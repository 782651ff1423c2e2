import BLEBytes
import BLETimeline
import TestSupport
import Testing

/// The parameters over time in each connection's record (issue 28): every set in force with the
/// frame it applied from, from HCI events and from the air alike.
@Suite struct ConnectionParameterHistoryTests {
    @Test func hciConnectionCompleteThenEachUpdateComplete() throws {
        // LE Connection Complete (frame 31: 15 ms, 720 ms), LE Connection Update Complete
        // (frame 40: 11.25 ms, 4 s). No transmit window nor instant: the HCI does not give them.
        let t = try Timeline.bumble("long_notify_stream.central")
        let p = try #require(t.connections.first?.facts.parameters)
        #expect(p.map(\.frame) == [31, 40])
        #expect(p.map(\.intervalUs) == [15_000, 11_250] && p.map(\.timeoutMs) == [720, 4000])
        #expect(p.allSatisfy { $0.windowOffsetUs == nil && $0.instant == nil && $0.updateFrame == nil })
        #expect(t.connections.first?.facts.intervalUs == 11_250)
    }

    @Test func aSniffedLinkGivesEachUpdateAtItsInstantWithItsWindow() throws {
        // WHAD's capture: CONNECT_IND (frame 1: 45 ms, WinOffset 1, WinSize 2), then three
        // LL_CONNECTION_UPDATE_INDs (frames 11, 193, 291; instants 14, 105, 165), each in force
        // from the first PDU of its instant's event.
        let t = try Timeline(Fixtures.capture("public/pcap-lell256_whad-pairing-gatt-conn-update.pcap"))
        let p = try #require(t.connections.first?.facts.parameters)
        #expect(p.map(\.frame) == t.of("connection.complete").map(\.frame) + t.of("connection.update").map(\.frame))
        #expect(p.map(\.updateFrame) == [nil, 11, 193, 291] && p.map(\.instant) == [nil, 14, 105, 165])
        #expect(p.map(\.intervalUs) == [45_000, 7500, 45_000, 7500])
        #expect(p.first?.windowOffsetUs == 1250 && p.first?.windowSizeUs == 2500)
    }
}
