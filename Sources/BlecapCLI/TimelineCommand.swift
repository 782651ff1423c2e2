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
        let timeline = TimelineOutput(writer: writer, filter: filter)
        pass.run(timeline)
        if let last = timeline.last {
            timeline.summaries.write(to: writer, frame: last.frame, time: last.time)
        }
        out.flush()
        input.note(pass)
        if !selection.isEmpty && timeline.matched == 0 {
            printError("\(input.path): no event matches \(selection.described)")
        }
        try input.finish()
        if events.failOnEmpty && timeline.matched == 0 { throw BlecapExit.findings.exitCode }
    }
}

/// `timeline`'s consumer of the capture pass: the events that pass the filters, written as
/// they become final; each connection's facts kept for `connection.summary` lines after the
/// last event. Unchecked: the pass calls back from one thread, never re-entrantly.
final class TimelineOutput: CaptureConsumer {
    let writer: TimelineWriter
    /// nil: every event, with no test per event.
    let filter: Filter?
    @exclusivity(unchecked) var summaries = SummaryLines()
    /// The last record's frame and time: where the summary lines are stamped.
    @exclusivity(unchecked) var last: (frame: Int, time: Int64)?
    /// The time base is set: checked per record here rather than `writer.base`, whose read
    /// from the pass's loop is an exclusivity check per record.
    @exclusivity(unchecked) var started = false

    init(writer: TimelineWriter, filter: Filter?) {
        self.writer = writer
        self.filter = filter
    }

    var observes: CaptureObservations { [.records, .events, .connections] }
    func begin(_ pass: CapturePass) { writer.scanFilterTables = pass.scanFilterTables }

    func record(_ record: CaptureRecord) {
        if !started {
            started = true
            writer.base = record.timestamp
        }
        last = (record.frame, record.timestamp)
    }

    /// Events and summaries that passed the filters.
    @exclusivity(unchecked) var matched = 0

    func event(_ event: TimelineEvent) {
        if let filter, !filter.matches(event) { return }
        matched += 1
        writer.write(event)
    }

    func connectionEnded(_ summary: ConnectionSummary) {
        if let filter, !filter.matches(SummarySubject(summary)) { return }
        matched += 1
        summaries.add(summary)
    }
}
