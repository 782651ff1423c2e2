import BLEBytes
import BLEPackets
import Testing

// LE Meta event payloads after the H4 type byte: 3e, length, subevent, parameters.

/// The subevent parameters of an LE Meta event payload.
private func subevent<R>(_ hex: String, _ body: (ByteView) -> R) -> R {
    hciBytes(hex).withByteView { body(HCIEventPacket($0)!.subeventParameters) }
}

@Suite struct HCILEEventTests {
    @Test func connectionCompleteFromBumble() {
        // clean_heart_rate.central frame 43: success, handle 0x0001, role central, peer Random
        // D8:0D:18:00:00:01, interval 0x000C (15 ms), latency 0, timeout 0x0048 (720 ms), SCA 0.
        let hex = "3e 13 01 00 01 00 00 01 01 00 00 18 0d d8 0c 00 00 00 48 00 00"
        subevent(hex) { p in
            let c = HCILEConnectionComplete(parameters: p)!
            #expect(c.status == 0 && c.handle == 1 && c.isCentral)
            #expect(c.peerAddressType == 1 && c.peerAddress == BDAddr("D8:0D:18:00:00:01"))
            #expect(c.interval == 0x000C && c.intervalMicroseconds == 15_000)
            #expect(c.latency == 0)
            #expect(c.supervisionTimeout == 0x0048 && c.supervisionTimeoutMicroseconds == 720_000)
            #expect(c.centralClockAccuracy == 0)
        }
        #expect(
            hciDescribeEvent(hex).lines == [
                "event_code=0x3E LE Meta", "parameter_total_length=19", "subevent_code=0x01 LE Connection Complete",
                "status=0x00 Success", "connection_handle=0x0001", "role=0x00 Central", "peer_address_type=0x01 Random",
                "peer_address=D8:0D:18:00:00:01", "connection_interval=15000us", "peripheral_latency=0",
                "supervision_timeout=720000us", "central_clock_accuracy=0x00 500 ppm",
            ])
        // clean_heart_rate.peripheral frame 37: the peripheral's side, peer C0:FF:EE:00:00:01, SCA 7.
        subevent("3e 13 01 00 01 00 01 01 01 00 00 ee ff c0 0c 00 00 00 48 00 07") { p in
            let c = HCILEConnectionComplete(parameters: p)!
            #expect(!c.isCentral && c.peerAddress == BDAddr("C0:FF:EE:00:00:01") && c.centralClockAccuracy == 7)
        }
        // One byte short (no clock accuracy).
        subevent("3e 12 01 00 01 00 00 01 01 00 00 18 0d d8 0c 00 00 00 48 00") {
            #expect(HCILEConnectionComplete(parameters: $0) == nil)
        }
    }

    @Test func enhancedConnectionCompleteV1FromAndroid() {
        // btsnoop-android_pogo-plus-pairing-1970clock.log frame 113: success, handle 0x0004,
        // central, peer Public 7C:BB:8A:CB:0C:8D, no RPAs, interval 36 (45 ms), latency 0,
        // timeout 2000 (20 s), SCA 0.
        let hex = "3e 1f 0a 00 04 00 00 00 8d 0c cb 8a bb 7c 00 00 00 00 00 00 00 00 00 00 00 00 24 00 00 00 d0 07 00"
        subevent(hex) { p in
            let c = HCILEEnhancedConnectionComplete(parameters: p)!
            #expect(c.version == 1 && c.status == 0 && c.handle == 4 && c.isCentral)
            #expect(c.peerAddressType == 0 && c.peerAddress == BDAddr("7C:BB:8A:CB:0C:8D"))
            #expect(c.localResolvablePrivateAddress.rawValue == 0 && c.peerResolvablePrivateAddress.rawValue == 0)
            #expect(c.intervalMicroseconds == 45_000 && c.supervisionTimeoutMicroseconds == 20_000_000)
            #expect(c.advertisingHandle == nil)
        }
        let lines = hciDescribeEvent(hex).lines
        #expect(lines[2] == "subevent_code=0x0A LE Enhanced Connection Complete")
        #expect(lines.contains("local_resolvable_private_address=00:00:00:00:00:00"))
        #expect(lines.contains("connection_interval=45000us"))
        // btsnoop-android_nexxtender-charger-pairing.log frame 1029: a cancelled attempt,
        // status 0x02 Unknown Connection Identifier, handle 0x0042.
        let failed = hciDescribeEvent(
            "3e 1f 0a 02 42 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 24 00 00 00 f4 01 00")
        #expect(failed.value("status") == "0x02 Unknown Connection Identifier")
        #expect(failed.notes.isEmpty)
    }

    @Test func enhancedConnectionCompleteV2AddsHandles() {
        // The frame above as subevent 0x29, with advertising handle 0x00 and sync handle 0xFFFF.
        let hex =
            "3e 22 29 00 04 00 01 00 8d 0c cb 8a bb 7c 00 00 00 00 00 00 00 00 00 00 00 00 24 00 00 00 d0 07 00 00 ff ff"
        subevent(hex) { p in
            let c = HCILEEnhancedConnectionComplete(parameters: p, version: 2)!
            #expect(c.version == 2 && !c.isCentral && c.advertisingHandle == 0 && c.syncHandle == 0xFFFF)
            // Read as v1, the three extra bytes are not part of it; read as v2 without them fails.
            #expect(HCILEEnhancedConnectionComplete(parameters: p.prefix(30), version: 2) == nil)
        }
        let sink = hciDescribeEvent(hex)
        #expect(sink.lines[2] == "subevent_code=0x29 LE Enhanced Connection Complete [v2]")
        #expect(sink.lines.suffix(2) == ["advertising_handle=0x00", "sync_handle=0xFFFF"])
        #expect(sink.notes.isEmpty)
    }

    @Test func connectionUpdateDataLengthPHYAndFeatures() {
        // long_notify_stream.central frame 40: success, handle 1, 11.25 ms, latency 0, 4 s.
        subevent("3e 0a 03 00 01 00 09 00 00 00 90 01") { p in
            let u = HCILEConnectionUpdateComplete(parameters: p)!
            #expect(
                u.status == 0 && u.handle == 1 && u.intervalMicroseconds == 11_250
                    && u.supervisionTimeoutMicroseconds == 4_000_000)
        }
        // Data Length Change: handle 1, TX 251 B / 2120 µs, RX 27 B / 328 µs.
        let dle = "3e 0b 07 01 00 fb 00 48 08 1b 00 48 01"
        subevent(dle) { p in
            let d = HCILEDataLengthChange(parameters: p)!
            #expect(
                d.handle == 1 && d.maxTxOctets == 251 && d.maxTxTime == 2120 && d.maxRxOctets == 27
                    && d.maxRxTime == 328)
        }
        #expect(hciDescribeEvent(dle).value("max_tx_time") == "2120us")
        // PHY Update Complete: handle 1 → 2M both ways.
        subevent("3e 06 0c 00 01 00 02 02") { p in
            let u = HCILEPHYUpdateComplete(parameters: p)!
            #expect(u.txPHY == 2 && u.rxPHY == 2)
        }
        #expect(hciDescribeEvent("3e 06 0c 00 01 00 02 03").value("rx_phy") == "0x03 LE Coded")
        // btsnoop-android_pogo-plus frame 121: Read Remote Features Complete, handle 4, features 0x01.
        subevent("3e 0c 04 00 04 00 01 00 00 00 00 00 00 00") { p in
            let f = HCILEReadRemoteFeaturesComplete(parameters: p)!
            #expect(f.handle == 4 && f.features == 1)
        }
        subevent("3e 03 04 00 04") { #expect(HCILEReadRemoteFeaturesComplete(parameters: $0) == nil) }
    }

    @Test func longTermKeyRequestAndSetTerminatedAndCSA() {
        // indications_and_errors.peripheral frame 130: handle 1, random 0, EDIV 0 (LE SC).
        subevent("3e 0d 05 01 00 00 00 00 00 00 00 00 00 00 00") { p in
            let r = HCILELongTermKeyRequest(parameters: p)!
            #expect(r.handle == 1 && r.randomNumber == 0 && r.encryptedDiversifier == 0)
        }
        // clean_heart_rate.peripheral frame 38: success, set 0, connection 0x0001, 0 events.
        subevent("3e 06 12 00 00 01 00 00") { p in
            let t = HCILEAdvertisingSetTerminated(parameters: p)!
            #expect(t.status == 0 && t.advertisingHandle == 0 && t.connectionHandle == 1)
        }
        // Channel Selection Algorithm #2 on handle 0x0040.
        subevent("3e 04 14 40 00 01") { p in
            let c = HCILEChannelSelectionAlgorithm(parameters: p)!
            #expect(c.handle == 0x40 && c.algorithm == 1)
        }
        #expect(hciDescribeEvent("3e 04 14 40 00 01").value("channel_selection_algorithm") == "0x01 #2")
        // Scan Timeout has no parameters; a stray byte is noted.
        #expect(hciDescribeEvent("3e 01 11").lines.last == "subevent_code=0x11 LE Scan Timeout")
        #expect(hciDescribeEvent("3e 02 11 00").notes == ["!unexpected trailing bytes"])
    }

    @Test func legacyAdvertisingReportFromAndroid() {
        // btsnoop-android_pogo-plus frame 13: 1 report, ADV_IND, Public 7C:BB:8A:CB:0C:8D,
        // 27 bytes of AD (Flags 0x06, name "Pokemon GO Plus", 32-bit service data), RSSI -48.
        let ad = "02 01 06 10 09 50 6f 6b 65 6d 6f 6e 20 47 4f 20 50 6c 75 73 06 20 62 04 c5 21 00"
        let hex = "3e 27 02 01 00 00 8d 0c cb 8a bb 7c 1b " + ad + " d0"
        subevent(hex) { p in
            let r = HCILEAdvertisingReport(parameters: p)!
            #expect(r.isComplete && r.count == 1)
            let e = Array(r.reports)
            #expect(e.count == 1)
            #expect(e[0].eventType == 0 && e[0].addressType == 0 && e[0].address == BDAddr("7C:BB:8A:CB:0C:8D"))
            #expect(e[0].data.count == 27 && e[0].rssi == -48)
        }
        let lines = hciDescribeEvent(hex).lines
        #expect(
            Array(lines.prefix(9)) == [
                "event_code=0x3E LE Meta", "parameter_total_length=39", "subevent_code=0x02 LE Advertising Report",
                "num_reports=1", "{report", "event_type=0x00 ADV_IND", "address_type=0x00 Public",
                "address=7C:BB:8A:CB:0C:8D", "data_length=27",
            ])
        #expect(Array(lines.dropFirst(9)) == hciAdvertisingLines(ad) + ["rssi=-48dBm", "}"])
    }

    @Test func advertisingReportsBoundedAgainstNumReports() {
        // Two reports: SCAN_RSP (2 bytes AD, RSSI -60) then ADV_NONCONN_IND (no AD, RSSI -70).
        let two = "02 02 04 01 01 00 00 00 00 c0 02 01 06 c4 03 00 02 00 00 00 00 c0 00 ba"
        subevent("3e 18 " + two) { p in
            let r = HCILEAdvertisingReport(parameters: p)!
            #expect(r.isComplete)
            #expect(Array(r.reports).map(\.rssi) == [-60, -70])
            #expect(Array(r.reports).map(\.eventType) == [4, 3])
        }
        // num_reports claims 3: the two whole ones come out, the shortfall is noted.
        let claimsThree = "3e 18 02 03" + String(two.dropFirst(5))
        subevent(claimsThree) { p in
            let r = HCILEAdvertisingReport(parameters: p)!
            #expect(r.count == 2 && !r.isComplete)
        }
        #expect(hciDescribeEvent(claimsThree).notes.last == "!fewer reports than num_reports")
        // Data_Length 0xFF running past the end: no report is yielded, bytes kept.
        let overrun = "3e 0c 02 01 00 00 00 00 00 00 00 c0 ff 01"
        subevent(overrun) { p in
            let r = HCILEAdvertisingReport(parameters: p)!
            #expect(r.count == 0 && Array(r.reports).isEmpty && r.remainder.count == 10)
        }
        let sink = hciDescribeEvent(overrun)
        #expect(sink.notes == ["!fewer reports than num_reports"])
        #expect(sink.value("remaining") == "00000000000000c0ff01")
        // Zero reports, zero bytes: fine and empty.
        subevent("3e 02 02 00") { #expect(HCILEAdvertisingReport(parameters: $0)!.isComplete) }
        // num_reports missing entirely.
        subevent("3e 01 02") { #expect(HCILEAdvertisingReport(parameters: $0) == nil) }
        #expect(hciDescribeEvent("3e 01 02").notes == ["!missing num_reports"])
    }

    @Test func extendedAdvertisingReportFromBumble() {
        // clean_heart_rate.central frame 37: 1 report, event type 0x0001 (connectable), Random
        // D8:0D:18:00:00:01, PHYs 1/1, SID 0, TX power 0, RSSI -50, no periodic, no direct
        // address, 29 bytes of AD ("PulseBelt HR" advertising 0x180D, 0x180F, 0x180A).
        let ad = "02 01 06 07 03 0d 18 0f 18 0a 18 03 19 41 03 0d 09 50 75 6c 73 65 42 65 6c 74 20 48 52"
        let hex = "3e 37 0d 01 01 00 01 01 00 00 18 0d d8 01 01 00 00 ce 00 00 00 00 00 00 00 00 00 1d " + ad
        subevent(hex) { p in
            let r = HCILEExtendedAdvertisingReport(parameters: p)!
            #expect(r.isComplete)
            let e = Array(r.reports)
            #expect(e.count == 1)
            #expect(e[0].eventType == 0x0001 && e[0].isConnectable && !e[0].isScanResponse && !e[0].isLegacy)
            #expect(e[0].address == BDAddr("D8:0D:18:00:00:01") && e[0].addressType == 1)
            #expect(e[0].rssi == -50 && e[0].txPower == 0 && e[0].primaryPHY == 1)
            #expect(e[0].data.count == 29 && e[0].dataStatus == 0)
        }
        let lines = hciDescribeEvent(hex).lines
        #expect(
            Array(lines.prefix(18)) == [
                "event_code=0x3E LE Meta", "parameter_total_length=55",
                "subevent_code=0x0D LE Extended Advertising Report",
                "num_reports=1", "{report", "event_type=0x0001[Connectable]", "data_status=0x00 Complete",
                "address_type=0x01 Random", "address=D8:0D:18:00:00:01", "primary_phy=0x01 LE 1M",
                "secondary_phy=0x01 LE 1M", "advertising_sid=0x00", "tx_power=0dBm", "rssi=-50dBm",
                "periodic_advertising_interval=0us", "direct_address_type=0x00 Public",
                "direct_address=00:00:00:00:00:00", "data_length=29",
            ])
        #expect(Array(lines.dropFirst(18)) == hciAdvertisingLines(ad) + ["}"])
        // Frame 38: the same as scan response (event type 0x0008).
        subevent("3e 37 0d 01 08 00" + String(hex.dropFirst(17))) { p in
            let e = Array(HCILEExtendedAdvertisingReport(parameters: p)!.reports)
            #expect(e.count == 1 && e[0].isScanResponse)
        }
        // Data length 0x1D but only 3 AD bytes present: nothing yielded, noted, bytes kept.
        let cut = "3e 1d 0d 01 01 00 01 01 00 00 18 0d d8 01 01 00 00 ce 00 00 00 00 00 00 00 00 00 1d 02 01 06"
        subevent(cut) { #expect(HCILEExtendedAdvertisingReport(parameters: $0)!.count == 0) }
        #expect(hciDescribeEvent(cut).notes == ["!fewer reports than num_reports"])
    }

    @Test func directedAdvertisingReport() {
        // 1 report: ADV_DIRECT_IND from Random C0:FF:EE:00:00:02 to RPA 4A:11:22:33:44:55, RSSI -40.
        let hex = "3e 12 0b 01 01 01 02 00 00 ee ff c0 01 55 44 33 22 11 4a d8"
        subevent(hex) { p in
            let r = HCILEDirectedAdvertisingReport(parameters: p)!
            let e = Array(r.reports)
            #expect(r.isComplete && e.count == 1)
            #expect(e[0].address == BDAddr("C0:FF:EE:00:00:02") && e[0].directAddress == BDAddr("4A:11:22:33:44:55"))
            #expect(e[0].rssi == -40)
        }
        #expect(hciDescribeEvent(hex).lines.suffix(3) == ["direct_address=4A:11:22:33:44:55", "rssi=-40dBm", "}"])
        // Claims 2 reports, holds 1 and a half.
        subevent("3e 1a 0b 02 01 01 02 00 00 ee ff c0 01 55 44 33 22 11 4a d8 01 01 02 00 00 ee ff c0") { p in
            let r = HCILEDirectedAdvertisingReport(parameters: p)!
            #expect(r.count == 1 && r.remainder.count == 8 && !r.isComplete)
        }
    }
}
