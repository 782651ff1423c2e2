import BLEBytes

/// Advertising and scan-response data (Core Vol 3 Part C 11, Supplement to the Core
/// Specification Part A). STUB: to be implemented.
public enum AdvertisingData {
    /// Describes every AD structure in `data` into `sink`, keeping unknown and malformed
    /// structures as raw bytes with a note.
    public static func describe(_ data: ByteView, into sink: FieldSink) {
        sink.field("data", .bytes(data))
    }
}
