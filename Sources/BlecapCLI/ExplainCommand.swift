import ArgumentParser
import BLELint

/// `blecap explain ID|SLUG`: one rule in full, as Markdown (the docs/rules pages are this text).
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract:
            "Explain one lint rule: what it checks, its guidance, evidence, thresholds and the Core Bluetooth fix.")

    @Argument(help: "Rule id (BLE002) or slug (oversized-write).")
    var rule: String

    func validate() throws {
        if RuleRegistry.rule(named: rule) == nil {
            throw ValidationError("unknown rule '\(rule)' (see blecap rules)")
        }
    }

    func run() {
        guard let r = RuleRegistry.rule(named: rule) else { return }
        let out = OutputBuffer(fd: 1)
        out.string(RuleDocs.markdown(r.descriptor))
        out.flush()
    }
}
