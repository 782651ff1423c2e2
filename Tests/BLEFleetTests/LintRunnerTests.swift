import BLEFleet
import Foundation
import TestSupport
import Testing

/// `lint` and `report` over many inputs: the captures a directory holds, and which inputs that
/// cannot be opened count towards the exit status.
@Suite struct LintRunnerTests {
    /// Inside a directory a zip without a capture is passed over (no exit status of its own)
    /// and a text file skipped; named on the command line the zip counts; a plain capture is
    /// linted by path.
    @Test func anArchiveWithoutCapturesCountsOnlyWhenNamed() throws {
        let scratch = try Scratch()
        let capture = try scratch.write(
            "a.btsnoop", try Fixtures.bytes("public/btsnoop-android_domyos-treadmill-ftms.log"))
        _ = try scratch.write("notes.txt", Array("not a capture\n".utf8))
        let zip = scratch.file("empty.zip")
        try ArchiveWriter.write(.zip, to: zip, entries: [("readme.txt", Array("hello\n".utf8))])

        let walked = CaptureWalker.collect([scratch.path])
        #expect(walked.files == [capture, zip])
        #expect(walked.explicit.isEmpty)
        #expect(walked.problems.isEmpty)

        let jobs = LintRunner.jobs(walked.files, member: nil, explicit: walked.explicit)
        #expect(jobs.count == 2)
        guard case .path(let p) = jobs[0] else {
            Issue.record("a plain capture is linted by path")
            return
        }
        #expect(p == capture)
        guard case .failed(let passedOver, let counted) = jobs[1] else {
            Issue.record("an archive without captures cannot be opened")
            return
        }
        #expect(passedOver.unsupportedFormat)
        #expect(counted == nil)

        let named = LintRunner.jobs([zip], member: nil, explicit: [zip])
        guard case .failed(let report, let error?) = named.first else {
            Issue.record("a named archive without captures counts")
            return
        }
        #expect(!report.unsupportedFormat)
        #expect(error.description == report.error)

        let reports = LintRunner.lint(
            jobs, explicit: walked.explicit, configuration: LintConfiguration(), baseline: Baseline(), parallel: 2)
        #expect(reports.map(\.path) == [capture, zip])
        #expect(reports[0].error == nil)
        #expect(reports[0].frames > 0)
        #expect(reports[1].error != nil)
    }

    /// The walk of `lint DIR` (FileManager's enumerator's rules, kept since): hidden files and
    /// subdirectories are read, a link to a file counts under its own name, a link to a directory
    /// is not followed, a dangling link and an empty file are skipped; a directory named with a
    /// trailing "/" is joined without a second one.
    @Test func theWalkOfADirectory() throws {
        let scratch = try Scratch()
        let bytes = try Fixtures.bytes("public/btsnoop-android_domyos-treadmill-ftms.log")
        let fm = FileManager.default
        for d in ["a", "b/c", ".hid", "other"] {
            try fm.createDirectory(atPath: scratch.file(d), withIntermediateDirectories: true)
        }
        for f in ["a/x.btsnoop", "b/c/y.btsnoop", ".hid/z.btsnoop", ".dot.btsnoop", "other/o.btsnoop"] {
            _ = try scratch.write(f, bytes)
        }
        _ = try scratch.write("empty.btsnoop", [])
        try fm.createSymbolicLink(atPath: scratch.file("a/linkdir"), withDestinationPath: "../other")
        try fm.createSymbolicLink(atPath: scratch.file("b/linkfile"), withDestinationPath: "../other/o.btsnoop")
        try fm.createSymbolicLink(atPath: scratch.file("b/broken"), withDestinationPath: "/nonexistent")
        try fm.createSymbolicLink(atPath: scratch.file("b/c/up"), withDestinationPath: "..")

        let walked = CaptureWalker.collect([scratch.path + "/"])
        let root = scratch.path + "/"
        #expect(
            walked.files
                == [
                    ".dot.btsnoop", ".hid/z.btsnoop", "a/x.btsnoop", "b/c/y.btsnoop", "b/linkfile", "other/o.btsnoop",
                ].map { root + $0 })
        #expect(walked.explicit.isEmpty)
        #expect(walked.problems.isEmpty)
        #expect(
            CaptureWalker.collect([scratch.file("missing")]).problems == [
                scratch.file("missing") + ": no such file or directory"
            ])
    }
}
