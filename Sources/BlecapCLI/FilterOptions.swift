import ArgumentParser
import BLEBytes
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

/// The timeline's filters, shared by `timeline` and `watch`: the shortcuts `--connection`,
/// `--peer` and `--type`, then `-Y`, `--frames` and `--fail-on-empty`, ANDed into one selection
/// over the timeline's fields.
struct EventFilterOptions: ParsableArguments {
    @Option(name: .long, help: "Only events of this connection number (-Y 'conn == N').")
    var connection: Int?

    @Option(name: .long, help: "Only events with this peer address (-Y 'peer == D8:0D:18:00:00:01').")
    var peer: String?

    @Option(name: .long, help: "Only events whose type matches this glob (-Y 'type ~ \"gatt.*\"').")
    var type: String?

    @OptionGroup var filtering: FilterOptions

    var failOnEmpty: Bool { filtering.failOnEmpty }

    var selection: FilterSelection {
        get throws {
            var s = FilterSelection()
            s.add(connection: connection)
            s.add(peer: peer)
            s.add(type: type)
            do { try s.add(frames: filtering.frames) } catch { throw ValidationError(error.message) }
            s.add(filter: filtering.filter)
            return s
        }
    }

    func validate() throws {
        if let peer, BDAddr(peer) == nil { throw ValidationError("--peer: not an address: \(peer)") }
        if let type, let problem = EventTypes.check(type) { throw ValidationError(problem) }
        _ = try selection.compiled(EventField.table)
    }
}
