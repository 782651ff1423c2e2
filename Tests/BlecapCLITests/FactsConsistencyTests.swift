import Foundation
import TestSupport
import Testing

/// Issue 28: every command states the same facts per connection. Over every capture in the
/// repository's captures/, `info --format json`, `timeline --format jsonl`, `gatt --format
/// json`, `lint --format json` and the report's embedded data carry each connection's record
/// (`facts`: peer, role, how it ended and why, ATT_MTU known or its lower bound, security,
/// attribute counts); the records must be equal, and each command's own fields must agree with
/// it (info's `peer`/`mtu`/`end_reason`, gatt's database trees, the timeline's disconnections
/// and writes, the report's `mtu`/`ended`). `scripts/facts_consistency.py` runs the same over
/// the larger corpus outside the repository in `make conformance`.
@Suite struct FactsConsistencyTests {
    typealias Object = [String: Any]

    /// Every file under captures/ that is not a note, a licence or expected results.
    static let captures: [String] = {
        let root = Fixtures.capturesRoot
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        var files: [String] = []
        for case let url as URL in walker {
            if url.path.contains("/LICENSES/") { continue }
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            if [".md", ".json", ".txt", ".py", ".yml", ".html"].contains(where: { url.path.hasSuffix($0) }) {
                continue
            }
            files.append(url.path)
        }
        return files.sorted()
    }()

    static func object(_ text: String) -> Object? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? Object
    }

    static func facts(_ list: [Any]?, key: String = "facts") -> [Int: NSDictionary] {
        var r: [Int: NSDictionary] = [:]
        for case let item as Object in list ?? [] {
            guard let f = (key.isEmpty ? item : item[key] as? Object), let n = f["connection"] as? Int else { continue }
            r[n] = NSDictionary(dictionary: f)
        }
        return r
    }

    /// The differences for one capture; nil when blecap does not read it as one capture.
    static func differences(_ path: String) throws -> [String]? {
        let info = try CLIRunner.run(["info", "--format", "json", path])
        guard info.status == 0 || info.status == 3, let infoRoot = object(info.stdout) else { return nil }
        var problems: [String] = []
        let infoConnections = infoRoot["connections"] as? [Object] ?? []
        var stated: [String: [Int: NSDictionary]] = ["info": facts(infoConnections)]
        for c in infoConnections {
            let f = c["facts"] as? Object ?? [:]
            for (mine, theirs) in [("peer", "peer"), ("mtu", "mtu"), ("end_reason", "end_reason")] {
                let a = c[mine].map { "\($0)" }
                let b = f[theirs].map { "\($0)" }
                if a != b {
                    problems.append("info #\(c["connection"] ?? "?"): \(mine) \(a ?? "-") but facts \(b ?? "-")")
                }
            }
        }

        let timeline = try CLIRunner.run(["timeline", "--format", "jsonl", path])
        let events = try CLIRunner.jsonLines(timeline.stdout)
        let summaries = facts(events.filter { $0["type"] as? String == "connection.summary" })
        stated["timeline"] = summaries
        for e in events where e["type"] as? String != "connection.summary" {
            guard let n = e["connection"] as? Int else { continue }
            guard let f = summaries[n] else {
                problems.append("timeline frame \(e["frame"] ?? "?"): connection #\(n) has no connection.summary")
                continue
            }
            if e["type"] as? String == "connection.disconnect", "\(e["reason"] ?? "-")" != "\(f["end_reason"] ?? "-")" {
                problems.append(
                    "timeline #\(n): disconnect reason \(e["reason"] ?? "-") but facts \(f["end_reason"] ?? "-")")
            }
            if e["type"] as? String == "gatt.write", f["mtu_known"] as? Bool == false,
                e["mtu"] != nil || e["exceeds_mtu"] != nil
            {
                problems.append("timeline frame \(e["frame"] ?? "?"): states an ATT_MTU the connection does not know")
            }
        }

        let gatt = try CLIRunner.run(["gatt", "--format", "json", path])
        let gattConnections = object(gatt.stdout)?["connections"] as? [Object] ?? []
        stated["gatt"] = facts(gattConnections)
        for c in gattConnections {
            let counts = (c["facts"] as? Object)?["attributes"] as? Object ?? [:]
            for (side, key) in [("peer", "remote_database"), ("local", "local_database")] {
                let db = c[key] as? Object ?? [:]
                let expected = counts[side] as? Object ?? [:]
                for what in ["services", "includes", "characteristics"] {
                    let n = (db[what] as? [Any])?.count ?? 0
                    if n != expected[what] as? Int {
                        problems.append(
                            "gatt #\(c["connection"] ?? "?") \(key): \(n) \(what) but facts \(expected[what] ?? "-")")
                    }
                }
            }
        }

        let lint = try CLIRunner.run(["lint", "--format", "json", "--fail-on", "never", path])
        let lintCaptures = object(lint.stdout)?["captures"] as? [Object] ?? []
        stated["lint"] = facts(lintCaptures.flatMap { $0["connections"] as? [Any] ?? [] }, key: "")

        let report = try CLIRunner.run(["report", "-o", "-", path])
        var reportConnections: [Object] = []
        if let open = report.stdout.range(of: "<script id=\"blecap-data\" type=\"application/json\">"),
            let end = report.stdout.range(of: "</script>", range: open.upperBound..<report.stdout.endIndex),
            let models = try? JSONSerialization.jsonObject(
                with: Data(report.stdout[open.upperBound..<end.lowerBound].utf8))
                as? [Object]
        {
            reportConnections = models.flatMap { $0["connections"] as? [Object] ?? [] }
        }
        stated["report"] = facts(reportConnections)
        for c in reportConnections {
            let f = c["facts"] as? Object ?? [:]
            if "\(c["mtu"] ?? "-")" != "\(f["mtu"] ?? "-")" || "\(c["ended"] ?? "-")" != "\(f["ended"] ?? "-")" {
                problems.append("report #\(c["number"] ?? "?"): mtu/ended disagree with its facts")
            }
        }

        let base = stated["info"] ?? [:]
        for (command, mine) in stated.sorted(by: { $0.key < $1.key }) where command != "info" {
            // The report draws at most its limit of connections: every one it draws must agree.
            if command != "report", Set(mine.keys) != Set(base.keys) {
                problems.append("\(command): connections \(mine.keys.sorted()) but info \(base.keys.sorted())")
            }
            for n in Set(mine.keys).intersection(base.keys).sorted() where mine[n] != base[n] {
                problems.append("\(command) #\(n): \(mine[n]!) but info \(base[n]!)")
            }
        }
        return problems
    }

    @Test func everyCommandStatesTheSameFactsOnEveryCapture() throws {
        let files = Self.captures
        #expect(files.count > 50)
        let lock = NSLock()
        nonisolated(unsafe) var results: [(String, [String]?)] = []
        nonisolated(unsafe) var failures: [String] = []
        // Two at a time: the five commands of one capture run one after the other.
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            for (i, path) in files.enumerated() where i % 2 == worker {
                do {
                    let d = try Self.differences(path)
                    lock.withLock { results.append((path, d)) }
                } catch {
                    lock.withLock { failures.append("\(Fixtures.relative(path)): \(error)") }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        let checked = results.filter { $0.1 != nil }
        // Most files are captures; a few are notes or archives of several captures.
        #expect(checked.count > files.count / 2)
        for (path, problems) in checked.sorted(by: { $0.0 < $1.0 }) {
            #expect(
                problems?.isEmpty == true,
                "\(Fixtures.relative(path)): \(problems?.prefix(10).joined(separator: "; ") ?? "")")
        }
        // Connections were compared, not only empty lists.
        #expect(checked.contains { $0.1?.isEmpty == true })
    }
}

/// Issue 28 items 2 and 4 on a shipped capture: the iOS sysdiagnose PacketLogger log starts
/// during connection #1, after its MTU exchange; its 229-byte Write Commands prove ATT_MTU was at
/// least 232. No command may state 23.
@Suite struct UnknownMTUTests {
    static let capture = Fixtures.capture("public/pklg-be_ios-sysdiagnose-bafang-ebike.pklg")

    @Test func infoAndGattSayUnknownWithTheirLowerBound() throws {
        let text = try CLIRunner.run(["info", Self.capture])
        #expect(text.status == 0)
        let first = try #require(text.lines.first { $0.hasPrefix("  #1 ") })
        #expect(first.contains("ATT_MTU unknown (at least 232)"))
        let json = try CLIRunner.run(["info", "--format", "json", Self.capture])
        let root = try #require(FactsConsistencyTests.object(json.stdout))
        let c = try #require((root["connections"] as? [[String: Any]])?.first)
        #expect(c["mtu"] == nil)
        let facts = try #require(c["facts"] as? [String: Any])
        #expect(facts["mtu_known"] as? Bool == false && facts["mtu_at_least"] as? Int == 232)
        // The connections seen from their start know theirs.
        let second = try #require((root["connections"] as? [[String: Any]])?.dropFirst().first)
        #expect(second["mtu"] as? Int == 247)
        let gatt = try CLIRunner.run(["gatt", Self.capture])
        #expect(gatt.lines.first { $0.hasPrefix("Connection #1 ") }?.contains("ATT_MTU unknown (at least 232)") == true)
    }

    @Test func timelineWritesExceedNothingUnknown() throws {
        let run = try CLIRunner.run(
            ["timeline", "--format", "jsonl", "--connection", "1", "--type", "gatt.write", Self.capture])
        let writes = try CLIRunner.jsonLines(run.stdout)
        #expect(writes.count > 800)
        #expect(writes.allSatisfy { $0["mtu"] == nil && $0["exceeds_mtu"] == nil && $0["mtu_known"] as? Bool == false })
        #expect(writes.allSatisfy { ($0["mtu_at_least"] as? Int ?? 0) >= ($0["length"] as? Int ?? 0) + 3 })
        let lint = try CLIRunner.run(["lint", "--fail-on", "never", "--format", "json", Self.capture])
        #expect(!lint.stdout.contains("oversized-write\",\"severity"))
    }
}
