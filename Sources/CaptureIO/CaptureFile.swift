import BLEBytes

/// Opens captures, choosing the reader from the file's first bytes (never its name).
public enum CaptureFile {
    /// Opens `path` ("-" reads standard input) and returns a streaming reader for it.
    public static func open(path: String) throws(CaptureError) -> any CaptureReader {
        let source = try FileByteSource(path: path)
        return try open(source: source, path: path == "-" ? nil : path)
    }

    /// Detects the container of `source` and returns its reader. `path` lets libpcap reopen a
    /// regular file itself; nil means the bytes can only be read once (a pipe).
    public static func open(source: FileByteSource, path: String?) throws(CaptureError) -> any CaptureReader {
        let prefix = source.peekAvailable(upTo: 64)
        if prefix.isEmpty {
            if let e = source.readErrno {
                throw .cannotOpen(path: path ?? "-", reason: "read failed (errno \(e))")
            }
            throw .unknownFormat
        }
        switch detect(prefix) {
        case .btsnoop: return try BTSnoopReader(source: source)
        case .pcap: return try PcapReader(source: source, path: path)
        case .packetLogger(let bigEndian): return try PacketLoggerReader(source: source, bigEndian: bigEndian)
        case .truncated: throw .truncatedHeader
        case .unknown: throw .unknownFormat
        }
    }

    public enum Detection: Equatable, Sendable {
        case btsnoop, pcap
        case packetLogger(bigEndian: Bool)
        case truncated, unknown
    }

    /// Classifies a file by its first bytes (up to 64).
    public static func detect(_ prefix: ByteView) -> Detection {
        if BTSnoopReader.sniff(prefix) { return .btsnoop }
        if PcapReader.sniff(prefix) { return .pcap }
        if let be = PacketLoggerReader.sniff(prefix) { return .packetLogger(bigEndian: be) }
        // A file that is a strict prefix of a known magic is a truncated header, not garbage.
        let magics: [[UInt8]] = [
            Array("btsnoop\0".utf8), [0xD4, 0xC3, 0xB2, 0xA1], [0xA1, 0xB2, 0xC3, 0xD4],
            [0x4D, 0x3C, 0xB2, 0xA1], [0xA1, 0xB2, 0x3C, 0x4D], [0x0A, 0x0D, 0x0D, 0x0A],
        ]
        for m in magics where prefix.count < m.count && prefix.elementsEqual(m.prefix(prefix.count)) {
            return .truncated
        }
        return .unknown
    }
}
