import Foundation
import TestSupport
import Testing

/// The help texts are part of the interface: a change to them must be deliberate.
/// Regenerate with `BLECAP_UPDATE_SNAPSHOTS=1 swift test --filter HelpSnapshotTests`.
@Suite struct HelpSnapshotTests {
    static let snapshots = Fixtures.repositoryRoot.appendingPathComponent("Tests/BlecapCLITests/Snapshots")

    @Test(arguments: [
        (["--help"], "blecap-help.txt"),
        (["packets", "--help"], "packets-help.txt"),
        (["info", "--help"], "info-help.txt"),
        (["timeline", "--help"], "timeline-help.txt"),
        (["gatt", "--help"], "gatt-help.txt"),
        (["lint", "--help"], "lint-help.txt"),
        (["diagnose", "--help"], "diagnose-help.txt"),
        (["rules", "--help"], "rules-help.txt"),
        (["explain", "--help"], "explain-help.txt"),
        (["report", "--help"], "report-help.txt"),
        (["replay", "--help"], "replay-help.txt"),
        (["serve", "--help"], "serve-help.txt"),
        (["watch", "--help"], "watch-help.txt"),
    ])
    func helpMatchesSnapshot(arguments: [String], snapshot: String) throws {
        let run = try CLIRunner.run(arguments, environment: ["COLUMNS": "100"])
        #expect(run.status == 0)
        let file = Self.snapshots.appendingPathComponent(snapshot)
        if ProcessInfo.processInfo.environment["BLECAP_UPDATE_SNAPSHOTS"] != nil {
            try run.stdout.write(to: file, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(run.stdout == expected)
    }
}
