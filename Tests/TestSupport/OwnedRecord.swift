import BLEBytes
import CaptureIO

/// A record copied out of the reader's buffer so tests can keep and compare it (readers hand out
/// views valid until the next record).
public struct OwnedRecord: Equatable, CustomStringConvertible {
    public var frame: Int
    public var timestamp: Int64
    public var direction: Direction
    public var kind: RecordKind
    public var rawType: UInt32
    public var controllerIndex: UInt16
    public var payload: [UInt8]
    public var originalLength: Int
    public var fileOffset: Int64
    public var recordLength: Int

    public init(_ r: CaptureRecord) {
        frame = r.frame
        timestamp = r.timestamp
        direction = r.direction
        kind = r.kind
        rawType = r.rawType
        controllerIndex = r.controllerIndex
        payload = r.payload.toArray()
        originalLength = r.originalLength
        fileOffset = r.fileOffset
        recordLength = r.recordLength
    }

    public var description: String {
        "#\(frame) \(kind.name) \(direction) t=\(timestamp) raw=\(rawType) idx=\(controllerIndex) len=\(payload.count)/\(originalLength) @\(fileOffset)+\(recordLength)"
    }
}
