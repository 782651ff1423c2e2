import BLEBytes

/// Apple PacketLogger (.pklg): what macOS PacketLogger, iOS sysdiagnose (`bluetoothd-hci-*.pklg`)
/// and BTstack's `hci_dump` write.
///
/// There is no file header. Each record is
///
///     length    u32   bytes after this field (8 timestamp bytes + 1 type byte + data)
///     seconds   u32   since 1970-01-01 UTC
///     micros    u32   0 ..< 1 000 000
///     type      u8    see `PacketLoggerType`
///     data      length - 9 bytes
///
/// with the three integers big-endian (BTstack, older macOS, iOS sysdiagnose) or little-endian
/// (newer macOS PacketLogger) for the whole file. Wireshark's `wiretap/packetlogger.c` reads
/// the same layout; HCI records carry the packet without an H4 type byte, so the payload is
/// the data as is.
public final class PacketLoggerReader: CaptureReader {
    public let format: CaptureFormat
    public private(set) var damage: CaptureDamage? = nil
    let source: FileByteSource
    let bigEndian: Bool
    var nextFrame = 1
    var finished = false

    /// Length field + seconds + microseconds.
    public static let recordHeaderLength = 12

    /// nil if the bytes do not look like PacketLogger; otherwise whether the record headers are
    /// big-endian.
    ///
    /// With no magic number, detection rests on the first records being plausible in exactly
    /// one byte order: a length of at least 9 and below 65 536, microseconds below 10⁶, a type
    /// PacketLogger defines, and — where the bytes are in `prefix` — HCI commands and events
    /// whose own parameter length matches the record, and a second record that passes the
    /// same checks. (Both byte orders cannot give a length below 65 536 unless it is 0.)
    public static func sniff(_ prefix: ByteView) -> Bool? {
        if plausibleRecords(prefix, bigEndian: true) { return true }
        if plausibleRecords(prefix, bigEndian: false) { return false }
        return nil
    }

    static func plausibleRecords(_ prefix: ByteView, bigEndian: Bool) -> Bool {
        // The first record must show at least its header and type byte.
        guard prefix.count >= recordHeaderLength + 1 else { return false }
        var offset = 0
        var checked = 0
        while checked < 4 {
            // A later record only partly inside the prefix cannot be judged: stop there.
            if checked > 0 && !prefix.contains(offset, recordHeaderLength + 1) { break }
            guard let length = u32(prefix, offset, bigEndian),
                let micros = u32(prefix, offset + 8, bigEndian),
                let type = prefix.u8(offset + recordHeaderLength)
            else { return false }
            guard length >= 9, length < 65536, micros < 1_000_000,
                PacketLoggerType.isKnown(type)
            else { return false }
            let dataLength = Int(length) - 9
            if let data = prefix.slice(offset + recordHeaderLength + 1, dataLength),
                !hciLengthsAgree(type: type, data: data)
            {
                return false
            }
            checked += 1
            offset += 4 + Int(length)
        }
        return true
    }

    /// Commands and events say their own parameter length (Core 5.4 Vol 4 Part E 5.4.1,
    /// 5.4.4); in a real record it accounts for the rest of the data exactly.
    static func hciLengthsAgree(type: UInt8, data: ByteView) -> Bool {
        switch type {
        case PacketLoggerType.hciCommand:
            guard let n = data.u8(2) else { return false }
            return Int(n) == data.count - 3
        case PacketLoggerType.hciEvent:
            guard let n = data.u8(1) else { return false }
            return Int(n) == data.count - 2
        default:
            return true
        }
    }

    @inline(__always) static func u32(_ v: ByteView, _ offset: Int, _ bigEndian: Bool) -> UInt32? {
        bigEndian ? v.u32be(offset) : v.u32le(offset)
    }

    public init(source: FileByteSource, bigEndian: Bool) throws(CaptureError) {
        self.source = source
        self.bigEndian = bigEndian
        format = .packetLogger(bigEndian: bigEndian)
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
        let length = Self.u32(header, 0, bigEndian) ?? 0
        let seconds = Self.u32(header, 4, bigEndian) ?? 0
        let micros = Self.u32(header, 8, bigEndian) ?? 0
        // The length covers the 8 timestamp bytes at least (a record may lack even the type).
        guard length >= 8 else {
            return stop(at: recordOffset, "record length \(length) is too small (at least 8)")
        }
        guard length - 8 <= UInt32(maximumRecordLength) else {
            return stop(at: recordOffset, "impossible record length \(length) (limit \(maximumRecordLength))")
        }
        let total = 4 + Int(length)
        guard let record = source.peek(total) else {
            let left = source.buffered
            if let e = source.readErrno {
                return stop(at: recordOffset, "read error (errno \(e)) inside a record of \(total) bytes")
            }
            return stop(at: recordOffset, "truncated record: \(left) of \(total) bytes before end of file")
        }
        source.consume(total)

        let kind: RecordKind
        let direction: Direction
        var rawType: UInt32 = 0
        var payload = ByteView.empty
        if let type = record.u8(Self.recordHeaderLength) {
            rawType = UInt32(type)
            (kind, direction) = PacketLoggerType.kind(type)
            payload = record.suffix(from: Self.recordHeaderLength + 1) ?? .empty
            if PacketLoggerType.isText(type) { payload = Self.trimmingTrailingNULs(payload) }
        } else {
            kind = .unknown
            direction = .unknown
        }
        let frame = nextFrame
        nextFrame += 1
        // Seconds are unsigned 32-bit, so this cannot overflow.
        let timestamp = Int64(seconds) * 1_000_000 + Int64(micros)
        return CaptureRecord(
            frame: frame, timestamp: timestamp, direction: direction, kind: kind, rawType: rawType,
            payload: payload, originalLength: payload.count, fileOffset: recordOffset,
            recordLength: total)
    }

    /// Writers terminate text with NUL (BTstack) or not (macOS); keep only the text.
    static func trimmingTrailingNULs(_ v: ByteView) -> ByteView {
        var n = v.count
        while n > 0, v.u8(n - 1) == 0 { n -= 1 }
        return v.prefix(n)
    }

    private func stop(at offset: Int64, _ reason: String) -> CaptureRecord? {
        finished = true
        damage = CaptureDamage(offset: offset, frame: nextFrame, reason: reason)
        return nil
    }
}

/// PacketLogger record types, as Apple's PacketLogger and Wireshark's packetlogger dissector
/// name them.
public enum PacketLoggerType {
    public static let hciCommand: UInt8 = 0x00
    public static let hciEvent: UInt8 = 0x01
    public static let aclSent: UInt8 = 0x02
    public static let aclReceived: UInt8 = 0x03
    public static let scoSent: UInt8 = 0x08
    public static let scoReceived: UInt8 = 0x09
    /// "Sent/Recv LMP Data" in Wireshark. iOS writes 0x0A records of vendor data that embed the
    /// peer address, so they are kept as `.unknown`, not decoded as LMP.
    public static let lmpSent: UInt8 = 0x0A
    public static let lmpReceived: UInt8 = 0x0B
    public static let syslog: UInt8 = 0xF7
    public static let kernel: UInt8 = 0xF8
    public static let kernelDebug: UInt8 = 0xF9
    public static let error: UInt8 = 0xFA
    public static let power: UInt8 = 0xFB
    public static let note: UInt8 = 0xFC
    public static let config: UInt8 = 0xFD
    public static let newController: UInt8 = 0xFE

    /// The types a PacketLogger file is recognised by (the set Wireshark checks). Other codes
    /// (iOS writes 0x21, for one) are read as `.unknown` once the file is recognised.
    public static func isKnown(_ type: UInt8) -> Bool {
        switch type {
        case 0x00...0x03, 0x08...0x0B, 0xF7...0xFE: true
        default: false
        }
    }

    /// Types whose data is human-readable text.
    public static func isText(_ type: UInt8) -> Bool {
        switch type {
        case kernel, kernelDebug, error, power, note, newController: true
        default: false
        }
    }

    public static func kind(_ type: UInt8) -> (RecordKind, Direction) {
        switch type {
        case hciCommand: (.hciCommand, .sent)
        case hciEvent: (.hciEvent, .received)
        case aclSent: (.aclData, .sent)
        case aclReceived: (.aclData, .received)
        case scoSent: (.scoData, .sent)
        case scoReceived: (.scoData, .received)
        case syslog: (.syslog, .unknown)
        case kernel: (.kernel, .unknown)
        case kernelDebug: (.kernelDebug, .unknown)
        case error: (.error, .unknown)
        case power: (.power, .unknown)
        case note: (.note, .unknown)
        case config: (.config, .unknown)
        case newController: (.newController, .unknown)
        default: (.unknown, .unknown)
        }
    }
}
