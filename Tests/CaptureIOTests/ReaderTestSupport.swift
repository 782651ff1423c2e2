import BLEBytes
import CaptureIO
import Foundation
import TestSupport
import Testing

extension OwnedRecord {
    /// What must agree across containers for the same HCI packet.
    var hciIdentity: HCIIdentity {
        HCIIdentity(kind: kind, direction: direction, timestamp: timestamp, payload: payload)
    }

}

struct HCIIdentity: Equatable {
    var kind: RecordKind
    var direction: Direction
    var timestamp: Int64
    var payload: [UInt8]
}

struct ReadResult {
    var format: CaptureFormat
    var records: [OwnedRecord]
    var damage: CaptureDamage?
}

/// Opens a capture through content detection and drains it.
func readAll(path: String) throws -> ReadResult {
    let reader = try CaptureFile.open(path: path)
    return drain(reader)
}

func drain(_ reader: any CaptureReader) -> ReadResult {
    var records: [OwnedRecord] = []
    while let r = reader.next() { records.append(OwnedRecord(r)) }
    // After the end, the reader keeps saying so.
    #expect(reader.next() == nil)
    return ReadResult(format: reader.format, records: records, damage: reader.damage)
}

/// Reads `bytes` as a capture file written to a temporary path.
func readAll(bytes: [UInt8]) throws -> ReadResult {
    let url = try writeTemp(bytes)
    defer { try? FileManager.default.removeItem(at: url) }
    return try readAll(path: url.path)
}

func writeTemp(_ bytes: [UInt8]) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("blecap-readers-\(UUID().uuidString).bin")
    try Data(bytes).write(to: url)
    return url
}

/// Feeds `bytes` through a pipe into `FileByteSource(fd:ownsFD:)`, as standard input would be.
/// A writer thread trickles the bytes in small chunks so records straddle read(2) calls.
func readAllThroughPipe(bytes: [UInt8], chunk: Int = 7) throws -> ReadResult {
    // A reader that stops at damage may close its end first; the writer must not die of it.
    signal(SIGPIPE, SIG_IGN)
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    let writeFD = fds[1]
    let writer = Thread {
        var i = 0
        while i < bytes.count {
            let n = min(chunk, bytes.count - i)
            let w = bytes[i..<(i + n)].withUnsafeBytes { write(writeFD, $0.baseAddress, n) }
            if w <= 0 { break }
            i += w
        }
        close(writeFD)
    }
    writer.start()
    let source = FileByteSource(fd: fds[0], ownsFD: true)
    let reader = try CaptureFile.open(source: source, path: nil)
    return drain(reader)
}

func fileBytes(_ path: String) throws -> [UInt8] {
    try Fixtures.bytes(atPath: path)
}

// MARK: - Byte builders for annotated fixtures

func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
func le32(_ v: UInt32) -> [UInt8] { be32(v).reversed() }
func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xFFFF_FFFF)) }
func le64(_ v: UInt64) -> [UInt8] { be64(v).reversed() }
