import BLEBytes

/// btsnoop version 1: the format of Android's `btsnoop_hci.log` and BlueZ's `btmon -w`.
///
/// File header (16 bytes, big-endian): "btsnoop\0", version u32 (1), datalink u32.
/// Record header (24 bytes, big-endian): original length u32, included length u32, flags u32,
/// cumulative drops u32, timestamp i64 in microseconds since 0000-01-01 00:00 (proleptic
/// Gregorian), followed by the included-length bytes.
///
/// Datalinks read here:
/// - 1001 "HCI UART without type byte" (H1): the packet type comes from the flags
///   (bit 0 direction, bit 1 command/event versus ACL).
/// - 1002 "HCI UART" (H4): the record starts with the H4 packet-type byte.
/// - 2001 Linux monitor: flags are `(controller index << 16) | opcode` as BlueZ's
///   `monitor/btsnoop.h` defines them.
///
/// The reader streams: each record is a view into the `FileByteSource` buffer, so the loop
/// allocates nothing per record.
public final class BTSnoopReader: CaptureReader {
    public let format: CaptureFormat
    public private(set) var damage: CaptureDamage? = nil
    let source: FileByteSource
    let datalink: UInt32
    /// Frame number of the next record, and whether the records ended. Unchecked: both are
    /// touched once per record, and each checked access to a class's `var` was a
    /// `swift_beginAccess` call (docs/performance.md); a reader is used from one thread and no
    /// access spans a call.
    @exclusivity(unchecked) var nextFrame = 1
    @exclusivity(unchecked) var finished = false

    public static let fileHeaderLength = 16
    public static let recordHeaderLength = 24
    /// Microseconds from 0000-01-01 to 1970-01-01, the btsnoop epoch offset.
    public static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    public static let datalinkH1: UInt32 = 1001
    public static let datalinkH4: UInt32 = 1002
    public static let datalinkMonitor: UInt32 = 2001

    /// "btsnoop\0" at offset 0.
    public static func sniff(_ prefix: ByteView) -> Bool {
        prefix.count >= 8 && prefix.prefix(8).elementsEqual("btsnoop\0".utf8)
    }

    /// Reads and checks the 16-byte file header; the source is left at the first record.
    public init(source: FileByteSource) throws(CaptureError) {
        self.source = source
        guard let header = source.peek(Self.fileHeaderLength) else {
            if let e = source.readErrno, source.buffered == 0 {
                throw .cannotOpen(path: "-", reason: "read failed (errno \(e))")
            }
            throw .truncatedHeader
        }
        guard Self.sniff(header) else { throw .unknownFormat }
        let version = header.u32be(8) ?? 0
        guard version == 1 else { throw .unsupportedBtsnoopVersion(version) }
        let link = header.u32be(12) ?? 0
        switch link {
        case Self.datalinkH1, Self.datalinkH4, Self.datalinkMonitor: break
        default: throw .unsupportedBtsnoopDatalink(link)
        }
        datalink = link
        format = .btsnoop(datalink: link)
        source.consume(Self.fileHeaderLength)
    }

    /// btsnoop timestamp (µs since year 0) → µs since the Unix epoch. Wrapping, so a hostile
    /// value gives a silly time rather than a trap.
    @inlinable public static func unixMicroseconds(_ raw: UInt64) -> Int64 {
        Int64(bitPattern: raw) &- unixEpochOffset
    }

    public func next() -> CaptureRecord? {
        if finished { return nil }
        let recordOffset = source.offset
        guard let header = source.peek(Self.recordHeaderLength) else {
            let left = source.buffered
            if let e = source.readErrno {
                return stop(at: recordOffset, "read error (errno \(e)) after \(left) bytes of a record header")
            }
            if left == 0 {
                finished = true
                return nil
            }
            return stop(
                at: recordOffset,
                "truncated record header: \(left) of \(Self.recordHeaderLength) bytes before end of file")
        }
        // The header is exactly 24 bytes, so the fields are read without bounds checks:
        // through `u32be`'s optional each was a bounds check and an optional (docs/performance.md).
        let h = header.base
        let originalLength = UInt32(bigEndian: h.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
        let includedLength = UInt32(bigEndian: h.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        let flags = UInt32(bigEndian: h.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        let rawTimestamp = UInt64(bigEndian: h.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        guard includedLength <= UInt32(maximumRecordLength) else {
            return stop(at: recordOffset, "impossible included length \(includedLength) (limit \(maximumRecordLength))")
        }
        let included = Int(includedLength)
        let total = Self.recordHeaderLength + included
        guard let record = source.peek(total) else {
            let left = source.buffered
            if let e = source.readErrno {
                return stop(at: recordOffset, "read error (errno \(e)) inside a record of \(total) bytes")
            }
            return stop(at: recordOffset, "truncated record: \(left) of \(total) bytes before end of file")
        }
        let body = record.suffix(from: Self.recordHeaderLength) ?? .empty
        source.consume(total)

        var kind: RecordKind
        var direction: Direction
        var rawType: UInt32
        var payload = body
        var original = Int(originalLength)
        var controllerIndex: UInt16 = 0
        switch datalink {
        case Self.datalinkH4:
            direction = flags & 1 == 0 ? .sent : .received
            if let type = body.u8(0) {
                kind = HCIPacketKinds.kind(h4Type: type)
                rawType = UInt32(type)
                payload = body.suffix(from: 1) ?? .empty
                // The record's original length counts the type byte; the payload does not.
                original = max(0, original - 1)
            } else {
                kind = .unknown
                rawType = 0
            }
        case Self.datalinkH1:
            // Bit 0: 0 sent / 1 received. Bit 1: command or event (by direction), else ACL.
            let received = flags & 1 != 0
            direction = received ? .received : .sent
            if flags & 2 != 0 {
                kind = received ? .hciEvent : .hciCommand
            } else {
                kind = .aclData
            }
            rawType = flags
        default:  // Linux monitor
            let opcode = UInt16(truncatingIfNeeded: flags)
            (kind, direction) = HCIPacketKinds.kind(monitorOpcode: opcode)
            rawType = UInt32(opcode)
            controllerIndex = UInt16(truncatingIfNeeded: flags >> 16)
        }
        let frame = nextFrame
        nextFrame += 1
        return CaptureRecord(
            frame: frame, timestamp: Self.unixMicroseconds(rawTimestamp), direction: direction,
            kind: kind, rawType: rawType, controllerIndex: controllerIndex, payload: payload,
            originalLength: original, fileOffset: recordOffset, recordLength: total)
    }

    private func stop(at offset: Int64, _ reason: String) -> CaptureRecord? {
        finished = true
        damage = CaptureDamage(offset: offset, frame: nextFrame, reason: reason)
        return nil
    }
}
