import BLEBytes

// Android's Bluetooth Quality Report (BQR): a controller that supports it sends an HCI
// Vendor-Specific event (code 0xFF) whose first parameter byte is the BQR sub-event code 0x58,
// then the report: Quality_Report_Id, and for the link-quality reports (ids 0x01 quality
// monitoring, 0x02 approaching LSTO, 0x03 A2DP audio choppy, 0x04 (e)SCO voice choppy, 0x07
// LE audio choppy, 0x08 connect fail) a common block of 48 bytes, little-endian, as AOSP's
// Bluetooth module (btif_bqr, `BluetoothQualityReport.BqrCommon`) reads it:
//
//   id u8, packet type u8, connection handle u16, role u8 (0 central, 1 peripheral),
//   TX power level i8 (dBm), RSSI i8 (dBm), SNR i8 (dB), unused AFH channel count u8,
//   AFH select-unideal channel count u8, LSTO u16 (0.625 ms slots), piconet clock u32,
//   retransmission count u32, no-RX count u32, NAK count u32, last TX ack timestamp u32,
//   flow-off count u32, last flow-on timestamp u32, buffer overflow bytes u32,
//   buffer underflow bytes u32.
//
// Signedness: the native struct declares SNR as u8, but Android's public system API
// (`BqrCommon.getSnr()`, `getRssi()`) reads both as signed bytes, which is what we show; the
// same API masks the TX power level to 0–255, which would make -4 dBm read 252, so we keep it
// signed, as HCI_Read_Transmit_Power_Level returns it (Core Vol 4 Part E 7.3.35).
//
// Later BQR versions append fields after the block (the remote address, a calibration
// failure count …): they are kept as `trailing` bytes.
//
// Report id 0x05, Root Inflammation, is the controller saying it has failed (a firmware fault,
// an assertion; Android's stack then restarts Bluetooth). AOSP's btif_bqr reads it as three
// bytes before anything vendor-specific: id u8, Error_Code u8 (an HCI error code, Core Vol 1
// Part F; 0x00 in the crash reports AOSP describes), Vendor_Specific_Error_Code u8 (the
// vendor's crash reason). What follows is optional and vendor-defined (a parameter count, then
// id/length/value triples): kept as bytes.
//
// Report id 0x06, Energy Monitoring, and 0x09, RF Stats, are the controller's own figures over
// a period, for all its traffic: neither names a connection handle. AOSP's btif_bqr
// (`BqrEnergyMonitorEvent`, `BqrRFStatsEvent`, read by ParseBqrEnergyMonitorEvt and
// ParseBqrRFStatsEvt, which refuse a report shorter than the struct) gives their layouts,
// little-endian, below beside each type. Bytes after the struct (BQR v7 appends two scan RX
// times to the energy report) are kept as `later`. Other report ids (vendor quality and
// traces, LE Audio broadcast, channel sounding) are kept whole.
//
// The LSTO unit: AOSP's native header comments it as 0.3125 ms (one Bluetooth clock), its
// public `BluetoothQualityReport.BqrCommon.getLsto()` as 0.625 ms (one slot), as BlueZ's
// btmon prints it. The field is the link's "current Link Supervision Timeout setting", which
// the Core spec gives in baseband slots (Vol 4 Part E 7.3.41/7.3.42: N × 0.625 ms, up to
// 40.9 s, which 16 bits of 0.3125 ms could not hold): 0.625 ms.

/// The link-quality block of a BQR report.
public struct BQRLinkQuality: Sendable, Equatable {
    public static let length = 48
    public var reportID: UInt8
    public var packetType: UInt8
    public var handle: UInt16
    public var role: UInt8
    public var txPower: Int8
    public var rssi: Int8
    public var snr: Int8
    public var unusedAFHChannels: UInt8
    public var afhSelectUnidealChannels: UInt8
    /// Link supervision timeout, in 0.625 ms slots.
    public var lsto: UInt16
    public var piconetClock: UInt32
    public var retransmissions: UInt32
    public var noRX: UInt32
    public var nak: UInt32
    public var lastTXAckTimestamp: UInt32
    public var flowOff: UInt32
    public var lastFlowOnTimestamp: UInt32
    public var overflowBytes: UInt32
    public var underflowBytes: UInt32

    public init(
        reportID: UInt8, packetType: UInt8, handle: UInt16, role: UInt8, txPower: Int8, rssi: Int8, snr: Int8,
        unusedAFHChannels: UInt8, afhSelectUnidealChannels: UInt8, lsto: UInt16, piconetClock: UInt32,
        retransmissions: UInt32, noRX: UInt32, nak: UInt32, lastTXAckTimestamp: UInt32, flowOff: UInt32,
        lastFlowOnTimestamp: UInt32, overflowBytes: UInt32, underflowBytes: UInt32
    ) {
        (self.reportID, self.packetType, self.handle, self.role, self.txPower, self.rssi, self.snr) = (
            reportID, packetType, handle, role, txPower, rssi, snr
        )
        (self.unusedAFHChannels, self.afhSelectUnidealChannels, self.lsto, self.piconetClock) = (
            unusedAFHChannels, afhSelectUnidealChannels, lsto, piconetClock
        )
        (self.retransmissions, self.noRX, self.nak, self.lastTXAckTimestamp) = (
            retransmissions, noRX, nak, lastTXAckTimestamp
        )
        (self.flowOff, self.lastFlowOnTimestamp, self.overflowBytes, self.underflowBytes) = (
            flowOff, lastFlowOnTimestamp, overflowBytes, underflowBytes
        )
    }

    public init?(_ p: ByteView) {
        var r = ByteReader(p)
        guard let id = r.u8(), let pt = r.u8(), let h = r.u16le(), let role = r.u8(), let tx = r.i8(),
            let rssi = r.i8(), let snr = r.i8(), let unused = r.u8(), let unideal = r.u8(), let lsto = r.u16le(),
            let clock = r.u32le(), let retx = r.u32le(), let norx = r.u32le(), let nak = r.u32le(),
            let ack = r.u32le(), let off = r.u32le(), let on = r.u32le(), let over = r.u32le(),
            let under = r.u32le()
        else { return nil }
        self.init(
            reportID: id, packetType: pt, handle: h, role: role, txPower: tx, rssi: rssi, snr: snr,
            unusedAFHChannels: unused, afhSelectUnidealChannels: unideal, lsto: lsto, piconetClock: clock,
            retransmissions: retx, noRX: norx, nak: nak, lastTXAckTimestamp: ack, flowOff: off,
            lastFlowOnTimestamp: on, overflowBytes: over, underflowBytes: under)
    }

    public func append(to w: inout ByteWriter) {
        w.appendUInt8(reportID)
        w.appendUInt8(packetType)
        w.appendUInt16LE(handle)
        w.appendUInt8(role)
        w.appendInt8(txPower)
        w.appendInt8(rssi)
        w.appendInt8(snr)
        w.appendUInt8(unusedAFHChannels)
        w.appendUInt8(afhSelectUnidealChannels)
        w.appendUInt16LE(lsto)
        for v in [
            piconetClock, retransmissions, noRX, nak, lastTXAckTimestamp, flowOff, lastFlowOnTimestamp,
            overflowBytes, underflowBytes,
        ] {
            w.appendUInt32LE(v)
        }
    }

    /// The report ids whose report starts with this block.
    public static func isLinkQuality(_ id: UInt8) -> Bool { [0x01, 0x02, 0x03, 0x04, 0x07, 0x08].contains(id) }

    public static func reportName(_ id: UInt8) -> StaticString? {
        switch id {
        case 0x01: "Quality monitoring"
        case 0x02: "Approaching LSTO"
        case 0x03: "A2DP audio choppy"
        case 0x04: "(e)SCO voice choppy"
        case 0x05: "Root inflammation"
        case 0x06: "Energy monitoring"
        case 0x07: "LE audio choppy"
        case 0x08: "Connect fail"
        case 0x09: "RF stats"
        default: nil
        }
    }
}

/// A BQR Root Inflammation report (id 0x05): the controller reporting its own failure.
public struct BQRRootInflammation: Sendable, Equatable {
    public static let reportID: UInt8 = 0x05
    /// Id, Error_Code and Vendor_Specific_Error_Code: the bytes every such report has.
    public static let length = 3
    /// An HCI error code (Core Vol 1 Part F).
    public var errorCode: UInt8
    public var vendorErrorCode: UInt8
    /// Whatever the vendor appends (AOSP: a count, then id/length/value parameters), as sent.
    public var vendorParameters: [UInt8]

    public init(errorCode: UInt8, vendorErrorCode: UInt8, vendorParameters: [UInt8] = []) {
        (self.errorCode, self.vendorErrorCode, self.vendorParameters) = (errorCode, vendorErrorCode, vendorParameters)
    }

    /// The report, id first; nil unless the id is 0x05 and both codes are there.
    public init?(_ p: ByteView) {
        guard p.u8(0) == Self.reportID, let error = p.u8(1), let vendor = p.u8(2) else { return nil }
        self.init(
            errorCode: error, vendorErrorCode: vendor,
            vendorParameters: (p.suffix(from: Self.length) ?? .empty).toArray())
    }

    public func append(to w: inout ByteWriter) {
        w.appendUInt8(Self.reportID)
        w.appendUInt8(errorCode)
        w.appendUInt8(vendorErrorCode)
        for b in vendorParameters { w.appendUInt8(b) }
    }
}

/// A BQR Energy Monitoring report (id 0x06): how the controller spent its time and current over
/// `period` ms, all its activity together (no handle). AOSP's `BqrEnergyMonitorEvent`:
///
///   id u8, average current u16 (mA), idle total time u32 (ms), idle state enter count u32,
///   active total time u32 (ms), active state enter count u32, BR/EDR TX total time u32 (ms),
///   BR/EDR TX state enter count u32, BR/EDR average TX power level u8 (dBm, declared unsigned),
///   BR/EDR RX total time u32 (ms), BR/EDR RX state enter count u32, LE TX total time u32 (ms),
///   LE TX state enter count u32, LE average TX power level u8 (dBm, declared unsigned),
///   LE RX total time u32 (ms), LE RX state enter count u32, period u32 (ms), then RX active
///   time on one chain, on two chains, internal-PA TX active time on one chain, on two chains,
///   external-PA TX active time on one chain, on two chains (u32 each, ms): 81 bytes.
public struct BQREnergyMonitoring: Sendable, Equatable {
    public static let reportID: UInt8 = 0x06
    public static let length = 81
    /// mA.
    public var averageCurrent: UInt16
    /// Times in ms, counts of entries into the state.
    public var idleTime: UInt32, idleEntries: UInt32
    public var activeTime: UInt32, activeEntries: UInt32
    public var bredrTXTime: UInt32, bredrTXEntries: UInt32
    /// As sent: AOSP declares the average power levels unsigned though it calls them dBm.
    public var bredrTXPowerLevel: UInt8
    public var bredrRXTime: UInt32, bredrRXEntries: UInt32
    public var leTXTime: UInt32, leTXEntries: UInt32
    public var leTXPowerLevel: UInt8
    public var leRXTime: UInt32, leRXEntries: UInt32
    /// The period the figures cover, ms.
    public var period: UInt32
    /// RX active on one chain, on two; internal-PA TX on one, on two; external-PA TX on one,
    /// on two (ms each), in that order.
    public var chainTimes: [UInt32]
    /// Bytes after the 81 (BQR v7: BR/EDR and LE scan RX active times), as sent.
    public var later: [UInt8]

    public init(
        averageCurrent: UInt16, idleTime: UInt32, idleEntries: UInt32, activeTime: UInt32, activeEntries: UInt32,
        bredrTXTime: UInt32, bredrTXEntries: UInt32, bredrTXPowerLevel: UInt8, bredrRXTime: UInt32,
        bredrRXEntries: UInt32, leTXTime: UInt32, leTXEntries: UInt32, leTXPowerLevel: UInt8, leRXTime: UInt32,
        leRXEntries: UInt32, period: UInt32, chainTimes: [UInt32], later: [UInt8] = []
    ) {
        (self.averageCurrent, self.idleTime, self.idleEntries, self.activeTime, self.activeEntries) = (
            averageCurrent, idleTime, idleEntries, activeTime, activeEntries
        )
        (self.bredrTXTime, self.bredrTXEntries, self.bredrTXPowerLevel, self.bredrRXTime, self.bredrRXEntries) = (
            bredrTXTime, bredrTXEntries, bredrTXPowerLevel, bredrRXTime, bredrRXEntries
        )
        (self.leTXTime, self.leTXEntries, self.leTXPowerLevel, self.leRXTime, self.leRXEntries) = (
            leTXTime, leTXEntries, leTXPowerLevel, leRXTime, leRXEntries
        )
        (self.period, self.chainTimes, self.later) = (period, chainTimes, later)
    }

    /// The report, id first; nil unless the id is 0x06 and all 81 bytes are there.
    public init?(_ p: ByteView) {
        var r = ByteReader(p)
        guard r.u8() == Self.reportID, let current = r.u16le(), let idle = r.u32le(), let idleN = r.u32le(),
            let active = r.u32le(), let activeN = r.u32le(), let bTX = r.u32le(), let bTXN = r.u32le(),
            let bPower = r.u8(), let bRX = r.u32le(), let bRXN = r.u32le(), let lTX = r.u32le(), let lTXN = r.u32le(),
            let lPower = r.u8(), let lRX = r.u32le(), let lRXN = r.u32le(), let period = r.u32le()
        else { return nil }
        var chains: [UInt32] = []
        for _ in 0..<6 {
            guard let t = r.u32le() else { return nil }
            chains.append(t)
        }
        self.init(
            averageCurrent: current, idleTime: idle, idleEntries: idleN, activeTime: active, activeEntries: activeN,
            bredrTXTime: bTX, bredrTXEntries: bTXN, bredrTXPowerLevel: bPower, bredrRXTime: bRX, bredrRXEntries: bRXN,
            leTXTime: lTX, leTXEntries: lTXN, leTXPowerLevel: lPower, leRXTime: lRX, leRXEntries: lRXN,
            period: period, chainTimes: chains, later: r.rest().toArray())
    }

    public func append(to w: inout ByteWriter) {
        w.appendUInt8(Self.reportID)
        w.appendUInt16LE(averageCurrent)
        for v in [idleTime, idleEntries, activeTime, activeEntries, bredrTXTime, bredrTXEntries] { w.appendUInt32LE(v) }
        w.appendUInt8(bredrTXPowerLevel)
        for v in [bredrRXTime, bredrRXEntries, leTXTime, leTXEntries] { w.appendUInt32LE(v) }
        w.appendUInt8(leTXPowerLevel)
        for v in [leRXTime, leRXEntries, period] + chainTimes { w.appendUInt32LE(v) }
        for b in later { w.appendUInt8(b) }
    }
}

/// A BQR RF Stats report (id 0x09): the controller's packet counts over `period` ms, all its
/// traffic together (no handle). AOSP's `BqrRFStatsEvent`:
///
///   id u8, extension info u8 (0x01 for BQR v6), period u32 (ms), then u32 packet counters:
///   TX with internal-PA beamforming, external-PA beamforming, internal-PA diversity,
///   external-PA diversity; received by chain RSSI: above -50 dBm, -50 to -55, -55 to -60,
///   -60 to -65, -65 to -70, -70 to -75, -75 to -80, -80 to -85, -85 to -90, below -90 dBm;
///   by RSSI delta between the chains: below 2 dB, 2 to 5, 5 to 8, 8 to 11, above 11 dB:
///   82 bytes.
public struct BQRRFStats: Sendable, Equatable {
    public static let reportID: UInt8 = 0x09
    public static let length = 82
    /// The edges (dBm) between the RSSI buckets: bucket 0 is above -50 dBm, bucket i from
    /// `rssiEdges[i - 1]` down to `rssiEdges[i]`, bucket 9 below -90 dBm.
    public static let rssiEdges: [Int] = [-50, -55, -60, -65, -70, -75, -80, -85, -90]
    public var extensionInfo: UInt8
    /// The period the counts cover, ms.
    public var period: UInt32
    /// TX packets: internal-PA beamforming, external-PA beamforming, internal-PA diversity,
    /// external-PA diversity.
    public var txPower: [UInt32]
    /// Received packets by chain RSSI, strongest first (10 buckets, `rssiEdges`).
    public var rssiBuckets: [UInt32]
    /// Packets by RSSI difference between the chains: < 2, 2–5, 5–8, 8–11, > 11 dB.
    public var rssiDeltaBuckets: [UInt32]
    /// Bytes after the 82, as sent.
    public var later: [UInt8]

    public init(
        extensionInfo: UInt8, period: UInt32, txPower: [UInt32], rssiBuckets: [UInt32], rssiDeltaBuckets: [UInt32],
        later: [UInt8] = []
    ) {
        (self.extensionInfo, self.period, self.txPower) = (extensionInfo, period, txPower)
        (self.rssiBuckets, self.rssiDeltaBuckets, self.later) = (rssiBuckets, rssiDeltaBuckets, later)
    }

    /// The report, id first; nil unless the id is 0x09 and all 82 bytes are there.
    public init?(_ p: ByteView) {
        var r = ByteReader(p)
        guard r.u8() == Self.reportID, let ext = r.u8(), let period = r.u32le() else { return nil }
        var counters: [UInt32] = []
        for _ in 0..<19 {
            guard let v = r.u32le() else { return nil }
            counters.append(v)
        }
        self.init(
            extensionInfo: ext, period: period, txPower: Array(counters[0..<4]), rssiBuckets: Array(counters[4..<14]),
            rssiDeltaBuckets: Array(counters[14..<19]), later: r.rest().toArray())
    }

    public func append(to w: inout ByteWriter) {
        w.appendUInt8(Self.reportID)
        w.appendUInt8(extensionInfo)
        w.appendUInt32LE(period)
        for v in txPower + rssiBuckets + rssiDeltaBuckets { w.appendUInt32LE(v) }
        for b in later { w.appendUInt8(b) }
    }

    /// Received packets counted in the RSSI buckets, and those at -80 dBm or weaker (the last
    /// three buckets).
    public var received: UInt64 { rssiBuckets.reduce(0) { $0 + UInt64($1) } }
    public var weak: UInt64 { rssiBuckets.suffix(3).reduce(0) { $0 + UInt64($1) } }
}

/// An HCI Vendor-Specific event carrying a BQR report (sub-event 0x58).
public struct HCIBluetoothQualityReport: HCIEventEncodable, Sendable, Equatable {
    public static let code: UInt8 = 0xFF
    public static let subevent: UInt8 = 0x58

    public enum Report: Sendable, Equatable {
        /// A link-quality report, and the bytes that follow its 48-byte block.
        case linkQuality(BQRLinkQuality, trailing: [UInt8])
        /// A Root Inflammation report (id 0x05): the controller's own failure.
        case rootInflammation(BQRRootInflammation)
        /// An Energy Monitoring report (id 0x06): the controller's time and current.
        case energyMonitoring(BQREnergyMonitoring)
        /// An RF Stats report (id 0x09): the controller's packet counts by TX mode and RSSI.
        case rfStats(BQRRFStats)
        /// Any other report id (or a link-quality report cut short): the report's bytes, id first.
        case other(id: UInt8, bytes: [UInt8])
    }

    public var report: Report

    public init(report: Report) { self.report = report }

    /// The Vendor-Specific event's parameters; nil when the first byte is not 0x58 or nothing follows it.
    public init?(parameters p: ByteView) {
        guard p.u8(0) == Self.subevent, let id = p.u8(1), let body = p.suffix(from: 1) else { return nil }
        if BQRLinkQuality.isLinkQuality(id), let q = BQRLinkQuality(body) {
            report = .linkQuality(q, trailing: (body.suffix(from: BQRLinkQuality.length) ?? .empty).toArray())
        } else if let ri = BQRRootInflammation(body) {
            report = .rootInflammation(ri)
        } else if let em = BQREnergyMonitoring(body) {
            report = .energyMonitoring(em)
        } else if let rf = BQRRFStats(body) {
            report = .rfStats(rf)
        } else {
            report = .other(id: id, bytes: body.toArray())
        }
    }

    public var eventCode: UInt8 { Self.code }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt8(Self.subevent)
        switch report {
        case .linkQuality(let q, let trailing):
            q.append(to: &w)
            for b in trailing { w.appendUInt8(b) }
        case .rootInflammation(let ri):
            ri.append(to: &w)
        case .energyMonitoring(let em):
            em.append(to: &w)
        case .rfStats(let rf):
            rf.append(to: &w)
        case .other(_, let bytes):
            for b in bytes { w.appendUInt8(b) }
        }
    }
}

enum HCIAndroidBQRDecoders {
    /// Vendor-Specific (0xFF): a BQR report by name, anything else as raw parameters.
    static func vendorSpecific(_ p: ByteView, _ sink: FieldSink) {
        guard p.u8(0) == HCIBluetoothQualityReport.subevent, let e = HCIBluetoothQualityReport(parameters: p) else {
            return HCIEventDecoders.raw(p, sink)
        }
        sink.field("subevent_code", .code(0x58, digits: 2, name: "Bluetooth Quality Report"))
        switch e.report {
        case .linkQuality(let q, let trailing):
            sink.field(
                "quality_report_id", .code(UInt64(q.reportID), digits: 2, name: BQRLinkQuality.reportName(q.reportID)))
            sink.field("packet_type", .hex(UInt64(q.packetType), digits: 2))
            sink.field("connection_handle", .hex(UInt64(q.handle), digits: 4))
            sink.field(
                "connection_role",
                .code(UInt64(q.role), digits: 2, name: q.role == 0 ? "Central" : q.role == 1 ? "Peripheral" : nil))
            sink.field("tx_power_level", .dBm(q.txPower))
            sink.field("rssi", .dBm(q.rssi))
            sink.field("snr", .int(Int64(q.snr)))
            sink.field("unused_afh_channel_count", .uint(UInt64(q.unusedAFHChannels)))
            sink.field("afh_select_unideal_channel_count", .uint(UInt64(q.afhSelectUnidealChannels)))
            sink.field("lsto", .uint(UInt64(q.lsto)))
            sink.field("connection_piconet_clock", .hex(UInt64(q.piconetClock), digits: 8))
            sink.field("retransmission_count", .uint(UInt64(q.retransmissions)))
            sink.field("no_rx_count", .uint(UInt64(q.noRX)))
            sink.field("nak_count", .uint(UInt64(q.nak)))
            sink.field("last_tx_ack_timestamp", .hex(UInt64(q.lastTXAckTimestamp), digits: 8))
            sink.field("flow_off_count", .uint(UInt64(q.flowOff)))
            sink.field("last_flow_on_timestamp", .hex(UInt64(q.lastFlowOnTimestamp), digits: 8))
            sink.field("buffer_overflow_bytes", .uint(UInt64(q.overflowBytes)))
            sink.field("buffer_underflow_bytes", .uint(UInt64(q.underflowBytes)))
            if !trailing.isEmpty { trailing.withByteView { sink.field("later_fields", .bytes($0)) } }
        case .rootInflammation(let ri):
            sink.field(
                "quality_report_id",
                .code(UInt64(BQRRootInflammation.reportID), digits: 2, name: "Root inflammation"))
            sink.field("error_code", HCIFields.status(ri.errorCode))
            sink.field("vendor_specific_error_code", .hex(UInt64(ri.vendorErrorCode), digits: 2))
            if !ri.vendorParameters.isEmpty {
                ri.vendorParameters.withByteView { sink.field("vendor_specific_parameters", .bytes($0)) }
            }
        case .energyMonitoring(let em):
            sink.field(
                "quality_report_id",
                .code(UInt64(BQREnergyMonitoring.reportID), digits: 2, name: "Energy monitoring"))
            sink.field("average_current", .uint(UInt64(em.averageCurrent)))
            let times: [(StaticString, UInt32)] = [
                ("idle_total_time", em.idleTime), ("idle_state_enter_count", em.idleEntries),
                ("active_total_time", em.activeTime), ("active_state_enter_count", em.activeEntries),
                ("bredr_tx_total_time", em.bredrTXTime), ("bredr_tx_state_enter_count", em.bredrTXEntries),
            ]
            for (name, v) in times { sink.field(name, .uint(UInt64(v))) }
            sink.field("bredr_tx_average_power_level", .uint(UInt64(em.bredrTXPowerLevel)))
            let more: [(StaticString, UInt32)] = [
                ("bredr_rx_total_time", em.bredrRXTime), ("bredr_rx_state_enter_count", em.bredrRXEntries),
                ("le_tx_total_time", em.leTXTime), ("le_tx_state_enter_count", em.leTXEntries),
            ]
            for (name, v) in more { sink.field(name, .uint(UInt64(v))) }
            sink.field("le_tx_average_power_level", .uint(UInt64(em.leTXPowerLevel)))
            sink.field("le_rx_total_time", .uint(UInt64(em.leRXTime)))
            sink.field("le_rx_state_enter_count", .uint(UInt64(em.leRXEntries)))
            sink.field("period", .uint(UInt64(em.period)))
            let chains: [StaticString] = [
                "rx_active_one_chain_time", "rx_active_two_chain_time", "tx_ipa_active_one_chain_time",
                "tx_ipa_active_two_chain_time", "tx_epa_active_one_chain_time", "tx_epa_active_two_chain_time",
            ]
            for (name, v) in zip(chains, em.chainTimes) { sink.field(name, .uint(UInt64(v))) }
            if !em.later.isEmpty { em.later.withByteView { sink.field("later_fields", .bytes($0)) } }
        case .rfStats(let rf):
            sink.field("quality_report_id", .code(UInt64(BQRRFStats.reportID), digits: 2, name: "RF stats"))
            sink.field("extension_info", .hex(UInt64(rf.extensionInfo), digits: 2))
            sink.field("period", .uint(UInt64(rf.period)))
            let tx: [StaticString] = [
                "tx_ipa_bf_packets", "tx_epa_bf_packets", "tx_ipa_div_packets", "tx_epa_div_packets",
            ]
            for (name, v) in zip(tx, rf.txPower) { sink.field(name, .uint(UInt64(v))) }
            let rssi: [StaticString] = [
                "rssi_above_50", "rssi_50_55", "rssi_55_60", "rssi_60_65", "rssi_65_70", "rssi_70_75", "rssi_75_80",
                "rssi_80_85", "rssi_85_90", "rssi_below_90",
            ]
            for (name, v) in zip(rssi, rf.rssiBuckets) { sink.field(name, .uint(UInt64(v))) }
            let delta: [StaticString] = [
                "rssi_delta_below_2", "rssi_delta_2_5", "rssi_delta_5_8", "rssi_delta_8_11", "rssi_delta_above_11",
            ]
            for (name, v) in zip(delta, rf.rssiDeltaBuckets) { sink.field(name, .uint(UInt64(v))) }
            if !rf.later.isEmpty { rf.later.withByteView { sink.field("later_fields", .bytes($0)) } }
        case .other(let id, let bytes):
            sink.field("quality_report_id", .code(UInt64(id), digits: 2, name: BQRLinkQuality.reportName(id)))
            if bytes.count > 1 { bytes.withByteView { sink.field("report", .bytes($0.suffix(from: 1) ?? .empty)) } }
        }
    }
}
