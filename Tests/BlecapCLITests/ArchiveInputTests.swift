import Foundation
import TestSupport
import Testing

/// `blecap` on archives, compressed logs and Android bug reports, as a user runs it.
@Suite struct ArchiveInputTests {
    /// An Android bug report zip (`adb bugreport`) with `capture` as its HCI snoop log.
    static func bugReport(around capture: String, in scratch: Scratch, extra: [(String, [UInt8])] = []) throws -> String
    {
        let zip = scratch.file("bugreport-device-2026-11-23.zip")
        try ArchiveWriter.write(
            .zip, to: zip,
            entries: [
                ("version.txt", Array("2.0".utf8)),
                ("main_entry.txt", Array("bugreport-device-2026-11-23.txt".utf8)),
                ("bugreport-device-2026-11-23.txt", Array("== dumpstate: 2026-11-23\n".utf8)),
                ("FS/data/misc/bluetooth/logs/btsnoop_hci.log", try Fixtures.bytes(atPath: capture)),
            ] + extra)
        return zip
    }

    static func findings(_ json: String) throws -> [[String: String]] {
        let doc = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let captures = doc?["captures"] as? [[String: Any]] ?? []
        return captures.flatMap { c -> [[String: String]] in
            let f = (c["findings"] as? [[String: Any]] ?? []).map { $0.mapValues { "\($0)" } }
            let n = (c["not_evaluated"] as? [[String: Any]] ?? []).map { $0.mapValues { "\($0)" } }
            return f + n
        }
    }

    /// The acceptance test of issue 14: the bug report gives the bare capture's findings
    /// (fingerprints, frames and byte offsets included) and timeline, and names the member.
    @Test(arguments: Fixtures.captures(in: "bumble"))
    func bugReportLintsAndTimesLikeTheBareCapture(capture: String) throws {
        let scratch = try Scratch()
        let zip = try Self.bugReport(around: capture, in: scratch)
        let member = "\(zip)!FS/data/misc/bluetooth/logs/btsnoop_hci.log"

        let bareTimeline = try CLIRunner.run(["timeline", "--format", "jsonl", capture])
        let zipTimeline = try CLIRunner.run(["timeline", "--format", "jsonl", zip])
        #expect(zipTimeline.status == bareTimeline.status)
        #expect(zipTimeline.stdout == bareTimeline.stdout)
        #expect(!zipTimeline.stdout.isEmpty)
        #expect(zipTimeline.stderr.contains("Android bug report: read FS/data/misc/bluetooth/logs/btsnoop_hci.log"))

        // A capture out of a bug report is an Android host's (issue 27): the bare file judged as
        // Android gives the same findings.
        let bareLint = try CLIRunner.run([
            "lint", "--format", "json", "--fail-on", "never", "--platform", "android", capture,
        ])
        let zipLint = try CLIRunner.run(["lint", "--format", "json", "--fail-on", "never", zip])
        #expect(zipLint.status == 0)
        #expect(try Self.findings(zipLint.stdout) == Self.findings(bareLint.stdout))
        #expect(zipLint.stdout.contains("\"path\":\"\(member)\""))

        let sarif = try CLIRunner.run(["lint", "--format", "sarif", "--fail-on", "never", zip])
        let log = try JSONSerialization.jsonObject(with: Data(sarif.stdout.utf8)) as? [String: Any]
        let run = (log?["runs"] as? [[String: Any]])?.first
        let uris = (run?["artifacts"] as? [[String: Any]] ?? []).compactMap {
            ($0["location"] as? [String: Any])?["uri"] as? String
        }
        #expect(uris.count == 1)
        #expect(
            uris.first?.hasSuffix("/bugreport-device-2026-11-23.zip!FS/data/misc/bluetooth/logs/btsnoop_hci.log")
                == true)
    }

    /// The order of preference: btsnoop_hci.log, then .last, then .filtered, then btsnooz_hci.log,
    /// then vendor folders; `info` says which one it read; `--member` reads another.
    @Test func bugReportPreferenceAndMemberOption() throws {
        let scratch = try Scratch()
        let a = Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")
        let b = try Fixtures.bytes("bumble/reconnect_storm.central.btsnoop")
        let logs = "FS/data/misc/bluetooth/logs/"
        let zip = scratch.file("br.zip")
        try ArchiveWriter.write(
            .zip, to: zip,
            entries: [
                ("main_entry.txt", Array("bugreport.txt".utf8)), ("FS/data/log/bt/btsnoop_hci.log", b),
                (logs + "btsnooz_hci.log", b), (logs + "btsnoop_hci.log.filtered", b),
                (logs + "btsnoop_hci.log.last", b), ("FS/data/log/bt/old/btsnooz_hci.log", b),
            ])
        let info = try CLIRunner.run(["info", zip])
        #expect(info.status == 0)
        #expect(info.stdout.contains("file:          \(zip)!\(logs)btsnoop_hci.log.last"))
        #expect(info.stdout.contains("source:        Android bug report: read \(logs)btsnoop_hci.log.last"))

        let picked = try CLIRunner.run(["info", "--format", "json", "--member", "FS/data/log/bt/btsnoop_hci.log", zip])
        #expect(picked.stdout.contains("\"file\":\"\(zip)!FS/data/log/bt/btsnoop_hci.log\""))

        // Several captures named by file name: ambiguous, the full names are listed.
        let ambiguous = try CLIRunner.run(["info", "--member", "btsnooz_hci.log", zip])
        #expect(ambiguous.status == 2)
        #expect(ambiguous.stderr.contains("choose one with --member"))

        let missing = try CLIRunner.run(["timeline", "--member", "nope.log", zip])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no capture named 'nope.log'"))
        _ = a
    }

    @Test func exitCodesForArchives() throws {
        let scratch = try Scratch()
        // No capture inside: 4, and the contents listed.
        let notes = scratch.file("notes.zip")
        try ArchiveWriter.write(.zip, to: notes, entries: [("a.txt", Array("x".utf8))])
        let none = try CLIRunner.run(["info", notes])
        #expect(none.status == 4)
        #expect(none.stderr.contains("holds no capture blecap reads; it contains: a.txt"))
        let lintNone = try CLIRunner.run(["lint", notes])
        #expect(lintNone.status == 4)

        // A bug report without Bluetooth logs: 4, and how to enable them.
        let br = scratch.file("br.zip")
        try ArchiveWriter.write(
            .zip, to: br,
            entries: [("main_entry.txt", Array("bugreport.txt".utf8)), ("FS/data/misc/x.txt", Array("y".utf8))])
        let noLog = try CLIRunner.run(["timeline", br])
        #expect(noLog.status == 4)
        #expect(noLog.stderr.contains("Developer options → Bluetooth HCI snoop log"))

        // Path traversal: refused, 5.
        let evil = scratch.file("evil.tar")
        try ArchiveWriter.write(
            .tar, to: evil,
            entries: [("../evil.btsnoop", try Fixtures.bytes("bumble/clean_heart_rate.central.btsnoop"))])
        let refused = try CLIRunner.run(["packets", evil])
        #expect(refused.status == 5)
        #expect(refused.stderr.contains("path traversal"))

        // A gzip cut short: the records before the cut, then damage (3).
        let gz = scratch.file("c.gz")
        try ArchiveWriter.write(
            .gzip, to: gz, entries: [("c", try Fixtures.bytes("bumble/long_notify_stream.central.btsnoop"))])
        let bytes = try Fixtures.bytes(atPath: gz)
        let cut = try scratch.write("cut.gz", Array(bytes.prefix(bytes.count / 2)))
        let damaged = try CLIRunner.run(["info", cut])
        #expect(damaged.status == 3)
        #expect(damaged.stdout.contains("archive:"))

        // Standard input: an archive piped in is spooled and read like the file.
        let piped = try CLIRunner.run(["timeline", "-"], stdin: Data(try Fixtures.bytes(atPath: gz)))
        let direct = try CLIRunner.run(["timeline", Fixtures.capture("bumble/long_notify_stream.central.btsnoop")])
        #expect(piped.status == 0)
        #expect(piped.stdout == direct.stdout)
    }

    /// A bug report with only the btsnooz summary: read, named, cut frames marked; a broken
    /// section is named as such (bad checksum: damage, 3; unknown version: 2).
    @Test func btsnoozBugReport() throws {
        let zip = try Fixtures.existing("archives/bugreport-snooz-oversized_and_unchecked_writes.central.zip")
        let info = try CLIRunner.run(["info", zip])
        #expect(info.status == 0)
        #expect(info.stdout.contains("file:          \(zip)!bugreport-blecap-2026-11-22-11-30-00.txt"))
        #expect(info.stdout.contains("source:        btsnooz v2 summary in bugreport-blecap-2026-11-22-11-30-00.txt"))
        #expect(info.stdout.contains("truncated by the capture"))
        let timeline = try CLIRunner.run(["timeline", "--format", "jsonl", zip])
        #expect(timeline.stdout.contains("\"capture_truncated\":true"))
        let lint = try CLIRunner.run(["lint", "--format", "json", "--fail-on", "never", zip])
        #expect(lint.status == 0)
        #expect(!lint.stdout.contains("\"rule\":\"BLE002\",\"slug\":\"oversized-write\",\"severity\""))
        #expect(lint.stdout.contains("\"rule\":\"BLE002\",\"slug\":\"oversized-write\",\"whole\":false"))

        let bad = try CLIRunner.run(["info", try Fixtures.existing("archives/snooz-bad-checksum.txt")])
        #expect(bad.status == 3)
        #expect(bad.stderr.contains("bad checksum"))
        let v3 = try CLIRunner.run(["info", try Fixtures.existing("archives/snooz-version-3.txt")])
        #expect(v3.status == 4)
        #expect(v3.stderr.contains("btsnooz section: unknown version 3"))
    }

    /// `report` and `replay` read archives too; the page names the member.
    @Test func reportAndReplayOnArchives() throws {
        let scratch = try Scratch()
        let capture = Fixtures.capture("bumble/oversized_and_unchecked_writes.central.btsnoop")
        let zip = try Self.bugReport(around: capture, in: scratch)
        let page = scratch.file("page.html")
        let report = try CLIRunner.run(["report", "-o", page, zip])
        #expect(report.status == 0)
        let html = String(decoding: try Fixtures.bytes(atPath: page), as: UTF8.self)
        #expect(html.contains("bugreport-device-2026-11-23.zip!FS/data/misc/bluetooth/logs/btsnoop_hci.log"))

        let gz = scratch.file("c.btsnoop.gz")
        try ArchiveWriter.write(.gzip, to: gz, entries: [("c", try Fixtures.bytes(atPath: capture))])
        let bare = try CLIRunner.run(["replay", "--format", "json", capture])
        let packed = try CLIRunner.run(["replay", "--format", "json", gz])
        #expect(packed.status == bare.status)
        #expect(packed.stdout.replacingOccurrences(of: gz, with: capture) == bare.stdout)
    }

    /// Walking a directory, `lint` opens the archives in it and lints their members (a
    /// link-layer capture too, as a bare one); one holding no capture is passed over with a note.
    @Test func lintWalksArchivesInDirectories() throws {
        let scratch = try Scratch()
        let dir = scratch.file("logs")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try ArchiveWriter.write(
            .gzip, to: dir + "/a.btsnoop.gz",
            entries: [("a", try Fixtures.bytes("bumble/oversized_and_unchecked_writes.central.btsnoop"))])
        try ArchiveWriter.write(
            .zip, to: dir + "/ll.zip",
            entries: [("ll.pcap", try Fixtures.bytes("public/pcap-lell256_whad-pairing-gatt-conn-update.pcap"))])
        try ArchiveWriter.write(.zip, to: dir + "/notes.zip", entries: [("n.txt", Array("x".utf8))])
        let run = try CLIRunner.run(["lint", dir])
        #expect(run.status == 1)
        #expect(run.stdout.contains("\(dir)/a.btsnoop.gz"))
        #expect(run.stdout.contains("\(dir)/ll.zip!ll.pcap"))
        #expect(run.stderr.contains("\(dir)/notes.zip: skipped"))
    }

    /// Members are decompressed into memory or into files unlinked at once: the temporary folder
    /// blecap was given is empty while it runs and after, whatever the archive held.
    @Test func nothingIsLeftInTheTemporaryFolder() throws {
        let scratch = try Scratch()
        let tmp = scratch.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let tgz = scratch.file("logs.tar.gz")
        try ArchiveWriter.write(
            .tarGzip, to: tgz,
            entries: [
                ("../../escape.btsnoop", try Fixtures.bytes("bumble/clean_heart_rate.central.btsnoop"))
            ])
        let zip = try Self.bugReport(around: Fixtures.capture("bumble/clean_heart_rate.central.btsnoop"), in: scratch)
        for args in [["lint", zip], ["info", tgz], ["timeline", zip]] {
            _ = try CLIRunner.run(args, environment: ["TMPDIR": tmp])
            #expect(try FileManager.default.contentsOfDirectory(atPath: tmp) == [], "\(args)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("../escape.btsnoop")))
        // Members this small stay in memory: no folder is needed (the one beyond the budget is
        // made under $TMPDIR: ExtractedFileTests).
        let missing = try CLIRunner.run(["info", zip], environment: ["TMPDIR": scratch.file("absent")])
        #expect(missing.status == 0, "\(missing.stderr)")
    }

    /// Several captures: `info` and `lint` take each; `timeline` asks for --member.
    @Test func severalCaptures() throws {
        let scratch = try Scratch()
        let tgz = scratch.file("logs.tar.gz")
        try ArchiveWriter.write(
            .tarGzip, to: tgz,
            entries: [
                ("a.btsnoop", try Fixtures.bytes("bumble/clean_heart_rate.central.btsnoop")),
                ("b.btsnoop", try Fixtures.bytes("bumble/oversized_and_unchecked_writes.central.btsnoop")),
            ])
        let info = try CLIRunner.run(["info", "--format", "json", tgz])
        #expect(info.status == 0)
        let list = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [[String: Any]]
        #expect(Set((list ?? []).compactMap { $0["file"] as? String }) == ["\(tgz)!a.btsnoop", "\(tgz)!b.btsnoop"])
        let lint = try CLIRunner.run(["lint", tgz])
        #expect(lint.status == 1)
        #expect(lint.stdout.contains("\(tgz)!b.btsnoop"))
        #expect(lint.stdout.contains("\(tgz)!a.btsnoop"))
        let timeline = try CLIRunner.run(["timeline", tgz])
        #expect(timeline.status == 2)
        #expect(timeline.stderr.contains("--member"))
    }

    /// `cat F.gz | blecap watch -`: the compressed stream is read whole (said on standard
    /// error), then gives what `watch` gives on the bare file; `watch --follow F.gz` is refused
    /// as a usage error (2), since a compressed file cannot be followed.
    @Test func watchReadsCompressedStandardInputWholeAndRefusesToFollowIt() throws {
        let scratch = try Scratch()
        let capture = Fixtures.capture("bumble/oversized_and_unchecked_writes.central.btsnoop")
        let gz = scratch.file("c.btsnoop.gz")
        try ArchiveWriter.write(.gzip, to: gz, entries: [("c", try Fixtures.bytes(atPath: capture))])
        let bare = try CLIRunner.run(["watch", "--format", "jsonl", capture])
        let piped = try CLIRunner.run(["watch", "--format", "jsonl", "-"], stdin: Data(try Fixtures.bytes(atPath: gz)))
        #expect(piped.status == bare.status)
        #expect(piped.stderr.contains("standard input: compressed; read whole first, then processed"))
        #expect(!bare.stderr.contains("compressed"))
        #expect(piped.stdout.split(separator: "\n").count > 10)
        #expect(
            piped.stdout.replacingOccurrences(of: "standard input", with: capture)
                == bare.stdout.replacingOccurrences(of: "standard input", with: capture))
        // An uncompressed stream is still parsed as it comes, with no such note.
        let plain = try CLIRunner.run(
            ["watch", "--format", "jsonl", "-"], stdin: Data(try Fixtures.bytes(atPath: capture)))
        #expect(plain.status == bare.status && !plain.stderr.contains("compressed"))

        let follow = try CLIRunner.run(["watch", "--follow", gz])
        #expect(follow.status == 2)
        #expect(follow.stderr.contains("a compressed file or archive cannot be followed"))
        #expect(follow.stdout.isEmpty)
    }
}
