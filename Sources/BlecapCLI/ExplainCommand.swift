import ArgumentParser
import BLELint
import BLEOutput

/// `blecap explain ID|SLUG`: one rule in full, as Markdown (the docs/rules pages are this text).
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract:
            "Explain one lint rule: what it checks and enforces, its API references, evidence, thresholds and the fix (Core Bluetooth, Android).",
        discussion: """
            \(ExitStatusTable.text)
            """
    )

    @Argument(help: "Rule id (BLE002) or slug (oversized-write).")
    var rule: String

    @Option(
        name: .long,
        help:
            "Show the fix and API references in this platform's API only: android gives Android's, ios and linux Core Bluetooth's; auto (the default) both."
    )
    var platform: PlatformOption = .auto

    @OptionGroup var pager: PagerOptions

    @OptionGroup var color: ColorOption

    func validate() throws {
        if RuleRegistry.rule(named: rule) == nil {
            throw ValidationError("unknown rule '\(rule)' (see blecap rules)")
        }
    }

    func run() {
        guard let r = RuleRegistry.rule(named: rule) else { return }
        Pager.start(pager, text: true)
        let out = OutputBuffer(fd: 1)
        out.string(Self.headingsBold(RuleDocs.markdown(r.descriptor, platform: platform.platform), color.paint()))
        out.flush()
    }

    /// The Markdown's headings ("# …", "## …") bold on a terminal, outside code blocks.
    static func headingsBold(_ markdown: String, _ paint: Paint) -> String {
        guard paint.on else { return markdown }
        var inCode = false
        return markdown.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            if line.hasPrefix("```") { inCode.toggle() }
            return !inCode && line.hasPrefix("#") ? paint(line, Palette.header) : String(line)
        }.joined(separator: "\n")
    }
}
