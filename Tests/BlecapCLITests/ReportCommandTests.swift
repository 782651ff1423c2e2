import Foundation
import TestSupport
import Testing

/// `blecap report` and `blecap lint --format html` as a user runs them: one self-contained page
/// whose embedded data agrees with `blecap lint` and `blecap info`.
@Suite struct ReportCommandTests {
    static let oversized = Fixtures.capture("bumble/oversized_and_unchecked_writes.central.btsnoop")
    static let clean = Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")

    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("blecap-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The models embedded in the page (the JSON blob the page's script draws from).
    static func models(_ html: String) throws -> [[String: Any]] {
        let open = "<script id=\"blecap-data\" type=\"application/json\">"
        let start = try #require(html.range(of: open))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        let blob = Data(html[start.upperBound..<end.lowerBound].utf8)
        return try #require(JSONSerialization.jsonObject(with: blob) as? [[String: Any]])
    }

    /// Nothing is fetched: no external resource references, no script or stylesheet files.
    static func expectSelfContained(_ html: String) {
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(!html.contains("https://"))
        // The only "http://" is the SVG namespace name the script creates elements in.
        #expect(
            html.components(separatedBy: "http://").count
                == html.components(separatedBy: "http://www.w3.org/2000/svg").count)
        for banned in ["<script src", "<link", " src=", "@import", "url(http", "url(//", "fetch(", "XMLHttpRequest"] {
            #expect(!html.contains(banned), "page contains \(banned)")
        }
        #expect(html.components(separatedBy: "<script").count - 1 == 2)
    }

    /// How many findings `blecap lint` reports for `path` (of one severity, when given).
    static func lintFindings(_ path: String, severity: String? = nil) throws -> Int {
        let run = try CLIRunner.run(["lint", "--format", "json", path])
        let root = try #require(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let captures = try #require(root["captures"] as? [[String: Any]])
        return captures.reduce(0) { total, capture in
            let findings = (capture["findings"] as? [[String: Any]]) ?? []
            return total + findings.filter { severity == nil || $0["severity"] as? String == severity }.count
        }
    }

    /// The same capture gives the same page, byte for byte, in every process. Each run of
    /// `blecap` seeds Swift's hashing afresh, so anything the page took from a dictionary's
    /// iteration order (the header's counts by severity once did) comes out differently
    /// between runs: four runs of a capture with findings must print one page.
    @Test func reportIsTheSameInEveryRun() throws {
        var pages: [String] = []
        for _ in 0..<4 {
            let run = try CLIRunner.run(["report", "-o", "-", Self.oversized])
            #expect(run.status == 0, "\(run.stderr)")
            pages.append(run.stdout)
        }
        #expect(Set(pages).count == 1)
        // The header's counts in the order the page lists them, whatever the hash seed.
        let errors = try Self.lintFindings(Self.oversized, severity: "error")
        let warnings = try Self.lintFindings(Self.oversized, severity: "warning")
        let notes = try Self.lintFindings(Self.oversized, severity: "note")
        #expect(errors + warnings + notes > 0)
        #expect(pages[0].contains("\"findings\":{\"error\":\(errors),\"warning\":\(warnings),\"note\":\(notes)}"))
    }

    @Test func reportIsSelfContainedAndEmbedsLintsFindingsAndInfosConnections() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("oversized.html").path
        let run = try CLIRunner.run(["report", "-o", target, Self.oversized])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("4 findings"))
        let html = try String(contentsOfFile: target, encoding: .utf8)
        Self.expectSelfContained(html)
        let model = try #require(try Self.models(html).first)
        let header = try #require(model["header"] as? [String: Any])
        let findings = try #require(model["findings"] as? [[String: Any]])
        #expect(findings.count == (try Self.lintFindings(Self.oversized)))
        #expect(findings.count > 0)
        let info = try CLIRunner.run(["info", "--format", "json", Self.oversized])
        let infoRoot = try #require(JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        #expect(header["connections"] as? Int == infoRoot["connection_count"] as? Int)
        #expect(header["frames"] as? Int == infoRoot["frames"] as? Int)
        #expect((model["connections"] as? [Any])?.count == 1)
        let bySeverity = try #require(header["findings"] as? [String: Int])
        #expect(bySeverity.values.reduce(0, +) == findings.count)
    }

    @Test func theFilterLanguageNarrowsThePage() throws {
        let two = Fixtures.capture("bumble/two_peripherals_concurrent.central.btsnoop")
        let whole = try #require(try Self.models(try CLIRunner.run(["report", "-o", "-", two]).stdout).first)
        #expect((whole["connections"] as? [[String: Any]])?.count == 2)
        #expect((whole["header"] as? [String: Any])?["scope"] == nil)
        let run = try CLIRunner.run(["report", "-o", "-", "--connection", "2", two])
        #expect(run.status == 0, "\(run.stderr)")
        let model = try #require(try Self.models(run.stdout).first)
        let connections = try #require(model["connections"] as? [[String: Any]])
        #expect(connections.map { $0["number"] as? Int } == [2])
        let header = try #require(model["header"] as? [String: Any])
        #expect(header["scope"] as? String == "--connection 2")
        #expect((header["scopeEvents"] as? Int ?? 0) > 10)
        // Findings and the header's counts stay the capture's.
        #expect(header["connections"] as? Int == 2)
        #expect(model["connectionsOmitted"] as? Int ?? 0 == 0)
        let peer = try CLIRunner.run(["report", "-o", "-", "-Y", "peer == DF:E5:0B:00:00:08", two])
        let byPeer = try #require(try Self.models(peer.stdout).first?["connections"] as? [[String: Any]])
        #expect(byPeer.map { $0["number"] as? Int } == [2])
        let none = try CLIRunner.run(["report", "-o", "-", "--connection", "99", "--fail-on-empty", two])
        #expect(none.status == 1)
        #expect(none.stderr.contains("no event matches --connection 99"))
        #expect(try CLIRunner.run(["report", "-o", "-", "-Y", "conn ==", two]).status == 2)
    }

    @Test func cleanCaptureToStandardOutputHasNoFindings() throws {
        let run = try CLIRunner.run(["report", "-o", "-", Self.clean])
        #expect(run.status == 0)
        Self.expectSelfContained(run.stdout)
        let model = try #require(try Self.models(run.stdout).first)
        #expect((model["findings"] as? [Any])?.isEmpty == true)
        #expect((model["header"] as? [String: Any])?["connections"] as? Int == 1)
    }

    @Test func severalCapturesGoToOnePagePerCaptureInADirectory() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("pages").path
        let run = try CLIRunner.run(["report", "-o", out, Self.clean, Self.oversized])
        #expect(run.status == 0, "\(run.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(names == ["clean_heart_rate.central.html", "oversized_and_unchecked_writes.central.html"])
    }

    @Test func lintFormatHTMLWritesTheSamePageForEveryCapture() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("lint.html").path
        let run = try CLIRunner.run(["lint", "--format", "html", "-o", target, Self.clean, Self.oversized])
        // Exit status is lint's: the oversized capture has findings at or above warning.
        #expect(run.status == 1)
        let html = try String(contentsOfFile: target, encoding: .utf8)
        Self.expectSelfContained(html)
        let models = try Self.models(html)
        #expect(models.count == 2)
        let counts = models.map { ($0["findings"] as? [Any])?.count ?? -1 }
        #expect(counts == [0, try Self.lintFindings(Self.oversized)])
    }

    @Test func unreadableCaptureExits4AndWritesNothing() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("missing.html").path
        let run = try CLIRunner.run(["report", "-o", target, "/nonexistent/x.btsnoop"])
        #expect(run.status == 4)
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(try CLIRunner.run(["report", "-o", "-", Self.clean, Self.oversized]).status == 2)
    }

    /// The page is written beside its target and renamed over it when whole: a rewrite replaces
    /// the old page and leaves nothing else; a write that cannot finish (here the target is a
    /// directory, which cannot be opened for writing) exits 6 and leaves the
    /// target and its folder as they were; a symbolic link is written through.
    @Test func aPageReplacesItsTargetOnlyWhenWhole() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("page.html").path
        try Data("old page".utf8).write(to: URL(fileURLWithPath: target))
        let run = try CLIRunner.run(["report", "-o", target, Self.clean])
        #expect(run.status == 0, "\(run.stderr)")
        let html = try String(contentsOfFile: target, encoding: .utf8)
        Self.expectSelfContained(html)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["page.html"])

        let occupied = dir.appendingPathComponent("occupied.html")
        try FileManager.default.createDirectory(at: occupied, withIntermediateDirectories: false)
        try Data("kept".utf8).write(to: occupied.appendingPathComponent("inside"))
        let failed = try CLIRunner.run(["report", "-o", occupied.path, Self.clean])
        #expect(failed.status == 6)
        #expect(failed.stderr.contains("\(occupied.path): cannot write: Is a directory"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: occupied.path) == ["inside"])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["occupied.html", "page.html"])

        // A symbolic link is written through, not replaced by a file.
        let link = dir.appendingPathComponent("latest.html").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "page.html")
        try Data("old page".utf8).write(to: URL(fileURLWithPath: target))
        #expect(try CLIRunner.run(["report", "-o", link, Self.clean]).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "page.html")
        Self.expectSelfContained(try String(contentsOfFile: target, encoding: .utf8))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == [
                "latest.html", "occupied.html", "page.html",
            ])
    }

    @Test func damagedCaptureStillGetsItsPageAndExits3() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.oversized))
        bytes.removeLast(3)
        let damaged = dir.appendingPathComponent("damaged.btsnoop")
        try bytes.write(to: damaged)
        let target = dir.appendingPathComponent("damaged.html").path
        let run = try CLIRunner.run(["report", "-o", target, damaged.path])
        #expect(run.status == 3)
        let html = try String(contentsOfFile: target, encoding: .utf8)
        let header = try #require(try Self.models(html).first?["header"] as? [String: Any])
        #expect(header["damage"] as? String != nil)
        #expect(header["frames"] as? Int == 482)
    }
}
