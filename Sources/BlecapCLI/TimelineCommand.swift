import ArgumentParser
import BLEBytes
import BLEFilter
import BLEOutput
import BLEPackets
import BLEPass
import BLETimeline
import CaptureIO

/// `blecap timeline FILE`: what happened, in order, with names instead of handles.
struct TimelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Show a capture as a timeline of scans, connections, GATT operations and security events.",
        discussion: """
            One line per event: frame, seconds since the first frame, connection number (#1, \
            #2, … in order of connection; handles are reused, numbers are not), peer address, \
            event type and its fields. Attribute handles are named from the GATT database \
            discovered on their own connection (or carried over from an earlier connection of \
            the same peer). Requests are paired with their responses per connection: each \
            carries its outcome and latency. --format jsonl writes one JSON object per event \
            (a stable contract, see docs/timeline.md). -Y (--filter) keeps the events an \
            expression matches, over the timeline's field names (docs/filter.md); --connection, \
            --peer, --type and --frames are its shortcuts. When the filters match no event, \
            standard error says so; --fail-on-empty makes that exit 1 for scripts.

            Examples:
              blecap timeline btsnoop_hci.log
              blecap timeline --type 'gatt.*' --connection 2 capture.pklg
              blecap timeline -Y 'uuid == 2A37 && outcome != success' capture.pklg
              blecap timeline --format jsonl capture.btsnoop \\
                | jq 'select(.type == "gatt.write")'

            \(ExitStatusTable.text)
            """)

    @Argument(help: "Capture file (btsnoop, pcap, pcapng, PacketLogger), or '-' for standard input.")
    var file: String

    @Option(name: .long, help: "The capture to read inside an archive: its path there, or its file name.")
    var member: String?

    @OptionGroup var decryption: LinkLayerKeyOptions

    @Option(name: .shortAndLong, help: "Output format: text or jsonl.")
    var format: TextOrJSONL = .text

    @OptionGroup var pager: PagerOptions

    @OptionGroup var color: ColorOption

    @OptionGroup var events: EventFilterOptions

    func run() throws {
        let input = try CaptureInput.open(file, member: member)
        let selection = try events.selection
        let filter = try selection.compiled(EventField.table)
        Pager.start(pager, text: format == .text)
        let out = OutputBuffer(fd: 1)
        let writer = TimelineWriter(out: out, jsonl: format == .jsonl)
        writer.color = format == .text && color.enabled
        let pass = input.pass(keys: decryption.keys)
        let matched = writer.writeTimeline(of: pass, filter: filter)
        out.flush()
        input.note(pass)
        if !selection.isEmpty && matched == 0 {
            printError("\(input.path): no event matches \(selection.described)")
        }
        try input.finish()
        if events.failOnEmpty && matched == 0 { throw BlecapExit.findings.exitCode }
    }
}
