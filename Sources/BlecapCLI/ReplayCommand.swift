import ArgumentParser
import BLEBytes
import BLEController
import BLELint
import BLEOutput
import BLEReplay
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// `blecap replay FILE`: replays a capture's ATT exchanges against models of its GATT
/// servers and reports how faithfully the replay reproduces the capture.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a capture's GATT sessions against simulated peripherals and report divergence.",
        discussion: """
            Builds, per connection, a model of the peer's GATT server from the capture (the attribute table \
            discovery revealed, handles used but never discovered added as inferred attributes, the values each \
            read returned in order, each write's outcome, the MTU it answered, its notifications timed from the \
            subscription that enabled them, its response latencies, how the link ended) and a script of the \
            central's ATT operations with their timing. The script runs against the model on a virtual clock \
            (nothing sleeps) and the replayed exchange is compared with the captured one PDU by PDU: opcodes, \
            handles, values, errors and order. Captures recorded on the peripheral replay the other way (the \
            captured central's requests against a model \
            of this host's server). docs/replay.md explains the models and their limits.

            --speed changes the times, never the order: max shrinks every idle stretch of the capture (either \
            side, between connections too) to 1 µs, a factor F divides every interval by F. The fault times \
            below and --delay-responses go through the \
            same clock: a fault falls at the same point of the exchange at every speed.

            Fault injection varies the captured conditions: --drop-link-at and --power-off-at take seconds on \
            the capture's clock (as 'blecap timeline' prints them); --error HANDLE=CODE makes every request on \
            HANDLE fail with that ATT error (e.g. 0x0013=0x02, Read Not Permitted); --drop-notifications P drops \
            each \
            notification with probability P, the same ones for the same --seed.

            --controller C replays over a Bluetooth controller instead, blecap being its host: \
            tcp-client:HOST:PORT or tcp-server:HOST:PORT (H4 over TCP, as Bumble names them), \
            serial:/dev/ttyACM0[,BAUD][,noflow] (H4 over a UART), or hciN (the kernel's adapter, taken from \
            BlueZ through the HCI user channel for the run; needs CAP_NET_ADMIN). With --role peripheral (a \
            capture recorded on either side: on the peripheral, its own HCI commands say how it advertised) \
            blecap initialises the controller, advertises as the captured peripheral (its advertising data, scan \
            response and address when random; with the extended advertising commands when it advertised extended \
            and the controller has them), and serves the central that connects from the same model as 'blecap \
            serve' (values in captured order, errors, MTU, notifications timed from the subscription, the faults \
            above); the report compares that central's operations with the captured central's, as 'blecap serve' \
            does. With --role central (a capture recorded on either side: the central is the side the LE \
            Connection Complete's Role names) blecap scans for the captured peripheral's address, or the device \
            --peer names by ADDRESS, NAME or SERVICE-UUID (it connects to no other; extended scanning when the \
            capture used it), connects with the captured connection parameters and plays the captured central's \
            requests, writes and subscriptions at the captured pace or --speed; the report compares the device's \
            answers with the captured peripheral's. --scan-timeout, --connect-timeout and --response-timeout \
            bound each wait. Every captured connection the role plays is played in turn; --connection N plays \
            that one only (a number the role does not play is a usage error listing those it does). --out then \
            writes what crossed the HCI. \
            docs/real-radio.md covers dongles, permissions and safety.

            Exit status 0: every replayed connection reproduced its captured ATT exchange; 1: a divergence \
            (expected when faults are injected); 3: the part before the damage was \
            replayed; 4: the controller cannot be opened, does not answer or refuses.

            Examples:
              blecap replay hr_short_notification.central.btsnoop
              blecap replay session.btsnoop --connection 2 --format json
              blecap replay session.btsnoop --mtu 23 --drop-notifications 0.2 \\
                --out varied.btsnoop --lint
              blecap replay hr.central.btsnoop --controller serial:/dev/ttyACM0,1000000 \\
                --out radio.btsnoop

            \(ExitStatusTable.text)
            """)

    @Argument(help: "Capture file (btsnoop, pcap, pcapng, PacketLogger).")
    var file: String

    @Option(name: .long, help: "The capture to read inside an archive: its path there, or its file name.")
    var member: String?

    @OptionGroup var decryption: LinkLayerKeyOptions

    @Option(name: .long, help: "Replay only this connection (its number in 'blecap timeline').")
    var connection: Int?

    @Option(
        name: .long,
        help:
            "Replay only connections to this peer address (AA:BB:CC:DD:EE:FF); with --controller --role central, the device to connect to: ADDRESS, NAME or SERVICE-UUID."
    )
    var peer: String?

    @Option(name: .long, help: "realtime (as captured), max (no idle time on either side), or a factor such as 2.")
    var speed: String = "realtime"

    @Option(name: .shortAndLong, help: "Output format: text or json.")
    var format: TextOrJSON = .text

    @OptionGroup var pager: PagerOptions

    @OptionGroup var color: ColorOption

    @Option(name: .long, help: "Write the replayed session as a btsnoop capture.")
    var out: String?

    @Flag(name: .long, help: "Lint the replayed session and print the findings.")
    var lint = false

    @OptionGroup var faults: FaultOptions<CentralAdapter>

    @Option(
        name: .long,
        help:
            "Replay over this controller as its host: tcp-client:HOST:PORT, tcp-server:HOST:PORT, serial:DEVICE[,BAUD] or hciN."
    )
    var controller: String?

    @Option(
        name: .long,
        help:
            "With --controller: peripheral (play the captured peripheral) or central (play the captured central), from a capture recorded on either side."
    )
    var role: String = "peripheral"

    @Option(name: .long, help: "With --controller: seconds after which the run ends in any case.")
    var timeout: Double?

    @Option(
        name: .customLong("accept-timeout"),
        help: "With --controller: seconds to wait for a central to connect (and tcp-server for the controller).")
    var acceptTimeout: Double = 60

    @Option(
        name: .customLong("scan-timeout"),
        help: "With --controller --role central: seconds to scan for the peripheral.")
    var scanTimeout: Double = 30

    @Option(
        name: .customLong("connect-timeout"),
        help: "With --controller --role central: seconds for the connection to come up.")
    var connectTimeout: Double = 10

    @Option(
        name: .customLong("response-timeout"),
        help: "With --controller --role central: seconds a request may go unanswered (ATT's 30 s transaction timeout).")
    var responseTimeout: Double = 30

    @Flag(
        name: .long,
        help: "With --controller: print the host's progress and the controller's oddities on standard error.")
    var verbose = false

    func validate() throws {
        if let controller {
            do { _ = try ControllerSpec(controller) } catch { throw ValidationError("--controller: \(error)") }
            if role != "peripheral" && role != "central" { throw ValidationError("--role takes peripheral or central") }
            if lint { throw ValidationError("--lint does not apply to --controller (lint the --out file)") }
            try ReplayOptions.checkNonNegative([
                ("--timeout", timeout), ("--accept-timeout", acceptTimeout), ("--scan-timeout", scanTimeout),
                ("--connect-timeout", connectTimeout), ("--response-timeout", responseTimeout),
            ])
        } else if role != "peripheral" || timeout != nil || verbose {
            throw ValidationError("--role, --timeout and --verbose apply to --controller only")
        }
        if connection != nil && peer != nil { throw ValidationError("give --connection or --peer, not both") }
        if let peer, controller == nil || role != "central", BDAddr(peer) == nil {
            throw ValidationError("--peer: not an address: \(peer)")
        }
        _ = try parsedSpeed()
        try faults.checkErrors()
        try faults.check()
        try faults.checkMTU()
    }

    func parsedSpeed() throws -> ReplaySpeed { try ReplayOptions.speed(speed) }

    func run() throws {
        if let controller { return try runOverController(controller) }
        let input = try CaptureInput.open(file, member: member)
        let selection: ConnectionSelection =
            connection.map { .number($0) } ?? peer.flatMap(BDAddr.init).map { .peer($0) } ?? .all
        let speed = try parsedSpeed()
        // The replayed packets, for --out and --lint, gathered as connections replay, written
        // (in file order) once they all have. A capture read twice at max speed is opened again.
        let reread: (() throws -> any CaptureReader)? =
            input.member.isRereadable
            ? {
                do { return try input.member.makeReader() } catch {
                    printError("\(input.path): \(error)")
                    throw BlecapExit.unreadable.exitCode
                }
            } : nil
        let replayed = try CaptureReplay.replay(
            reader: input.reader, reread: reread, path: input.path, selection, faults: try faults.faults(),
            speed: speed, keys: decryption.keys, exporting: out != nil || lint)
        var report = replayed.report
        let export = replayed.export
        if let d = input.containerDamage { report.session.damage = report.session.damage.map { "\($0); \(d)" } ?? d }
        let session = report.session

        var written: String?
        if let out, let export {
            Self.write(export, to: out)
            written = out
        }
        Pager.start(pager, text: format == .text)
        let stdout = OutputBuffer(fd: 1)
        stdout.string(format == .json ? report.json() : ReplayTextColor.apply(report.text(), color.paint()))
        stdout.flush()
        if lint, let export { try lintReplay(export, written: written) }
        if let damage = session.damage {
            printError("\(input.path): \(damage)")
            throw BlecapExit.damaged.exitCode
        }
        if !report.isIdentical { throw BlecapExit.findings.exitCode }
    }

    /// Writes the export to `path` as btsnoop, piece by piece, into a temporary file renamed
    /// to `path` when whole (a failed write ends the run with exit 6).
    private static func write(_ export: ReplayExport, to path: String) {
        let out = OutputBuffer.file(path)
        export.writeBTSnoop { bytes in
            bytes.withUnsafeBytes { out.append($0) }
            out.maybeFlush()
        }
        out.commit()
    }

    /// Lints the replayed session through the same pass `blecap lint` runs on captures: the
    /// file --out wrote, or a temporary one.
    private func lintReplay(_ export: ReplayExport, written: String?) throws {
        var path = written
        var temporary: String?
        if path == nil {
            let t = FileManager.default.temporaryDirectory.appendingPathComponent("blecap-replay-\(getpid()).btsnoop")
                .path
            Self.write(export, to: t)
            path = t
            temporary = t
        }
        defer { if let temporary { try? FileManager.default.removeItem(atPath: temporary) } }
        var result = CaptureLinter.lint(path: path!)
        result.path = written ?? "replay of \(file)"
        let stdout = OutputBuffer(fd: 1)
        stdout.string(
            format == .json
                ? JSONReporter.render([result]) : LintTextColor.apply(TextReporter.render([result]), color.paint()))
        stdout.flush()
    }
}
