import BLEBytes
import BLELint
import BLEPackets
import CaptureIO
import Foundation
import TestSupport
import Testing

@testable import CaptureArchive

/// The btsnooz summary of an Android bug report (captures/archives/, written from the Bumble
/// captures by scripts/corpus/make_archives.py, whose encoder keeps 14 bytes of each ACL
/// packet): the same frames as the bare capture, in the same order and at the same times, ACL
/// cut and marked, the same ATT opcodes; lint says "not evaluable" where values are missing.
@Suite struct BTSnoozTests {
    static let captures = [
        "clean_heart_rate.central", "oversized_and_unchecked_writes.central", "indications_and_errors.central",
    ]
    static let aclKept = 14

    static func attOpcodes(_ reader: any CaptureReader) -> [UInt8] {
        let decoder = FrameDecoder()
        var ops: [UInt8] = []
        while let r = reader.next() {
            if let op = decoder.decode(r).attPayload?.u8(0) { ops.append(op) }
        }
        return ops
    }

    @Test(arguments: captures)
    func sameFramesTimesAndOpcodes(capture: String) throws {
        let archive = try Fixtures.existing("archives/bugreport-snooz-\(capture).zip")
        let bare = Fixtures.capture("bumble/\(capture).btsnoop")
        let bundle = try CaptureBundle.open(path: archive)
        try #require(bundle.members.count == 1)
        let member = bundle.members[0]
        #expect(member.name == "bugreport-blecap-2026-11-22-11-30-00.txt")
        #expect(member.note?.contains("btsnooz v2 summary") == true)
        #expect(bundle.container == "Android bug report (zip)")

        let expected = ReadResult(try CaptureFile.open(path: bare))
        let got = ReadResult(try member.makeReader())
        #expect(got.damage == nil)
        try #require(got.records.count == expected.records.count)
        var cut = 0
        for (g, e) in zip(got.records, expected.records) {
            #expect(g.frame == e.frame)
            #expect(g.timestamp == e.timestamp, "frame \(e.frame)")
            // rawType is the container's own code: btsnooz type 0x10…0x2D, not the H4 byte.
            #expect(g.kind == e.kind && g.direction == e.direction, "frame \(e.frame)")
            #expect(g.originalLength == e.payload.count, "frame \(e.frame)")
            if e.kind == .aclData {
                #expect(g.payload == Array(e.payload.prefix(Self.aclKept)), "frame \(e.frame)")
                if e.payload.count > Self.aclKept { cut += 1 }
            } else {
                #expect(g.payload == e.payload, "frame \(e.frame)")
            }
        }
        #expect(cut > 0)
        #expect(
            Self.attOpcodes(try member.makeReader()) == Self.attOpcodes(try CaptureFile.open(path: bare)))
    }

    /// `--member` may name the bug report text that holds the summary.
    @Test func memberNamesTheText() throws {
        let path = try Fixtures.existing("archives/bugreport-snooz-clean_heart_rate.central.zip")
        let bundle = try CaptureBundle.open(path: path, member: "bugreport-blecap-2026-11-22-11-30-00.txt")
        #expect(bundle.members.map(\.name) == ["bugreport-blecap-2026-11-22-11-30-00.txt"])
        #expect(throws: ArchiveError.noSuchMember("other.txt", available: [])) {
            _ = try CaptureBundle.open(path: path, member: "other.txt")
        }
    }

    /// Lint on the summary: no finding the bare capture does not have (on the same rule and
    /// frame), and the value rule says why it cannot judge: a cut write is no oversized write.
    @Test(arguments: captures)
    func lintJudgesOnlyWhatIsThere(capture: String) throws {
        let bundle = try CaptureBundle.open(path: try Fixtures.existing("archives/bugreport-snooz-\(capture).zip"))
        let m = bundle.members[0]
        let snooz = CaptureLinter.lint(
            reader: try m.makeReader(), name: m.displayName, reopen: { try? m.makeReader() })
        let bare = CaptureLinter.lint(path: Fixtures.capture("bumble/\(capture).btsnoop"))
        let bareKeys = Set(bare.findings.map { "\($0.ruleID)@\($0.firstFrame)" })
        for f in snooz.findings {
            #expect(bareKeys.contains("\(f.ruleID)@\(f.firstFrame)"), "\(f.ruleID): \(f.message)")
        }
        #expect(!snooz.findings.contains { $0.ruleID == "BLE002" })
        if capture == "oversized_and_unchecked_writes.central" {
            #expect(bare.findings.contains { $0.ruleID == "BLE002" })
            #expect(snooz.notEvaluated.contains { $0.ruleID == "BLE002" && $0.reason.contains("cut the values") })
        }
    }

    /// Version 1 has no packet lengths; the ACL header's length still tells what was cut.
    @Test func versionOneSection() throws {
        let bundle = try CaptureBundle.open(path: try Fixtures.existing("archives/snooz-v1-clean_heart_rate.txt"))
        #expect(bundle.container == "bug report text")
        #expect(bundle.members[0].note?.contains("btsnooz v1") == true)
        let got = ReadResult(try bundle.members[0].makeReader())
        let expected = ReadResult(
            try CaptureFile.open(path: Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")))
        #expect(got.records.map(\.timestamp) == expected.records.map(\.timestamp))
        #expect(got.records.map(\.originalLength) == expected.records.map { $0.payload.count })
    }

    @Test func badChecksumIsDamageAfterTheRecords() throws {
        let bundle = try CaptureBundle.open(path: try Fixtures.existing("archives/snooz-bad-checksum.txt"))
        let got = ReadResult(try bundle.members[0].makeReader())
        #expect(got.records.count == 123)
        #expect(got.damage?.reason.contains("bad checksum") == true)
    }

    @Test func unknownVersionIsNamed() throws {
        #expect(throws: ArchiveError.btsnooz("unknown version 3 (blecap reads versions 1 and 2)")) {
            _ = try CaptureBundle.open(path: try Fixtures.existing("archives/snooz-version-3.txt"))
        }
    }

    /// Sections that are damaged in other ways: bounded, never a crash.
    @Test func hostileSections() throws {
        #expect(throws: ArchiveError.btsnooz("the section is not valid base64")) {
            _ = try BTSnoozLog(base64: Array("AB$CD".utf8))
        }
        #expect(throws: ArchiveError.btsnooz("4 bytes, shorter than the 9-byte preamble")) {
            _ = try BTSnoozLog(base64: Array("AQIDBA==".utf8))
        }
        // A valid preamble and garbage where the zlib stream should be.
        var rng = SplitMix64(seed: 3)
        let raw: [UInt8] = [2, 0, 0, 0, 0, 0, 0, 0, 0] + (0..<300).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let log = try BTSnoozLog(base64: Array(Self.base64(raw).utf8))
        let r = ReadResult(BTSnoozReader(log))
        #expect(r.damage != nil)
        // A record whose length runs past the end, after a good one.
        let records: [UInt8] = [2, 0, 2, 0, 0, 0, 0, 0, 0x10, 0x0E] + [0xFF, 0x7F, 0xFF, 0x7F, 1, 0, 0, 0, 0x11, 0]
        let ok = try BTSnoozLog(base64: Array(Self.base64([2, 0, 0, 0, 0, 0, 0, 0, 0] + Self.deflate(records)).utf8))
        let r2 = ReadResult(BTSnoozReader(ok))
        #expect(r2.records.count == 1)
        #expect(r2.damage?.reason.contains("runs past the end") == true)
    }

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// zlib (RFC 1950) of `bytes`, through the system zlib (CZlib's deflate).
    static func deflate(_ bytes: [UInt8]) -> [UInt8] { ZlibTestEncoder.compress(bytes) }
}

/// A section that inflates far beyond its size stops at the ratio limit, in memory and time.
@Suite struct BTSnoozBombTests {
    @Test func inflationIsBounded() throws {
        // 64 MiB of zero bytes (v2 records of length 0 would stop at once: use zeros after one
        // real record so the stream itself is the bomb).
        let records = [UInt8](repeating: 0, count: 64 << 20)
        let compressed = ZlibTestEncoder.compress(records)
        #expect(compressed.count < 100_000)
        let text = Data([2, 0, 0, 0, 0, 0, 0, 0, 0] + compressed).base64EncodedString()
        let start = Date()
        let log = try BTSnoozLog(base64: Array(text.utf8))
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(log.records.count <= Int(ArchiveLimits.standard.maximumRatio) * compressed.count)
        #expect(log.damage?.contains("decompress to more than") == true)
    }
}
