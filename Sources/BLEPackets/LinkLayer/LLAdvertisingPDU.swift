import BLEBytes
import CaptureIO

/// An advertising physical channel PDU (Core 5.4 Vol 6 Part B 2.3): a 16-bit header
/// (PDU Type 4 bits, RFU, ChSel, TxAdd, RxAdd; Length 8 bits) and Length payload bytes. The
/// CRC is not part of it (`LinkLayerPacket` holds it).
public struct LLAdvertisingPDU: ByteEncodable, @unchecked Sendable {
    public let pduType: UInt8
    /// ChSel: the advertiser (or initiator) supports Channel Selection Algorithm #2.
    public let chSel: Bool
    /// TxAdd / RxAdd: the address fields are random (true) or public (false).
    public let txAdd: Bool
    public let rxAdd: Bool
    /// The header's Length field.
    public let length: UInt8
    /// The payload: `length` bytes, or fewer when the capture cut the packet.
    public let payload: ByteView

    /// Parses header and payload from `pdu` (the bytes after the access address, CRC excluded).
    public init?(_ pdu: ByteView) {
        guard let h0 = pdu.u8(0), let h1 = pdu.u8(1) else { return nil }
        pduType = h0 & 0x0F
        chSel = h0 & 0x20 != 0
        txAdd = h0 & 0x40 != 0
        rxAdd = h0 & 0x80 != 0
        length = h1
        payload = (pdu.suffix(from: 2) ?? .empty).prefix(Int(h1))
    }

    public init(pduType: UInt8, chSel: Bool = false, txAdd: Bool, rxAdd: Bool = false, payload: ByteView) {
        self.pduType = pduType & 0x0F
        self.chSel = chSel
        self.txAdd = txAdd
        self.rxAdd = rxAdd
        self.length = UInt8(truncatingIfNeeded: payload.count)
        self.payload = payload
    }

    public func append(to w: inout ByteWriter) {
        w.appendUInt8(pduType | (chSel ? 0x20 : 0) | (txAdd ? 0x40 : 0) | (rxAdd ? 0x80 : 0))
        w.appendUInt8(length)
        w.appendBytes(payload)
    }

    /// Whether the payload is as long as the header says.
    public var isComplete: Bool { payload.count == Int(length) }

    /// The PDU's name (Table 2.3). One type code means different PDUs on the primary and the
    /// secondary advertising channels; `secondary` picks (channel index below 37).
    public func name(secondary: Bool) -> StaticString {
        Self.name(pduType, secondary: secondary)
    }

    public static func name(_ type: UInt8, secondary: Bool) -> StaticString {
        switch type {
        case LLAdvertisingPDUType.advInd: "ADV_IND"
        case LLAdvertisingPDUType.advDirectInd: "ADV_DIRECT_IND"
        case LLAdvertisingPDUType.advNonconnInd: "ADV_NONCONN_IND"
        case LLAdvertisingPDUType.scanReq: secondary ? "AUX_SCAN_REQ" : "SCAN_REQ"
        case LLAdvertisingPDUType.scanRsp: "SCAN_RSP"
        case LLAdvertisingPDUType.connectInd: secondary ? "AUX_CONNECT_REQ" : "CONNECT_IND"
        case LLAdvertisingPDUType.advScanInd: "ADV_SCAN_IND"
        case LLAdvertisingPDUType.advExtInd: secondary ? "AUX_ADV_IND" : "ADV_EXT_IND"
        case LLAdvertisingPDUType.auxConnectRsp: "AUX_CONNECT_RSP"
        default: "Reserved"
        }
    }

    // MARK: fields (2.3.1, 2.3.2, 2.3.3)

    /// AdvA: the advertiser's address (TxAdd says its type), in every PDU that carries one.
    public var advA: BDAddr? {
        switch pduType {
        case LLAdvertisingPDUType.advInd, LLAdvertisingPDUType.advDirectInd, LLAdvertisingPDUType.advNonconnInd,
            LLAdvertisingPDUType.scanRsp, LLAdvertisingPDUType.advScanInd:
            BDAddr(littleEndian: payload, at: 0)
        case LLAdvertisingPDUType.scanReq, LLAdvertisingPDUType.connectInd:
            BDAddr(littleEndian: payload, at: 6)
        case LLAdvertisingPDUType.advExtInd, LLAdvertisingPDUType.auxConnectRsp:
            extendedHeader?.advA
        default: nil
        }
    }

    /// AdvA's type: TxAdd for the advertiser's own PDUs, RxAdd where the advertiser is the
    /// second address (SCAN_REQ, CONNECT_IND).
    public var advARandom: Bool {
        pduType == LLAdvertisingPDUType.scanReq || pduType == LLAdvertisingPDUType.connectInd ? rxAdd : txAdd
    }

    /// ScanA (SCAN_REQ) or InitA (CONNECT_IND): the scanner's or initiator's address (TxAdd).
    public var scanOrInitA: BDAddr? {
        pduType == LLAdvertisingPDUType.scanReq || pduType == LLAdvertisingPDUType.connectInd
            ? BDAddr(littleEndian: payload, at: 0) : nil
    }

    /// TargetA of ADV_DIRECT_IND (RxAdd).
    public var targetA: BDAddr? {
        pduType == LLAdvertisingPDUType.advDirectInd ? BDAddr(littleEndian: payload, at: 6) : nil
    }

    /// AdvData / ScanRspData: the AD structures (decoded with `AdvertisingData`).
    public var advertisingData: ByteView? {
        switch pduType {
        case LLAdvertisingPDUType.advInd, LLAdvertisingPDUType.advNonconnInd, LLAdvertisingPDUType.scanRsp,
            LLAdvertisingPDUType.advScanInd:
            payload.suffix(from: 6)
        case LLAdvertisingPDUType.advExtInd:
            extendedHeader?.advData
        default: nil
        }
    }

    /// CONNECT_IND / AUX_CONNECT_REQ's LLData.
    public var connectIndication: LLConnectIndication? {
        guard pduType == LLAdvertisingPDUType.connectInd, let data = payload.suffix(from: 12) else { return nil }
        return LLConnectIndication(data)
    }

    /// The Common Extended Advertising Payload of ADV_EXT_IND, AUX_* and AUX_CONNECT_RSP.
    public var extendedHeader: LLCommonExtendedHeader? {
        guard pduType == LLAdvertisingPDUType.advExtInd || pduType == LLAdvertisingPDUType.auxConnectRsp else {
            return nil
        }
        return LLCommonExtendedHeader(payload)
    }
}

/// LLData of CONNECT_IND and AUX_CONNECT_REQ (2.3.3.1, Figure 2.14): 22 bytes.
public struct LLConnectIndication: ByteEncodable, Sendable, Equatable {
    public static let size = 22
    public var accessAddress: UInt32
    /// CRCInit as a little-endian 24-bit number (what `LinkLayerCRC.compute` takes).
    public var crcInit: UInt32
    /// transmitWindowSize × 1.25 ms.
    public var windowSize: UInt8
    /// transmitWindowOffset × 1.25 ms.
    public var windowOffset: UInt16
    /// connInterval × 1.25 ms.
    public var interval: UInt16
    /// connPeripheralLatency, in connection events.
    public var latency: UInt16
    /// connSupervisionTimeout × 10 ms.
    public var timeout: UInt16
    /// ChM: 37 bits, bit n = data channel n used.
    public var channelMap: UInt64
    /// Hop (5 bits): channel selection algorithm #1 increment.
    public var hop: UInt8
    /// SCA (3 bits): the central's sleep clock accuracy class.
    public var sleepClockAccuracy: UInt8

    public init?(_ d: ByteView) {
        guard let aa = d.u32le(0), let crc = d.u24le(4), let ws = d.u8(7), let wo = d.u16le(8),
            let iv = d.u16le(10), let lat = d.u16le(12), let to = d.u16le(14), let lo = d.u32le(16),
            let hi = d.u8(20), let hs = d.u8(21)
        else { return nil }
        (accessAddress, crcInit, windowSize, windowOffset, interval, latency, timeout) = (
            aa, crc, ws, wo, iv, lat, to
        )
        channelMap = UInt64(lo) | UInt64(hi) << 32
        hop = hs & 0x1F
        sleepClockAccuracy = hs >> 5
    }

    public init(
        accessAddress: UInt32, crcInit: UInt32, windowSize: UInt8, windowOffset: UInt16, interval: UInt16,
        latency: UInt16, timeout: UInt16, channelMap: UInt64, hop: UInt8, sleepClockAccuracy: UInt8
    ) {
        (self.accessAddress, self.crcInit, self.windowSize, self.windowOffset) = (
            accessAddress, crcInit, windowSize, windowOffset
        )
        (self.interval, self.latency, self.timeout, self.channelMap, self.hop, self.sleepClockAccuracy) = (
            interval, latency, timeout, channelMap, hop, sleepClockAccuracy
        )
    }

    public func append(to w: inout ByteWriter) {
        w.appendUInt32LE(accessAddress)
        w.appendUInt24LE(crcInit)
        w.appendUInt8(windowSize)
        w.appendUInt16LE(windowOffset)
        w.appendUInt16LE(interval)
        w.appendUInt16LE(latency)
        w.appendUInt16LE(timeout)
        w.appendUInt32LE(UInt32(truncatingIfNeeded: channelMap))
        w.appendUInt8(UInt8(truncatingIfNeeded: channelMap >> 32))
        w.appendUInt8((hop & 0x1F) | (sleepClockAccuracy << 5))
    }

    /// Connection interval in µs.
    public var intervalMicroseconds: Int64 { Int64(interval) * 1250 }
    /// Supervision timeout in µs.
    public var timeoutMicroseconds: Int64 { Int64(timeout) * 10_000 }
    /// Number of data channels in use.
    public var usedChannels: Int { (channelMap & 0x1F_FFFF_FFFF).nonzeroBitCount }
}

/// The Common Extended Advertising Payload Format (2.3.4): Extended Header Length (6 bits),
/// AdvMode (2 bits), then, when the length is non-zero, the flags byte and the fields it
/// announces in this order: AdvA 6, TargetA 6, CTEInfo 1, ADI 2, AuxPtr 3, SyncInfo 18,
/// TxPower 1, then ACAD up to the header's end; AdvData follows the header.
public struct LLCommonExtendedHeader: @unchecked Sendable {
    public enum Field: UInt8, CaseIterable, Sendable {
        case advA = 0x01
        case targetA = 0x02
        case cteInfo = 0x04
        case adi = 0x08
        case auxPtr = 0x10
        case syncInfo = 0x20
        case txPower = 0x40

        public var size: Int {
            switch self {
            case .advA, .targetA: 6
            case .cteInfo, .txPower: 1
            case .adi: 2
            case .auxPtr: 3
            case .syncInfo: 18
            }
        }
    }

    /// AdvMode: 0 non-connectable non-scannable, 1 connectable, 2 scannable.
    public let advMode: UInt8
    public let headerLength: UInt8
    public let flags: UInt8
    public let advA: BDAddr?
    public let targetA: BDAddr?
    public let adi: UInt16?
    public let auxPtr: UInt32?
    public let txPower: Int8?
    public let acad: ByteView
    public let advData: ByteView

    public init?(_ payload: ByteView) {
        guard let b0 = payload.u8(0) else { return nil }
        headerLength = b0 & 0x3F
        advMode = b0 >> 6
        let end = 1 + Int(headerLength)
        guard payload.contains(0, end) else { return nil }
        flags = headerLength > 0 ? (payload.u8(1) ?? 0) : 0
        // Each announced field's offset, in the fixed order (no dictionary: advertising is hot).
        var offsets: (Int?, Int?, Int?, Int?, Int?) = (nil, nil, nil, nil, nil)
        var offset = 2
        // Bit order is field order (no array to iterate: nothing allocated per PDU).
        var bit: UInt8 = 0x01
        while bit < 0x80 {
            defer { bit <<= 1 }
            guard flags & bit != 0, let f = Field(rawValue: bit) else { continue }
            switch f {
            case .advA: offsets.0 = offset
            case .targetA: offsets.1 = offset
            case .adi: offsets.2 = offset
            case .auxPtr: offsets.3 = offset
            case .txPower: offsets.4 = offset
            case .cteInfo, .syncInfo: break
            }
            offset += f.size
        }
        guard headerLength == 0 || offset <= end else { return nil }
        advA = offsets.0.flatMap { BDAddr(littleEndian: payload, at: $0) }
        targetA = offsets.1.flatMap { BDAddr(littleEndian: payload, at: $0) }
        adi = offsets.2.flatMap { payload.u16le($0) }
        auxPtr = offsets.3.flatMap { payload.u24le($0) }
        txPower = offsets.4.flatMap { payload.i8($0) }
        acad = headerLength > 0 ? (payload.slice(offset, end - offset) ?? .empty) : .empty
        advData = payload.suffix(from: end) ?? .empty
    }

    /// AuxPtr's Channel Index (6 bits).
    public var auxChannel: UInt8? { auxPtr.map { UInt8($0 & 0x3F) } }
}
