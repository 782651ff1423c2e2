import ArgumentParser
import BLELint
import BLEOutput

/// `blecap rules`: the lint rules, one line each.
struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "List the lint rules: id, default severity, slug and title.",
        discussion: """
            Use 'blecap explain ID|SLUG' for one rule in full (docs/rules/<slug>.md has the same text).

            \(ExitStatusTable.text)
            """)

    @Option(name: .shortAndLong, help: "Output format: text or json.")
    var format: Format = .text

    @OptionGroup var pager: PagerOptions

    @OptionGroup var color: ColorOption

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    func run() {
        Pager.start(pager, text: format == .text)
        let out = OutputBuffer(fd: 1)
        let rules = RuleRegistry.descriptors
        let paint = color.paint(text: format == .text)
        switch format {
        case .text:
            let width = rules.map(\.slug.count).max() ?? 0
            for d in rules {
                let sev = d.defaultSeverity.name
                out.string(
                    "\(d.id)  \(paint(sev, Palette.severity(sev)))\(String(repeating: " ", count: 8 - sev.count))\(d.slug)\(String(repeating: " ", count: width - d.slug.count))  \(d.title)\n"
                )
            }
        case .json:
            out.string(RuleDocs.json(rules) + "\n")
        }
        out.flush()
    }
}
