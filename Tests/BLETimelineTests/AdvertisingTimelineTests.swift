import BLEBytes
import BLEPackets
import BLETimeline
import CaptureIO
import Testing

/// The capture host's own advertising (`advertising.start` / `advertising.stop`), from the
/// HCI commands of captures recorded on the peripheral.
@Suite struct AdvertisingTimelineTests {
    /// The AD structures of clean_heart_rate.peripheral's frame 33 (LE Set Extended
    /// Advertising Data, Operation 0x03, 29 octets): Flags 0x06, 16-bit UUIDs 180D 180F 180A,
    /// Appearance 0x0341, Complete Local Name "PulseBelt HR", as tshark shows them.
    static let heartRateData: [UInt8] =
        [0x02, 0x01, 0x06, 0x07, 0x03, 0x0D, 0x18, 0x0F, 0x18, 0x0A, 0x18, 0x03, 0x19, 0x41, 0x03, 0x0D, 0x09]
        + Array("PulseBelt HR".utf8)

    /// Frames 29–36: Set Extended Advertising Parameters (handle 0, properties 0x0013 legacy
    /// scannable connectable, interval 160/160 = 100 ms, own address random, PHYs 1M/1M), Set
    /// Advertising Set Random Address D8:0D:18:00:00:01, the data, then the Enable of set 0
    /// answered at frame 36.
    @Test func cleanHeartRatePeripheralAdvertisesAsItsCommandsSay() throws {
        let t = try Timeline.bumble("clean_heart_rate.peripheral")
        let start = try #require(t.at(35, "advertising.start"))
        guard case .advertisingStart(let snapshot) = start.kind else { return }
        let s = try #require(t.scanFilterTables.advertising(snapshot))
        #expect(s.extended && s.handle == 0 && s.parametersKnown)
        #expect(s.eventProperties == 0x0013 && s.connectable == true && s.scannable == true)
        #expect(s.intervalMin == 160 && s.intervalMax == 160)
        #expect(s.ownAddressType == 1 && s.randomAddress == BDAddr("D8:0D:18:00:00:01"))
        #expect(s.primaryPHY == 1 && s.secondaryPHY == 1)
        #expect(s.data == Self.heartRateData && s.dataKnown)
        // No scan response was set, and the capture starts with HCI Reset: known empty.
        #expect(s.scanResponse.isEmpty && s.scanResponseKnown)
        #expect(s.duration == 0 && s.maxEvents == 0)
        #expect(start.value.bytes == Self.heartRateData)
        #expect(start.outcome.responseFrame == 36)
        #expect(t.of("advertising.start").count == 1 && t.of("advertising.stop").isEmpty)
    }

    /// reconnect_storm.peripheral enables set 0 again after each connection (frames 35, 60,
    /// 71, 84, 95, 108): each enable is its own event with the same advertising.
    @Test func eachEnableIsAnEvent() throws {
        let t = try Timeline.bumble("reconnect_storm.peripheral")
        let starts = t.of("advertising.start")
        #expect(starts.map(\.frame) == [35, 60, 71, 84, 95, 108])
        let setups = starts.compactMap { e -> AdvertisingSetup? in
            guard case .advertisingStart(let s) = e.kind else { return nil }
            return t.scanFilterTables.advertising(s)
        }
        #expect(setups.count == 6 && setups.allSatisfy { $0 == setups[0] && $0.handle == 0 })
        #expect(starts.allSatisfy { if case .success = $0.outcome { true } else { false } })
    }

    /// Legacy advertising and extended data in fragments, as BLEPackets' encoders write the
    /// commands (the shipped captures have neither): the fragments are assembled, a stop names
    /// the set, a disable of every set says so, and one command's events share its answer.
    @Test func legacyAndFragmentedExtendedAdvertising() throws {
        var records: [[UInt8]] = []
        func command(_ c: some HCICommandEncodable) { records.append(c.h4Encoded()) }
        func complete(_ opcode: UInt16, status: UInt8 = 0) {
            records.append(HCISynthesis.commandComplete(opcode, [status]))
        }
        let random = BDAddr("C4:00:00:00:00:07")!
        command(HCILESetRandomAddress(address: random))
        command(
            HCILESetAdvertisingParameters(intervalMin: 0x20, intervalMax: 0x30, advertisingType: 2, ownAddressType: 1))
        command(HCILESetAdvertisingData(opcode: HCIOpcode.leSetAdvertisingData, data: [0x02, 0x01, 0x06]))
        command(HCILESetAdvertisingData(opcode: HCIOpcode.leSetScanResponseData, data: [0x03, 0x09, 0x41, 0x42]))
        command(HCILESetAdvertisingEnable(enable: 1))
        complete(HCIOpcode.leSetAdvertisingEnable)
        command(HCILESetAdvertisingEnable(enable: 0))
        complete(HCIOpcode.leSetAdvertisingEnable, status: 0x0C)
        // 600 octets of data for set 2: first, intermediate, last fragments.
        let long = (0..<600).map { UInt8(truncatingIfNeeded: $0) }
        for c in HCILESetExtendedAdvertisingData.commands(
            opcode: HCIOpcode.leSetExtendedAdvertisingData, advertisingHandle: 2, data: long)
        {
            command(c)
        }
        command(
            HCILESetExtendedAdvertisingEnable(
                enable: 1,
                sets: [
                    .init(advertisingHandle: 2, duration: 500, maxExtendedAdvertisingEvents: 3),
                    .init(advertisingHandle: 5, duration: 0, maxExtendedAdvertisingEvents: 0),
                ]))
        complete(HCIOpcode.leSetExtendedAdvertisingEnable)
        command(
            HCILESetExtendedAdvertisingEnable(
                enable: 0, sets: [.init(advertisingHandle: 2, duration: 0, maxExtendedAdvertisingEvents: 0)]))
        command(HCILESetExtendedAdvertisingEnable(enable: 0, sets: []))

        let capture = SyntheticCapture()
        for (i, h4) in records.enumerated() {
            let command = h4.first == H4PacketType.command
            capture.feed(
                command ? .hciCommand : .hciEvent, command ? .sent : .received, Array(h4.dropFirst()),
                at: 1_000 * Int64(i))
        }
        capture.builder.finish()
        let t = (
            of: { (type: String) in capture.events.filter { $0.type.description == type } },
            scanFilterTables: capture.builder.scanFilterTables
        )
        let starts = t.of("advertising.start")
        #expect(starts.count == 3)
        let setups = starts.compactMap { e -> AdvertisingSetup? in
            guard case .advertisingStart(let s) = e.kind else { return nil }
            return t.scanFilterTables.advertising(s)
        }
        let legacy = try #require(setups.first)
        #expect(!legacy.extended && legacy.handle == nil && legacy.parametersKnown && legacy.advertisingType == 2)
        #expect(legacy.connectable == false && legacy.scannable == true)
        #expect(legacy.intervalMin == 0x20 && legacy.intervalMax == 0x30 && legacy.randomAddress == random)
        #expect(legacy.data == [0x02, 0x01, 0x06] && legacy.scanResponse == [0x03, 0x09, 0x41, 0x42])
        #expect(starts[0].outcome.responseFrame == 6)
        let stops = t.of("advertising.stop")
        #expect(stops.count == 3)
        if case .advertisingStop(let extended, let handle) = stops[0].kind { #expect(!extended && handle == nil) }
        if case .error(let f, _, let code, _) = stops[0].outcome {
            #expect(f == 8 && code == 0x0C)
        } else {
            Issue.record("the refused disable")
        }
        // Set 2: the fragments whole; set 5: nothing set for it in the capture.
        #expect(setups[1].handle == 2 && setups[1].data == long && setups[1].dataKnown)
        #expect(setups[1].duration == 500 && setups[1].maxEvents == 3 && !setups[1].parametersKnown)
        #expect(setups[2].handle == 5 && setups[2].data.isEmpty && !setups[2].dataKnown)
        #expect(starts[1].frame == starts[2].frame)
        #expect(starts[1].outcome.responseFrame == starts[1].frame + 1)
        #expect(starts[2].outcome.responseFrame == starts[1].frame + 1)
        if case .advertisingStop(let extended, let handle) = stops[1].kind { #expect(extended && handle == 2) }
        if case .advertisingStop(let extended, let handle) = stops[2].kind { #expect(extended && handle == nil) }
    }
}
