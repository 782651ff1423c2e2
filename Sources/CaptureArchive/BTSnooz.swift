import BLEBytes
import CZlib
import CaptureIO

#if canImport(Glibc)
    import Glibc
#endif

/// The btsnooz summary Android's Bluetooth stack prints into the bug report text (dumpsys
/// bluetooth_manager), between `--- BEGIN:BTSNOOP_LOG_SUMMARY …` and
/// `--- END:BTSNOOP_LOG_SUMMARY` lines: the last few thousand HCI packets, kept even when the
/// snoop log is off.
///
/// Format (AOSP `btsnooz.py`): base64 of a 9-byte preamble — version u8 (1 or 2), then the
/// last packet's timestamp u64 little-endian, in µs since the Unix epoch — followed by a zlib
/// stream of records, little-endian:
/// - v1: length u16, delta u32, type u8, then `length − 1` bytes;
/// - v2: length u16, packet length u16, delta u32, type u8, then `length − 1` bytes.
///
/// `length` and `packet length` count the type byte; `packet length` is the packet's size
/// before Android cut it (ACL payloads beyond the ATT header are dropped). `delta` is the µs
/// since the previous packet, so times are rebuilt backwards from the last one. Types: 0x10
/// event, 0x11 ACL, 0x12 SCO, 0x17 ISO received; 0x20 command, 0x21 ACL, 0x22 SCO, 0x2D ISO sent.
public final class BTSnoozLog: @unchecked Sendable {
    public let version: UInt8
    /// µs since 1970 of the last record.
    public let lastTimestamp: Int64
    /// The decompressed records, in one allocation that readers' payload views point into.
    let records: UnsafeRawBufferPointer
    /// Records that fit (a trailing partial record is damage).
    let recordCount: Int
    /// µs since 1970 before the first record: the last timestamp minus every delta.
    let firstTimestamp: Int64
    /// Bad checksum, corrupt or short compressed data, a record running past the end.
    public let damage: String?
    let damageOffset: Int

    var headerLength: Int { version == 1 ? 7 : 9 }

    /// The most decompressed records kept in memory.
    static let maximumRecordsBytes: Int64 = 256 << 20

    static let begin = Array("--- BEGIN:BTSNOOP_LOG_SUMMARY".utf8)
    static let end = Array("--- END:BTSNOOP_LOG_SUMMARY".utf8)

    /// Decodes a section's base64 text (whitespace ignored).
    public init(base64 text: [UInt8], limits: ArchiveLimits = .standard) throws(ArchiveError) {
        guard let raw = Base64.decode(text) else { throw .btsnooz("the section is not valid base64") }
        guard raw.count >= 9 else { throw .btsnooz("\(raw.count) bytes, shorter than the 9-byte preamble") }
        version = raw[0]
        guard version == 1 || version == 2 else {
            throw .btsnooz("unknown version \(version) (blecap reads versions 1 and 2)")
        }
        var ts: UInt64 = 0
        for i in 0..<8 { ts |= UInt64(raw[1 + i]) << (8 * i) }
        lastTimestamp = Int64(bitPattern: ts)
        let compressed = Array(raw[9...])
        // Android keeps a few hundred kilobytes of records; a section that inflates far beyond
        // its own size is a bomb, stopped like an archive's (ratio after the floor, and a cap).
        let cap = min(limits.maximumMemberBytes, Self.maximumRecordsBytes)
        let ratioCap = max(limits.ratioFloorBytes, limits.maximumRatio * Int64(max(1, compressed.count)))
        let (out, inflateProblem) = Self.inflate(compressed, limit: min(cap, ratioCap))
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, out.count), alignment: 8)
        out.withUnsafeBytes { storage.copyMemory(from: $0) }
        records = UnsafeRawBufferPointer(rebasing: storage[0..<out.count])
        // First pass: which records fit, and the sum of their deltas.
        let header = version == 1 ? 7 : 9
        var offset = 0
        var count = 0
        var deltas: UInt64 = 0
        var recordProblem: String?
        while offset < out.count {
            guard offset + header <= out.count else {
                recordProblem = "record \(count + 1) header cut short (\(out.count - offset) of \(header) bytes)"
                break
            }
            let length = Int(UInt16(out[offset]) | UInt16(out[offset + 1]) << 8)
            let d = version == 1 ? offset + 2 : offset + 4
            let delta = UInt32(out[d]) | UInt32(out[d + 1]) << 8 | UInt32(out[d + 2]) << 16 | UInt32(out[d + 3]) << 24
            guard length >= 1 else {
                recordProblem = "record \(count + 1) has length 0 (the type byte alone needs 1)"
                break
            }
            guard offset + header + length - 1 <= out.count else {
                recordProblem = "record \(count + 1) runs past the end of the records"
                break
            }
            deltas &+= UInt64(delta)
            offset += header + length - 1
            count += 1
        }
        recordCount = count
        damageOffset = offset
        firstTimestamp = Int64(bitPattern: ts &- deltas)
        damage = inflateProblem ?? recordProblem
    }

    deinit { UnsafeMutableRawBufferPointer(mutating: records).deallocate() }

    /// zlib-inflates `input` into at most `limit` bytes; the problem, if any, is returned with
    /// what came out before it.
    static func inflate(_ input: [UInt8], limit: Int64) -> ([UInt8], String?) {
        var out: [UInt8] = []
        var stream = z_stream()
        guard blecap_inflate_init(&stream) == Z_OK else { return ([], "zlib could not start") }
        defer { inflateEnd(&stream) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var problem: String?
        input.withUnsafeBufferPointer { inBuf in
            stream.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress)
            stream.avail_in = UInt32(inBuf.count)
            while true {
                let status: Int32 = chunk.withUnsafeMutableBufferPointer { c in
                    stream.next_out = c.baseAddress
                    stream.avail_out = UInt32(c.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                out.append(contentsOf: chunk[0..<produced])
                if Int64(out.count) > limit {
                    // Records up to the limit are kept; the one it cut ends the log as damage.
                    out.removeSubrange(Int(limit)...)
                    problem =
                        "records decompress to more than \(limit) bytes (\(input.count) compressed): the rest is not read"
                    return
                }
                switch status {
                case Z_STREAM_END: return
                case Z_OK: continue
                case Z_BUF_ERROR where stream.avail_in == 0:
                    problem = "compressed records end early (truncated section)"
                    return
                case Z_DATA_ERROR:
                    let message = stream.msg.map { String(cString: $0) } ?? "corrupt data"
                    problem =
                        message == "incorrect data check"
                        ? "bad checksum: the records' Adler-32 does not match (damaged section)"
                        : "compressed records are corrupt (\(message))"
                    return
                default:
                    problem = "zlib error \(status)"
                    return
                }
            }
        }
        return (out, problem)
    }

    /// The section in a bug report text, or nil when the text has none. Streams the file: only
    /// the section's base64 is kept (at most `limits.maximumSummaryBytes`).
    static func find(in file: ExtractedFile, limits: ArchiveLimits) throws(ArchiveError) -> BTSnoozLog? {
        let fd: Int32
        do { fd = try file.reopen() } catch { throw .capture(error) }
        defer { close(fd) }
        return try find(fd: fd, limits: limits)
    }

    /// The section in the text of `fd`, read from its start with `pread` (the offset is left).
    static func find(fd: Int32, limits: ArchiveLimits) throws(ArchiveError) -> BTSnoozLog? {
        var scanner = SectionScanner(limit: limits.maximumSummaryBytes)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        var offset: off_t = 0
        while !scanner.done {
            let n = pread(fd, buffer.baseAddress, buffer.count, offset)
            if n <= 0 { break }
            offset += off_t(n)
            scanner.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        if scanner.overflow {
            throw .btsnooz("the section is longer than \(limits.maximumSummaryBytes) bytes of base64")
        }
        guard scanner.found else { return nil }
        // A section cut off by the end of the text decodes as far as it goes; the zlib stream
        // then ends early, which the log reports as damage.
        return try BTSnoozLog(base64: scanner.text, limits: limits)
    }
}

/// Finds the BEGIN/END lines and keeps the base64 between them. Like btsnooz.py, a marker may
/// sit anywhere in its line; data lines are base64 (which has no '-'), kept whitespace-free.
struct SectionScanner {
    let limit: Int
    var found = false
    var done = false
    var overflow = false
    var text: [UInt8] = []
    /// The current line's first bytes, enough to find a marker in it.
    var head: [UInt8] = []
    /// Where the current line's data started in `text` (dropped again if it was the END line).
    var lineStart = 0
    static let headLength = 256

    init(limit: Int) { self.limit = limit }

    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        for b in bytes {
            if done { return }
            if b == 0x0A {
                endLine()
                continue
            }
            if head.count < Self.headLength { head.append(b) }
            if found && b > 0x20 {
                if text.count >= limit {
                    overflow = true
                    done = true
                    return
                }
                text.append(b)
            }
        }
    }

    private mutating func endLine() {
        if !found {
            if contains(head, BTSnoozLog.begin) {
                found = true
                lineStart = text.count
            }
        } else if contains(head, BTSnoozLog.end) {
            text.removeSubrange(lineStart...)
            done = true
        }
        head.removeAll(keepingCapacity: true)
        lineStart = text.count
    }

    private func contains(_ line: [UInt8], _ marker: [UInt8]) -> Bool {
        guard line.count >= marker.count else { return false }
        for i in 0...(line.count - marker.count) where line[i] == marker[0] {
            if line[i..<(i + marker.count)].elementsEqual(marker) { return true }
        }
        return false
    }
}

/// RFC 4648 base64 (standard alphabet), whitespace skipped, padding optional.
enum Base64 {
    static func decode(_ text: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3)
        var acc: UInt32 = 0
        var bits = 0
        var padding = false
        for c in text {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): v = 62
            case UInt8(ascii: "/"): v = 63
            case UInt8(ascii: "="):
                padding = true
                continue
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default: return nil
            }
            if padding { return nil }  // data after padding
            acc = acc << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
            }
        }
        return out
    }
}

/// Reads a `BTSnoozLog`'s records as H4 packets (what `btsnooz.py` turns them into: btsnoop
/// with datalink 1002). Truncated packets keep their original length in
/// `CaptureRecord.originalLength`, larger than the payload.
public final class BTSnoozReader: CaptureReader {
    public let format: CaptureFormat = .btsnoop(datalink: 1002)
    public private(set) var damage: CaptureDamage?
    let log: BTSnoozLog
    var offset = 0
    var index = 0
    var time: Int64

    public init(_ log: BTSnoozLog) {
        self.log = log
        time = log.firstTimestamp
    }

    public func next() -> CaptureRecord? {
        guard index < log.recordCount else {
            if let d = log.damage, damage == nil {
                damage = CaptureDamage(offset: Int64(log.damageOffset), frame: index + 1, reason: d)
            }
            return nil
        }
        let r = log.records
        let h = log.headerLength
        let length = Int(UInt16(r[offset]) | UInt16(r[offset + 1]) << 8)
        let packetLength = log.version == 1 ? length : Int(UInt16(r[offset + 2]) | UInt16(r[offset + 3]) << 8)
        let d = log.version == 1 ? offset + 2 : offset + 4
        let delta = UInt32(r[d]) | UInt32(r[d + 1]) << 8 | UInt32(r[d + 2]) << 16 | UInt32(r[d + 3]) << 24
        let type = r[offset + h - 1]
        // Every delta counts, the first one too (it reaches back to a packet the ring buffer
        // dropped): the first time is the last minus all deltas plus the first, as btsnooz.py
        // rebuilds it, so the last record lands on the preamble's timestamp.
        time &+= Int64(delta)
        let (kind, direction) = Self.kind(type)
        let payload = ByteView(UnsafeRawBufferPointer(rebasing: r[(offset + h)..<(offset + h + length - 1)]))
        var original = max(length, packetLength) - 1
        // v1 keeps no packet length, but an ACL header still says how long its data was.
        if kind == .aclData, let declared = payload.u16le(2) { original = max(original, 4 + Int(declared)) }
        let record = CaptureRecord(
            frame: index + 1, timestamp: time, direction: direction, kind: kind, rawType: UInt32(type),
            payload: payload, originalLength: original, fileOffset: Int64(offset),
            recordLength: h + length - 1)
        offset += h + length - 1
        index += 1
        return record
    }

    static func kind(_ type: UInt8) -> (RecordKind, Direction) {
        switch type {
        case 0x10: (.hciEvent, .received)
        case 0x11: (.aclData, .received)
        case 0x12: (.scoData, .received)
        case 0x17: (.isoData, .received)
        case 0x20: (.hciCommand, .sent)
        case 0x21: (.aclData, .sent)
        case 0x22: (.scoData, .sent)
        case 0x2D: (.isoData, .sent)
        default: (.unknown, .unknown)
        }
    }
}
