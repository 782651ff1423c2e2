import BLEBytes
import FoundationEssentials

/// Writes pcapng (IETF draft-ietf-opsawg-pcapng) with one interface of link type 201,
/// LINKTYPE_BLUETOOTH_HCI_H4_WITH_PHDR: each packet is a 4-byte big-endian direction
/// pseudo-header (bit 0 set = received by the host, libpcap's `pcap/bluetooth.h`), the H4 type
/// byte, the packet. Blocks little-endian: a Section Header Block, an Interface Description
/// Block (microsecond timestamps, the default `if_tsresol`), one Enhanced Packet Block per
/// packet, optionally with an `opt_comment` that Wireshark shows as the packet's comment.
///
/// `PcapReader` reads the result back (as libpcap does); Wireshark and tshark open it with
/// the comments (`frame.comment`).
public struct PcapngWriter {
    /// LINKTYPE_BLUETOOTH_HCI_H4_WITH_PHDR.
    public static let linkTypeH4WithPHDR: UInt16 = 201

    static let sectionHeaderBlock: UInt32 = 0x0A0D_0D0A
    static let interfaceDescriptionBlock: UInt32 = 0x0000_0001
    static let enhancedPacketBlock: UInt32 = 0x0000_0006
    static let byteOrderMagic: UInt32 = 0x1A2B_3C4D
    static let optEndOfOpt: UInt16 = 0
    static let optComment: UInt16 = 1
    static let shbUserAppl: UInt16 = 4

    private var writer = ByteWriter()
    /// The file so far.
    public var bytes: [UInt8] { writer.bytes }

    /// `application` goes into the section header's `shb_userappl` option when given.
    public init(application: String? = nil) {
        block(Self.sectionHeaderBlock) { w in
            w.appendUInt32LE(Self.byteOrderMagic)
            w.appendUInt16LE(1)  // major version
            w.appendUInt16LE(0)  // minor version
            w.appendUInt64LE(UInt64.max)  // section length: not given
            if let application { Self.option(&w, Self.shbUserAppl, Array(application.utf8)) }
            if application != nil { Self.option(&w, Self.optEndOfOpt, []) }
        }
        block(Self.interfaceDescriptionBlock) { w in
            w.appendUInt16LE(Self.linkTypeH4WithPHDR)
            w.appendUInt16LE(0)  // reserved
            w.appendUInt32LE(0)  // snap length: no limit
        }
    }

    /// `packet` starts with its H4 type; `comment` becomes the packet's `opt_comment`.
    public mutating func append(_ packet: [UInt8], received: Bool, unixMicros: Int64, comment: String? = nil) {
        block(Self.enhancedPacketBlock) { w in
            let t = UInt64(bitPattern: unixMicros)
            w.appendUInt32LE(0)  // interface 0
            w.appendUInt32LE(UInt32(truncatingIfNeeded: t >> 32))
            w.appendUInt32LE(UInt32(truncatingIfNeeded: t))
            let length = UInt32(packet.count + 4)
            w.appendUInt32LE(length)  // captured
            w.appendUInt32LE(length)  // original
            w.appendUInt32BE(received ? 1 : 0)  // pseudo-header, network byte order
            w.appendBytes(packet)
            Self.pad(&w)
            if let comment {
                Self.option(&w, Self.optComment, Array(comment.utf8))
                Self.option(&w, Self.optEndOfOpt, [])
            }
        }
    }

    /// Writes the file to `path`.
    public func write(to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Block Type, Block Total Length, body, Block Total Length again.
    private mutating func block(_ type: UInt32, _ body: (inout ByteWriter) -> Void) {
        let start = writer.count
        writer.appendUInt32LE(type)
        writer.appendUInt32LE(0)
        body(&writer)
        let total = UInt32(writer.count - start + 4)
        writer.setUInt32LE(total, at: start + 4)
        writer.appendUInt32LE(total)
    }

    /// Option code, length, value padded to 32 bits.
    private static func option(_ w: inout ByteWriter, _ code: UInt16, _ text: [UInt8]) {
        let value = text.prefix(0xFFF0)  // an option's length is 16 bits
        w.appendUInt16LE(code)
        w.appendUInt16LE(UInt16(truncatingIfNeeded: value.count))
        w.appendBytes(value)
        pad(&w)
    }

    private static func pad(_ w: inout ByteWriter) { w.appendZeros((4 - w.count % 4) % 4) }
}
