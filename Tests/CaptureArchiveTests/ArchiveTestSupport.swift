import BLEBytes
import CaptureIO
import TestSupport
import Testing

@testable import CaptureArchive

/// A record with its payload copied out of the reader's buffer, for comparing whole captures.
struct RecordCopy: Equatable, CustomStringConvertible {
    var frame: Int
    var timestamp: Int64
    var direction: Direction
    var kind: RecordKind
    var rawType: UInt32
    var controllerIndex: UInt16
    var payload: [UInt8]
    var originalLength: Int
    var fileOffset: Int64
    var recordLength: Int

    init(_ r: CaptureRecord) {
        frame = r.frame
        timestamp = r.timestamp
        direction = r.direction
        kind = r.kind
        rawType = r.rawType
        controllerIndex = r.controllerIndex
        payload = Array(r.payload)
        originalLength = r.originalLength
        fileOffset = r.fileOffset
        recordLength = r.recordLength
    }

    var description: String { "frame \(frame) \(kind.name) \(payload.count) bytes @\(fileOffset)" }
}

/// Everything a reader gives: format, records, damage.
struct ReadResult: Equatable {
    var format: CaptureFormat
    var records: [RecordCopy]
    var damage: CaptureDamage?

    init(_ reader: any CaptureReader) {
        format = reader.format
        var records: [RecordCopy] = []
        while let r = reader.next() { records.append(RecordCopy(r)) }
        self.records = records
        damage = reader.damage
    }
}

/// The one capture of an input, read whole.
func readOnly(_ bundle: CaptureBundle) throws -> ReadResult {
    try #require(bundle.members.count == 1, "expected one capture, got \(bundle.members.map(\.displayName))")
    return ReadResult(try bundle.members[0].makeReader())
}

func fileName(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }
