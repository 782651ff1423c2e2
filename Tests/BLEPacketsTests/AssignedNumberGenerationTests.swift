import Foundation
import TestSupport
import Testing

/// The assigned-number tables are generated from the SIG YAML committed in
/// scripts/assigned-numbers/data/: the Swift files in the repository must be exactly what the
/// generator makes of that data, so a hand edit or new data without regenerating fails here.
@Suite struct AssignedNumberGenerationTests {
    static let generator = Fixtures.repositoryRoot.appendingPathComponent("scripts/assigned-numbers/generate.py")

    @Test func committedTablesAreWhatTheGeneratorMakesOfTheCommittedData() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // --check writes nothing: it compares and names every file that differs.
        process.arguments = ["python3", Self.generator.path, "--check"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(message)run python3 scripts/assigned-numbers/generate.py")
    }
}
