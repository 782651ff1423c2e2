import ArgumentParser
import BLEBytes
import BLEController
import BLEOutput
import BLEReplay
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

extension ReplayCommand {
    /// `--controller`: blecap hosts a controller and plays the captured peripheral (or, with
    /// `--role central`, the captured central) through it (`RadioHost`, over the virtual
    /// controller's model of the captured connections).
    func runOverController(_ text: String) throws {
        let asCentral = role == "central"
        if peer != nil && !asCentral {
            printError(
                "--peer with --role peripheral does not apply to --controller: choose a captured connection with "
                    + "--connection N")
            throw BlecapExit.usage.exitCode
        }
        let input = try CaptureInput.open(file, member: member)
        let replay = CaptureReplay(
            session: CapturedSession(reader: input.reader, path: input.path, keys: decryption.keys))
        var config = ControllerConfiguration(overARadioAs: asCentral ? .central : .peripheral)
        config.speed = try parsedSpeed()
        config.faults = try faults.faults()
        // The central's data comes through the host here: never refused for lack of buffers.
        config.aclPackets = 255
        let virtual = VirtualController(replay: replay, configuration: config)
        guard virtual.servableConnections > 0 else {
            let side = asCentral ? "central" : "peripheral"
            printError("\(file): no connection in this capture: no captured \(side) to play")
            throw BlecapExit.usage.exitCode
        }
        if let connection { try choose(connection, of: replay, in: virtual, asCentral: asCentral) }
        let announce: (String) -> Void = { writeStandardError("blecap replay: \($0)\n") }
        let link: FileDescriptorTransport
        do {
            link = try ControllerSpec(text).open(acceptTimeoutMicros: Int64(acceptTimeout * 1e6), announce: announce)
        } catch {
            printError("\(error)")
            throw BlecapExit.unreadable.exitCode
        }
        defer { link.close() }
        signal(SIGINT) { _ in RadioHost.interrupt = true }
        signal(SIGTERM) { _ in RadioHost.interrupt = true }
        var hostConfig = RadioHost.Configuration()
        hostConfig.acceptTimeoutMicros = Int64(acceptTimeout * 1e6)
        let host = RadioHost(virtual: virtual, transport: link, configuration: hostConfig, record: out != nil)
        if verbose {
            host.log = announce
            virtual.log = announce
        }
        var failure: RadioHostError?
        do {
            let limit = timeout.map { Int64($0 * 1e6) }
            let end: RadioHost.End
            if asCentral {
                var central = RadioHost.CentralConfiguration()
                central.peer = peer.map(RadioPeer.init)
                central.scanTimeoutMicros = Int64(scanTimeout * 1e6)
                central.connectTimeoutMicros = Int64(connectTimeout * 1e6)
                central.responseTimeoutMicros = Int64(responseTimeout * 1e6)
                end = try host.runCentral(central, timeoutMicros: limit)
            } else {
                end = try host.run(timeoutMicros: limit)
            }
            announce("session ended: \(end)")
            // Stopped before its end: no link or advertising outlives blecap in the controller.
            if end == .interrupted || end == .timeout { host.handBack() }
        } catch {
            failure = error
        }
        link.close()
        // What the controller got wrong, after the fact when --verbose did not print it then.
        if !verbose, !host.oddities.isEmpty {
            for o in host.oddities { announce("controller input: \(o)") }
            if host.oddities.count == RadioHost.maximumOddities {
                announce(
                    "controller input: the first \(RadioHost.maximumOddities) shown; \(host.rejectedControllerInput) packets dropped in all"
                )
            }
        }
        if let out, let capture = host.capture {
            OutputBuffer.writeFile(out, Array(capture.bytes))
        }
        if let failure {
            printError("\(text): \(failure)")
            throw BlecapExit.unreadable.exitCode
        }
        var report = virtual.report()
        if asCentral { report.radio = host.centralFindings }
        // The same report as serve's, written as serve writes it (paged, coloured).
        Pager.start(pager, text: format == .text)
        let stdout = OutputBuffer(fd: 1)
        stdout.string(format == .json ? report.json() : ReplayTextColor.apply(report.text(), color.paint()))
        stdout.flush()
        if let damage = replay.session.damage {
            printError("\(file): \(damage)")
            throw BlecapExit.damaged.exitCode
        }
        if report.differences > 0 || !report.notServed.isEmpty || !(report.radio ?? []).isEmpty {
            throw BlecapExit.findings.exitCode
        }
    }

    /// `--connection N`: only that captured connection is played. One the capture does not
    /// have, or that the other role plays, is a usage error listing the ones this role plays.
    private func choose(_ n: Int, of replay: CaptureReplay, in virtual: VirtualController, asCentral: Bool) throws {
        if virtual.playOnly(connection: n) { return }
        let role = asCentral ? "central" : "peripheral"
        let why =
            replay.models.contains { $0.number == n }
            ? "connection #\(n) has the capture's host as \(asCentral ? "central" : "peripheral"): "
                + "--role \(asCentral ? "peripheral" : "central") plays it"
            : "the capture has no connection #\(n)"
        let list = virtual.servableConnectionList.map { c in
            "#\(c.number)\(c.peer.map { " (peer \($0))" } ?? "")"
        }
        printError(
            "\(file): --connection \(n): \(why); --role \(role) plays "
                + (list.isEmpty ? "none of its connections" : list.joined(separator: ", ")))
        throw BlecapExit.usage.exitCode
    }
}
