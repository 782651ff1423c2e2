import BLEBytes
import CaptureIO

/// An L2CAP basic frame (B-frame, Core 5.4 Vol 3 Part A 3.1) in one buffer: Length (u16, the
/// information payload's), Channel ID (u16), information payload. What an ACL stream carries
/// once reassembled, and what a host cuts into ACL fragments to send.
public struct L2CAPBasicFrame: ByteEncodable, @unchecked Sendable {
    public static let headerLength = 4
    /// The Length field as written.
    public let length: UInt16
    public let channel: UInt16
    /// The bytes after the header (normally exactly `length` of them).
    public let payload: ByteView

    /// A frame whose Length is the payload's count.
    public init(channel: UInt16, payload: ByteView) {
        length = UInt16(truncatingIfNeeded: payload.count)
        self.channel = channel
        self.payload = payload
    }

    /// Reads the header and keeps everything after it as the payload, whatever the Length
    /// says (`isComplete` compares them). Nil when the 4-byte header is cut short.
    public init?(_ frame: ByteView) {
        guard let l = frame.u16le(0), let c = frame.u16le(2) else { return nil }
        (length, channel, payload) = (l, c, frame.suffix(from: Self.headerLength)!)
    }

    /// Whether the payload is exactly as long as the Length field says.
    public var isComplete: Bool { payload.count == Int(length) }

    public func append(to w: inout ByteWriter) {
        w.appendUInt16LE(length)
        w.appendUInt16LE(channel)
        w.appendBytes(payload)
    }

    /// The frame cut into HCI ACL data packets of at most `bufferSize` data bytes each (the
    /// controller's LE ACL Data Packet Length, Vol 4 Part E 7.8.2), H4 type first: the first
    /// with `first` (a host sends First Non-Automatically-Flushable, a controller delivers
    /// First Automatically Flushable, Vol 4 Part E 5.4.2), the rest Continuing Fragment.
    public func aclPackets(handle: UInt16, first: HCIACLPacket.BoundaryFlag, bufferSize: Int) -> [[UInt8]] {
        let frame = encoded()
        var out: [[UInt8]] = []
        var offset = 0
        frame.withByteView { view in
            repeat {
                let end = Swift.min(frame.count, offset + Swift.max(1, bufferSize))
                let part = view.slice(offset, end - offset)!
                let packet = HCIACLPacket(
                    handle: handle, boundary: offset == 0 ? first : .continuing, broadcast: 0,
                    data: part)
                out.append(packet.h4Encoded())
                offset = end
            } while offset < frame.count
        }
        return out
    }

    /// `aclPackets` for a payload kept as an array.
    public static func aclPackets(
        channel: UInt16, payload: [UInt8], handle: UInt16, first: HCIACLPacket.BoundaryFlag,
        bufferSize: Int
    ) -> [[UInt8]] {
        payload.withByteView {
            L2CAPBasicFrame(channel: channel, payload: $0).aclPackets(
                handle: handle, first: first, bufferSize: bufferSize)
        }
    }
}
