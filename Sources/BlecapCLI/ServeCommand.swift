import ArgumentParser
import BLEBytes
import BLEController
import BLEOutput
import BLEReplay
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// `blecap serve FILE --transport T`: a virtual HCI controller whose air is the capture, for
/// a real host stack to drive.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Act as an HCI controller on whose air the captured peripherals advertise and answer.",
        discussion: """
            Runs a virtual Bluetooth LE controller that speaks H4 on the transport: a host stack (Bumble, BlueZ \
            through /dev/vhci, anything with a UART or TCP HCI transport) initialises it as it would real \
            hardware, scans and finds the capture's advertisers with their captured advertising, event types and \
            scan responses (a non-connectable one is never connected), connects to the peripherals the capture's \
            central connected to (a capture recorded on the peripheral: that peripheral, advertising as its own \
            HCI commands set it), and talks to their GATT servers, which answer from the same models 'blecap \
            replay' uses: the captured attribute table, read values in captured order, write outcomes, errors, \
            latencies, notifications timed from the subscription that enabled them, the peer's end of the link \
            with its captured reason. A host that pairs gets LE legacy Just Works (no Secure Connections) and \
            its encryption checked against the keys the peer holds. --speed realtime keeps every event on an \
            absolute deadline and reports how late they ran (mean, 99th percentile, worst). docs/serve.md \
            describes what the controller supports and how it answers what the \
            capture never showed.

            Transports (Bumble's names): tcp-server:HOST:PORT (the host connects; port 0 picks a free one and \
            says which), tcp-client:HOST:PORT, pty[:LINK] (a pseudo-terminal the host opens like a UART, LINK a \
            symbolic link to it), vhci (/dev/vhci: the kernel registers an hciN). Servers bind to loopback \
            unless \
            --listen-any.

            When the session ends (the host closes the transport, every captured connection was served and the \
            host stayed quiet for --linger seconds, --timeout, or Ctrl-C) it prints what the host did against \
            the captured central: 'blecap replay''s PDU-by-PDU comparison per connection, then each captured \
            operation as same, reordered, different value, missing or extra. --out writes what crossed the \
            virtual HCI as btsnoop.

            --role central plays the other direction, from a capture recorded on either side: the host acts as \
            peripheral (it serves its GATT database and advertises); when it advertises, the captured central \
            connects from its captured address and plays its requests, writes and subscriptions at their \
            captured timing; the report compares the host's answers \
            and notifications with the captured peripheral's.

            Exit status 0: every captured connection was served with no operation differing; 1: differences \
            (expected for another app than the captured one); 4 also when the \
            transport cannot be opened or fails.

            Examples:
              blecap serve hr.central.btsnoop --transport tcp-server:127.0.0.1:9000
              blecap serve hr.central.btsnoop --transport pty:/tmp/blecap-uart \\
                --out host.btsnoop
              sudo blecap serve hr.central.btsnoop --transport vhci --format json

            \(ExitStatusTable.text)
            """)

    @Argument(
        help:
            "Capture file (btsnoop, pcap, pcapng, PacketLogger) recorded on the central or the peripheral."
    )
    var file: String

    @Option(name: .long, help: "tcp-server:HOST:PORT, tcp-client:HOST:PORT, pty[:LINK] or vhci.")
    var transport: String

    @Flag(name: .customLong("listen-any"), help: "Allow tcp-server on a non-loopback address.")
    var listenAny = false

    @Option(
        name: .long,
        help: "peripheral (default) or central: play the captured central against a host acting as peripheral."
    )
    var role: String = "peripheral"

    @Option(name: .long, help: "Write what crossed the virtual HCI as a btsnoop capture.")
    var out: String?

    @Option(name: .shortAndLong, help: "Report format: text or json.")
    var format: TextOrJSON = .text

    @OptionGroup var pager: PagerOptions

    @OptionGroup var color: ColorOption

    @Option(name: .long, help: "realtime (as captured), max (no idle time), or a factor such as 2.")
    var speed: String = "realtime"

    @Option(name: .long, help: "Seconds after which the session ends in any case.")
    var timeout: Double?

    @Option(name: .customLong("accept-timeout"), help: "Seconds tcp-server waits for its host.")
    var acceptTimeout: Double = 60

    @Option(name: .long, help: "Seconds a quiet host is given after the last captured connection ended.")
    var linger: Double = 2

    @Option(name: .long, help: "The controller's public address (Read BD_ADDR).")
    var address: String?

    @Flag(name: .long, help: "Print the controller's log (dropped input, unanswerable requests) on standard error.")
    var verbose = false

    @OptionGroup var faults: FaultOptions<ServedPeripheral>

    func validate() throws {
        if role != "peripheral" && role != "central" { throw ValidationError("--role takes peripheral or central") }
        do {
            // Listening beyond loopback needs --listen-any: a usage error (2), unlike a transport
            // that cannot be opened (4).
            if case .tcpServer(let host, _) = try TransportSpec(transport), !listenAny, !host.hasPrefix("127.") {
                throw ValidationError(
                    "tcp-server on \(host): not a loopback address (give --listen-any to listen there)")
            }
        } catch let e as ValidationError { throw e } catch { throw ValidationError("\(error)") }
        _ = try parsedSpeed()
        try faults.checkErrors()
        if let address, BDAddr(address) == nil { throw ValidationError("--address: not an address: \(address)") }
        try faults.check()
        try ReplayOptions.checkNonNegative([
            ("--timeout", timeout), ("--accept-timeout", acceptTimeout), ("--linger", linger),
        ])
        try faults.checkMTU()
    }

    func parsedSpeed() throws -> ReplaySpeed { try ReplayOptions.speed(speed) }

    func run() throws {
        // Opened as every command opens its input: '-', FIFOs, compressed files and archives.
        let input = try CaptureInput.open(file)
        let replay = CaptureReplay(session: CapturedSession(reader: input.reader, path: input.path))
        var config = ControllerConfiguration()
        config.role = role == "central" ? .central : .peripheral
        config.speed = try parsedSpeed()
        config.faults = try faults.faults()
        if let a = address.flatMap(BDAddr.init) { config.address = a }
        let controller = VirtualController(replay: replay, configuration: config)
        // Either role plays its side of every connection, whichever side recorded it.
        if controller.servableConnections == 0 {
            printError("\(file): no connection in this capture: nothing to serve")
            throw BlecapExit.usage.exitCode
        }
        if verbose { controller.log = { writeStandardError("blecap serve: \($0)\n") } }

        let link: FileDescriptorTransport
        do {
            link = try FileDescriptorTransport.open(
                TransportSpec(transport), listenAny: listenAny,
                acceptTimeoutMicros: Int64(acceptTimeout * 1e6)
            ) { writeStandardError("blecap serve: \($0)\n") }
        } catch {
            printError("\(error)")
            throw BlecapExit.unreadable.exitCode
        }
        signal(SIGINT) { _ in ServeRunner.interrupt = true }
        signal(SIGTERM) { _ in ServeRunner.interrupt = true }
        let runner = ServeRunner(controller: controller, transport: link, record: out != nil)
        runner.lingerMicros = Int64(linger * 1e6)
        let end = runner.run(timeoutMicros: timeout.map { Int64($0 * 1e6) })
        link.close()
        writeStandardError("blecap serve: session ended: \(end)\n")

        if let out, let capture = runner.capture {
            OutputBuffer.writeFile(out, Array(capture.bytes))
        }
        let report = controller.report()
        Pager.start(pager, text: format == .text)
        let stdout = OutputBuffer(fd: 1)
        stdout.string(format == .json ? report.json() : ReplayTextColor.apply(report.text(), color.paint()))
        stdout.flush()
        if case .transportFailed = end { throw BlecapExit.unreadable.exitCode }
        if let damage = replay.session.damage {
            printError("\(file): \(damage)")
            throw BlecapExit.damaged.exitCode
        }
        if report.differences > 0 || !report.notServed.isEmpty { throw BlecapExit.findings.exitCode }
    }
}
