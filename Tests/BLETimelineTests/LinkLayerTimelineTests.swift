import BLEBytes
import BLEPackets
import BLETimeline
import CaptureIO
import TestSupport
import Testing

/// Connections without HCI: the timeline of over-the-air captures. Expected values are tshark's
/// decode of the same frames (btle / btatt fields named in the comments).
@Suite struct LinkLayerTimelineTests {
    static func capture(_ name: String) -> String { Fixtures.capture("public/\(name)") }

    @Test func connectionFromAuxConnectReqThroughGATTToEncryption() throws {
        let t = try Timeline(Self.capture("pcap-lell256_whad-pairing-gatt-conn-update.pcap"))
        // Frame 1 AUX_CONNECT_REQ: AdvA 74:da:ea:91:47:e3, interval 36, latency 0, timeout 500.
        let start = try #require(t.at(1, "connection.complete"))
        #expect(start.peer == BDAddr("74:DA:EA:91:47:E3"))
        if case .connectionComplete(let info) = start.kind {
            #expect(
                info.role == 0 && info.timing == ConnectionTiming(interval: 36, latency: 0, supervisionTimeout: 500))
        }
        // Frame 11 LL_CONNECTION_UPDATE_IND: interval 6 (7.5 ms), timeout 500, instant 14. It
        // takes effect at event 14: 14 × 45 ms after event 0 (frame 2, +0.003408 s), the first
        // central PDU there is frame 31 (+0.633420 s), and the next one (frame 33) follows the
        // new 7.5 ms interval.
        if case .linkLayerControl(let op, _, let instant)? = t.at(11, "ll.control")?.kind {
            #expect(op == LLControlOpcode.connectionUpdateInd && instant == 14)
        } else {
            Issue.record("no ll.control at frame 11")
        }
        let update = try #require(t.of("connection.update").first)
        #expect(update.frame == 31)
        let event0 = try #require(t.at(2, "ll.control")).time
        #expect(abs(update.time - (event0 + 14 * 45_000)) < 1_000)
        if case .connectionUpdate(_, let timing) = update.kind {
            #expect(timing == ConnectionTiming(interval: 6, latency: 0, supervisionTimeout: 500))
        }
        // LL Control facts: LL_FEATURE_REQ (2), LL_VERSION_IND (7, 10), LL_ENC_REQ (1279).
        #expect(t.at(2, "ll.control") != nil && t.at(7, "ll.control") != nil && t.at(1279, "ll.control") != nil)
        // LL_START_ENC_REQ from the peripheral at 1286; ciphertext from 1287 (tshark shows
        // undecodable control opcodes 0xe9 … from there), which blecap decrypts: the legacy
        // pairing's TK is recovered from the capture.
        #expect(t.at(1286, "connection.encryption") != nil)
        #expect(t.at(1287, "ll.decryption") != nil)
        #expect(t.of("ll.encrypted").isEmpty)
        // Read By Group Type Responses at frames 20, 24, 28 (btatt.uuid128).
        let c = try #require(t.connections.first)
        let services = c.remoteDatabase.services.map { $0.uuid.description }
        #expect(services.contains("A8B3FFF0-4834-4051-89D0-3DE95CDDD318"))
        #expect(services.contains("A8B3FFE0-4834-4051-89D0-3DE95CDDD318"))
        #expect(services.contains("F000FFC0-0451-4000-B000-000000000000"))
        let ll = try #require(c.linkLayer)
        #expect(ll.accessAddress == 0x92DD_A6F5)
        #expect(ll.encryptedFromFrame == nil)
        #expect(ll.emptyPDUs == 1415)  // tshark: btle.data_header.llid == 1 && length == 0
        #expect(ll.retransmissions > 0 && ll.encryptedPDUs == 0 && ll.decryptedPDUs > 0 && ll.micFailures == 0)
        #expect(!c.unknownStart)
    }

    @Test func captureStartingMidConnectionGetsAConnection() throws {
        // The whad capture from frame 100 on: its CONNECT_IND (frame 1) is not seen.
        let reader = try CaptureFile.open(path: Self.capture("pcap-lell256_whad-pairing-gatt-conn-update.pcap"))
        let decoder = FrameDecoder()
        var events: [TimelineEvent] = []
        var ended: [ConnectionSummary] = []
        let builder = TimelineBuilder(emit: { events.append($0) }, connectionEnded: { ended.append($0) })
        while let r = reader.next() { if r.frame >= 100 { builder.feed(decoder.decode(r)) } }
        builder.finish()
        #expect(ended.count == 1)
        let c = try #require(ended.first)
        #expect(c.unknownStart && c.startFrame == 100)
        #expect(c.linkLayer?.accessAddress == 0x92DD_A6F5)
        #expect(!events.contains { $0.type.description == "connection.complete" })
        // GATT still decodes: the Read By Type Request of frame 131 (tshark btatt.opcode 0x08).
        #expect(events.contains { $0.frame == 131 && $0.type.description == "gatt.discover.includes" })
    }

    @Test func terminateIndEndsTheConnection() throws {
        // tshark: LL_TERMINATE_IND (btle.control_opcode 0x02) at frame 663, error code 0x13.
        let t = try Timeline(Self.capture("pcap-lell256_bsniffhub-phy-update-2m-coded.pcap"))
        let end = try #require(t.at(663, "connection.disconnect"))
        if case .disconnection(_, let reason, let side) = end.kind {
            #expect(reason == 0x13)
            #expect(side == .local)  // the central sent it
        }
        #expect(t.connections.first?.endFrame == 663)
        // LL_PHY_UPDATE_IND in this capture: a connection.phy event.
        #expect(!t.of("connection.phy").isEmpty)
    }

    @Test func silenceLongerThanTheSupervisionTimeoutThenMorePDUsIsOneConnection() throws {
        // The whad capture with everything from frame 300 on shifted 6 s later: its supervision
        // timeout is 5 s (LLData Timeout 500), yet the same access address carries PDUs after
        // the gap: the sniffer lost the link (missed events), the link went on (issue 28 item 5).
        let reader = try CaptureFile.open(path: Self.capture("pcap-lell256_whad-pairing-gatt-conn-update.pcap"))
        let decoder = FrameDecoder()
        var events: [TimelineEvent] = []
        var ended: [ConnectionSummary] = []
        let builder = TimelineBuilder(emit: { events.append($0) }, connectionEnded: { ended.append($0) })
        while var r = reader.next() {
            if r.frame >= 300 { r.timestamp += 6_000_000 }
            builder.feed(decoder.decode(r))
        }
        builder.finish()
        #expect(!events.contains { $0.type.description == "connection.disconnect" })
        #expect(ended.count == 1 && !ended[0].unknownStart && ended[0].endReason == nil)
        #expect((ended.first?.linkLayer?.missedEvents ?? 0) > 100)
    }

    /// Data PDUs on one access address, as a 256 sniffer that checked the CRC gives them.
    static func feedDataPDUs(_ pdus: [(time: Int64, central: Bool, pdu: [UInt8])]) -> [TimelineEvent] {
        let decoder = FrameDecoder()
        var events: [TimelineEvent] = []
        let builder = TimelineBuilder(emit: { events.append($0) })
        for (i, p) in pdus.enumerated() {
            let bytes = p.pdu + [0, 0, 0]  // the CRC (the sniffer's verdict stands)
            bytes.withUnsafeBytes { raw in
                var radio = LinkLayerRadio()
                radio.accessAddress = 0x5065_A1B2
                radio.channel = 5
                radio.channelType = .data
                radio.sender = p.central ? .central : .peripheral
                radio.flags = [.crcChecked, .crcValid]
                let record = CaptureRecord(
                    frame: i + 1, timestamp: p.time, direction: p.central ? .sent : .received, kind: .linkLayer,
                    rawType: 0, payload: ByteView(raw), originalLength: bytes.count, fileOffset: 0,
                    recordLength: bytes.count, radio: radio)
                builder.feed(decoder.decode(record))
            }
        }
        builder.finish()
        return events
    }

    @Test func aSilenceOnALinkSeenMidConnectionIsNoEndWhenItsPDUsGoOn() throws {
        // A link seen mid-connection (no CONNECT_IND, no event counter): its
        // LL_CONNECTION_UPDATE_IND applies at the PDU (interval 40 × 1.25 ms, timeout 10 × 10 ms).
        // The next PDU comes 199 ms later, past the new timeout, on the same access address:
        // the sniffer missed events, the connection goes on; within the timeout nothing ends
        // either.
        let empty: [UInt8] = [0x01, 0x00]
        let update: [UInt8] = [0x03, 12, 0x00, 1, 0x00, 0x00, 40, 0x00, 0x00, 0x00, 10, 0x00, 0x20, 0x00]
        let late = Self.feedDataPDUs([
            (0, true, empty), (1_000, true, update), (200_000, true, empty), (200_500, false, empty),
        ])
        #expect(!late.contains { $0.type.description == "connection.disconnect" })
        #expect(late.filter { $0.type.description == "connection.update" }.map(\.frame) == [2])
        let kept = Self.feedDataPDUs([
            (0, true, empty), (1_000, true, update), (90_000, true, empty), (180_000, false, empty),
        ])
        #expect(!kept.contains { $0.type.description == "connection.disconnect" })
    }

    @Test func theNordicEventCounterCountsMissedEventsFromEveryPDU() throws {
        // bsniffhub's nRF output: tshark's nordic_ble.event_counter runs 1–764 on the link with
        // 760 distinct values (4 events missing); some peripheral PDUs carry counter 0, which
        // agrees with no time and opens no event.
        let t = try Timeline(Self.capture("pcap-nordic272_bsniffhub-encrypted-bad-mic.pcap"))
        #expect(t.connections.count == 1)
        #expect(t.connections.first?.linkLayer?.missedEvents == 4)
    }

    @Test func damagedAccessAddressesOnAdvertisingChannelsMakeNoConnection() throws {
        // HackRF on channel 37 only: a few packets whose access address arrived damaged.
        let t = try Timeline(Self.capture("pcap-lell256_ice9-hackrf-adv37.pcap"))
        #expect(t.connections.isEmpty)
        #expect(!t.of("advertisement").isEmpty)
    }

    // MARK: procedures with an instant (Core 5.4 Vol 6 Part B 5.1.2, 5.1.10)

    @Test func phyUpdatesTakeEffectAtTheirInstant() throws {
        // bsniffhub's PHY changes (256: the pseudo-header gives each packet's PHY). tshark
        // `-Y btle.control_opcode==0x18` shows LL_PHY_UPDATE_IND at frames 335 (C→P and P→C
        // 0x04 Coded, instant 99), 435 (both 0: no change), 539 (0x02 2M, instant 201) and 585
        // (0x01 1M, instant 224); its btle_rf.phy switches at frames 347 (Coded), 551 (2M) and
        // 597 (1M): the first packets of events 99, 201 and 224 (100 ms apart from frame 148's
        // CONNECT_IND on).
        let t = try Timeline(Self.capture("pcap-lell256_bsniffhub-phy-update-2m-coded.pcap"))
        for frame in [335, 435, 539, 585] {
            if case .linkLayerControl(let op, _, _)? = t.at(frame, "ll.control")?.kind {
                #expect(op == LLControlOpcode.phyUpdateInd)
            } else {
                Issue.record("no ll.control at frame \(frame)")
            }
        }
        let phy = t.of("connection.phy").map { e -> [Int] in
            guard case .phyUpdate(_, let tx, let rx) = e.kind else { return [] }
            return [e.frame, Int(tx), Int(rx)]
        }
        // The no-change update ends at its PDU and repeats the PHYs in use (Coded).
        #expect(phy == [[347, 3, 3], [435, 3, 3], [551, 2, 2], [597, 1, 1]])
        let ll = try #require(t.connections.first?.linkLayer)
        #expect(ll.txPHY == 1 && ll.rxPHY == 1 && ll.usedChannels == 37)
    }

    /// A CONNECT_IND (interval 30 ms, all 37 channels), then one connection event per 30 ms, the
    /// central's PDU and the peripheral's answer 500 µs later (empty unless `control` gives the
    /// central's PDU for that event), as a 256 sniffer that checked the CRC gives them; events in
    /// `missed` are not in the capture. Returns the events, the frame of each event's first PDU
    /// and the connection summaries.
    static func connection(
        events count: Int, control: [Int: [UInt8]], missed: Set<Int> = [], nordicCounterFrom: Int? = nil
    ) -> (events: [TimelineEvent], firstFrame: [Int: Int], connections: [ConnectionSummary]) {
        let aa: UInt32 = 0x5065_A1B2
        var records: [(time: Int64, radio: LinkLayerRadio, bytes: [UInt8])] = []
        if nordicCounterFrom == nil {
            var connectInd: [UInt8] = [0x05, 34] + [1, 2, 3, 4, 5, 0xC0] + [0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
            connectInd += withUnsafeBytes(of: aa.littleEndian, Array.init) + [0x55, 0x55, 0x55]  // AA, CRCInit
            connectInd += [2, 1, 0, 24, 0, 0, 0, 100, 0]  // WinSize, WinOffset, Interval 24, Latency, Timeout 100
            connectInd += [0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 0x05]  // ChM: channels 0–36; hop 5
            var radio = LinkLayerRadio()
            radio.accessAddress = LLAccessAddress.advertising
            radio.channel = 37
            radio.channelType = .advertising
            radio.flags = [.crcChecked, .crcValid]
            records.append((0, radio, connectInd))
        }
        var sn: [Bool] = [false, false]
        var firstFrame: [Int: Int] = [:]
        for k in 0..<count where !missed.contains(k) {
            firstFrame[k] = records.count + 1
            for central in [true, false] {
                var radio = LinkLayerRadio()
                radio.accessAddress = aa
                radio.channel = UInt8(k % 37)
                radio.channelType = .data
                radio.sender = central ? .central : .peripheral
                radio.flags = [.crcChecked, .crcValid]
                if let first = nordicCounterFrom {
                    radio.flags.insert(.eventCounterValid)
                    radio.eventCounter = UInt16(first + k)
                }
                let side = central ? 0 : 1
                // A new PDU each time (SN toggles) acknowledging the other side's (NESN).
                var pdu = central ? (control[k] ?? [0x01, 0]) : [0x01, 0]
                pdu[0] = pdu[0] & 0x03 | (sn[side] ? 0x08 : 0) | (sn[1 - side] ? 0 : 0x04)
                sn[side].toggle()
                records.append((1_250 + Int64(k) * 30_000 + (central ? 0 : 500), radio, pdu))
            }
        }
        let decoder = FrameDecoder()
        var events: [TimelineEvent] = []
        var connections: [ConnectionSummary] = []
        let builder = TimelineBuilder(emit: { events.append($0) }, connectionEnded: { connections.append($0) })
        for (i, r) in records.enumerated() {
            let bytes = r.bytes + [0, 0, 0]  // the CRC (the sniffer's verdict stands)
            bytes.withUnsafeBytes { raw in
                let record = CaptureRecord(
                    frame: i + 1, timestamp: r.time,
                    direction: r.radio.sender == .central
                        ? .sent : r.radio.sender == .peripheral ? .received : .unknown,
                    kind: .linkLayer, rawType: 0, payload: ByteView(raw), originalLength: bytes.count, fileOffset: 0,
                    recordLength: bytes.count, radio: r.radio)
                builder.feed(decoder.decode(record))
            }
        }
        builder.finish()
        return (events, firstFrame, connections)
    }

    @Test(arguments: [Set<Int>(), [6], [5, 6, 7]])
    func aChannelMapTakesEffectAtItsInstant(missed: Set<Int>) throws {
        // LL_CHANNEL_MAP_IND in event 2: ChM ffff3f0018 (hollong-sniffer-gatt's frame 350 as
        // tshark shows btle.control.channel_map: channels 0–21, 35, 36), instant 6. The event
        // counter is counted from the CONNECT_IND (event 0 at the first central PDU), events the
        // sniffer missed included: the new map applies at the first PDU of event 6, or of the
        // first event after it the capture has.
        let chm: [UInt8] = [0x03, 8, 0x01, 0xFF, 0xFF, 0x3F, 0x00, 0x18, 6, 0]
        let (events, first, connections) = Self.connection(events: 10, control: [2: chm], missed: missed)
        let fact = try #require(events.first { $0.type.description == "ll.control" })
        #expect(fact.frame == first[2])
        if case .linkLayerControl(let op, let byCentral, let instant) = fact.kind {
            #expect(op == LLControlOpcode.channelMapInd && byCentral == true && instant == 6)
        }
        let applied = events.filter { $0.type.description == "connection.channel_map" }
        let expectedFrame = try #require((6..<10).lazy.compactMap { first[$0] }.first)
        #expect(applied.map(\.frame) == [expectedFrame])
        if case .channelMapUpdate(let map)? = applied.first?.kind {
            #expect(map == 0x18_003F_FFFF)
        }
        let ll = try #require(connections.first?.linkLayer)
        #expect(ll.channelMap == 0x18_003F_FFFF && ll.usedChannels == 24)
        // From the CONNECT_IND: LE 1M both ways (a legacy CONNECT_IND is sent on LE 1M).
        #expect(ll.txPHY == 1 && ll.rxPHY == 1)
    }

    @Test func theNordicEventCounterPlacesAnInstantOnALinkSeenMidConnection() throws {
        // No CONNECT_IND (the interval is unknown), but the nRF Sniffer numbers each packet's
        // connection event. LL_PHY_UPDATE_IND in event 102: PHY_C_TO_P 0x02 (2M), PHY_P_TO_C 0
        // (unchanged), instant 105; events 105 and 106 not captured: the PHY changes at event
        // 107's first PDU. The peripheral's PHY was never learned: 0.
        let phy: [UInt8] = [0x03, 5, 0x18, 0x02, 0x00, 105, 0]
        let (events, first, connections) = Self.connection(
            events: 10, control: [2: phy], missed: [5, 6], nordicCounterFrom: 100)
        #expect(events.first { $0.type.description == "ll.control" }?.frame == first[2])
        let applied = events.filter { $0.type.description == "connection.phy" }
        #expect(applied.map(\.frame) == [first[7]])
        if case .phyUpdate(_, let tx, let rx)? = applied.first?.kind {
            #expect(tx == 2 && rx == 0)
        }
        let ll = try #require(connections.first?.linkLayer)
        #expect(ll.txPHY == 2 && ll.rxPHY == nil && ll.channelMap == nil)
    }
}
