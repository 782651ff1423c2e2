import BLEBytes
import CaptureIO
import Foundation
import TestSupport
import Testing

@testable import CaptureArchive

/// An iOS sysdiagnose (.tar.gz) keeps rotated PacketLogger files; blecap reads them in time
/// order, whatever order the archive lists them in.
@Suite struct SysdiagnoseTests {
    /// A little-endian PacketLogger file with every record `seconds` later.
    static func shifted(_ bytes: [UInt8], seconds: UInt32) -> [UInt8] {
        var out = bytes
        var offset = 0
        while offset + 13 <= out.count {
            let length =
                Int(out[offset]) | Int(out[offset + 1]) << 8 | Int(out[offset + 2]) << 16 | Int(out[offset + 3]) << 24
            var secs = UInt32(out[offset + 4]) | UInt32(out[offset + 5]) << 8 | UInt32(out[offset + 6]) << 16
            secs |= UInt32(out[offset + 7]) << 24
            secs &+= seconds
            for i in 0..<4 { out[offset + 4 + i] = UInt8(truncatingIfNeeded: secs >> (8 * UInt32(i))) }
            offset += 4 + length
        }
        return out
    }

    @Test func pklgFilesAreReadInTimeOrder() throws {
        let scratch = try Scratch()
        let pklg = try Fixtures.bytes("formats/clean_heart_rate.central.le.pklg")
        let dir = "sysdiagnose_2026.11.22_11-30-00+0000_iPhone-OS_iPhone_23A000/logs/Bluetooth/"
        let archive = scratch.file("sysdiagnose_2026.11.22_11-30-00+0000_iPhone-OS_iPhone_23A000.tar.gz")
        try ArchiveWriter.write(
            .tarGzip, to: archive,
            entries: [
                (dir + "bluetoothd-hci-latest.pklg", Self.shifted(pklg, seconds: 3600)),
                ("sysdiagnose_2026.11.22_11-30-00+0000_iPhone-OS_iPhone_23A000/summary.txt", Array("iOS".utf8)),
                (dir + "bluetoothd-hci-2026_11_22-10_30_00.pklg", pklg),
            ])
        let bundle = try CaptureBundle.open(path: archive)
        #expect(
            bundle.members.map(\.name) == [
                dir + "bluetoothd-hci-2026_11_22-10_30_00.pklg", dir + "bluetoothd-hci-latest.pklg",
            ])
        let first = ReadResult(try bundle.members[0].makeReader())
        let second = ReadResult(try bundle.members[1].makeReader())
        let expected = ReadResult(
            try CaptureFile.open(path: Fixtures.capture("formats/clean_heart_rate.central.le.pklg")))
        #expect(first.records == expected.records)
        #expect(second.records.map(\.timestamp) == expected.records.map { $0.timestamp + 3_600_000_000 })
        #expect(first.format == .packetLogger(bigEndian: false))
    }
}
