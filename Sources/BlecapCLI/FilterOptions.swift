import ArgumentParser
import BLEFilter

/// `--filter`/`-Y` and `--frames`, shared by packets, timeline and watch (docs/filter.md).
struct FilterOptions: ParsableArguments {
    @Option(
        name: [.customLong("filter"), .customShort("Y")],
        help: ArgumentHelp(
            "Only what matches this expression (e.g. 'att.opcode == 0x12 && conn == 2'; docs/filter.md).",
            valueName: "expr"))
    var filter: String?

    @Option(name: .long, help: "Only frames A to B: A-B, N, A- or -B (the same as -Y 'frame in A..B').")
    var frames: String?

    @Flag(name: .long, help: "Exit 1 when nothing matches (standard error says so either way).")
    var failOnEmpty = false
}

extension FilterSelection {
    /// Compiles for a command's field table; a bad expression is a usage error (exit 2) whose
    /// message echoes the expression with a caret under the column.
    func compiled(_ table: FilterFieldTable) throws -> Filter? {
        do { return try compile(table) } catch { throw ValidationError(error.description) }
    }
}
