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
// Later BQR versions append fields after the block (the remote address, a calibration
// failure count …): they are kept as `trailing` bytes.
//
// Report id 0x05, Root Inflammation, is the controller saying it has failed (a firmware fault,
// an assertion; Android's stack then restarts Bluetooth). AOSP's btif_bqr reads it as three
// bytes before anything vendor-specific: id u8, Error_Code u8 (an HCI error code, Core Vol 1
// Part F; 0x00 in the crash reports AOSP describes), Vendor_Specific_Error_Code u8 (the
// vendor's crash reason). What follows is optional and vendor-defined (a parameter count, then
// id/length/value triples): kept as bytes. Other report ids (0x06 energy monitoring, 0x09 RF
// stats, vendor traces) are kept whole.

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

/// An HCI Vendor-Specific event carrying a BQR report (sub-event 0x58).
public struct HCIBluetoothQualityReport: HCIEventEncodable, Sendable, Equatable {
    public static let code: UInt8 = 0xFF
    public static let subevent: UInt8 = 0x58

    public enum Report: Sendable, Equatable {
        /// A link-quality report, and the bytes that follow its 48-byte block.
        case linkQuality(BQRLinkQuality, trailing: [UInt8])
        /// A Root Inflammation report (id 0x05): the controller's own failure.
        case rootInflammation(BQRRootInflammation)
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
        case .other(let id, let bytes):
            sink.field("quality_report_id", .code(UInt64(id), digits: 2, name: BQRLinkQuality.reportName(id)))
            if bytes.count > 1 { bytes.withByteView { sink.field("report", .bytes($0.suffix(from: 1) ?? .empty)) } }
        }
    }
}
