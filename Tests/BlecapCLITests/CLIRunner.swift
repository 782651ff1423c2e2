import Foundation
import TestSupport

/// Runs the built `blecap` executable, as a user would, and captures what it prints.
struct CLIRun {
    var status: Int32
    var stdout: String
    var stderr: String

    var lines: [Substring] {
        stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast(stdout.hasSuffix("\n") ? 1 : 0)
    }
}

enum CLIRunner {
    /// The executable next to the test bundle (SwiftPM builds both into the same folder).
    static let executable: URL = {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = here.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("blecap")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir.deleteLastPathComponent()
        }
        return Fixtures.repositoryRoot.appendingPathComponent(".build/debug/blecap")
    }()

    /// `standardOutput`: a file to write standard output to instead of a pipe (/dev/full for
    /// fault injection; `stdout` is then empty). `executable`: another program (a shell).
    static func run(
        _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:],
        standardOutput: String? = nil, executable: URL? = nil
    ) throws -> CLIRun {
        let process = Process()
        process.executableURL = executable ?? Self.executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NO_COLOR")
        env.removeValue(forKey: "CLICOLOR_FORCE")
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        var outFile: FileHandle?
        if let standardOutput {
            guard let h = FileHandle(forWritingAtPath: standardOutput) else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: standardOutput])
            }
            outFile = h
            process.standardOutput = h
        } else {
            process.standardOutput = out
        }
        process.standardError = err
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            // Feed from another thread so a large input cannot deadlock against a full stdout pipe.
            let writer = input.fileHandleForWriting
            Thread.detachNewThread {
                writer.write(stdin)
                try? writer.close()
            }
        }
        // Read both pipes to the end before waiting, so a chatty child never blocks.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = outFile == nil ? out.fileHandleForReading.readDataToEndOfFile() : Data()
        group.wait()
        process.waitUntilExit()
        try? outFile?.close()
        return CLIRun(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Parses JSON Lines output into dictionaries.
    static func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }
}
