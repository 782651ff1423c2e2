import Foundation
import TestSupport
import Testing

/// Batch mode (`--files-from`, directories, `--format jsonl|fleet`): one line per capture as it
/// finishes, hostile inputs as error rows, per-capture limits, the fleet schema of docs/fleet.md.
@Suite struct BatchModeTests {
    static let key = "batch-mode-test-key-0123456789"

    static func objects(_ run: CLIRun) throws -> [[String: Any]] {
        try run.lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    static func list(_ paths: [String], in scratch: Scratch) throws -> String {
        let list = scratch.file("list.txt")
        try (paths.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        return list
    }

    /// A capture's line does not depend on the batch it ran in: alone, or among a directory's
    /// captures, or in a child process under limits, the bytes are the same.
    @Test(arguments: [
        ["lint", "--format", "jsonl"], ["diagnose", "--format", "fleet"], ["info", "--format", "jsonl"],
    ])
    func lineAloneEqualsLineInBatch(command: [String]) throws {
        let dir = Fixtures.capturesRoot.appendingPathComponent("bumble").path
        let env = ["BLECAP_PSEUDONYM_KEY": Self.key]
        let batch = try CLIRunner.run(command + [dir], environment: env)
        #expect(!batch.lines.isEmpty)
        let scratch = try Scratch()
        for name in ["clean_heart_rate.central.btsnoop", "reconnect_storm.central.btsnoop"] {
            let path = dir + "/" + name
            let alone = try CLIRunner.run(command + ["--files-from", Self.list([path], in: scratch)], environment: env)
            let limited = try CLIRunner.run(
                command + [
                    "--max-seconds", "120", "--max-memory", "\(8 << 30)", "--files-from",
                    Self.list([path], in: scratch),
                ],
                environment: env)
            #expect(!alone.lines.isEmpty)
            // The capture's lines, together and in order, inside the batch's output.
            #expect(batch.stdout.contains(alone.stdout))
            #expect(limited.lines == alone.lines, "\(limited.stderr)")
        }
    }

    /// `--marks`: each blank line of the list becomes `{"mark":N}`, after every line of the inputs
    /// before it and before any line of the inputs after it; without the flag blank lines are
    /// nothing, and the rows are the same.
    @Test func marksFollowEveryLineOfTheInputsBeforeThem() throws {
        let dir = Fixtures.capturesRoot.appendingPathComponent("bumble").path
        let env = ["BLECAP_PSEUDONYM_KEY": Self.key]
        let scratch = try Scratch()
        let a = dir + "/clean_heart_rate.central.btsnoop"
        let b = dir + "/reconnect_storm.central.btsnoop"
        let list = try Self.list([a, b, "", a, "", ""], in: scratch)
        let command = ["lint", "--diagnose", "--format", "fleet", "--files-from", list]
        let marked = try CLIRunner.run(command + ["--marks"], environment: env)
        let plain = try CLIRunner.run(command, environment: env)
        let batch = ["lint", "--diagnose", "--format", "fleet", "--files-from"]
        let first = try CLIRunner.run(batch + [Self.list([a, b], in: scratch)], environment: env)
        let second = try CLIRunner.run(batch + [Self.list([a], in: scratch)], environment: env)
        #expect(!first.lines.isEmpty && !second.lines.isEmpty)
        #expect(marked.lines == first.lines + [#"{"mark":1}"#] + second.lines + [#"{"mark":2}"#, #"{"mark":3}"#])
        #expect(plain.lines == first.lines + second.lines)
        #expect(marked.status == plain.status)
        let refused = try CLIRunner.run(["lint", "--marks", a])
        #expect(refused.status == 2 && refused.stderr.contains("--marks needs --files-from"), "\(refused.stderr)")
    }

    /// A program feeding blecap batch after batch: the mark arrives while blecap waits for more of
    /// the list (its lines are flushed before it reads on), not only when the list ends.
    @Test func aMarkArrivesWhileTheListStaysOpen() throws {
        let path = Fixtures.capturesRoot.appendingPathComponent("bumble/clean_heart_rate.central.btsnoop").path
        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = ["lint", "--format", "fleet", "--raw-identifiers", "--files-from", "-", "--marks"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let reader = output.fileHandleForReading
        var pending = Data()
        /// Lines up to and including `{"mark":n}`, or nil if it did not come within the deadline.
        func readUntil(mark n: Int) -> [String]? {
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var lines: [String] = []
            nonisolated(unsafe) var buffer = pending
            DispatchQueue.global().async {
                while true {
                    if let nl = buffer.firstIndex(of: 0x0A) {
                        let line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
                        buffer = Data(buffer[(nl + 1)...])
                        lines.append(line)
                        if line == #"{"mark":\#(n)}"# { break }
                        continue
                    }
                    let chunk = reader.availableData
                    if chunk.isEmpty { break }
                    buffer += chunk
                }
                done.signal()
            }
            guard done.wait(timeout: .now() + 120) == .success else { return nil }
            pending = buffer
            return lines.last == #"{"mark":\#(n)}"# ? lines : nil
        }
        input.fileHandleForWriting.write(Data((path + "\n\n").utf8))
        let first = try #require(readUntil(mark: 1), "no mark while the list was open")
        #expect(first.count > 1 && first.dropLast().allSatisfy { $0.contains(#""table":"#) })
        input.fileHandleForWriting.write(Data((path + "\n\n").utf8))
        let second = try #require(readUntil(mark: 2))
        #expect(Array(second.dropLast()) == Array(first.dropLast()))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0 || process.terminationStatus == 1)
    }

    /// `lint --diagnose` reads each capture once and gives exactly the rows of `lint` and, from
    /// `diagnose`, the verdicts: the fleet runner's one pass per batch instead of two.
    @Test func lintWithDiagnoseIsLintPlusDiagnosesVerdicts() throws {
        let dir = Fixtures.capturesRoot.appendingPathComponent("diagnose").path
        let env = ["BLECAP_PSEUDONYM_KEY": Self.key]
        let both = try CLIRunner.run(["lint", "--format", "fleet", "--diagnose", dir], environment: env)
        let lint = try CLIRunner.run(["lint", "--format", "fleet", dir], environment: env)
        let diagnose = try CLIRunner.run(["diagnose", "--format", "fleet", dir], environment: env)
        func table(_ line: Substring) -> String? {
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["table"] as? String
        }
        let verdicts = diagnose.lines.filter { table($0) == "verdict" }
        #expect(verdicts.count > 20)
        #expect(both.lines.filter { table($0) == "verdict" }.sorted() == verdicts.sorted())
        #expect(both.lines.filter { table($0) != "verdict" }.sorted() == lint.lines.sorted())
        #expect(both.status == lint.status)
        let refused = try CLIRunner.run(["lint", "--format", "jsonl", "--diagnose", dir])
        #expect(refused.status == 2 && refused.stderr.contains("--diagnose needs --format fleet"))
    }

    /// Fleet inputs built to hurt, named one by one among good captures: each is an error row
    /// (or a damaged capture) with its cause, and the captures after it are still analysed.
    @Test func hostileInputsBecomeErrorRowsAndTheRunGoesOn() throws {
        let scratch = try Scratch()
        let good = Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")
        let goodBytes = try Fixtures.bytes(atPath: good)
        // A zip bomb: a 48 MiB "capture" of zeros.
        let bomb = scratch.file("bomb.zip")
        try ArchiveWriter.write(
            .zip, to: bomb,
            entries: [
                (
                    "x.btsnoop",
                    Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 3, 0xEA] + [UInt8](repeating: 0, count: 48 << 20)
                )
            ])
        // Nesting five zips deep (four are read).
        var bytes = goodBytes
        var deep = ""
        for level in 1...5 {
            deep = scratch.file("deep\(level).zip")
            try ArchiveWriter.write(.zip, to: deep, entries: [("l\(level)", bytes)])
            bytes = try Fixtures.bytes(atPath: deep)
        }
        let traversal = scratch.file("traversal.zip")
        try ArchiveWriter.write(.zip, to: traversal, entries: [("../../etc/x.btsnoop", goodBytes)])
        // A bug report whose HCI log is a 0-byte file.
        let empty = scratch.file("bugreport-empty.zip")
        try ArchiveWriter.write(
            .zip, to: empty,
            entries: [
                ("main_entry.txt", Array("bugreport-x.txt".utf8)), ("bugreport-x.txt", Array("== dumpstate\n".utf8)),
                ("FS/data/misc/bluetooth/logs/btsnoop_hci.log", []),
            ])
        // A bug report text whose btsnooz section is cut in the middle of its base64.
        let snooz = try String(
            contentsOfFile: Fixtures.capture("archives/snooz-v1-clean_heart_rate.txt"), encoding: .utf8)
        let cutAt = try #require(snooz.range(of: "--- END:BTSNOOP_LOG_SUMMARY")).lowerBound
        let cut = scratch.file("bugreport-cut.txt")
        try String(snooz[..<snooz.index(cutAt, offsetBy: -400)]).write(toFile: cut, atomically: true, encoding: .utf8)
        let garbage = scratch.file("garbage.bin")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }).write(to: URL(fileURLWithPath: garbage))
        let missing = scratch.file("missing.btsnoop")

        let inputs = [good, bomb, deep, traversal, empty, cut, garbage, missing, good]
        let run = try CLIRunner.run(
            ["lint", "--format", "fleet", "--files-from", Self.list(inputs, in: scratch)],
            environment: ["BLECAP_PSEUDONYM_KEY": Self.key])
        let rows = try Self.objects(run)
        // One result per input, in order: capture rows for the good ones, error rows otherwise.
        let firsts = rows.filter { $0["table"] as? String == "capture" || $0["table"] as? String == "error" }
        #expect(firsts.map { $0["input"] as? String } == inputs, "\(run.stdout)")
        func row(_ input: String) -> [String: Any] { firsts.first { $0["input"] as? String == input } ?? [:] }
        #expect(row(good)["table"] as? String == "capture")
        #expect(firsts.last?["table"] as? String == "capture")
        for (input, cls, words) in [
            (bomb, "refused", "decompression bomb"), (deep, "refused", "nests archives deeper"),
            (traversal, "refused", "path traversal"), (empty, "unreadable", "without Bluetooth HCI logs"),
            (garbage, "unreadable", "unknown capture format"), (missing, "unreadable", "No such file"),
        ] {
            let r = row(input)
            #expect(r["table"] as? String == "error", "\(input)")
            #expect(r["class"] as? String == cls, "\(input): \(r)")
            #expect((r["cause"] as? String ?? "").contains(words), "\(input): \(r)")
        }
        // The cut section: what was decoded before the cut, as a damaged capture, or an error
        // naming the section; never a clean capture.
        let c = row(cut)
        #expect(
            (c["table"] as? String == "capture" && c["damage"] is String)
                || (c["table"] as? String == "error" && (c["cause"] as? String ?? "").contains("btsnooz")), "\(c)")
        #expect(run.status == 5)  // the worst: a refused archive
    }

    /// `--max-seconds` and `--max-memory`: a capture that breaks one is an error row naming the
    /// limit, and the batch goes on to the next.
    @Test func limitsBecomeErrorRows() throws {
        let scratch = try Scratch()
        let a = Fixtures.capture("bumble/long_notify_stream.central.btsnoop")
        let b = Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")
        let list = try Self.list([a, b], in: scratch)
        let slow = try CLIRunner.run(["info", "--format", "fleet", "--max-seconds", "0.001", "--files-from", list])
        let rows = try Self.objects(slow)
        #expect(rows.count == 2)
        for r in rows {
            #expect(r["table"] as? String == "error")
            #expect(r["limit"] as? String == "max-seconds")
            #expect(r["class"] as? String == "refused")
        }
        #expect(slow.status == 5)
        let small = try CLIRunner.run([
            "info", "--format", "jsonl", "--max-memory", "\(16 << 20)", "--files-from", list,
        ])
        let smallRows = try Self.objects(small)
        #expect(smallRows.count == 2, "\(small.stdout)\(small.stderr)")
        for r in smallRows {
            let error = r["error"] as? [String: Any]
            #expect(error != nil, "\(r)")
            #expect(error?["stage"] as? String == "limit" || error?["stage"] as? String == "crash", "\(r)")
        }
    }

    /// Addresses are keyed pseudonyms: the same device gets the same one in two captures under
    /// one key, another under another key; raw only with --raw-identifiers; null without a key.
    @Test func pseudonymsAreKeyedStableAndNeverRawByDefault() throws {
        let scratch = try Scratch()
        let list = try Self.list(
            [
                Fixtures.capture("bumble/clean_heart_rate.central.btsnoop"),
                Fixtures.capture("formats/clean_heart_rate.central.le.pklg"),
            ], in: scratch)
        let address = "D8:0D:18:00:00:01"
        func peers(_ run: CLIRun) throws -> [String?] {
            try Self.objects(run).filter { $0["table"] as? String == "connection" }.map { $0["peer"] as? String }
        }
        let keyed = try CLIRunner.run(
            ["diagnose", "--format", "fleet", "--files-from", list], environment: ["BLECAP_PSEUDONYM_KEY": Self.key])
        let p = try peers(keyed)
        #expect(p.count == 2 && p[0] != nil && p[0] == p[1])
        #expect(!keyed.stdout.contains(address) && !keyed.stdout.lowercased().contains(address.lowercased()))
        let keyFile = scratch.file("key")
        try "another-key-for-the-same-fleet\n".write(toFile: keyFile, atomically: true, encoding: .utf8)
        let other = try CLIRunner.run([
            "diagnose", "--format", "fleet", "--pseudonym-key-file", keyFile, "--files-from", list,
        ])
        #expect(try peers(other)[0] != p[0])
        let none = try CLIRunner.run(
            ["diagnose", "--format", "fleet", "--files-from", list], environment: ["BLECAP_PSEUDONYM_KEY": ""])
        #expect(try peers(none) == [nil, nil])
        #expect(!none.stdout.contains(address))
        #expect(none.stderr.contains("no pseudonym key"))
        let raw = try CLIRunner.run(["diagnose", "--format", "fleet", "--raw-identifiers", "--files-from", list])
        #expect(try peers(raw) == [address, address])
        let short = try CLIRunner.run(
            ["diagnose", "--format", "fleet", "--files-from", list], environment: ["BLECAP_PSEUDONYM_KEY": "short"])
        #expect(short.status == 2)
    }

    /// Device metadata comes from the bug report's own text; what it does not name is null.
    @Test func bugReportMetadataFillsTheCaptureRow() throws {
        let scratch = try Scratch()
        let text = """
            ========================================================
            == dumpstate: 2026-11-23 10:00:00
            ========================================================

            Build: AP1A.240305.019
            Build fingerprint: 'google/panther/panther:14/AP1A.240305.019/11445699:user/release-keys'
            ------ SYSTEM PROPERTIES (getprop) ------
            [ro.product.manufacturer]: [Google]
            [ro.product.model]: [Pixel 7]
            DUMP OF SERVICE package:
              Package [com.example.heartrate] (1a2b3c):
                versionCode=7 minSdk=26 targetSdk=34
                versionName=1.0.7
              Package [com.android.bluetooth] (4d5e6f):
                versionCode=34 minSdk=34 targetSdk=34
                versionName=14

            """
        let zip = scratch.file("bugreport-panther.zip")
        try ArchiveWriter.write(
            .zip, to: zip,
            entries: [
                ("main_entry.txt", Array("bugreport-panther.txt".utf8)), ("bugreport-panther.txt", Array(text.utf8)),
                (
                    "FS/data/misc/bluetooth/logs/btsnoop_hci.log",
                    try Fixtures.bytes("bumble/clean_heart_rate.central.btsnoop")
                ),
            ])
        let run = try CLIRunner.run(["info", "--format", "fleet", "--raw-identifiers", zip])
        let capture = try #require(try Self.objects(run).first { $0["table"] as? String == "capture" })
        #expect(capture["device_model"] as? String == "Pixel 7")
        #expect(capture["device_manufacturer"] as? String == "Google")
        #expect(
            capture["android_build_fingerprint"] as? String
                == "google/panther/panther:14/AP1A.240305.019/11445699:user/release-keys")
        #expect(capture["app_packages"] as? [String] == ["com.android.bluetooth", "com.example.heartrate"])
        // The stack's version is the Bluetooth package's versionName, not another package's.
        #expect(capture["bluetooth_stack"] as? String == "14")
        // The firmware comes from the HCI log: frame 6's Read Local Version Information
        // (tshark: bthci_evt.comp_id 0xffff, bthci_evt.lmp_sub_vers_nr 0).
        #expect(capture["bluetooth_firmware"] as? String == "internal use (0xFFFF), LMP subversion 0x0000")
        #expect(capture["ios_version"] is NSNull)
        #expect(capture["sha256"] as? String == Self.sha256(zip))
    }

    /// A real Android snoop log names its controller: the fleet row carries it whether or not the
    /// capture came in a bug report.
    @Test func controllerFirmwareComesFromTheHCILog() throws {
        let path = try Fixtures.existing("public/btsnoop-android_domyos-treadmill-ftms.log")
        let run = try CLIRunner.run(["info", "--format", "fleet", path])
        let capture = try #require(try Self.objects(run).first { $0["table"] as? String == "capture" })
        // tshark -Y 'bthci_evt.opcode == 0x1001' -T fields -e bthci_evt.comp_id -e bthci_evt.lmp_sub_vers_nr
        // prints 0x001d and 2003 (0x07D3).
        #expect(capture["bluetooth_firmware"] as? String == "Qualcomm (0x001D), LMP subversion 0x07D3")
        #expect(capture["bluetooth_stack"] is NSNull)
        #expect(capture["device_model"] is NSNull)
    }

    static func sha256(_ path: String) -> String? {
        guard
            let r = try? CLIRunner.run(
                ["-c", "sha256sum \"$0\" | cut -d' ' -f1", path], executable: URL(fileURLWithPath: "/bin/sh"))
        else { return nil }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// docs/fleet.md's schema table and the rows blecap writes agree: every row has exactly the
    /// documented columns, in order, each of its documented type or null.
    @Test func fleetRowsMatchTheDocumentedSchema() throws {
        let doc = try String(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/fleet.md"), encoding: .utf8)
        let begin = try #require(doc.range(of: "<!-- fleet-schema:begin -->"))
        let end = try #require(doc.range(of: "<!-- fleet-schema:end -->"))
        var schema: [String: [(String, String)]] = [:]
        for line in doc[begin.upperBound..<end.lowerBound].split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let unquote = { (s: String) in s.trimmingCharacters(in: CharacterSet(charactersIn: "`")) }
            schema[unquote(cells[0]), default: []].append((unquote(cells[1]), unquote(cells[2])))
        }
        #expect(Set(schema.keys) == ["capture", "connection", "finding", "verdict", "error"])
        let scratch = try Scratch()
        let garbage = scratch.file("garbage.btsnoop")
        try Data(repeating: 0x41, count: 64).write(to: URL(fileURLWithPath: garbage))
        let inputs = [Fixtures.capture("bumble/oversized_and_unchecked_writes.central.btsnoop"), garbage]
        var seen: Set<String> = []
        for command in ["lint", "diagnose"] {
            let run = try CLIRunner.run(
                [command, "--format", "fleet", "--files-from", Self.list(inputs, in: scratch)],
                environment: ["BLECAP_PSEUDONYM_KEY": Self.key])
            for line in run.lines {
                let members = Self.members(String(line))
                let row = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                #expect(row["schema_version"] as? Int == 1)
                let table = try #require(row["table"] as? String)
                seen.insert(table)
                let columns = try #require(schema[table], "table \(table) is not documented")
                #expect(members.map(\.0) == ["schema_version", "table"] + columns.map(\.0), "\(table)")
                for ((name, type), (_, raw)) in zip(columns, members.dropFirst(2)) where raw != "null" {
                    let ok: Bool
                    switch type {
                    case "string": ok = raw.hasPrefix("\"")
                    case "integer": ok = Int(raw) != nil
                    case "number": ok = Double(raw) != nil
                    case "boolean": ok = raw == "true" || raw == "false"
                    case "array<string>":
                        ok = ((row[name] as? [Any])?.allSatisfy { $0 is String } ?? false) && raw.hasPrefix("[")
                    default: ok = false
                    }
                    #expect(ok, "\(table).\(name) = \(raw) is not \(type)")
                }
            }
        }
        #expect(seen == ["capture", "connection", "finding", "verdict", "error"])
    }

    /// The members of one JSON object line, in order (JSONSerialization forgets the order):
    /// each key and its value's text as written (a nested value's text whole).
    static func members(_ line: String) -> [(String, String)] {
        let chars = Array(line)
        var out: [(String, String)] = []
        var depth = 0
        var inString = false
        var keyStart = 0
        var key: String?
        var valueStart = 0
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if inString {
                if c == "\\" {
                    i += 1
                } else if c == "\"" {
                    inString = false
                    if depth == 1 && key == nil && i + 1 < chars.count && chars[i + 1] == ":" {
                        key = String(chars[(keyStart + 1)..<i])
                        valueStart = i + 2
                    }
                }
            } else if c == "\"" {
                inString = true
                keyStart = i
            } else if c == "{" || c == "[" {
                depth += 1
            } else if c == "}" || c == "]" || (c == "," && depth == 1) {
                if depth == 1, let k = key {
                    out.append((k, String(chars[valueStart..<i])))
                    key = nil
                }
                if c != "," { depth -= 1 }
            }
            i += 1
        }
        return out
    }
}
