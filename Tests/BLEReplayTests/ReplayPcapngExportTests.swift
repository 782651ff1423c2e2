import BLEBytes
import BLEReplay
import CaptureIO
import Foundation
import TestSupport
import Testing

/// The replay's pcapng export (for Wireshark, with comments) carries the same packets, times
/// and directions as its btsnoop export, read back through blecap's own readers.
@Suite struct ReplayPcapngExportTests {
    func records(_ bytes: [UInt8], _ name: String) throws -> [(
        payload: [UInt8], kind: RecordKind, direction: Direction, time: Int64
    )] {
        let path = ReplayFixtures.temporaryCapture(bytes, name: name)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try CaptureFile.open(path: path)
        var out: [(payload: [UInt8], kind: RecordKind, direction: Direction, time: Int64)] = []
        while let r = reader.next() { out.append((r.payload.toArray(), r.kind, r.direction, r.timestamp)) }
        expectNoDamage(reader)
        return out
    }

    @Test func pcapngCarriesTheBtsnoopPacketsWithComments() throws {
        let report = try CaptureReplay(path: ReplayFixtures.bumble("indications_and_errors.central")).run()
        let btsnoop = try records(report.btsnoop(), "btsnoop")
        let pcapng = report.pcapng()
        let back = try records(pcapng, "pcapng")
        #expect(btsnoop.count > 50)
        #expect(back.count == btsnoop.count)
        for (a, b) in zip(btsnoop, back) {
            #expect(a.payload == b.payload && a.kind == b.kind && a.direction == b.direction && a.time == b.time)
        }
        let text = String(decoding: pcapng, as: UTF8.self)
        #expect(text.contains("connection #1: replayed Exchange MTU Request (captured frame "))
        #expect(text.contains("replayed Error Response"))
        #expect(!String(decoding: report.pcapng(comments: false), as: UTF8.self).contains("replayed"))
    }
}
