import BLEBytes
import BLEPackets
import Testing

/// The shared recording sink with the HCI tests' flag style: "0x0001[Connectable,bit9]" (every
/// set bit, unnamed ones as bitN, no space).
final class HCIRecordingSink: RecordingSink {
    override func renderFlags(_ v: UInt64, digits d: Int, _ names: FlagNames) -> String {
        var set: [String] = []
        for (i, n) in names.names.enumerated() where v & (1 << UInt64(i)) != 0 {
            set.append(n.map { "\($0)" } ?? "bit\(i)")
        }
        return Hex.string(v, digits: d) + "[" + set.joined(separator: ",") + "]"
    }
}

/// Bytes from "04 3e 13 …" (spaces ignored).
func hciBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.replacingOccurrences(of: " ", with: "").utf8)
    return stride(from: 0, to: digits.count - 1, by: 2).map {
        UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)!
    }
}

/// Describes an H4-less command payload and returns the lines.
func hciDescribeCommand(_ hex: String) -> HCIRecordingSink {
    let sink = HCIRecordingSink()
    hciBytes(hex).withByteView { HCICommandPacket($0)?.describe(into: sink) }
    return sink
}

func hciDescribeEvent(_ hex: String) -> HCIRecordingSink {
    let sink = HCIRecordingSink()
    hciBytes(hex).withByteView { HCIEventPacket($0)?.describe(into: sink) }
    return sink
}

@Suite struct HCIPacketTests {
    @Test func commandHeaderSplitsOpcodeIntoOGFAndOCF() {
        // clean_heart_rate.central frame 31: LE Set Extended Scan Enable (0x2042), 6 parameter
        // bytes: enable 1, filter duplicates 0, duration 0, period 0.
        hciBytes("42 20 06 01 00 00 00 00 00").withByteView { v in
            let p = HCICommandPacket(v)
            #expect(p?.opcode == 0x2042)
            #expect(p?.ogf == 0x08)
            #expect(p?.ocf == 0x0042)
            #expect(p?.declaredLength == 6)
            #expect(p?.parameters.elementsEqual([1, 0, 0, 0, 0, 0]) == true)
            #expect(p?.lengthMismatch == false)
            #expect(p.map { HCISummary.command($0) }.map { "\($0)" } == "LE Set Extended Scan Enable")
        }
    }

    @Test func commandWithTruncatedOrPaddedParametersKeepsWhatIsThere() {
        // Declares 6 parameter bytes, has 2.
        hciBytes("42 20 06 01 00").withByteView { v in
            let p = HCICommandPacket(v)!
            #expect(p.parameters.count == 2)
            #expect(p.lengthMismatch)
            #expect(p.trailing.isEmpty)
        }
        // Declares 0 (HCI Reset) but carries 2 extra bytes.
        hciBytes("03 0c 00 aa bb").withByteView { v in
            let p = HCICommandPacket(v)!
            #expect(p.parameters.isEmpty)
            #expect(p.trailing.elementsEqual([0xAA, 0xBB]))
            #expect(p.lengthMismatch)
        }
        let truncated = hciDescribeCommand("42 20 06 01 00")
        #expect(truncated.notes == ["!packet shorter than parameter total length", "!truncated parameters"])
        #expect(truncated.value("enable") == "0x01 Enabled")
        #expect(truncated.value("filter_duplicates") == "0x00 Disabled")
        let padded = hciDescribeCommand("03 0c 00 aa bb")
        #expect(padded.lines.last == "beyond_length=aabb")
        #expect(padded.notes == ["!bytes beyond parameter total length"])
    }

    @Test func headerShorterThanThreeBytesIsRejected() {
        hciBytes("03 0c").withByteView { #expect(HCICommandPacket($0) == nil) }
        hciBytes("0e").withByteView { #expect(HCIEventPacket($0) == nil) }
        #expect(HCICommandPacket(.empty) == nil)
    }

    @Test func eventHeaderAndLEMetaSubevent() {
        // clean_heart_rate.central frame 43: LE Meta, 19 bytes, subevent 0x01.
        hciBytes("3e 13 01 00 01 00 00 01 01 00 00 18 0d d8 0c 00 00 00 48 00 00").withByteView { v in
            let e = HCIEventPacket(v)!
            #expect(e.code == 0x3E)
            #expect(e.declaredLength == 19)
            #expect(e.subeventCode == 0x01)
            #expect(e.subeventParameters.count == 18)
            let s = HCISummary.event(e)
            #expect("\(s.name)" == "LE Meta")
            #expect(s.detail.map { "\($0)" } == "LE Connection Complete")
        }
        // LE Meta with no parameters at all: no subevent, not a crash.
        hciBytes("3e 00").withByteView { v in
            let e = HCIEventPacket(v)!
            #expect(e.subeventCode == nil)
            #expect(e.subeventParameters.isEmpty)
            #expect(HCISummary.event(e).detail == nil)
        }
        #expect(hciDescribeEvent("3e 00").notes == ["!missing subevent code"])
    }

    @Test func summariesNameTheCommandOfCommandCompleteAndStatus() {
        // Frame 32: Command Complete (LE Set Extended Scan Enable); frame 42: Command Status
        // (LE Create Connection); frame 123: Disconnect Complete.
        let lines = [
            "0e 04 01 42 20 00", "0f 04 00 01 0d 20", "05 04 00 01 00 16", "13 05 01 01 00 01 00",
        ].map { hex in
            hciBytes(hex).withByteView { v -> String in
                let s = HCISummary.event(HCIEventPacket(v)!)
                return "\(s.name)" + (s.detail.map { " (\($0))" } ?? "")
            }
        }
        #expect(
            lines == [
                "Command Complete (LE Set Extended Scan Enable)", "Command Status (LE Create Connection)",
                "Disconnect Complete", "Number of Completed Packets",
            ])
        // Command Complete too short to hold an opcode: no detail.
        hciBytes("0e 01 01").withByteView { #expect(HCISummary.event(HCIEventPacket($0)!).detail == nil) }
    }
}

/// What `AdvertisingData.describe` says about `hex` on its own, to check that HCI decoders hand
/// it exactly the AD bytes (whatever that decoder's output looks like).
func hciAdvertisingLines(_ hex: String) -> [String] {
    let sink = HCIRecordingSink()
    hciBytes(hex).withByteView { AdvertisingData.describe($0, into: sink) }
    return sink.lines
}
