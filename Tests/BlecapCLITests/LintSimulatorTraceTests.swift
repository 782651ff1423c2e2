import Foundation
import Testing

/// `blecap lint trace.jsonl`: a simulator trace is recognised by content and linted from its
/// API calls, alone or inside a directory.
@Suite("blecap lint on a simulator trace")
struct LintSimulatorTraceTests {
    /// Three records of a simulated session in the trace's JSONL format (docs/simulator-trace.md):
    /// the manager's creation, a scan made before the first state update, with nil services,
    /// and the state update.
    static let trace = """
        {"seq":1,"time_us":0,"source":"api","call":"CBCentralManager.init(delegate:queue:options:)","central":1,"manager_state":"unknown","is_scanning":false,"disposition":"performed","show_power_alert":false}
        {"seq":2,"time_us":0,"source":"api","call":"scanForPeripherals(withServices:options:)","central":1,"manager_state":"unknown","is_scanning":false,"disposition":"misuse","reason":"not_powered_on","services":null,"allow_duplicates":false}
        {"seq":3,"time_us":5000,"source":"callback","callback":"centralManagerDidUpdateState(_:)","central":1,"delivered":true,"state":"poweredOn"}

        """

    func write(_ text: String, in dir: URL, name: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func traceIsLintedByContent() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("blecap-sim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // No .jsonl extension: detection is by content.
        let path = try write(Self.trace, in: dir, name: "session.log")

        let run = try CLIRunner.run(["lint", "--format", "json", path])
        #expect(run.status == 1)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let captures = try #require(json["captures"] as? [[String: Any]])
        let findings = try #require(captures.first?["findings"] as? [[String: Any]])
        #expect(findings.compactMap { $0["rule"] as? String }.sorted() == ["BLE001", "BLE005"])
        #expect(findings.allSatisfy { ($0["evidence"] as? String) == "api" })

        // Inside a directory it is found too; an unrelated JSON file is skipped.
        _ = try write("{\"frame\":1}\n", in: dir, name: "other.json")
        let walked = try CLIRunner.run(["lint", dir.path])
        #expect(walked.status == 1)
        #expect(walked.stdout.contains("session.log"))
        #expect(!walked.stdout.contains("other.json"))

        // A damaged trace exits 3, like a damaged capture (docs/exit-codes.md).
        let broken = try write(Self.trace + "{\"seq\":4,\n", in: dir, name: "broken.jsonl")
        #expect(try CLIRunner.run(["lint", broken]).status == 3)

        // So is a trace whose key was renamed (here `manager_state`): the call is not dropped
        // silently, the run fails and says which line and key.
        let renamed = try write(
            Self.trace.replacingOccurrences(
                of: "\"manager_state\":\"unknown\",\"is_scanning\":false,\"disposition\":\"misuse\"",
                with: "\"state\":\"unknown\",\"is_scanning\":false,\"disposition\":\"misuse\""),
            in: dir, name: "renamed.jsonl")
        let run2 = try CLIRunner.run(["lint", "--format", "json", renamed])
        #expect(run2.status == 3)
        #expect(run2.stderr.contains("renamed.jsonl: line 2: missing manager_state"))
    }
}
