import ArgumentParser
import BLEOutput

/// `--no-pager`, shared by every command whose text output can be paged (BLEOutput's `Pager`).
struct PagerOptions: ParsableArguments {
    @Flag(
        name: .customLong("no-pager"),
        help: "Do not page text output on a terminal (also BLECAP_PAGER=cat or empty).")
    var noPager = false
}

extension Pager {
    /// Starts the pager for `text` output on a terminal unless `--no-pager` says not to.
    static func start(_ options: PagerOptions, text: Bool) { start(text: text && !options.noPager) }
}
