import BLEDiagnose
import Foundation
import TestSupport
import Testing

/// What `captures/diagnose/` (scripts/corpus/make_diagnose_scenarios.py) shows beyond the
/// signatures `diagnose-expected.json` holds: the numbers and addresses the steps give.
@Suite struct DiagnoseCorpusTests {
    static func verdicts(_ name: String) throws -> [Verdict] {
        try DiagnoseScenarioTests.diagnose(Fixtures.existing("diagnose/\(name)"))
    }

    static func step(_ v: Verdict, _ what: String) -> Verdict.Step? { v.steps.first { $0.what == what } }

    @Test func llResponseTimeoutNamesTheCommandLeftOpen() throws {
        let v = try #require(Self.verdicts("ll_response_timeout.le_connection_update.btsnoop").first)
        let s = try #require(Self.step(v, "ll_procedure"))
        // Frame 9 LE Connection Update, 10 its Command Status, 11 the 0x22 end; the LE Set PHY
        // of frames 6–7 completed at frame 8 and is not the one.
        #expect(s.frames == [9, 10, 11])
        #expect(s.text.contains("LE Connection Update (frame 9)"))
        #expect(s.text.contains("40.0 s before the end"))
        let none = try #require(Self.verdicts("ll_response_timeout.nothing_outstanding.btsnoop").first)
        #expect(!none.signature.contains("command="))
        #expect(Self.step(none, "ll_procedure")?.frames == [])
    }

    @Test func loopsGiveCountAndPeriod() throws {
        let accept = try #require(Self.verdicts("reconnect_loop.accept_list.btsnoop").first { $0.kind == .loop })
        #expect(accept.kind == .loop)
        #expect(accept.party == "os-stack")
        let cycles = try #require(Self.step(accept, "cycles"))
        #expect(cycles.text.hasPrefix("4 cycles"))
        #expect(cycles.text.contains("about every 10.0 s"))
        #expect(cycles.text.contains("C0:11:22:33:44:01"))
        let failing = try #require(
            Self.verdicts("reconnect_loop.failed_to_be_established.btsnoop").first { $0.kind == .loop })
        #expect(failing.kind == .loop)
        #expect(failing.peer == "C0:11:22:33:44:01")
        #expect(try #require(Self.step(failing, "cycles")).text.hasPrefix("5 cycles"))
        #expect(failing.summary.contains("about every 2000 ms"))
    }

    @Test func twoFailuresAreNoLoop() throws {
        // The not-scanning capture has one cancelled background connect: no loop verdict.
        #expect(try Self.verdicts("accept_list.not_scanning.btsnoop").allSatisfy { $0.kind != .loop })
    }

    @Test func acceptListStepSaysWhatTheCaptureCanTell() throws {
        let heard = try #require(Self.verdicts("reconnect_loop.accept_list.btsnoop").first)
        let s = try #require(Self.step(heard, "accept_list"))
        #expect(s.text.contains("held C0:11:22:33:44:01;"))
        #expect(s.text.contains("none of them advertised connectably"))
        let silent = try #require(Self.verdicts("accept_list.not_scanning.btsnoop").first)
        #expect(try #require(Self.step(silent, "accept_list")).text.contains("cannot be told"))
        #expect(!silent.signals.contains("accept_list_not_advertising"))
    }

    @Test func nonConnectableTargetCitesItsLastReport() throws {
        let v = try #require(Self.verdicts("non_connectable_target.btsnoop").first)
        let s = try #require(Self.step(v, "target_not_connectable"))
        #expect(s.frames == [7])
        #expect(s.text.contains("ADV_NONCONN_IND (3 reports"))
    }

    @Test func bufferStallIsAStepBeforeTheTimeout() throws {
        let v = try #require(Self.verdicts("buffer_stall.supervision_timeout.btsnoop").first)
        #expect(v.cause == "supervision_timeout")
        #expect(v.signals.contains("acl_buffer_stall"))
        let s = try #require(Self.step(v, "buffer_stall"))
        // Frame 16 took the 4th buffer (LE Read Buffer Size: 4) after the completion of frame
        // 12 freed the first four; the end (0x08) is frame 17, 3.2 s later. The 70 ms during
        // which frames 8–11 held every buffer is below the 1 s threshold and is not cited.
        #expect(s.frames == [16, 17])
        #expect(s.text.contains("for 3200 ms"))
        #expect(s.text.contains("4 packets still unacknowledged"))
    }

    @Test func rssiFallingBeforeTheTimeout() throws {
        let v = try #require(Self.verdicts("rssi_falling.supervision_timeout.btsnoop").first)
        #expect(v.signature == "supervision_timeout role=central end=link_loss reason=0x08")
        #expect(v.signals.contains("rssi_falling"))
        let s = try #require(Self.step(v, "rssi"))
        // tshark -Y 'bthci_evt.opcode == 0x1405' -e bthci_evt.rssi: frame 18 (4.002 s) -58 dBm,
        // the first of the 10 s before the end (frame 35, 14.002 s); frame 34 (12.002 s) -86 dBm,
        // the last and lowest; 9 results in the window. Report 7: the peer advertised at -55 dBm.
        #expect(s.frames == [7, 18, 34])
        #expect(s.text.contains("falling, -58 dBm (10.0 s before) to -86 dBm (2000 ms before), -28 dB"))
        #expect(s.text.contains("minimum -86 dBm, 9 samples from HCI Read RSSI"))
        #expect(s.text.contains("advertised at -55 dBm (frame 7)"))
    }

    @Test func snifferRSSIOverTheAir() throws {
        // tshark -T fields -e frame.number -e nordic_ble.rssi -e nordic_ble.direction: frame 20
        // is the peripheral's first PDU (direction 0) at -50 dBm, frame 1 the peer's advertising
        // at -50 dBm; the link is lost well under a second later: one sample, no trend.
        let path = try Fixtures.existing("linklayer/reconnect_storm.central.nordic272.pcapng")
        let v = try #require(DiagnoseScenarioTests.diagnose(path).first { $0.cause == "supervision_timeout" })
        let s = try #require(Self.step(v, "rssi"))
        #expect(s.frames == [1, 20])
        #expect(s.text.contains("-50 dBm, 748 ms before, from sniffer RSSI of the peripheral's PDUs: no trend"))
        #expect(!v.signals.contains("rssi_falling"))
    }

    @Test func qualityReportBeforeTheTimeout() throws {
        // tshark -x (the events are left undecoded): frames 6–9 and 11 are BQR link-quality
        // reports (0xFF, 0x58) for handle 0x0040, frame 10 an RF-stats report (id 0x09); frame 11
        // (5.0 s), id 0x02: RSSI 0xa8 (-88 dBm), SNR 4, retransmissions 47, no-RX 38, NAK 19;
        // frame 12 (6.0 s) reason 0x08.
        let v = try #require(Self.verdicts("bqr.supervision_timeout.btsnoop").first)
        #expect(v.signature == "supervision_timeout role=central end=link_loss reason=0x08")
        let s = try #require(Self.step(v, "quality_report"))
        #expect(s.frames == [11])
        #expect(s.text.contains("(Approaching LSTO, 1000 ms before the end, 5 in all)"))
        #expect(s.text.contains("RSSI -88 dBm, SNR 4 dB, 38 packets not received, 47 retransmissions, 19 NAKs"))
        // Captures without BQR get no such step.
        #expect(
            Self.step(try #require(Self.verdicts("rssi_falling.supervision_timeout.btsnoop").first), "quality_report")
                == nil)
    }

    @Test func rootInflammationBeforeTheEnd() throws {
        // tshark -x (the event is left undecoded): frame 6 (3.0 s) is event 0xff, 58 05 00 2a …:
        // BQR report id 0x05, Error_Code 0x00, Vendor_Specific_Error_Code 0x2a; frame 7 (4.5 s)
        // reason 0x08. The cause stays the end reason's; the step and the signal say more.
        let v = try #require(Self.verdicts("bqr.root_inflammation.btsnoop").first)
        #expect(v.signature == "supervision_timeout role=central end=link_loss reason=0x08")
        #expect(v.signals == ["controller_fault"])
        let s = try #require(Self.step(v, "root_inflammation"))
        #expect(s.frames == [6, 7])
        #expect(s.certainty == .observed)
        #expect(s.text.contains("error 0x00 Success, vendor code 0x2A, 1500 ms before the end"))
        // A capture whose BQR reports are all link-quality ones has neither.
        let other = try #require(Self.verdicts("bqr.supervision_timeout.btsnoop").first)
        #expect(Self.step(other, "root_inflammation") == nil && !other.signals.contains("controller_fault"))
    }

    @Test func rfStatsBeforeASupervisionTimeout() throws {
        // tshark -x (both events left undecoded): frame 6 (3.0 s) event 0xff 58 06 …, BQR
        // Energy Monitoring; frame 7 (4.5 s) 58 09 01, RF Stats over 0x1388 = 5000 ms, RSSI
        // buckets 0, 0, 10, 20, 40, 80, 150, 400 (0x190), 250 (0xfa), 50 (0x32); frame 8 reason
        // 0x08 at 6.0 s. 700 of the 1000 packets at -80 dBm or weaker.
        let v = try #require(Self.verdicts("bqr.rf_stats.supervision_timeout.btsnoop").first)
        #expect(v.signature == "supervision_timeout role=central end=link_loss reason=0x08")
        #expect(v.signals.isEmpty, "RF stats are the controller's, not the link's: no signal")
        let s = try #require(Self.step(v, "rf_stats"))
        #expect(s.frames == [7] && s.certainty == .observed)
        #expect(s.text.contains("1500 ms before the end"))
        #expect(s.text.contains("of 1000 packets it received, all its links together, 700 (70.0 %)"))
        #expect(s.text.contains("50 below -90 dBm"))
        // The energy report says nothing of the link: no step cites it.
        #expect(!v.frames.contains(6))
        // A report cut short of its 82 bytes (frame 10 of the other BQR capture) is no step.
        let cut = try #require(Self.verdicts("bqr.supervision_timeout.btsnoop").first)
        #expect(Self.step(cut, "rf_stats") == nil)
    }

    @Test func rootInflammationThenAResetEndsTheLink() throws {
        // tshark: 5 LE Connection Complete; 6 (3.0 s) event 0xff 58 05 00 2a …, Root
        // Inflammation; 7 (3.8 s) Sent Reset; 8 its Command Complete. No Disconnection Complete.
        let v = try #require(Self.verdicts("bqr.root_inflammation.reset.btsnoop").first)
        #expect(v.cause == "controller_reset" && v.party == "host" && v.ended == "lost_track")
        #expect(v.signature == "controller_reset role=central end=lost_track")
        #expect(v.signals == ["controller_fault"])
        #expect(v.endFrame == 7 && v.reason == nil)
        #expect(v.steps.map(\.what) == ["reset", "root_inflammation", "why"])
        let ri = try #require(Self.step(v, "root_inflammation"))
        #expect(ri.frames == [6, 7] && ri.text.contains("800 ms before the end"))
        let why = try #require(Self.step(v, "why"))
        #expect(why.certainty == .inferred && why.frames == [6, 7])
        #expect(try #require(Self.step(v, "reset")).certainty == .observed)
    }

    @Test func aResetWithNothingBeforeItSaysWhyIsNotInHCI() throws {
        // tshark: 5 LE Connection Complete (handle 0x0040); 6 (2.0 s) Sent Reset; 10 LE
        // Connection Complete, handle 0x0040 again; 11 Disconnect, 13 Disconnect Complete 0x16.
        let verdicts = try Self.verdicts("reset.mid_connection.btsnoop")
        #expect(verdicts.map(\.cause) == ["controller_reset", "local_host_terminated"])
        let v = try #require(verdicts.first)
        #expect(v.signals.isEmpty && v.endFrame == 6)
        #expect(v.steps.map(\.what) == ["reset", "why"])
        #expect(v.steps.allSatisfy { $0.frames == [6] })
        #expect(v.summary.contains("why it reset is not in the capture"))
        // The reset, not the reuse of the handle at frame 10, is what ended it.
        #expect(!v.steps.contains { $0.text.contains("reused") })
    }

    @Test func noRSSIIsSaid() throws {
        // The buffer-stall capture reads no RSSI and shows no advertising report.
        let v = try #require(Self.verdicts("buffer_stall.supervision_timeout.btsnoop").first)
        let s = try #require(Self.step(v, "rssi"))
        #expect(s.text.hasPrefix("the capture has no RSSI of the peer"))
        #expect(s.frames.isEmpty)
        #expect(!v.signals.contains("rssi_falling"))
    }

    @Test func noStallWithoutTheBufferCount() throws {
        // The other captures never read the buffer size: no stall is claimed.
        let v = try #require(Self.verdicts("ll_response_timeout.le_set_phy.btsnoop").first)
        #expect(!v.signals.contains("acl_buffer_stall"))
    }

    @Test(arguments: ["reconnect_loop.accept_list.btsnoop", "ll_response_timeout.le_set_phy.btsnoop"])
    func deterministic(_ name: String) throws {
        #expect(try Self.verdicts(name) == Self.verdicts(name))
    }
}
