import ArgumentParser
import BLEBytes
import BLEFleet
import BLELint
import BLEOutput
import BLEPackets
import BLEPass
import BLETimeline
import CaptureArchive
import CaptureIO

/// `blecap info FILE`: what the capture is and what it holds, in one pass.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract:
            "Summarize a capture: container, time span, controllers, packet and ATT counts, devices, connections, damage.",
        discussion: """
            Devices seen are the advertisers in advertising reports (with the local name they \
            advertise); connections are numbered as in `blecap timeline`, with peer, duration, \
            end reason and which side ended them; event counts are those of the timeline.

            Examples:
              blecap info btsnoop_hci.log
              blecap info --format json capture.pklg

            \(ExitStatusTable.text)
            """)

    @Argument(help: "Capture file, or '-' for standard input; directories (batch mode).")
    var files: [String] = []

    /// Outside batch mode: the one capture.
    var file: String { files[0] }

    @Option(name: .long, help: "The capture to read inside an archive: its path there, or its file name.")
    var member: String?

    @OptionGroup var decryption: LinkLayerKeyOptions

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, jsonl, fleet }

    @Option(name: .shortAndLong, help: "Output format: text or json; batch mode: jsonl (a line per capture) or fleet.")
    var format: Format = .text

    @OptionGroup var batch: BatchOptions

    /// Batch mode: `--files-from`, a directory, several files, the fleet format or a batch option.
    var isBatch: Bool { batch.asked || format == .fleet || files.count > 1 || BatchMode.namesDirectory(files) }

    func validate() throws {
        if files.isEmpty && batch.filesFrom == nil { throw ValidationError("Missing expected argument '<files> ...'") }
        if isBatch && format != .jsonl && format != .fleet {
            throw ValidationError("batch mode (--files-from, directories, several files) needs --format jsonl or fleet")
        }
        if isBatch && member != nil { throw ValidationError("--member names one capture; batch mode reads them all") }
    }

    @OptionGroup var pager: PagerOptions

    @OptionGroup var color: ColorOption

    func run() throws {
        if isBatch {
            let rows: any BatchRowFormat
            if format == .fleet {
                var configuration = LintConfiguration()
                configuration.linkLayerKeys = decryption.keys
                rows = FleetFormat(
                    options: AnalysisOptions(command: .info, configuration: configuration),
                    identifiers: try batch.identifierPolicy())
            } else {
                let keys = decryption.keys
                rows = JSONLFormat(command: .info) { member, bundle in Self.summary(member, in: bundle, keys: keys) }
            }
            try BatchMode.run(paths: files, options: batch, format: rows)
            return
        }
        let bundle = try CaptureInput.openBundle(file, member: member)
        Pager.start(pager, text: format == .text)
        let out = OutputBuffer(fd: 1)
        // Several captures (an archive, a sysdiagnose's rotated logs): one summary each, in
        // reading order; JSON makes them an array.
        let several = bundle.members.count > 1
        if several && format != .text { out.ascii("[") }
        var failure: ExitCode?
        for (i, member) in bundle.members.enumerated() {
            let input = try CaptureInput.open(member, in: bundle)
            let pass = input.pass(keys: decryption.keys)
            var stats = CaptureStatistics.collect(pass)
            input.note(pass)
            stats.paint = color.paint(text: format == .text)
            let path = member.name == nil && bundle.container == nil ? file : input.path
            if format == .text {
                if i > 0 { out.newline() }
                stats.writeText(
                    to: out, path: path, format: input.reader.format, damage: input.reader.damage,
                    source: member.note, containerDamage: input.containerDamage)
            } else {
                if i > 0 { out.ascii(",") }
                stats.writeJSON(
                    to: out, path: path, format: input.reader.format, damage: input.reader.damage,
                    source: member.note, containerDamage: input.containerDamage)
            }
            out.flush()
            do { try input.finish() } catch { failure = failure ?? error }
        }
        if several && format != .text { out.ascii("]\n") }
        out.flush()
        if let failure { throw failure }
    }
}

extension InfoCommand {
    /// One capture's `--format json` object on one line, and its class (batch mode's jsonl).
    static func summary(_ member: CaptureMember, in bundle: CaptureBundle, keys: LinkLayerKeys) -> (
        json: String, exit: ExitClass
    ) {
        let reader: any CaptureReader
        do { reader = try member.makeReader() } catch {
            return (CaptureStatistics.jsonLine(name: member.displayName, error: error.description), .unreadable)
        }
        let (json, damaged) = CaptureStatistics.jsonLine(
            reader, name: member.displayName, keys: keys, source: member.note,
            containerDamage: member.damage ?? bundle.damage)
        return (json, damaged ? .damaged : .ok)
    }
}
