import BLEBytes
import BLEPackets
import CaptureIO

/// `blecap packets` on over-the-air captures: the direction column says C→P / P→C (with a `?`
/// when blecap inferred it from timing), then channel and RSSI, then the PDU. A decrypted PDU
/// whose MIC verified only in the other direction shows that one (and says so).
extension PacketWriter {
    func linkLayerColumns(_ r: CaptureRecord, senderPerMIC: LinkLayerRadio.Sender?) {
        let radio = r.radio
        switch senderPerMIC ?? radio.sender {
        case .central: out.ascii("C→P")
        case .peripheral: out.ascii("P→C")
        case .unknown: out.ascii("   ")
        }
        out.ascii(radio.flags.contains(.senderInferred) && senderPerMIC == nil ? "? " : "  ")
        out.ascii("ch ")
        if radio.channel != 0xFF {
            out.spaces(radio.channel < 10 ? 1 : 0)
            out.decimal(UInt64(radio.channel))
        } else {
            out.ascii(" -")
        }
        if radio.flags.contains(.rssiValid) {
            let width = radio.rssi <= -100 ? 4 : (radio.rssi < -9 ? 3 : (radio.rssi < 0 || radio.rssi > 9 ? 2 : 1))
            out.spaces(5 - width)
            out.decimal(Int64(radio.rssi))
            out.ascii(" dBm  ")
        } else {
            out.ascii("          ")
        }
    }

    func linkLayerSummary(_ frame: DecodedFrame, _ ll: LinkLayerFrame) {
        let radio = frame.record.radio
        switch ll.pdu {
        case .truncated:
            paint(Palette.error)
            out.ascii("MALFORMED Link Layer PDU shorter than its header")
            paint(ANSI.reset)
        case .advertising(let a):
            paint(Palette.linkLayer)
            out.ascii("LL_ADV  ")
            paint(ANSI.reset)
            advertisingSummary(a, secondary: radio.channel < 37)
        case .data(let d):
            if let pdu = frame.l2cap {
                l2capSummary(frame, pdu)
            } else if ll.isEncrypted {
                out.ascii("LL_DATA ")
                out.ascii(d.llidName)
                out.ascii(" (encrypted, ")
                out.decimal(Int(d.length))
                out.ascii(" bytes)")
            } else if let c = ll.control {
                paint(Palette.hciCommand)
                out.ascii("LL_CTRL ")
                paint(ANSI.reset)
                controlSummary(c)
            } else {
                out.ascii("LL_DATA ")
                out.ascii(d.llidName)
                if d.length > 0 {
                    out.ascii(" (")
                    out.decimal(Int(d.length))
                    out.ascii(" bytes)")
                }
            }
            out.ascii(" SN=")
            out.decimal(UInt64(d.sn ? 1 : 0))
            out.ascii(" NESN=")
            out.decimal(UInt64(d.nesn ? 1 : 0))
            if d.md { out.ascii(" MD") }
        }
        if ll.isRetransmission {
            paint(Palette.warning)
            out.ascii(" [retransmission]")
            paint(ANSI.reset)
        }
        if ll.crc == .invalid {
            paint(Palette.error)
            out.ascii(" [CRC incorrect]")
            paint(ANSI.reset)
        }
        if ll.isDecrypted { out.ascii(ll.senderPerMIC != nil ? " [decrypted, direction per MIC]" : " [decrypted]") }
        if ll.micFailure {
            paint(Palette.error)
            out.ascii(" [MIC failure]")
            paint(ANSI.reset)
        }
    }

    private func advertisingSummary(_ a: LLAdvertisingPDU, secondary: Bool) {
        out.ascii(a.name(secondary: secondary))
        if let s = a.scanOrInitA {
            out.byte(0x20)
            out.address(s)
            out.ascii(" → ")
        } else {
            out.byte(0x20)
        }
        if let adv = a.advA { out.address(adv) }
        if let t = a.targetA {
            out.ascii(" → ")
            out.address(t)
        }
        if let c = a.connectIndication {
            out.ascii(" AA ")
            out.hex(UInt64(c.accessAddress), digits: 8)
            out.ascii(" interval ")
            FieldFormatting.text(.microseconds(c.intervalMicroseconds), to: out)
            out.ascii(" latency ")
            out.decimal(UInt64(c.latency))
            out.ascii(" timeout ")
            FieldFormatting.text(.microseconds(c.timeoutMicroseconds), to: out)
            out.ascii(" hop ")
            out.decimal(UInt64(c.hop))
            out.ascii(" channels ")
            out.decimal(c.usedChannels)
        }
        if let x = a.extendedHeader, let ch = x.auxChannel {
            out.ascii(" aux ch ")
            out.decimal(UInt64(ch))
        }
        if let ad = a.advertisingData, let name = AdvertisingData(ad).localName {
            out.ascii(" \"")
            out.sanitizedText(name)
            out.byte(UInt8(ascii: "\""))
        }
    }

    private func controlSummary(_ c: LLControlPDU) {
        named(c.name, c.opcode, digits: 2)
        if let e = c.errorCode {
            out.ascii(" reason ")
            out.hex(UInt64(e), digits: 2)
            if let n = HCIError.name(e) {
                out.byte(0x20)
                out.ascii(n)
            }
        }
        if let r = c.referencedOpcode {
            out.byte(0x20)
            named(LLControlPDU.name(r), r, digits: 2)
        }
        if let u = c.connectionUpdate {
            out.ascii(" interval ")
            FieldFormatting.text(.microseconds(Int64(u.interval) * 1250), to: out)
            out.ascii(" latency ")
            out.decimal(UInt64(u.latency))
            out.ascii(" timeout ")
            FieldFormatting.text(.microseconds(Int64(u.timeout) * 10_000), to: out)
        }
        if let l = c.dataLength {
            out.ascii(" rx ")
            out.decimal(UInt64(l.maxRxOctets))
            out.ascii(" tx ")
            out.decimal(UInt64(l.maxTxOctets))
            out.ascii(" octets")
        }
        if let v = c.version {
            out.ascii(" version ")
            out.hex(UInt64(v.versNr), digits: 2)
            out.ascii(" company ")
            out.hex(UInt64(v.companyID), digits: 4)
        }
        if let i = c.instant {
            out.ascii(" instant ")
            out.decimal(UInt64(i))
        }
    }

    func linkLayerDetails(_ r: CaptureRecord, _ ll: LinkLayerFrame, sink: FieldSink) {
        ll.describe(radio: r.radio, into: sink)
    }

    func jsonLinkLayer(_ r: CaptureRecord, _ ll: LinkLayerFrame) {
        let radio = r.radio
        out.ascii(",\"ll\":{\"access_address\":")
        out.decimal(UInt64(radio.accessAddress))
        if radio.channel != 0xFF {
            out.ascii(",\"channel\":")
            out.decimal(UInt64(radio.channel))
        }
        if radio.flags.contains(.rssiValid) {
            out.ascii(",\"rssi\":")
            out.decimal(Int64(radio.rssi))
        }
        // `sender` stays what the capture says (the sniffer's SN bookkeeping follows it);
        // `sender_per_mic` adds the MIC's verdict where that differs.
        if radio.sender != .unknown {
            out.ascii(radio.sender == .central ? ",\"sender\":\"central\"" : ",\"sender\":\"peripheral\"")
            if radio.flags.contains(.senderInferred) { out.ascii(",\"sender_inferred\":true") }
        }
        if let s = ll.senderPerMIC {
            out.ascii(s == .central ? ",\"sender_per_mic\":\"central\"" : ",\"sender_per_mic\":\"peripheral\"")
        }
        out.ascii(",\"crc\":")
        out.jsonString(ll.crc.name)
        switch ll.pdu {
        case .truncated:
            out.ascii(",\"malformed\":\"Link Layer PDU shorter than its header\"")
        case .advertising(let a):
            out.ascii(",\"pdu_type\":")
            out.decimal(UInt64(a.pduType))
            out.ascii(",\"name\":")
            out.jsonString(a.name(secondary: radio.channel < 37))
        case .data(let d):
            out.ascii(",\"llid\":")
            out.decimal(UInt64(d.llid))
            out.ascii(",\"sn\":")
            out.decimal(UInt64(d.sn ? 1 : 0))
            out.ascii(",\"nesn\":")
            out.decimal(UInt64(d.nesn ? 1 : 0))
            out.ascii(",\"md\":")
            out.ascii(d.md ? "true" : "false")
            out.ascii(",\"length\":")
            out.decimal(UInt64(d.length))
            if let c = ll.control {
                out.ascii(",\"control_opcode\":")
                out.decimal(UInt64(c.opcode))
                out.ascii(",\"name\":")
                out.jsonString(c.name)
            }
            if ll.isRetransmission { out.ascii(",\"retransmission\":true") }
            if ll.isEncrypted { out.ascii(",\"encrypted\":true") }
            if ll.isDecrypted { out.ascii(",\"decrypted\":true") }
            if ll.micFailure { out.ascii(",\"mic_failure\":true") }
        }
        out.byte(UInt8(ascii: "}"))
    }
}
