import Foundation
import TestSupport
import Testing

/// The assigned-number tables are generated from the SIG YAML committed in
/// scripts/assigned-numbers/data/: the Swift files in the repository must be exactly what the
/// generator makes of that data, so a hand edit or new data without regenerating fails here.
@Suite struct AssignedNumberGenerationTests {
    @Test func committedTablesAreWhatTheGeneratorMakesOfTheCommittedData() throws {
        let check = try GeneratorCheck.run("scripts/assigned-numbers/generate.py")
        #expect(check.status == 0, "\(check.message)run python3 scripts/assigned-numbers/generate.py")
    }
}
