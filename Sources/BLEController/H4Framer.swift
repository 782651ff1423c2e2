import BLEBytes
import CaptureIO

/// Cuts the byte stream a host writes to a UART-style transport into H4 packets (Core 5.4
/// Vol 4 Part A 2): a packet type octet, then the HCI packet, whose own header gives its
/// length. With `fromController` it cuts what a controller writes instead (events, not
/// commands): `blecap replay --controller` hosts a real one.
///
/// The other side is untrusted: the buffer is one fixed allocation (the largest packet the header
/// lengths allow, 4 + 65535 octets), an unknown packet type is dropped octet by octet until a
/// known one comes (and reported once per run of junk), and a packet longer than
/// `maximumPacketLength` is skipped as it streams past instead of being stored.
public struct H4Framer {
    /// What the framer found in the stream.
    public enum Item {
        /// A whole packet: its H4 type and the HCI packet after it (valid until the next call).
        case packet(type: UInt8, body: ByteView)
        /// Something that is not a packet: dropped, with why.
        case dropped(String)
    }

    /// Packets whose HCI part is longer are skipped (the controller's buffers could never
    /// hold them; a command is at most 3 + 255 octets).
    public let maximumPacketLength: Int
    private var buffer: [UInt8]
    private var count = 0
    /// Octets of an oversized packet still to skip.
    private var skipping = 0
    /// Octets of unknown packet types dropped in the current run.
    private var junk = 0

    /// The stream comes from a controller (events; commands are not packets there).
    public let fromController: Bool

    public init(maximumPacketLength: Int = 4 + 65535, fromController: Bool = false) {
        self.fromController = fromController
        self.maximumPacketLength = min(max(maximumPacketLength, 4), 4 + 65535)
        buffer = [UInt8](repeating: 0, count: 1 + self.maximumPacketLength)
    }

    /// Length of the HCI header after the type octet, or nil for a type this side never sends.
    private func headerLength(_ type: UInt8) -> Int? {
        switch type {
        case H4PacketType.command: fromController ? nil : 3
        case H4PacketType.event: fromController ? 2 : nil
        case H4PacketType.acl: 4
        case H4PacketType.sco: 3
        case H4PacketType.iso: 4
        default: nil
        }
    }

    /// The HCI packet's total length (header included), once its header is in.
    private func packetLength(_ type: UInt8) -> Int? {
        guard let h = headerLength(type), count >= 1 + h else { return nil }
        switch type {
        case H4PacketType.event: return h + Int(buffer[2])
        case H4PacketType.acl: return h + Int(UInt16(buffer[3]) | UInt16(buffer[4]) << 8)
        case H4PacketType.iso: return h + Int((UInt16(buffer[3]) | UInt16(buffer[4]) << 8) & 0x3FFF)
        default: return h + Int(buffer[3])
        }
    }

    /// Feeds `bytes`; `handle` gets every packet completed and every drop, in stream order.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ handle: (Item) -> Void) {
        var i = 0
        while i < bytes.count {
            if skipping > 0 {
                let n = min(skipping, bytes.count - i)
                skipping -= n
                i += n
                continue
            }
            if count == 0 {
                let type = bytes[i]
                guard headerLength(type) != nil else {
                    junk += 1
                    i += 1
                    continue
                }
                if junk > 0 {
                    handle(.dropped("\(junk) octet\(junk == 1 ? "" : "s") of unknown H4 packet type dropped"))
                    junk = 0
                }
            }
            // Take what the header (or, once known, the packet) still needs.
            let type = buffer[0]
            let need: Int
            if count == 0 {
                need = 1
            } else if let total = packetLength(type) {
                need = 1 + total - count
            } else {
                need = 1 + headerLength(type)! - count
            }
            let n = min(need, bytes.count - i)
            buffer.withUnsafeMutableBytes { dst in
                dst.baseAddress!.advanced(by: count).copyMemory(
                    from: bytes.baseAddress!.advanced(by: i), byteCount: n)
            }
            count += n
            i += n
            guard count > 1, let total = packetLength(buffer[0]) else { continue }
            if total > maximumPacketLength {
                handle(
                    .dropped("H4 packet type \(buffer[0]) of \(total) octets exceeds \(maximumPacketLength): skipped"))
                skipping = 1 + total - count
                count = 0
                continue
            }
            if count == 1 + total {
                let t = buffer[0]
                buffer.withUnsafeBytes { raw in
                    handle(.packet(type: t, body: ByteView(UnsafeRawBufferPointer(rebasing: raw[1..<(1 + total)]))))
                }
                count = 0
            }
        }
        if junk > 0, count == 0 {
            handle(.dropped("\(junk) octet\(junk == 1 ? "" : "s") of unknown H4 packet type dropped"))
            junk = 0
        }
    }

    /// Octets of an incomplete packet waiting for the rest.
    public var pending: Int { count }
}
