import BLEBytes

/// btsnoop version 1 (RFC 1761-style header; datalinks 1001, 1002, 2001).
/// STUB: to be implemented.
public final class BTSnoopReader: CaptureReader {
    public let format: CaptureFormat
    public private(set) var damage: CaptureDamage? = nil
    let source: FileByteSource

    /// "btsnoop\0" at offset 0.
    public static func sniff(_ prefix: ByteView) -> Bool {
        prefix.count >= 8 && prefix.prefix(8).elementsEqual("btsnoop\0".utf8)
    }

    public init(source: FileByteSource) throws(CaptureError) {
        self.source = source
        format = .btsnoop(datalink: 1002)
    }

    public func next() -> CaptureRecord? { nil }
}
