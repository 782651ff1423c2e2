import ArgumentParser
import BLEBytes
import BLEController
import BLEOutput
import BLEReplay
import Foundation

extension ReplayCommand {
    /// `--controller`: blecap hosts a controller and plays the captured peripheral through it
    /// (`RadioHost`, over the virtual controller's model of the captured connections).
    func runOverController(_ text: String) throws {
        guard role == "peripheral" else {
            printError(
                "--role central over a controller is not done yet (docs/real-radio.md): "
                    + "'blecap serve --role central' plays a captured central to a host stack")
            throw BlecapExit.usage.exitCode
        }
        if connection != nil || peer != nil {
            printError("--connection and --peer do not apply to --controller yet: every captured connection is played")
            throw BlecapExit.usage.exitCode
        }
        let input = try CaptureInput.open(file, member: member)
        let replay = CaptureReplay(
            session: CapturedSession(reader: input.reader, path: input.path, keys: decryption.keys))
        var config = ControllerConfiguration()
        config.role = .peripheral
        config.speed = try parsedSpeed()
        config.faults = try ReplayOptions.faults(
            dropLinkAt: dropLinkAt, powerOffAt: powerOffAt, delayResponses: delayResponses, mtu: mtu,
            errors: error, dropNotifications: dropNotifications, seed: seed)
        // The central's data comes through the host here: never refused for lack of buffers.
        config.aclPackets = 255
        let virtual = VirtualController(replay: replay, configuration: config)
        guard virtual.servableConnections > 0 else {
            printError(
                "\(file): no connection with this capture's host as central: no captured peripheral to play "
                    + "(--role central, which would play a captured central, is not done yet)")
            throw BlecapExit.usage.exitCode
        }
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
            let end = try host.run(timeoutMicros: timeout.map { Int64($0 * 1e6) })
            announce("session ended: \(end)")
        } catch {
            failure = error
        }
        link.close()
        if let out, let capture = host.capture {
            OutputBuffer.writeFile(out, Array(capture.bytes))
        }
        if let failure {
            printError("\(text): \(failure)")
            throw BlecapExit.unreadable.exitCode
        }
        let report = virtual.report()
        // The same report as serve's, written as serve writes it (paged, coloured).
        Pager.start(pager, text: format == .text)
        let stdout = OutputBuffer(fd: 1)
        stdout.string(format == .json ? report.json() : ReplayTextColor.apply(report.text(), color.paint()))
        stdout.flush()
        if let damage = replay.session.damage {
            printError("\(file): \(damage)")
            throw BlecapExit.damaged.exitCode
        }
        if report.differences > 0 || !report.notServed.isEmpty { throw BlecapExit.findings.exitCode }
    }
}
