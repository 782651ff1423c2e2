import BLEBytes

/// The Link Layer CRC (Core 5.4 Vol 6 Part B 3.1.1): 24 bits, polynomial
/// x²⁴ + x¹⁰ + x⁹ + x⁶ + x⁴ + x³ + x + 1, over the PDU (header and payload, not the access
/// address), bits in air order (least significant bit of each byte first).
///
/// The spec draws the LFSR with position 0 holding the CRCInit's most significant bit, and
/// sends position 23 first. Run as a right shift, the register therefore starts as the
/// CRCInit with its 24 bits reversed, and ends holding the three CRC bytes exactly as they
/// appear on air read as a little-endian number (what `LinkLayerCRC.received` reads).
public enum LinkLayerCRC {
    /// The feedback taps of the right-shifting register (bits 1, 3, 4, 6, 9, 10 of the
    /// polynomial, mirrored).
    static let taps: UInt32 = 0x5A_6000

    /// The CRC over `pdu` with the given CRCInit (0x555555 on the advertising channels, the
    /// CONNECT_IND's CRCInit field read little-endian on a connection).
    public static func compute(_ pdu: ByteView, crcInit: UInt32) -> UInt32 {
        var state = reversed24(crcInit)
        for byte in pdu.base {
            var b = byte
            for _ in 0..<8 {
                let bit = (state ^ UInt32(b)) & 1
                b >>= 1
                state >>= 1
                if bit != 0 { state = (state | 0x80_0000) ^ taps }
            }
        }
        return state
    }

    /// The CRC as transmitted: the three bytes after the PDU, little-endian.
    public static func received(_ crc: ByteView) -> UInt32? { crc.u24le(0) }

    /// The three CRC bytes to transmit for `crc`.
    public static func append(_ crc: UInt32, to w: inout ByteWriter) { w.appendUInt24LE(crc & 0xFF_FFFF) }

    static func reversed24(_ v: UInt32) -> UInt32 {
        var r: UInt32 = 0
        var x = v
        for _ in 0..<24 {
            r = (r << 1) | (x & 1)
            x >>= 1
        }
        return r
    }
}
