import BLEBytes
import CaptureIO
import Foundation
import TestSupport
import Testing

@testable import CaptureArchive

/// Archives built to hurt: decompression bombs, names that climb out, nesting without end,
/// streams cut short. Each ends in bounded time with a clear error (or, for a cut stream, the
/// records before the cut and the damage named), and nothing is written outside blecap's own
/// unlinked temporary files.
@Suite struct HostileArchiveTests {
    /// A btsnoop header followed by `count` zero bytes: a "capture" that compresses ~1000:1.
    static func zeroCapture(_ count: Int) -> [UInt8] {
        Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 0x03, 0xEA] + [UInt8](repeating: 0, count: count)
    }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = Date()
        try body()
        return Date().timeIntervalSince(start)
    }

    static func isRatioRefusal(_ e: any Error) -> Bool {
        if case .refused(.compressionRatio) = e as? ArchiveError { return true }
        return false
    }

    @Test(arguments: [ArchiveWriter.Kind.gzip, .xz, .zip, .tarGzip])
    func decompressionBombIsRefusedEarly(kind: ArchiveWriter.Kind) throws {
        let scratch = try Scratch()
        let bomb = scratch.file("bomb.\(kind.fileExtension)")
        try ArchiveWriter.write(kind, to: bomb, entries: [("x.btsnoop", Self.zeroCapture(48 << 20))])
        let compressed = try FileManager.default.attributesOfItem(atPath: bomb)[.size] as? Int ?? 0
        #expect(compressed < 200_000)
        let elapsed = Self.seconds {
            #expect(throws: (any Error).self) { _ = try CaptureBundle.open(path: bomb) }
            #expect { _ = try CaptureBundle.open(path: bomb) } throws: { Self.isRatioRefusal($0) }
        }
        #expect(elapsed < 10)
    }

    /// A bomb in a member that is no capture cannot hide in a stream either: skipping it means
    /// decompressing it, and that counts.
    @Test func bombInSkippedTarMemberIsRefused() throws {
        let scratch = try Scratch()
        let bomb = scratch.file("skip.tar.gz")
        try ArchiveWriter.write(
            .tarGzip, to: bomb,
            entries: [
                ("zeros.bin", [UInt8](repeating: 0, count: 48 << 20)),
                ("a.btsnoop", try Fixtures.bytes("bumble/clean_heart_rate.central.btsnoop")),
            ])
        #expect { _ = try CaptureBundle.open(path: bomb) } throws: { Self.isRatioRefusal($0) }
    }

    @Test func memberAndTotalSizeLimits() throws {
        let scratch = try Scratch()
        let gz = scratch.file("c.gz")
        let capture = try Fixtures.bytes("bumble/long_notify_stream.central.btsnoop")
        try ArchiveWriter.write(.gzip, to: gz, entries: [("c", capture)])
        var limits = ArchiveLimits()
        limits.maximumMemberBytes = 4096
        #expect(throws: ArchiveError.refused(.memberTooLarge(name: gz, limit: 4096))) {
            _ = try CaptureBundle.open(path: gz, limits: limits)
        }
        limits = ArchiveLimits()
        limits.maximumTotalBytes = 8192
        #expect(throws: ArchiveError.refused(.totalTooLarge(limit: 8192))) {
            _ = try CaptureBundle.open(path: gz, limits: limits)
        }
    }

    @Test(arguments: ["../x.btsnoop", "/etc/x.btsnoop", "a/../../x.btsnoop", "..\\x.btsnoop", "C:/x.btsnoop", "ok/.."])
    func pathTraversalNamesAreRefused(name: String) throws {
        let scratch = try Scratch()
        for kind in [ArchiveWriter.Kind.zip, .tar] {
            let archive = scratch.file("evil.\(kind.fileExtension)")
            try ArchiveWriter.write(
                kind, to: archive, entries: [(name, try Fixtures.bytes("bumble/clean_heart_rate.central.btsnoop"))])
            // (libarchive turns a zip's backslashes into slashes: the name reported may differ.)
            #expect { _ = try CaptureBundle.open(path: archive) } throws: { e in
                guard case .refused(.unsafeName) = e as? ArchiveError else { return false }
                return true
            }
        }
        // Nothing appeared next to the archive or above it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["evil.tar", "evil.zip"])
        #expect(!FileManager.default.fileExists(atPath: scratch.file("../x.btsnoop")))
    }

    /// zip inside zip inside …: four levels read, five refused.
    @Test func nestingDepthIsBounded() throws {
        let scratch = try Scratch()
        var bytes = try Fixtures.bytes("bumble/clean_heart_rate.central.btsnoop")
        let expected = ReadResult(
            try CaptureFile.open(path: Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")))
        for level in 1...5 {
            let path = scratch.file("level\(level).gz")
            try ArchiveWriter.write(.zip, to: path, entries: [("l\(level)", bytes)])
            bytes = try Fixtures.bytes(atPath: path)
            if level <= 4 {
                #expect(try readOnly(CaptureBundle.open(path: path)).records == expected.records)
            } else {
                #expect { _ = try CaptureBundle.open(path: path) } throws: { e in
                    guard case .refused(.nestingTooDeep(_, 4)) = e as? ArchiveError else { return false }
                    return true
                }
            }
        }
    }

    /// Compression around archives around compression: gzip(zip(xz(capture))) reads through.
    @Test func mixedLayersReadThrough() throws {
        let scratch = try Scratch()
        let capture = Fixtures.capture("formats/clean_heart_rate.central.le.pklg")
        let xz = scratch.file("c.xz")
        try ArchiveWriter.write(.xz, to: xz, entries: [("c", try Fixtures.bytes(atPath: capture))])
        let zip = scratch.file("c.zip")
        try ArchiveWriter.write(.zip, to: zip, entries: [("c.pklg.xz", try Fixtures.bytes(atPath: xz))])
        let gz = scratch.file("c.zip.gz")
        try ArchiveWriter.write(.gzip, to: gz, entries: [("c", try Fixtures.bytes(atPath: zip))])
        #expect(
            try readOnly(CaptureBundle.open(path: gz)).records
                == ReadResult(try CaptureFile.open(path: capture)).records)
    }

    /// A compressed stream cut short: the records before the cut, the cut named as damage.
    @Test(arguments: [ArchiveWriter.Kind.gzip, .xz, .tarGzip])
    func truncatedStreamGivesRecordsBeforeTheCut(kind: ArchiveWriter.Kind) throws {
        let scratch = try Scratch()
        let capture = Fixtures.capture("bumble/long_notify_stream.central.btsnoop")
        let full = scratch.file("full.\(kind.fileExtension)")
        try ArchiveWriter.write(kind, to: full, entries: [("c.btsnoop", try Fixtures.bytes(atPath: capture))])
        let bytes = try Fixtures.bytes(atPath: full)
        let cut = try scratch.write("cut.\(kind.fileExtension)", Array(bytes.prefix(bytes.count / 2)))
        let expected = ReadResult(try CaptureFile.open(path: capture))
        let bundle = try CaptureBundle.open(path: cut)
        let got = try readOnly(bundle)
        #expect(bundle.members[0].damage != nil || bundle.damage != nil)
        #expect(!got.records.isEmpty)
        #expect(got.records.count < expected.records.count)
        #expect(got.records == Array(expected.records.prefix(got.records.count)))
    }

    /// Garbage after a valid magic, and a zip cut before its central directory: a clear error
    /// or damage, never a crash or a hang.
    @Test func garbageAndCutZip() throws {
        let scratch = try Scratch()
        var rng = SplitMix64(seed: 7)
        let garbage = [0x1F, 0x8B] + (0..<4096).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let g = try scratch.write("g.gz", garbage)
        #expect(throws: (any Error).self) { _ = try readOnly(CaptureBundle.open(path: g)) }

        let zip = scratch.file("z.zip")
        try ArchiveWriter.write(
            .zip, to: zip, entries: [("a.btsnoop", try Fixtures.bytes("bumble/long_notify_stream.central.btsnoop"))])
        let bytes = try Fixtures.bytes(atPath: zip)
        let cut = try scratch.write("cut.zip", Array(bytes.prefix(bytes.count - 40)))
        do {
            let bundle = try CaptureBundle.open(path: cut)
            let r = try readOnly(bundle)
            #expect(r.damage != nil || bundle.damage != nil || bundle.members[0].damage != nil || !r.records.isEmpty)
        } catch let e as ArchiveError {
            #expect(!e.description.isEmpty)
        }
    }
}

/// Seeded damage to real archives (bytes flipped, streams cut anywhere): every variant ends in
/// records, damage or a clear error, quickly; never a crash or a hang.
@Suite struct ArchiveMutationTests {
    static func readAll(_ path: String) {
        guard let bundle = try? CaptureBundle.open(path: path) else { return }
        for m in bundle.members {
            guard let r = try? m.makeReader() else { continue }
            var n = 0
            while r.next() != nil { n += 1 }
            _ = r.damage
        }
    }

    @Test(arguments: [ArchiveWriter.Kind.gzip, .xz, .zip, .tarGzip])
    func mutatedArchives(kind: ArchiveWriter.Kind) throws {
        let scratch = try Scratch()
        let original = scratch.file("o.\(kind.fileExtension)")
        let capture = try Fixtures.bytes("bumble/hr_short_notification.central.btsnoop")
        try ArchiveWriter.write(
            kind, to: original,
            entries: kind.isStream
                ? [("c", capture)]
                : [
                    ("FS/data/misc/bluetooth/logs/btsnoop_hci.log", capture),
                    ("main_entry.txt", Array("bugreport.txt".utf8)),
                ])
        let bytes = try Fixtures.bytes(atPath: original)
        var rng = SplitMix64(seed: 0xB1EC_0000 &+ UInt64(kind.fileExtension.utf8.count))
        let start = Date()
        for i in 0..<60 {
            var m = bytes
            if i % 3 == 0 {
                m = Array(m.prefix(Int(rng.next() % UInt64(m.count))))
            } else {
                for _ in 0..<(1 + Int(rng.next() % 4)) {
                    m[Int(rng.next() % UInt64(m.count))] = UInt8(truncatingIfNeeded: rng.next())
                }
            }
            Self.readAll(try scratch.write("m\(i).\(kind.fileExtension)", m))
        }
        #expect(Date().timeIntervalSince(start) < 60)
    }

    /// The same for btsnooz sections: base64 characters replaced, lines dropped.
    @Test func mutatedSummaries() throws {
        let scratch = try Scratch()
        let text = try Fixtures.bytes("archives/snooz-v1-clean_heart_rate.txt")
        let begin = try #require(String(decoding: text, as: UTF8.self).range(of: "SUMMARY (")).upperBound.utf16Offset(
            in: String(decoding: text, as: UTF8.self))
        var rng = SplitMix64(seed: 42)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=\n".utf8)
        for i in 0..<100 {
            var m = text
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let at = begin + 40 + Int(rng.next() % UInt64(m.count - begin - 80))
                m[at] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
            }
            Self.readAll(try scratch.write("s\(i).txt", m))
        }
    }
}
