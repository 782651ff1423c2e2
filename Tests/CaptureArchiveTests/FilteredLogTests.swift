import BLEBytes
import BLELint
import BLEPackets
import CaptureIO
import Foundation
import TestSupport
import Testing

@testable import CaptureArchive

/// Android's `btsnoop_hci.log.filtered`: an ordinary btsnoop file whose ACL records keep their
/// original length but only their first bytes. Read from a bug report, its cut frames are marked
/// and lint does not judge what was cut.
@Suite struct FilteredLogTests {
    /// `capture` (btsnoop 1002) with each ACL record cut to the H4 byte plus `keep` bytes.
    static func filtered(_ capture: [UInt8], keep: Int) -> [UInt8] {
        var out = Array(capture.prefix(16))
        var offset = 16
        while offset + 24 <= capture.count {
            let included =
                Int(capture[offset + 4]) << 24 | Int(capture[offset + 5]) << 16
                | Int(capture[offset + 6]) << 8 | Int(capture[offset + 7])
            var header = Array(capture[(offset)..<(offset + 24)])
            var body = Array(capture[(offset + 24)..<(offset + 24 + included)])
            if body.first == 0x02, body.count > 1 + keep {
                body = Array(body.prefix(1 + keep))
                let n = UInt32(body.count)
                for i in 0..<4 { header[4 + i] = UInt8(truncatingIfNeeded: n >> (24 - 8 * UInt32(i))) }
            }
            out += header + body
            offset += 24 + included
        }
        return out
    }

    @Test func filteredLogInABugReport() throws {
        let scratch = try Scratch()
        let bare = Fixtures.capture("bumble/oversized_and_unchecked_writes.central.btsnoop")
        let zip = scratch.file("bugreport.zip")
        try ArchiveWriter.write(
            .zip, to: zip,
            entries: [
                ("main_entry.txt", Array("bugreport.txt".utf8)),
                (
                    "FS/data/misc/bluetooth/logs/btsnoop_hci.log.filtered",
                    Self.filtered(try Fixtures.bytes(atPath: bare), keep: 14)
                ),
            ])
        let bundle = try CaptureBundle.open(path: zip)
        #expect(bundle.members.map(\.name) == ["FS/data/misc/bluetooth/logs/btsnoop_hci.log.filtered"])
        let m = bundle.members[0]
        let got = ReadResult(try m.makeReader())
        let expected = ReadResult(try CaptureFile.open(path: bare))
        #expect(got.records.count == expected.records.count)
        #expect(got.records.map(\.originalLength) == expected.records.map(\.originalLength))
        let cut = got.records.filter { $0.originalLength > $0.payload.count }
        #expect(!cut.isEmpty && cut.allSatisfy { $0.kind == .aclData && $0.payload.count == 14 })

        // The ATT opcodes of every PDU are still there.
        func opcodes(_ r: any CaptureReader) -> [UInt8] {
            let d = FrameDecoder()
            var ops: [UInt8] = []
            while let rec = r.next() { if let op = d.decode(rec).attPayload?.u8(0) { ops.append(op) } }
            return ops
        }
        #expect(opcodes(try m.makeReader()) == opcodes(try CaptureFile.open(path: bare)))

        // The bare capture's oversized write becomes "not evaluable", never a finding; nothing new.
        let lint = CaptureLinter.lint(reader: try m.makeReader(), name: m.displayName, reopen: { try? m.makeReader() })
        let bareLint = CaptureLinter.lint(path: bare)
        #expect(bareLint.findings.contains { $0.ruleID == "BLE002" })
        #expect(!lint.findings.contains { $0.ruleID == "BLE002" })
        #expect(lint.notEvaluated.contains { $0.ruleID == "BLE002" })
        let bareKeys = Set(bareLint.findings.map { "\($0.ruleID)@\($0.firstFrame)" })
        for f in lint.findings { #expect(bareKeys.contains("\(f.ruleID)@\(f.firstFrame)"), "\(f.message)") }
    }
}
