import BLEBytes
import BLEPackets
import CaptureIO
import Foundation
import TestSupport
import Testing

/// Link Layer decoding (Core 5.4 Vol 6 Part B) on real sniffer captures. Expected values come
/// from tshark's btle/nordic_ble decode of the same files (see the comments) and from the CRC
/// bytes the sniffers themselves verified.
@Suite struct LinkLayerTests {
    static let whad = "public/pcap-lell256_whad-pairing-gatt-conn-update.pcap"

    /// Every frame of a capture, decoded, handed to `body` while its views are valid.
    static func walk(_ relative: String, _ body: (DecodedFrame) -> Void) throws {
        let reader = try CaptureFile.open(path: Fixtures.capture(relative))
        let decoder = FrameDecoder()
        while let r = reader.next() { body(decoder.decode(r)) }
        #expect(reader.damage == nil)
    }

    // MARK: CRC-24

    @Test func crc24MatchesWhatTheSnifferVerified() {
        // whad frame 1 (AUX_CONNECT_REQ, CRC checked and valid per its 256 flags 0x0c03) and
        // frame 2 (a data PDU on the connection it opened, CRCInit 0x0a2f85 from frame 1).
        let adv = Hex.bytes("4522" + "81b3e8465b63e34791eada74f5a6dd92852f0a020100240000" + "00f401ffffffff1f06")!
        adv.withByteView { #expect(LinkLayerCRC.compute($0, crcInit: 0x55_5555) == 0xA9_6BEC) }
        let data = Hex.bytes("030908ff7d000000000000")!
        data.withByteView { v in
            #expect(LinkLayerCRC.compute(v, crcInit: 0x0A_2F85) == 0xB6_0955)
            // One flipped bit changes it.
            var flipped = data
            flipped[5] ^= 0x10
            flipped.withByteView { #expect(LinkLayerCRC.compute($0, crcInit: 0x0A_2F85) != 0xB6_0955) }
        }
        var w = ByteWriter()
        LinkLayerCRC.append(0xB6_0955, to: &w)
        #expect(w.bytes == [0x55, 0x09, 0xB6])
    }

    // MARK: advertising

    @Test func auxConnectReqHasEveryFieldInUnits() throws {
        // tshark: InitA 63:5b:46:e8:b3:81, AdvA 74:da:ea:91:47:e3, AA 0x92dda6f5, CRCInit 0x0a2f85,
        // WinSize 2, WinOffset 1, Interval 36, Latency 0, Timeout 500, Hop 6, SCA 0.
        var checked = false
        try Self.walk(Self.whad) { f in
            guard f.record.frame == 1, let a = f.linkLayer?.advertising else { return }
            #expect("\(a.name(secondary: f.record.radio.channel < 37))" == "AUX_CONNECT_REQ")
            #expect(a.scanOrInitA == BDAddr("63:5B:46:E8:B3:81"))
            #expect(a.advA == BDAddr("74:DA:EA:91:47:E3"))
            guard let c = a.connectIndication else {
                Issue.record("AUX_CONNECT_REQ without its LLData")
                return
            }
            #expect(c.accessAddress == 0x92DD_A6F5)
            #expect(c.crcInit == 0x0A_2F85)
            #expect(c.windowSize == 2 && c.windowOffset == 1)
            #expect(c.intervalMicroseconds == 45_000)
            #expect(c.latency == 0)
            #expect(c.timeoutMicroseconds == 5_000_000)
            #expect(c.hop == 6 && c.sleepClockAccuracy == 0)
            #expect(c.usedChannels == 37)
            #expect(f.linkLayer?.crc == .valid)
            checked = true
        }
        #expect(checked)
    }

    @Test func extendedAdvertisingOnCodedPHYThroughNordicProtocolVersion3() throws {
        // tshark: channel 10, RSSI -53, PHY LE Coded, coding indicator 0 (S=8), AdvMode 0.
        var checked = false
        try Self.walk("public/pcapng-nordic272_opendroneid-coded-phy-ext-adv.pcapng") { f in
            guard f.record.frame == 1 else { return }
            let r = f.record.radio
            #expect(r.channel == 10 && r.rssi == -53 && r.phy == 2 && r.codingIndicator == 0)
            let a = f.linkLayer?.advertising
            #expect(a.map { "\($0.name(secondary: true))" } == "AUX_ADV_IND")
            #expect(a?.extendedHeader?.advMode == 0)
            #expect(a?.extendedHeader?.advA == BDAddr("E0:7D:EA:EB:2F:1C"))
            checked = true
        }
        #expect(checked)
    }

    // MARK: data channel

    @Test func whadConnectionDecodesLikeTshark() throws {
        // tshark: LL Control opcodes 0x08 (frames 2, 3), 0x09 (6), 0x0c (7, 10), 0x00 (11),
        // START_ENC_REQ 0x05 at 1286; 89 frames with ATT of which frame 133 repeats 131 (same
        // SN, same bytes; tshark also calls 137 a retransmission by its SN alone, but 137 asks
        // for another attribute type: new data after a PDU the sniffer missed); 1415 empty PDUs.
        var controls: [Int: UInt8] = [:]
        var att = 0
        var attInTheClear = 0
        var empty = 0
        var encrypted = 0
        var decrypted = 0
        var retransmissions: [Int] = []
        try Self.walk(Self.whad) { f in
            guard let ll = f.linkLayer else { return }
            if let c = ll.control { controls[f.record.frame] = c.opcode }
            if ll.data?.isEmpty == true { empty += 1 }
            if ll.isEncrypted { encrypted += 1 }
            if ll.isDecrypted { decrypted += 1 }
            if ll.isRetransmission { retransmissions.append(f.record.frame) }
            if f.attPayload != nil {
                att += 1
                if !ll.isDecrypted { attInTheClear += 1 }
            }
        }
        #expect(controls[2] == 0x08 && controls[6] == 0x09 && controls[7] == 0x0C && controls[11] == 0x00)
        #expect(controls[1286] == LLControlOpcode.startEncReq)
        #expect(retransmissions.contains(3), "frame 3 repeats frame 2")
        #expect(retransmissions.contains(133) && !retransmissions.contains(137))
        // tshark cannot read the link after 1286: its 88 ATT PDUs are the ones in the clear.
        // blecap recovers the legacy pairing's TK and reads the rest (LinkLayerDecryptionTests).
        #expect(attInTheClear == 88)
        #expect(att > 88)
        #expect(empty == 1415)
        #expect(encrypted == 0 && decrypted > 0)
    }

    @Test func sniffedPlaintextAfterEncryptionIsDecoded() throws {
        // The nRF Sniffer decrypted this link (flags: encrypted, MIC OK): tshark decodes ATT
        // from frame 397 on (Find Information Request).
        var first: (Int, UInt8)?
        try Self.walk("public/pcap-nordic272_bsniffhub-encrypted-bad-mic.pcap") { f in
            if first == nil, let p = f.attPayload, let op = p.u8(0) { first = (f.record.frame, op) }
        }
        #expect(first?.0 == 397 && first?.1 == ATTOpcode.findInformationRequest.rawValue)
    }

    @Test func ppiUbertoothPacketsAreLinkLayerWithInferredSenders() throws {
        var data = 0
        var inferred = 0
        var firstChannel: UInt8?
        try Self.walk("public/pcap-ppi192_crackle-pairing-ltk.pcap") { f in
            if firstChannel == nil { firstChannel = f.record.radio.channel }
            guard let d = f.linkLayer?.data else { return }
            _ = d
            data += 1
            if f.record.radio.flags.contains(.senderInferred) { inferred += 1 }
        }
        #expect(firstChannel == 37)  // 2402 MHz in the BTLE field
        #expect(data > 0 && inferred == data)
    }

    @Test func truncatedAndDamagedPDUsNeverTrap() throws {
        // Every record of every link-layer capture, cut at every length.
        for name in [Self.whad, "public/pcapng-nordic272_opendroneid-coded-phy-ext-adv.pcapng"] {
            let reader = try CaptureFile.open(path: Fixtures.capture(name))
            let decoder = FrameDecoder()
            var n = 0
            while let r = reader.next(), n < 300 {
                n += 1
                for cut in 0..<r.payload.count {
                    var copy = r
                    copy.payload = r.payload.prefix(cut)
                    let f = decoder.decode(copy)
                    if let ll = f.linkLayer { ll.describe(radio: copy.radio, into: NullSink()) }
                }
            }
        }
    }

    // MARK: encoders

    @Test func encodersWriteWhatDecodersRead() {
        let ci = LLConnectIndication(
            accessAddress: 0x5065_4A27, crcInit: 0x2E_D45D, windowSize: 3, windowOffset: 9, interval: 54,
            latency: 0, timeout: 42, channelMap: 0x1F_FFFF_FFFF, hop: 5, sleepClockAccuracy: 1)
        let bytes = ci.encoded()
        #expect(bytes.count == LLConnectIndication.size)
        bytes.withByteView { #expect(LLConnectIndication($0) == ci) }

        let payload: [UInt8] = [0x07, 0x00, 0x04, 0x00, 0x02, 0x05, 0x02]
        payload.withByteView { p in
            let d = LLDataPDU(llid: LLID.start, nesn: true, sn: false, md: true, payload: p)
            let e = d.encoded()
            #expect(e == [0x16, 0x07] + payload)
            e.withByteView { v in
                let back = LLDataPDU(v)
                #expect(back?.llid == LLID.start && back?.nesn == true && back?.sn == false && back?.md == true)
                #expect(back?.payload.toArray() == payload)
            }
        }
        let ctrl: [UInt8] = [0x13]
        ctrl.withByteView { c in
            let t = LLControlPDU(opcode: LLControlOpcode.terminateInd, ctrData: c)
            #expect(t.encoded() == [0x02, 0x13])
            #expect(t.errorCode == 0x13 && t.hasExpectedSize && "\(t.name)" == "LL_TERMINATE_IND")
        }
    }
}

/// Discards fields (robustness runs only need describe not to trap).
final class NullSink: FieldSink {
    func field(_ name: StaticString, _ value: FieldValue) {}
    func begin(_ name: StaticString) {}
    func end() {}
    func note(_ text: StaticString) {}
}
