import BLEBytes

/// Apple PacketLogger (.pklg). STUB: to be implemented.
public final class PacketLoggerReader: CaptureReader {
    public let format: CaptureFormat
    public private(set) var damage: CaptureDamage? = nil
    let source: FileByteSource

    /// nil if the bytes do not look like PacketLogger; otherwise whether the record headers are
    /// big-endian.
    public static func sniff(_ prefix: ByteView) -> Bool? { nil }

    public init(source: FileByteSource, bigEndian: Bool) throws(CaptureError) {
        self.source = source
        format = .packetLogger(bigEndian: bigEndian)
    }

    public func next() -> CaptureRecord? { nil }
}
