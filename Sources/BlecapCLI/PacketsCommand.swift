import ArgumentParser
import BLEBytes
import BLEFilter
import BLEOutput
import BLEPackets
import BLEPass
import CaptureIO

/// `blecap packets FILE`: every frame, one line each (or one JSON object each).
struct PacketsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "packets",
        abstract: "Decode every frame of a capture, one line per frame.",
        discussion: """
            Text output shows frame number, time since the first frame, direction (sent = host \
            to controller, rcvd = controller to host; on link-layer captures C→P / P→C, with ? \
            when inferred from timing, then channel and RSSI), protocol and a summary. --verbose adds \
            the full decode of every layer. --format jsonl writes one JSON object per frame \
            (a stable contract, see docs/jsonl.md); --format json writes an array with the \
            full decode of each frame. -Y (--filter) keeps the frames an expression matches, \
            over the JSONL field names (docs/filter.md); --connection, --peer and --frames are \
            its shortcuts. When a filter matches no frame, standard error says so; --fail-on-empty \
            makes that exit 1.

            Examples:
              blecap packets btsnoop_hci.log
              blecap packets --verbose capture.pklg | less -R
              blecap packets -Y 'att.opcode == 0x12 && conn == 64' capture.pklg
              blecap packets -Y 'hci.event == 0x3e' --frames 1-500 capture.btsnoop
              blecap packets --format jsonl capture.pcapng \\
                | jq 'select(.att.name == "Write Request")'
              adb shell cat /data/misc/bluetooth/logs/btsnoop_hci.log | blecap packets -

            \(ExitStatusTable.text)
            """)

    @Argument(
        help:
            "Capture file (btsnoop, pcap, pcapng, PacketLogger; HCI or link-layer sniffer), or '-' for standard input.")
    var file: String

    @Option(name: .long, help: "The capture to read inside an archive: its path there, or its file name.")
    var member: String?

    @OptionGroup var decryption: LinkLayerKeyOptions

    @Option(name: .shortAndLong, help: "Output format: text, json or jsonl.")
    var format: OutputFormat = .text

    @OptionGroup var pager: PagerOptions

    @Flag(name: .shortAndLong, help: "Text: print the full decode of every layer under each line.")
    var verbose = false

    @Flag(name: .long, help: "Text: print absolute UTC times instead of seconds since the first frame.")
    var absoluteTime = false

    @OptionGroup var color: ColorOption

    @Flag(
        name: .customLong("empty-pdus"),
        help:
            "Link-layer captures, text output: also list empty PDUs (hidden by default: they only acknowledge; json and jsonl always have every frame)."
    )
    var emptyPDUs = false

    @OptionGroup var filtering: FilterOptions

    @Option(name: .long, help: "Only frames of this connection handle (the same as -Y 'conn == N').")
    var connection: Int?

    @Option(
        name: .long,
        help: "Only L2CAP frames of connections with this peer (-Y 'peer == D8:0D:18:00:00:01').")
    var peer: String?

    var selection: FilterSelection {
        get throws {
            var s = FilterSelection()
            s.add(connection: connection)
            s.add(peer: peer)
            do { try s.add(frames: filtering.frames) } catch { throw ValidationError(error.message) }
            s.add(filter: filtering.filter)
            return s
        }
    }

    func validate() throws {
        if let peer, BDAddr(peer) == nil { throw ValidationError("--peer: not an address: \(peer)") }
        _ = try selection.compiled(PacketField.table)
    }

    func run() throws {
        let selection = try selection
        let filter = try selection.compiled(PacketField.table)
        let input = try CaptureInput.open(file, member: member)
        Pager.start(pager, text: format == .text)
        let out = OutputBuffer(fd: 1)
        let showsController: Bool
        switch input.reader.format {
        case .btsnoop(2001), .pcap(LinkType.bluetoothLinuxMonitor, _), .pcapng(LinkType.bluetoothLinuxMonitor):
            showsController = true
        default:
            showsController = false
        }
        let writer = PacketWriter(
            out: out, format: format, verbose: verbose, color: format == .text && color.enabled,
            absoluteTime: absoluteTime, showsController: showsController)
        writer.showsEmptyPDUs = emptyPDUs
        let pass = input.pass(keys: decryption.keys)
        writer.begin()
        let output = PacketOutput(writer: writer, filter: filter)
        pass.run(output)
        writer.end()
        input.note(pass)
        if output.matched == 0 && !selection.isEmpty {
            out.flush()
            printError("\(input.path): no frame matches \(selection.described)")
        }
        try input.finish()
        if filtering.failOnEmpty && output.matched == 0 { throw BlecapExit.findings.exitCode }
    }
}

/// `packets`' consumer of the capture pass: every decoded frame, no timeline.
final class PacketOutput: CaptureConsumer {
    let writer: PacketWriter
    /// nil: every frame, with no test per frame.
    let filter: Filter?
    /// Frames written (that passed the filter).
    @exclusivity(unchecked) var matched = 0

    init(writer: PacketWriter, filter: Filter?) {
        self.writer = writer
        self.filter = filter
    }

    var observes: CaptureObservations { .frames }

    func frame(_ frame: DecodedFrame) {
        writer.peers.observe(frame)
        if let filter, !filter.matches(PacketSubject(frame, peers: writer.peers)) {
            writer.note(firstRecord: frame.record)
            return
        }
        matched += 1
        writer.write(frame)
    }
}
