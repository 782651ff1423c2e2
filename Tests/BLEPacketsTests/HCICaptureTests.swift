import BLEBytes
import BLEPackets
import Foundation
import TestSupport
import Testing

/// Minimal btsnoop (datalink 1002, H4) walker for these tests only; the real reader lives in
/// CaptureIO. Yields (frame number, H4 type, payload after the type byte).
private func h4Records(_ path: String, _ body: (Int, UInt8, ByteView) -> Void) throws {
    let data = try Fixtures.bytes(atPath: path)
    try #require(data.count >= 16 && data[12..<16].elementsEqual([0, 0, 0x03, 0xEA]), "not btsnoop H4: \(path)")
    data.withByteView { v in
        var offset = 16
        var frame = 0
        while let included = v.u32be(offset + 4), let record = v.slice(offset + 24, Int(included)) {
            frame += 1
            offset += 24 + Int(included)
            if let type = record.u8(0), let payload = record.suffix(from: 1) { body(frame, type, payload) }
        }
    }
}

@Suite struct HCICaptureTests {
    /// Every command and event in every Bumble capture decodes without a single note: the
    /// layouts agree with what a real host stack sends and its controller answers.
    @Test(arguments: Fixtures.captures(in: "bumble").filter { !$0.contains("long_notify") })
    func bumbleCapturesDecodeCleanly(path: String) throws {
        var packets = 0
        var noted: [Int] = []
        try h4Records(path) { frame, type, payload in
            let sink = HCIRecordingSink()
            switch type {
            case 0x01: HCICommandPacket(payload)?.describe(into: sink)
            case 0x04: HCIEventPacket(payload)?.describe(into: sink)
            default: return
            }
            packets += 1
            if !sink.notes.isEmpty || sink.lines.isEmpty { noted.append(frame) }
        }
        #expect(packets > 40)
        #expect(noted.isEmpty, "frames with notes: \(noted)")
    }

    /// Summaries for frames 1–43 and 121–123 of clean_heart_rate.central, as tshark 4.0.17's
    /// Info column shows them (without its "Sent"/"Rcvd" prefix).
    @Test func summariesAgreeWithTshark() throws {
        var lines: [Int: String] = [:]
        try h4Records(Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")) { frame, type, payload in
            switch type {
            case 0x01: lines[frame] = "\(HCISummary.command(HCICommandPacket(payload)!))"
            case 0x04:
                let s = HCISummary.event(HCIEventPacket(payload)!)
                lines[frame] = "\(s.name)" + (s.detail.map { " (\($0))" } ?? "")
            default: break
            }
        }
        let expected: [Int: String] = [
            1: "Reset", 2: "Command Complete (Reset)", 4: "Command Complete (Read Local Supported Commands)",
            5: "Read Local Version Information", 13: "Set Event Mask Page 2",
            19: "LE Read Buffer Size [v2]", 20: "Command Complete (LE Read Buffer Size [v2])",
            25: "Read BD ADDR", 29: "LE Set Extended Scan Parameters",
            32: "Command Complete (LE Set Extended Scan Enable)",
            33: "LE Meta (LE Extended Advertising Report)", 41: "LE Create Connection",
            42: "Command Status (LE Create Connection)", 43: "LE Meta (LE Connection Complete)",
            45: "Number of Completed Packets", 121: "Disconnect", 122: "Command Status (Disconnect)",
            123: "Disconnect Complete",
        ]
        for (frame, text) in expected { #expect(lines[frame] == text, "frame \(frame)") }
    }

    /// The scan of clean_heart_rate.central: 4 decoy reports then 2 from the heart-rate sensor,
    /// alternating connectable / scan response, all at -50 dBm.
    @Test func extendedReportsOfTheScan() throws {
        var seen: [(Int, BDAddr, UInt16, Int8)] = []
        try h4Records(Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")) { frame, type, payload in
            guard type == 0x04, let e = HCIEventPacket(payload),
                e.subeventCode == HCILEExtendedAdvertisingReport.subevent,
                let r = HCILEExtendedAdvertisingReport(parameters: e.subeventParameters)
            else { return }
            for report in r.reports { seen.append((frame, report.address, report.eventType, report.rssi)) }
        }
        #expect(seen.map(\.0) == [33, 34, 35, 36, 37, 38])
        #expect(
            seen.map(\.1) == [
                BDAddr("D9:09:18:00:00:02")!, BDAddr("D9:09:18:00:00:02")!, BDAddr("D9:09:18:00:00:02")!,
                BDAddr("D9:09:18:00:00:02")!, BDAddr("D8:0D:18:00:00:01")!, BDAddr("D8:0D:18:00:00:01")!,
            ])
        #expect(seen.map(\.2) == [1, 8, 1, 8, 1, 8])
        #expect(seen.allSatisfy { $0.3 == -50 })
    }

    /// An Android capture (a Xiaomi phone): every advertising report and connection event is
    /// well-formed by our reading, and nothing traps on its vendor traffic. Android captures we
    /// may not redistribute (Broadcom and Qualcomm controllers) are decoded against tshark by
    /// `make conformance`.
    @Test(arguments: ["btsnoop-android_domyos-treadmill-ftms.log"])
    func androidLEEventsAreWellFormed(name: String) throws {
        var reports = 0
        var connections = 0
        var bad: [Int] = []
        try h4Records(Fixtures.capture("public/" + name)) { frame, type, payload in
            let sink = HCIRecordingSink()
            if type == 0x01 {
                HCICommandPacket(payload)?.describe(into: sink)
                return
            }
            guard type == 0x04, let e = HCIEventPacket(payload) else { return }
            e.describe(into: sink)
            let p = e.subeventParameters
            switch e.subeventCode {
            case HCILEAdvertisingReport.subevent:
                reports += 1
                if HCILEAdvertisingReport(parameters: p)?.isComplete != true { bad.append(frame) }
            case HCILEExtendedAdvertisingReport.subevent:
                reports += 1
                if HCILEExtendedAdvertisingReport(parameters: p)?.isComplete != true { bad.append(frame) }
            case HCILEConnectionComplete.subevent:
                connections += 1
                if HCILEConnectionComplete(parameters: p) == nil { bad.append(frame) }
            case HCILEEnhancedConnectionComplete.subeventV1:
                connections += 1
                if HCILEEnhancedConnectionComplete(parameters: p) == nil { bad.append(frame) }
            default: break
            }
        }
        #expect(reports > 10 && connections > 0)
        #expect(bad.isEmpty, "frames: \(bad)")
    }
}
