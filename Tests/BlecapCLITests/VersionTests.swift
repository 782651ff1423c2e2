import BlecapCLI
import Foundation
import TestSupport
import Testing

/// `blecap --version`: the release number and the commit the binary was built from.
@Suite struct VersionTests {
    /// "blecap 0.1.0 (commit 1a2b3c4d5e6f)"; "-dirty" after uncommitted changes to tracked
    /// files; "unknown" when built outside a git checkout.
    static var format: Regex<(Substring, Substring, Substring, Substring?, Substring?)> {
        /blecap (\d+\.\d+\.\d+) \(commit (([0-9a-f]{12})(-dirty)?|unknown)\)\n/
    }

    @Test func versionNamesTheNumberAndTheCommit() throws {
        let run = try CLIRunner.run(["--version"])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let match = try #require(run.stdout.wholeMatch(of: Self.format), "unexpected: \(run.stdout)")
        #expect(match.1 == BlecapVersion.number)
    }

    /// The commit recorded at build time is this checkout's HEAD (or "unknown" where git cannot
    /// tell), so the version of a binary leads back to its source.
    @Test func recordedCommitIsTheCheckoutsHead() throws {
        let run = try CLIRunner.run(["--version"])
        let match = try #require(run.stdout.wholeMatch(of: Self.format), "unexpected: \(run.stdout)")
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "-C", Fixtures.repositoryRoot.path, "rev-parse", "--verify", "-q", "HEAD"]
        let out = Pipe()
        git.standardOutput = out
        git.standardError = FileHandle.nullDevice
        try git.run()
        let head = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        git.waitUntilExit()
        if git.terminationStatus == 0 {
            #expect(match.3.map(String.init) == String(head.prefix(12)))
        } else {
            #expect(match.2 == "unknown")
        }
    }
}
