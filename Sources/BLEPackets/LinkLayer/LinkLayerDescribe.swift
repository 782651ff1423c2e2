import BLEBytes
import CaptureIO

extension LinkLayerFrame {
    /// The full decode (`blecap packets --verbose`, JSON `fields`): radio, PDU header, fields
    /// in spec units, AD structures, LL Control fields.
    public func describe(radio: LinkLayerRadio, into sink: FieldSink) {
        sink.begin("radio")
        sink.field("access_address", .hex(UInt64(radio.accessAddress), digits: 8))
        if radio.channel != 0xFF { sink.field("channel", .uint(UInt64(radio.channel))) }
        if radio.flags.contains(.rssiValid) { sink.field("rssi", .dBm(radio.rssi)) }
        sink.field("phy", .name(LinkLayerFrame.phyName(radio.phy)))
        if radio.flags.contains(.eventCounterValid) { sink.field("event_counter", .uint(UInt64(radio.eventCounter))) }
        if radio.sender != .unknown {
            sink.field("sender", .name(radio.sender == .central ? "Central" : "Peripheral"))
            if radio.flags.contains(.senderInferred) { sink.field("sender_inferred", .bool(true)) }
        }
        sink.field("crc", .name(crc.name))
        sink.end()
        switch pdu {
        case .truncated:
            sink.note("Link Layer PDU shorter than its 2-byte header")
        case .advertising(let a):
            let secondary = radio.channel < 37
            sink.field("pdu_type", .code(UInt64(a.pduType), digits: 1, name: a.name(secondary: secondary)))
            sink.field("ch_sel", .bool(a.chSel))
            sink.field("tx_add", .name(a.txAdd ? "Random" : "Public"))
            sink.field("rx_add", .name(a.rxAdd ? "Random" : "Public"))
            sink.field("length", .uint(UInt64(a.length)))
            if let s = a.scanOrInitA {
                sink.field(a.pduType == LLAdvertisingPDUType.connectInd ? "init_a" : "scan_a", .address(s))
            }
            if let adv = a.advA { sink.field("adv_a", .address(adv)) }
            if let t = a.targetA { sink.field("target_a", .address(t)) }
            if let c = a.connectIndication { c.describe(into: sink) }
            if let x = a.extendedHeader {
                sink.field("adv_mode", .uint(UInt64(x.advMode)))
                if let t = x.targetA { sink.field("target_a", .address(t)) }
                if let d = x.adi {
                    sink.field("adi_did", .hex(UInt64(d & 0x0FFF), digits: 3))
                    sink.field("adi_sid", .uint(UInt64(d >> 12)))
                }
                if let p = x.auxPtr {
                    sink.field("aux_channel", .uint(UInt64(p & 0x3F)))
                    sink.field("aux_offset", .microseconds(Int64(p >> 11) * ((p & 0x80) != 0 ? 300 : 30)))
                    sink.field("aux_phy", .name(LinkLayerFrame.phyName(UInt8((p >> 21) & 0b111))))
                }
                if let tx = x.txPower { sink.field("tx_power", .dBm(tx)) }
                if !x.acad.isEmpty { sink.field("acad", .bytes(x.acad)) }
            }
            if let ad = a.advertisingData, !ad.isEmpty { AdvertisingData.describe(ad, into: sink) }
        case .data(let d):
            sink.field("llid", .code(UInt64(d.llid), digits: 1, name: d.llidName))
            sink.field("nesn", .uint(d.nesn ? 1 : 0))
            sink.field("sn", .uint(d.sn ? 1 : 0))
            sink.field("md", .bool(d.md))
            sink.field("length", .uint(UInt64(d.length)))
            if let c = d.cteInfo { sink.field("cte_info", .hex(UInt64(c), digits: 2)) }
            if isRetransmission { sink.note("retransmission: same SN and CRC as this side's previous PDU") }
            if isDecrypted {
                sink.note("decrypted by blecap: the MIC verified; Length and payload are the plaintext's")
            }
            if let s = senderPerMIC {
                sink.note(
                    s == .central
                        ? "the MIC verifies it as sent by the central (the capture says otherwise or nothing)"
                        : "the MIC verifies it as sent by the peripheral (the capture says otherwise or nothing)")
            }
            if micFailure { sink.note("encrypted: the link's key does not verify this PDU's MIC") }
            if isEncrypted {
                sink.field("encrypted_payload", .bytes(d.payload))
            } else if let c = control {
                c.describe(into: sink)
            }
        }
    }

    static func phyName(_ phy: UInt8) -> StaticString {
        switch phy {
        case 0: "LE 1M"
        case 1: "LE 2M"
        case 2: "LE Coded"
        default: "Reserved"
        }
    }
}

extension LinkLayerFrame.CRCStatus {
    public var name: StaticString {
        switch self {
        case .valid: "valid"
        case .invalid: "incorrect"
        case .unchecked: "unchecked"
        }
    }
}

extension LLConnectIndication {
    public func describe(into sink: FieldSink) {
        sink.field("access_address", .hex(UInt64(accessAddress), digits: 8))
        sink.field("crc_init", .hex(UInt64(crcInit), digits: 6))
        sink.field("window_size", .microseconds(Int64(windowSize) * 1250))
        sink.field("window_offset", .microseconds(Int64(windowOffset) * 1250))
        sink.field("interval", .microseconds(intervalMicroseconds))
        sink.field("latency", .uint(UInt64(latency)))
        sink.field("timeout", .microseconds(timeoutMicroseconds))
        sink.field("channel_map", .hex(channelMap, digits: 10))
        sink.field("used_channels", .uint(UInt64(usedChannels)))
        sink.field("hop", .uint(UInt64(hop)))
        sink.field("sca", .uint(UInt64(sleepClockAccuracy)))
    }
}

extension LLControlPDU {
    public func describe(into sink: FieldSink) {
        sink.field("control_opcode", .code(UInt64(opcode), digits: 2, name: name))
        if let e = errorCode { sink.field("error_code", .code(UInt64(e), digits: 2, name: HCIError.name(e))) }
        if let r = referencedOpcode {
            sink.field("referenced_opcode", .code(UInt64(r), digits: 2, name: LLControlPDU.name(r)))
        }
        if let u = connectionUpdate {
            sink.field("window_size", .microseconds(Int64(u.windowSize) * 1250))
            sink.field("window_offset", .microseconds(Int64(u.windowOffset) * 1250))
            sink.field("interval", .microseconds(Int64(u.interval) * 1250))
            sink.field("latency", .uint(UInt64(u.latency)))
            sink.field("timeout", .microseconds(Int64(u.timeout) * 10_000))
        }
        if let m = channelMap { sink.field("channel_map", .hex(m.map, digits: 10)) }
        if let e = encryptionRequest {
            sink.field("rand", .hex(e.rand, digits: 16))
            sink.field("ediv", .hex(UInt64(e.ediv), digits: 4))
            sink.field("skd_c", .hex(e.skdC, digits: 16))
            sink.field("iv_c", .hex(UInt64(e.ivC), digits: 8))
        }
        if let e = encryptionResponse {
            sink.field("skd_p", .hex(e.skdP, digits: 16))
            sink.field("iv_p", .hex(UInt64(e.ivP), digits: 8))
        }
        if let f = featureSet { sink.field("feature_set", .hex(f, digits: 16)) }
        if let v = version {
            sink.field("vers_nr", .hex(UInt64(v.versNr), digits: 2))
            if let company = CompanyIdentifiers.name(v.companyID) {
                sink.field("comp_id", .cString(company))
            } else {
                sink.field("comp_id", .hex(UInt64(v.companyID), digits: 4))
            }
            sink.field("sub_vers_nr", .hex(UInt64(v.subVersNr), digits: 4))
        }
        if let l = dataLength {
            sink.field("max_rx_octets", .uint(UInt64(l.maxRxOctets)))
            sink.field("max_rx_time", .microseconds(Int64(l.maxRxTime)))
            sink.field("max_tx_octets", .uint(UInt64(l.maxTxOctets)))
            sink.field("max_tx_time", .microseconds(Int64(l.maxTxTime)))
        }
        if let p = phyPreferences {
            sink.field("tx_phys", .hex(UInt64(p.tx), digits: 2))
            sink.field("rx_phys", .hex(UInt64(p.rx), digits: 2))
        }
        if let p = phyUpdate {
            sink.field("phy_c_to_p", .hex(UInt64(p.centralToPeripheral), digits: 2))
            sink.field("phy_p_to_c", .hex(UInt64(p.peripheralToCentral), digits: 2))
        }
        if let i = instant { sink.field("instant", .uint(UInt64(i))) }
        // Every opcode's CtrData as bytes too (the typed fields above cover the procedures the
        // timeline uses; CIS, periodic sync, power control … are shown raw).
        if !ctrData.isEmpty { sink.field("ctr_data", .bytes(ctrData)) }
        if !hasExpectedSize { sink.note("CtrData size differs from the opcode's (Core 5.4 Vol 6 Part B Table 2.18)") }
    }
}
