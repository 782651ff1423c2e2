import ArgumentParser
import BLEBytes
import BLEOutput
import BLEPackets
import BLEPass
import BLETimeline
import CaptureIO

/// `blecap gatt FILE`: the GATT databases reconstructed from discovery, per connection.
struct GattCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatt",
        abstract: "Show the GATT database learned on each connection, as a tree.",
        discussion: """
            For every connection: the peer's GATT server as this host's client discovered it \
            (services, includes, characteristics with properties and value handles, \
            descriptors), and this host's own server if the peer discovered it. A database \
            discovered on an earlier connection of the same peer is carried over and marked so.

            \(ExitStatusTable.text)
            """)

    @Argument(help: "Capture file (btsnoop, pcap, pcapng, PacketLogger), or '-' for standard input.")
    var file: String

    @Option(name: .long, help: "The capture to read inside an archive: its path there, or its file name.")
    var member: String?

    @OptionGroup var decryption: LinkLayerKeyOptions

    @Option(name: .shortAndLong, help: "Output format: text or json.")
    var format: TextOrJSON = .text

    @OptionGroup var pager: PagerOptions

    @OptionGroup var color: ColorOption

    func run() throws {
        let input = try CaptureInput.open(file, member: member)
        let pass = input.pass(keys: decryption.keys)
        let ended = ConnectionSummaries()
        pass.run(ended)
        input.note(pass)
        let summaries = ended.summaries.sorted { $0.number < $1.number }
        Pager.start(pager, text: format == .text)
        let out = OutputBuffer(fd: 1)
        var writer = GATTTreeWriter(out: out, json: format == .json)
        writer.paint = color.paint(text: format == .text)
        writer.write(summaries)
        out.flush()
        try input.finish()
    }
}
