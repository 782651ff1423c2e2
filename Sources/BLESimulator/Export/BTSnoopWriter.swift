import Foundation

/// Writes btsnoop version 1 with datalink 1002, HCI UART (H4): the record's first byte is the
/// H4 packet type (0x01 command, 0x02 ACL data, 0x04 event). Big-endian headers, timestamps in
/// microseconds since 0000-01-01 (the format `CaptureIO.BTSnoopReader` documents).
/// Package-visible, like `HCISynthesis` and `H4`, for the other modules that write captures.
package struct BTSnoopWriter {
    package static let datalinkH4: UInt32 = 1002
    /// Microseconds from 0000-01-01 to 1970-01-01.
    package static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    package private(set) var bytes: [UInt8]

    package init() {
        bytes = Array("btsnoop\0".utf8)
        Self.put32(&bytes, 1)
        Self.put32(&bytes, Self.datalinkH4)
    }

    /// `packet` starts with its H4 type. Flags (btsnoop): bit 0 set when received by the
    /// host, bit 1 set for commands and events.
    package mutating func append(_ packet: [UInt8], received: Bool, unixMicros: Int64) {
        let type = packet.first ?? 0
        let flags: UInt32 = (received ? 1 : 0) | (type == H4.command || type == H4.event ? 2 : 0)
        Self.put32(&bytes, UInt32(packet.count))
        Self.put32(&bytes, UInt32(packet.count))
        Self.put32(&bytes, flags)
        Self.put32(&bytes, 0)
        let t = UInt64(bitPattern: unixMicros &+ Self.unixEpochOffset)
        Self.put32(&bytes, UInt32(truncatingIfNeeded: t >> 32))
        Self.put32(&bytes, UInt32(truncatingIfNeeded: t))
        bytes += packet
    }

    private static func put32(_ b: inout [UInt8], _ v: UInt32) {
        b += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }
}

/// H4 packet types (Core 5.4 Vol 4 Part A 2).
package enum H4 {
    package static let command: UInt8 = 0x01
    package static let acl: UInt8 = 0x02
    package static let event: UInt8 = 0x04
}
