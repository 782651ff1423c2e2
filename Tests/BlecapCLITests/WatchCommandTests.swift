import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `blecap watch`: the same events as `timeline` and the same findings as `lint`, from a file, a
/// file still being written (with half-written records at each pause), standard input and a TCP
/// stream — each event out within a second of the record that caused it.
@Suite(.serialized) struct WatchCommandTests {
    static let captures = [
        "bumble/clean_heart_rate.central.btsnoop", "bumble/oversized_and_unchecked_writes.central.btsnoop",
        "public/btsnoop-android_domyos-treadmill-ftms.log",
    ]

    /// What `timeline --format jsonl` and `lint --format json` say about the complete file.
    static func reference(_ path: String) throws -> (events: [String], findings: Set<String>) {
        let t = try CLIRunner.run(["timeline", "--format", "jsonl", path])
        #expect(t.status == 0)
        let l = try CLIRunner.run(["lint", "--format", "json", "--fail-on", "never", path])
        let doc = try JSONSerialization.jsonObject(with: Data(l.stdout.utf8)) as! [String: Any]
        let findings = ((doc["captures"] as! [[String: Any]])[0]["findings"] as! [[String: Any]]).map {
            "\($0["rule"] as! String)@\(($0["frames"] as! [Int])[0])"
        }
        return (t.lines.map(String.init), Set(findings))
    }

    /// Splits watch's JSONL into event lines, findings (rule@first frame) and verdicts (the
    /// line's other keys, as `diagnose --format jsonl` writes them).
    static func split(_ stdout: String) throws -> (events: [String], findings: [String]) {
        let all = try splitAll(stdout)
        return (all.events, all.findings)
    }

    static func splitAll(_ stdout: String) throws -> (events: [String], findings: [String], verdicts: [[String: Any]]) {
        var events: [String] = []
        var findings: [String] = []
        var verdicts: [[String: Any]] = []
        for line in stdout.split(separator: "\n") {
            let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            if let rule = o["finding"] as? String {
                findings.append("\(rule)@\((o["frames"] as! [Int])[0])")
            } else if let cause = o["verdict"] as? String {
                #expect(cause == o["cause"] as? String)
                var v = o
                v["verdict"] = nil
                verdicts.append(v)
            } else {
                events.append(String(line))
            }
        }
        return (events, findings, verdicts)
    }

    /// Each connection's verdict comes as the connection ends, right after its end on the
    /// timeline, and the verdicts are `diagnose`'s (the same objects, in the order they became
    /// final): reconnect_storm.central has six connections and a cancelled create-connection
    /// (captures/diagnose-expected.json).
    @Test func verdictsComeAsConnectionsEnd() throws {
        let path = try Fixtures.existing("bumble/reconnect_storm.central.btsnoop")
        let d = try CLIRunner.run(["diagnose", "--format", "jsonl", path])
        #expect(d.status == 0)
        let want = try d.lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! NSDictionary }
        let run = try CLIRunner.run(["watch", "--format", "jsonl", path])
        #expect(run.status == 0, "\(run.stderr)")
        let got = try Self.splitAll(run.stdout)
        #expect(got.verdicts.count == want.count && want.count >= 4)
        #expect(Set(got.verdicts.map { $0 as NSDictionary }) == Set(want))
        // Live: a connection's verdict is the line right after its Disconnection Complete's event.
        let lines = run.stdout.split(separator: "\n").map(String.init)
        var checked = 0
        for (i, line) in lines.enumerated() where line.hasPrefix("{\"verdict\":") {
            let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            guard o["kind"] as? String == "connection", let end = o["end_frame"] as? Int, i > 0 else { continue }
            let before = try JSONSerialization.jsonObject(with: Data(lines[i - 1].utf8)) as! [String: Any]
            #expect(before["type"] as? String == "connection.disconnect", "\(lines[i - 1])")
            #expect(before["frame"] as? Int == end)
            checked += 1
        }
        #expect(checked == 6)
        // Text: one line per verdict, its cause and frames.
        let text = try CLIRunner.run(["watch", path])
        let verdictLines = text.stdout.split(separator: "\n").filter { $0.contains("  verdict ") }
        #expect(verdictLines.count == want.count)
        #expect(
            verdictLines.contains {
                $0.hasPrefix("68 #2  verdict supervision_timeout (link): ") && $0.contains("[frames ")
            })
    }

    @Test(arguments: captures)
    func aCompleteFileWatchesLikeTimelineAndLint(_ relative: String) throws {
        let path = try Fixtures.existing(relative)
        let want = try Self.reference(path)
        let run = try CLIRunner.run(["watch", "--format", "jsonl", path])
        #expect(run.status == 0, "\(run.stderr)")
        let got = try Self.split(run.stdout)
        #expect(got.events == want.events)
        #expect(got.findings.count == Set(got.findings).count, "a finding printed twice")
        #expect(Set(got.findings) == want.findings)
    }

    /// `--platform` as for lint (one declaration of the option): watch judges the capture as
    /// the platform it is told, word for word as lint does.
    @Test func platformOptionJudgesAsLintDoes() throws {
        let path = try Fixtures.existing("public/btsnoop-android_domyos-treadmill-ftms.log")
        var byPlatform: [String: Set<String>] = [:]
        for platform in ["ios", "android"] {
            let l = try CLIRunner.run(["lint", "--format", "json", "--fail-on", "never", "--platform", platform, path])
            let doc = try JSONSerialization.jsonObject(with: Data(l.stdout.utf8)) as! [String: Any]
            let lint = Set(
                ((doc["captures"] as! [[String: Any]])[0]["findings"] as! [[String: Any]]).map {
                    $0["message"] as! String
                })
            let run = try CLIRunner.run(["watch", "--format", "jsonl", "--platform", platform, path])
            #expect(run.status == 0, "\(run.stderr)")
            var watch = Set<String>()
            for line in run.stdout.split(separator: "\n") {
                let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
                if o["finding"] != nil { watch.insert(o["message"] as! String) }
            }
            #expect(watch == lint, "\(platform): \(watch.symmetricDifference(lint))")
            byPlatform[platform] = watch
        }
        // The scan finding speaks Android only when judged as Android.
        #expect(byPlatform["android"]?.contains { $0.contains("On Android: call BluetoothLeScanner.stopScan") } == true)
        #expect(byPlatform["ios"]?.contains { $0.contains("BluetoothLeScanner") } == false)
        let bad = try CLIRunner.run(["watch", "--platform", "symbian", path])
        #expect(bad.status != 0)
    }

    @Test func standardInput() throws {
        let path = try Fixtures.existing(Self.captures[0])
        let want = try Self.reference(path)
        let run = try CLIRunner.run(
            ["watch", "--format", "jsonl", "-"], stdin: Data(try Fixtures.bytes(Self.captures[0])))
        #expect(run.status == 0)
        let got = try Self.split(run.stdout)
        #expect(got.events == want.events && Set(got.findings) == want.findings)
    }

    /// The btsnoop records of a capture: file header (16 bytes), then each record's bytes.
    static func records(_ relative: String) throws -> (header: [UInt8], records: [[UInt8]]) {
        let data = try Fixtures.bytes(relative)
        var out: [[UInt8]] = []
        var i = 16
        while i + 24 <= data.count {
            let incl = Int(data[(i + 4)..<(i + 8)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            out.append(Array(data[i..<(i + 24 + incl)]))
            i += 24 + incl
        }
        return (Array(data[0..<16]), out)
    }

    /// A running `blecap watch` writing to a file the test polls.
    final class Watcher {
        let process = Process()
        let output: String

        init(_ arguments: [String]) throws {
            output =
                FileManager.default.temporaryDirectory.appendingPathComponent(
                    "blecap-watch-out-\(UUID().uuidString).jsonl"
                ).path
            #expect(FileManager.default.createFile(atPath: output, contents: nil))
            process.executableURL = CLIRunner.executable
            process.arguments = arguments
            process.standardOutput = FileHandle(forWritingAtPath: output)
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        deinit { try? FileManager.default.removeItem(atPath: output) }

        var lines: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

        /// Waits until a line containing `needle` is out, up to `timeout` s; when it was seen.
        func wait(for needle: String, timeout: Double) -> Date? {
            let end = Date().addingTimeInterval(timeout)
            while Date() < end {
                if lines.contains(needle) { return Date() }
                usleep(10_000)
            }
            return nil
        }
    }

    @Test func followingAFileBeingWrittenWithPartialRecords() throws {
        let relative = Self.captures[0]
        let want = try Self.reference(try Fixtures.existing(relative))
        let (header, records) = try Self.records(relative)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blecap-watch-\(UUID().uuidString).btsnoop"
        ).path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(header + records[0..<40].joined())))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let watcher = try Watcher(["watch", "--follow", "--format", "jsonl", path])
        let file = try #require(FileHandle(forWritingAtPath: path))
        try file.seekToEnd()
        // The rest record by record; every tenth one half written, a pause, then the other half.
        for (i, r) in records.enumerated().dropFirst(40) {
            if i % 10 == 0 {
                try file.write(contentsOf: Data(r[..<(r.count / 2)]))
                usleep(150_000)
                try file.write(contentsOf: Data(r[(r.count / 2)...]))
            } else {
                try file.write(contentsOf: Data(r))
            }
        }
        let written = Date()
        try file.close()
        // The last record (frame 123) is the Disconnection Complete: its event within a second.
        let came = watcher.wait(for: "\"type\":\"connection.disconnect\"", timeout: 5)
        let at = try #require(came, "no disconnection event")
        #expect(at.timeIntervalSince(written) < 1.0)
        watcher.process.interrupt()  // SIGINT: flush, summary, exit 0
        watcher.process.waitUntilExit()
        usleep(100_000)
        #expect(watcher.process.terminationStatus == 0)
        let got = try Self.split(watcher.lines)
        #expect(got.events == want.events)
        #expect(Set(got.findings) == want.findings)
    }

    @Test func aTCPStreamAtItsCapturedPace() throws {
        // A loopback server that streams the capture with its records' own gaps (capped at
        // 50 ms so the test takes a few seconds, not the session's 20), then closes.
        let relative = "bumble/hr_short_notification.central.btsnoop"
        let want = try Self.reference(try Fixtures.existing(relative))
        let (header, records) = try Self.records(relative)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, len) }
        }
        try #require(bound == 0 && listen(listener, 1) == 0)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &len) }
        }
        let port = UInt16(bigEndian: addr.sin_port)
        let server = Thread {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            defer { close(fd) }
            func send(_ b: [UInt8]) {
                b.withUnsafeBytes { _ = Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            send(header)
            var last: UInt64?
            for r in records {
                let ts = r[16..<24].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                if let last { usleep(UInt32(min(50_000, (ts &- last) / 1))) }
                last = ts
                send(r)
            }
        }
        server.start()
        let run = try CLIRunner.run(["watch", "--format", "jsonl", "tcp://127.0.0.1:\(port)"])
        #expect(run.status == 0, "\(run.stderr)")
        let got = try Self.split(run.stdout)
        #expect(got.events == want.events)
        #expect(Set(got.findings) == want.findings)
    }

    @Test func unreachableTCPSourceIsAClearError() throws {
        // Port 9 (discard) on loopback: nothing listens in the test environment.
        let run = try CLIRunner.run(["watch", "tcp://127.0.0.1:9"])
        #expect(run.status == 4)
        #expect(run.stderr.contains("tcp://127.0.0.1:9"))
    }
}
