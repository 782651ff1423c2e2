import BLEBytes
import FoundationEssentials

/// Writes btsnoop version 1 with datalink 1002, HCI UART (H4): the record's first byte is the
/// H4 packet type (0x01 command, 0x02 ACL data, 0x04 event). Big-endian headers, timestamps in
/// microseconds since 0000-01-01: the layout `BTSnoopReader` reads, so what one writes the
/// other reads back.
public struct BTSnoopWriter {
    public static let datalinkH4: UInt32 = BTSnoopReader.datalinkH4
    /// Microseconds from 0000-01-01 to 1970-01-01.
    public static let unixEpochOffset: Int64 = BTSnoopReader.unixEpochOffset

    private var writer = ByteWriter()
    /// The file so far.
    public var bytes: [UInt8] { writer.bytes }

    public init() {
        writer.appendBytes("btsnoop\0".utf8)
        writer.appendUInt32BE(1)
        writer.appendUInt32BE(Self.datalinkH4)
    }

    /// `packet` starts with its H4 type. Flags (btsnoop): bit 0 set when received by the
    /// host, bit 1 set for commands and events.
    public mutating func append(_ packet: [UInt8], received: Bool, unixMicros: Int64) {
        let type = packet.first ?? 0
        let flags: UInt32 = (received ? 1 : 0) | (type == H4PacketType.command || type == H4PacketType.event ? 2 : 0)
        writer.appendUInt32BE(UInt32(packet.count))
        writer.appendUInt32BE(UInt32(packet.count))
        writer.appendUInt32BE(flags)
        writer.appendUInt32BE(0)
        writer.appendUInt64BE(UInt64(bitPattern: unixMicros &+ Self.unixEpochOffset))
        writer.appendBytes(packet)
    }

    /// The bytes appended since the last call (the file header first), handed over and
    /// forgotten: for writers that stream to a file as records come (`blecap watch --write`)
    /// with memory bounded by one record.
    public mutating func take() -> [UInt8] {
        let b = writer.bytes
        writer = ByteWriter()
        return b
    }

    /// Writes the file to `path`.
    public func write(to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
