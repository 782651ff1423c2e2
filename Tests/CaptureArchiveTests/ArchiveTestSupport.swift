import BLEBytes
import CaptureIO
import TestSupport
import Testing

@testable import CaptureArchive

/// Everything a reader gives: format, records, damage.
struct ReadResult: Equatable {
    var format: CaptureFormat
    var records: [OwnedRecord]
    var damage: CaptureDamage?

    init(_ reader: any CaptureReader) {
        format = reader.format
        var records: [OwnedRecord] = []
        while let r = reader.next() { records.append(OwnedRecord(r)) }
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
