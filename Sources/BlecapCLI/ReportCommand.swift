import ArgumentParser
import BLEFilter
import BLEFleet
import BLELint
import BLEOutput
import BLEReport
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// `blecap report FILE... [-o report.html]`: one self-contained HTML page per capture.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a self-contained HTML report of a capture: timeline, sequence charts, plots, GATT, findings.",
        discussion: """
            One streaming pass per capture lints it and aggregates what the page shows: a \
            header (container, time span, controllers, devices, connections, findings by \
            severity); a zoomable swim-lane timeline (scanning, one bar per connection per peer \
            coloured by how it ended, notification density, finding markers); per connection a \
            sequence chart of the GATT exchange with repetitive runs collapsed into bands; \
            throughput, ATT latency, RSSI and connection-parameter plots (for sniffed connections \
            also data channel use, RSSI per side and retransmissions); the GATT database per \
            peer; per connection its diagnosis (why it ended, step by step with the frames, as \
            `blecap diagnose` gives it), and the connection attempts that failed; the findings \
            with explanation and fix, linked to their frames. The file loads \
            nothing from the network and stays small for million-frame captures (aggregates, \
            not frames).

            With one FILE, -o names the page ('-' for standard output; default: FILE's name \
            with .html, in the current directory). With several, -o names a directory \
            (created if missing) that receives one page per capture.

            A damaged capture (exit 3) still gets its page, covering the part before the damage.

            -Y (--filter) and the shortcuts --connection, --peer, --type and --frames narrow the \
            page to the timeline events they match, in the language of timeline and watch \
            (docs/filter.md): its timeline, sequence charts, plots and connections show those \
            events and the connections they belong to, and its header says the scope. Findings, \
            and the header's frame and connection counts, stay the whole capture's. When the scope matches no event, \
            standard error says so; --fail-on-empty makes that exit 1.

            Examples:
              blecap report btsnoop_hci.log
              blecap report -o session.html capture.pklg
              blecap report -o reports/ logs/*.btsnoop
              blecap report --peer D8:0D:18:00:00:01 -Y 'type ~ "gatt.*"' x.pklg

            \(ExitStatusTable.text)
            """)

    @Argument(help: "Capture files.")
    var files: [String]

    @Option(name: .shortAndLong, help: "Output file (one capture) or directory (several); '-' for standard output.")
    var output: String?

    @Option(name: .long, help: "Lint config file (.blecap.yml or JSON) for the findings shown.")
    var config: String?

    @Option(name: .long, help: "The capture to read inside an archive: its path there, or its file name.")
    var member: String?

    @OptionGroup var platform: PlatformJudgement

    @OptionGroup var decryption: LinkLayerKeyOptions

    @OptionGroup var scope: EventFilterOptions

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one capture file") }
        if output == "-" && files.count > 1 { throw ValidationError("-o - writes one capture's page; give one FILE") }
    }

    func run() throws {
        var configuration = LintConfiguration()
        if let config {
            do { configuration = try LintConfiguration.load(path: config) } catch {
                printError(error.description)
                throw BlecapExit.usage.exitCode
            }
        }
        configuration.linkLayerKeys = decryption.keys
        let selection = try scope.selection
        let filter = try selection.compiled(EventField.table)
        configuration.platform = platform.forced
        // Archives give one page per capture inside (named `archive!member`).
        let jobs = LintRunner.jobs(files, member: member, explicit: Set(files))
        let exits = jobs.compactMap(CaptureInput.exit(for:))
        if output == "-" && jobs.count > 1 {
            printError("-o - writes one capture's page; the input holds \(jobs.count)")
            throw BlecapExit.usage.exitCode
        }
        let directory = jobs.count > 1 ? (output ?? ".") : nil
        if let directory {
            do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
                printError("cannot create \(directory): \(Self.describe(error))")
                throw BlecapExit.writeError.exitCode
            }
        }
        var status = BlecapExit.success
        var used: Set<String> = []
        LintRunner.buildInBatches(
            jobs, configuration: configuration, baseline: Baseline(), scope: filter,
            scopeText: filter == nil ? nil : selection.described
        ) { model, report in
            if let e = report.error {
                printError("\(report.path): \(e)")
                status = exits.first ?? .unreadable
                return
            }
            let target: String
            if let directory {
                target = ReportPageName.unique(in: directory, for: report.path, used: &used)
            } else {
                target = output ?? ReportPageName.of(report.path)
            }
            if target == "-" {
                let out = OutputBuffer(fd: 1)
                HTMLReportRenderer.render(model) {
                    out.append($0)
                    out.flush()
                }
            } else {
                // Streamed into a temporary file beside the target, renamed over it when
                // whole (OutputBuffer.file): a failed run leaves the previous page as it was.
                let out = OutputBuffer.file(target)
                let size = HTMLReportRenderer.render(model) {
                    out.append($0)
                    out.flush()
                }
                out.commit()
                let f = model.findingsBySeverity
                printError(
                    "\(target): \(size / 1024) KiB; \(model.header.frames) frames, "
                        + "\(model.header.connections) connections, \(model.findings.count) findings "
                        + "(\(f.error) errors, \(f.warning) warnings, \(f.note) notes)")
            }
            for n in report.notes { printError(n) }
            if let d = report.damage {
                printError("\(report.path): \(d)")
                if status == .success { status = .damaged }
            }
            if filter != nil && model.header.scopeEvents == 0 {
                printError("\(report.path): no event matches \(selection.described)")
                if scope.failOnEmpty && status == .success { status = .findings }
            }
        }
        if status != .success { throw status.exitCode }
    }

    /// What Foundation's `localizedDescription` said of the errors `createDirectory` throws
    /// (blecap links only FoundationEssentials, which has no localized texts): the same words.
    static func describe(_ error: any Error) -> String {
        let reasons: [CocoaError.Code: String] = [
            .fileNoSuchFile: "The file doesn’t exist.",
            .fileWriteNoPermission: "You don’t have permission.",
            .fileWriteInvalidFileName: "The file name is invalid.",
            .fileWriteFileExists: "A file with the same name already exists.",
        ]
        guard let cocoa = error as? CocoaError else { return "The operation could not be completed. \(error)" }
        let reason = reasons[cocoa.code] ?? "(NSCocoaErrorDomain error \(cocoa.code.rawValue).)"
        return "The operation could not be completed. \(reason)"
    }
}
