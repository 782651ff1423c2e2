import BLEBytes
import CaptureIO

/// A data physical channel PDU (Core 5.4 Vol 6 Part B 2.4): a 16-bit header (LLID 2 bits,
/// NESN, SN, MD, CP, RFU 2 bits; Length 8 bits), the CTEInfo byte when CP is set, and Length
/// payload bytes (an encrypted payload includes its 4-byte MIC). The CRC is not part of it.
public struct LLDataPDU: ByteEncodable, @unchecked Sendable {
    public let llid: UInt8
    /// Next Expected Sequence Number and Sequence Number (4.5.9): the acknowledgement scheme.
    public let nesn: Bool
    public let sn: Bool
    /// More Data: the sender has more to send in this connection event.
    public let md: Bool
    /// CTEInfo Present.
    public let cp: Bool
    /// The two RFU bits (6, 7), kept as received so the PDU encodes back to its bytes.
    public let rfu: UInt8
    public let length: UInt8
    /// CTEInfo (2.4.1.1): CTETime 5 bits (× 8 µs), RFU, CTEType 2 bits. Nil unless CP.
    public let cteInfo: UInt8?
    /// The payload: `length` bytes, or fewer when the capture cut the packet.
    public let payload: ByteView

    public init?(_ pdu: ByteView) {
        guard let h0 = pdu.u8(0), let h1 = pdu.u8(1) else { return nil }
        llid = h0 & 0b11
        nesn = h0 & 0x04 != 0
        sn = h0 & 0x08 != 0
        md = h0 & 0x10 != 0
        cp = h0 & 0x20 != 0
        rfu = h0 >> 6
        length = h1
        var start = 2
        if cp {
            guard let c = pdu.u8(2) else { return nil }
            cteInfo = c
            start = 3
        } else {
            cteInfo = nil
        }
        payload = (pdu.suffix(from: start) ?? .empty).prefix(Int(h1))
    }

    public init(llid: UInt8, nesn: Bool, sn: Bool, md: Bool = false, cteInfo: UInt8? = nil, payload: ByteView) {
        self.llid = llid & 0b11
        (self.nesn, self.sn, self.md) = (nesn, sn, md)
        self.cp = cteInfo != nil
        self.rfu = 0
        self.cteInfo = cteInfo
        self.length = UInt8(truncatingIfNeeded: payload.count)
        self.payload = payload
    }

    public func append(to w: inout ByteWriter) {
        w.appendUInt8(llid | (nesn ? 0x04 : 0) | (sn ? 0x08 : 0) | (md ? 0x10 : 0) | (cp ? 0x20 : 0) | rfu << 6)
        w.appendUInt8(length)
        if let cteInfo { w.appendUInt8(cteInfo) }
        w.appendBytes(payload)
    }

    /// LLID 01 with Length 0: the empty PDU that only acknowledges (2.4.1).
    public var isEmpty: Bool { llid == LLID.continuation && length == 0 }
    public var isControl: Bool { llid == LLID.control }
    public var isComplete: Bool { payload.count == Int(length) }

    /// What the LLID says the payload is (Table 2.17).
    public var llidName: StaticString {
        switch llid {
        case LLID.continuation: length == 0 ? "Empty PDU" : "L2CAP Continuation"
        case LLID.start: "L2CAP Start"
        case LLID.control: "LL Control PDU"
        default: "Reserved"
        }
    }
}
