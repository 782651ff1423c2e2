import ArgumentParser

/// The `blecap` command: one subcommand per file in this folder.
public struct Blecap: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "blecap",
        abstract: "Read Bluetooth LE HCI captures (btsnoop, pcap/pcapng, PacketLogger) and decode them.",
        version: "0.1.0",
        subcommands: []
    )

    public init() {}
}
