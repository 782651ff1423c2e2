import BLEBytes
import BLEPackets
import BLETimeline
import CaptureIO
import TestSupport
import Testing

/// Link-layer procedures at their instant (issue 28): the scenarios `make_link_layer.py
/// --procedure` writes to captures/linklayer/procedures.* (checked against tshark by
/// `check_link_layer.py --procedures`). Frame numbers are tshark's (`nordic_ble.event_counter`,
/// `btle.control_opcode` in the comments).
@Suite struct LinkLayerProcedureTests {
    static func timeline(_ name: String) throws -> Timeline {
        try Timeline(Fixtures.capture("linklayer/procedures.\(name).nordic272.pcapng"))
    }

    static func disconnections(_ t: Timeline) -> [[Int]] {
        t.of("connection.disconnect").compactMap { e in
            guard case .disconnection(_, let reason, _) = e.kind else { return nil }
            return [e.frame, Int(reason)]
        }
    }

    @Test func aLongIntervalUpdateWithAWindowOffsetKeepsTheConnection() throws {
        // Frame 13 (event 5): LL_CONNECTION_UPDATE_IND WinSize 2, WinOffset 720 (900 ms),
        // Interval 816 (1020 ms), Timeout 600 (6 s), Instant 11; event 11's first PDU is frame 25,
        // 931 ms after event 10's: the old timing's 30 ms, 1.25 ms and the window offset.
        let t = try Self.timeline("conn_update_long_interval")
        #expect(t.connections.count == 1)
        let update = t.of("connection.update")
        #expect(update.map(\.frame) == [25])
        if case .connectionUpdate(_, let timing)? = update.first?.kind {
            #expect(timing.interval == 816 && timing.latency == 0 && timing.supervisionTimeout == 600)
        }
        // LL_CHANNEL_MAP_IND (frame 31, instant 17) applies at frame 37; LL_PHY_UPDATE_IND
        // (frame 41, 2M both ways, instant 22) at frame 47; LL_LENGTH_RSP at frame 50; the
        // peripheral's LL_START_ENC_REQ at frame 54.
        #expect(t.of("connection.channel_map").map(\.frame) == [37])
        let phy = t.of("connection.phy").compactMap { e -> [Int]? in
            guard case .phyUpdate(_, let tx, let rx) = e.kind else { return nil }
            return [e.frame, Int(tx), Int(rx)]
        }
        #expect(phy == [[47, 2, 2]])
        #expect(t.of("connection.data_length").map(\.frame) == [50])
        #expect(t.of("connection.encryption").map(\.frame) == [54])
        // The peripheral's LL_TERMINATE_IND 0x13 (frame 66) ends it, nothing before.
        #expect(Self.disconnections(t) == [[66, 0x13]])
        let c = try #require(t.connections.first)
        #expect(c.endReason == 0x13 && c.endSide == .remote && c.endFrame == 66 && !c.unknownStart)
        let ll = try #require(c.linkLayer)
        #expect(ll.channelMap == 0x18_003F_FFFF && ll.txPHY == 2 && ll.rxPHY == 2)
        #expect(ll.missedEvents == 0)
        // The sniffer decrypted the encrypted PDUs itself (272: encrypted, MIC OK): LL_START_ENC_RSP
        // both ways, the ATT read and its response, LL_PAUSE_ENC_REQ / RSP.
        #expect(ll.encryptedPDUs == 0 && ll.snifferDecryptedPDUs == 6)
    }

    @Test func instantsPastTheWrapOfTheEventCounter() throws {
        // Joined at event 65525 (no CONNECT_IND), empty PDUs hidden. LL_CONNECTION_UPDATE_IND at
        // event 65530 (frame 3), instant 2: frame 5; LL_CHANNEL_MAP_IND (frame 4, instant 5)
        // and LL_PHY_UPDATE_IND (frame 7, instant 8): frame 8, event 10, the first PDU past both.
        let t = try Self.timeline("instant_wraps")
        #expect(t.connections.count == 1)
        let update = t.of("connection.update")
        #expect(update.map(\.frame) == [5])
        if case .connectionUpdate(_, let timing)? = update.first?.kind {
            #expect(timing.interval == 40 && timing.supervisionTimeout == 200)
        }
        #expect(t.of("connection.channel_map").map(\.frame) == [8])
        #expect(t.of("connection.phy").map(\.frame) == [8])
        #expect(Self.disconnections(t) == [[10, 0x16]])
        let c = try #require(t.connections.first)
        #expect(c.endSide == .local && c.linkLayer?.usedChannels == 29)
    }

    @Test func missedEventsAndALatePeerAreOneConnection() throws {
        // The peripheral answers from event 3 on; events 10-23 (700 ms, past the 500 ms
        // supervision timeout) are not in the capture; the same access address carries the
        // rest, up to the central's LL_TERMINATE_IND 0x16 at frame 30.
        let t = try Self.timeline("late_peer_missed_events")
        #expect(t.connections.count == 1)
        #expect(Self.disconnections(t) == [[30, 0x16]])
        let c = try #require(t.connections.first)
        #expect(c.endSide == .local && !c.unknownStart)
        #expect((c.linkLayer?.missedEvents ?? 0) >= 14)
    }

    @Test func aConnectIndNobodyAnsweredFailedToBeEstablished() throws {
        // CONNECT_IND at frame 2: the central's empty PDUs of events 0-5 go unanswered; the
        // second CONNECT_IND to the same peripheral (frame 10) is answered, and the peripheral
        // ends that link with LL_TERMINATE_IND 0x13 (frame 18).
        // The first is a failed attempt, reported as an HCI host would get it (connection.failed,
        // 0x3E, at the CONNECT_IND's frame, no connection number), never a connection: the one
        // connection is the answered CONNECT_IND, numbered #1.
        let t = try Self.timeline("unanswered_connect_ind")
        let failed = t.of("connection.failed")
        #expect(failed.map(\.frame) == [2] && failed.allSatisfy { $0.connection == nil })
        if case .connectionFailed(let info)? = failed.first?.kind {
            #expect(info.status == 0x3E && info.role == 0)
        }
        #expect(failed.first?.peer?.description == "C0:00:5E:00:53:02")
        #expect(t.of("connection.complete").map(\.frame) == [10])
        #expect(Self.disconnections(t) == [[18, 0x13]])
        #expect(t.connections.map(\.number) == [1] && t.connections.map(\.endReason) == [0x13])
        #expect(t.connections.first?.facts.startFrame == 10)
        // Nothing the attempt did carries a connection number.
        #expect(t.events.filter { $0.frame < 10 }.allSatisfy { $0.connection == nil })
    }

    @Test func parameterRequestsAskAndOnlyTheUpdateChangesTheParameters() throws {
        // The peripheral's LL_CONNECTION_PARAM_REQ (frame 8, 7.5-15 ms) is refused by the
        // central's LL_REJECT_EXT_IND 0x3B (frame 9); the central's REQ (frame 15, 50-60 ms,
        // latency 2, 4 s) and the peripheral's RSP (frame 18) lead to LL_CONNECTION_UPDATE_IND
        // (frame 19: WinSize 2, WinOffset 5, 50 ms, instant 14), in force from frame 31.
        let t = try Self.timeline("conn_param_request")
        let controls = t.of("ll.control").compactMap { e -> [Int]? in
            guard case .linkLayerControl(let op, _, _) = e.kind else { return nil }
            return [e.frame, Int(op)]
        }
        #expect(controls == [[8, 0x0F], [9, 0x11], [15, 0x0F], [18, 0x10], [19, 0x00]])
        #expect(Self.disconnections(t) == [[39, 0x16]])
        #expect(t.of("connection.update").map(\.frame) == [31])
        let c = try #require(t.connections.first)
        let p = try #require(c.facts.parameters)
        #expect(p.map(\.frame) == [2, 31])
        #expect(p.map(\.intervalUs) == [30_000, 50_000] && p.map(\.latency) == [0, 2])
        #expect(p.map(\.timeoutMs) == [1000, 4000])
        #expect(p.map(\.windowOffsetUs) == [2500, 6250] && p.map(\.windowSizeUs) == [1250, 2500])
        #expect(p.map(\.instant) == [nil, 14] && p.map(\.updateFrame) == [nil, 19])
        #expect(c.facts.intervalUs == 50_000 && c.facts.parametersOmitted == nil)
    }

    @Test func theParameterHistoryFollowsEachUpdateAtItsInstant() throws {
        // CONNECT_IND (frame 2: 30 ms, 720 ms, WinOffset 3, WinSize 2), then the update of frame
        // 13 at instant 11 (frame 25: 1020 ms, 6 s, WinOffset 720, WinSize 2).
        let t = try Self.timeline("conn_update_long_interval")
        let p = try #require(t.connections.first?.facts.parameters)
        #expect(p.map(\.frame) == [2, 25] && p.map(\.intervalUs) == [30_000, 1_020_000])
        #expect(p.map(\.timeoutMs) == [720, 6000] && p.map(\.windowOffsetUs) == [3750, 900_000])
        #expect(p.map(\.instant) == [nil, 11] && p.map(\.updateFrame) == [nil, 13])
    }

    @Test func aLinkSilentForGoodWasLostToItsSupervisionTimeout() throws {
        // Event 5 (frame 13) is the last PDU on the link; the peripheral advertises again for
        // 3 s, far past the 720 ms timeout: Connection Timeout, at the end of the capture.
        let t = try Self.timeline("supervision_timeout")
        #expect(Self.disconnections(t) == [[44, 0x08]])
        let c = try #require(t.connections.first)
        #expect(t.connections.count == 1 && c.endSide == .linkLoss)
    }
}
