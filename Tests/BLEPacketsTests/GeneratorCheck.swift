import Foundation
import TestSupport

/// `python3 SCRIPT --check` for a generator under scripts/ that keeps committed Swift in step
/// with its table (the assigned numbers, the ATT PDUs): it writes nothing, exits non-zero and
/// names every file that differs from what it would write.
enum GeneratorCheck {
    static func run(_ script: String) throws -> (status: Int32, message: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Fixtures.repositoryRoot.appendingPathComponent(script).path, "--check"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, message)
    }
}
