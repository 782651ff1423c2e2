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

/// The typed commands the virtual controller acts on (HCITypedCommands, generated from
/// scripts/pdu/hci_commands.py, those with repeated blocks included), over every command of the
/// Bumble captures: each decodes and encodes back to the parameters it came from.
@Suite struct HCIControllerCommandCaptureTests {
    static func typed(_ c: HCICommandPacket) -> (any HCICommandEncodable)? {
        HCITypedCommands.decode(opcode: c.opcode, parameters: c.parameters)
    }

    @Test func captureCommandsRoundTrip() throws {
        var seen: [UInt16: Int] = [:]
        for path in Fixtures.captures(in: "bumble") {
            try h4Records(path) { frame, type, payload in
                guard type == 0x01, let c = HCICommandPacket(payload) else { return }
                guard let t = Self.typed(c) else {
                    return
                }
                seen[c.opcode, default: 0] += 1
                var w = ByteWriter()
                t.appendParameters(to: &w)
                #expect(w.bytes == c.parameters.toArray(), "\(path) frame \(frame)")
                #expect(t.commandOpcode == c.opcode)
            }
        }
        // The Bumble hosts set both event masks, the random address, the suggested data
        // length, advertise with extended advertising and encrypt.
        for op in [
            HCIOpcode.setEventMask, HCIOpcode.leSetEventMask, HCIOpcode.leSetRandomAddress,
            HCIOpcode.leWriteSuggestedDefaultDataLength, HCIOpcode.leSetExtendedAdvertisingEnable,
            HCIOpcode.leEnableEncryption, HCIOpcode.leLongTermKeyRequestReply,
            HCIOpcode.leSetExtendedAdvertisingParameters, HCIOpcode.leSetExtendedAdvertisingData,
            HCIOpcode.leSetAdvertisingSetRandomAddress,
            HCIOpcode.leSetExtendedScanParameters, HCIOpcode.leSetExtendedScanEnable,
        ] {
            #expect(seen[op, default: 0] > 0, "opcode \(op) never seen")
        }
    }

    @Test func shortParametersDecodeToNothing() {
        #expect([0x01, 0x02].withByteView { HCISetEventMask(opcode: HCIOpcode.setEventMask, parameters: $0) } == nil)
        // Two sets announced, one present.
        #expect(
            [0x01, 0x02, 0x00, 0x00, 0x00, 0x00].withByteView(HCILESetExtendedAdvertisingEnable.init(parameters:))
                == nil)
        let one = [0x01, 0x01, 0x03, 0x10, 0x00, 0x05].withByteView(HCILESetExtendedAdvertisingEnable.init(parameters:))
        #expect(one?.sets == [.init(advertisingHandle: 3, duration: 16, maxExtendedAdvertisingEvents: 5)])
        #expect([0x01, 0x00, 0x00, 0x02, 0x02, 0x00].withByteView(HCILESetPHY.init(parameters:)) == nil)
        #expect(Array(repeating: 0, count: 27).withByteView(HCILEEnableEncryption.init(parameters:)) == nil)
        #expect(Array(repeating: 0, count: 38).withByteView(HCILEAddDeviceToResolvingList.init(parameters:)) == nil)
        // A reply with its handle and half a key: the handle decodes, the key does not.
        let reply = ([0x41, 0x10] + Array(repeating: 0xAA, count: 8)).withByteView(
            HCILELongTermKeyRequestReply.init(parameters:))
        #expect(reply?.handle == 0x0041 && reply?.longTermKey == nil)
        // Handles lose their Packet Boundary and Broadcast flag bits.
        #expect(
            [0x41, 0x30].withByteView { HCIConnectionHandleCommand(opcode: HCIOpcode.leReadPHY, parameters: $0) }?
                .handle
                == 0x0041)
    }
}

/// The typed values read through a command's layout (HCILayoutFields): the field the layout
/// places, as far as the parameters reach.
@Suite struct HCILayoutFieldTests {
    @Test func advertisingParametersThroughTheirLayouts() {
        // 7.8.5: intervals 0x0800 × 2, ADV_IND, Own_Address_Type random (1), peer public
        // 00:00:00:00:00:00, all channels, no filter.
        let legacy: [UInt8] =
            [0x00, 0x08, 0x00, 0x08, 0x00, 0x01, 0x00] + [UInt8](repeating: 0, count: 6) + [0x07, 0x00]
        #expect(legacy.withByteView(HCILESetAdvertisingParameters.init(parameters:)).ownAddressType == 1)
        #expect(
            Array(legacy.prefix(6)).withByteView(HCILESetAdvertisingParameters.init(parameters:)).ownAddressType == 1)
        #expect(
            Array(legacy.prefix(5)).withByteView(HCILESetAdvertisingParameters.init(parameters:)).ownAddressType == nil)
        // 7.8.53: handle 0, properties 0x0013, intervals 0x30 × 2 (3 octets each), channel
        // map 7, Own_Address_Type 1, …
        let extended: [UInt8] = [0x00, 0x13, 0x00, 0x30, 0x00, 0x00, 0x30, 0x00, 0x00, 0x07, 0x01, 0x00]
        #expect(extended.withByteView(HCILESetExtendedAdvertisingParameters.init(parameters:)).ownAddressType == 1)
        #expect(
            Array(extended.prefix(10)).withByteView(HCILESetExtendedAdvertisingParameters.init(parameters:))
                .ownAddressType == nil)
        let random: [UInt8] = [0x02, 0x06, 0x05, 0x04, 0x03, 0x02, 0xC1]
        let r = random.withByteView(HCILESetAdvertisingSetRandomAddress.init(parameters:))
        #expect(r.advertisingHandle == 2 && r.randomAddress == BDAddr("C1:02:03:04:05:06"))
        #expect(
            Array(random.prefix(6)).withByteView(HCILESetAdvertisingSetRandomAddress.init(parameters:)).randomAddress
                == nil)
    }

    /// Every such command of the Bumble captures gives the value at the offset the spec
    /// gives (the layouts agree with the hosts).
    @Test func captureCommandsThroughTheirLayouts() throws {
        var seen = 0
        for path in Fixtures.captures(in: "bumble") {
            try h4Records(path) { _, type, payload in
                guard type == 0x01, let c = HCICommandPacket(payload),
                    c.opcode == HCIOpcode.leSetExtendedAdvertisingParameters
                else { return }
                seen += 1
                #expect(
                    HCILESetExtendedAdvertisingParameters(parameters: c.parameters).ownAddressType
                        == c.parameters.u8(10))
            }
        }
        #expect(seen > 0)
    }
}
