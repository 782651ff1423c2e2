import BLEBytes
import BLEController
import BLEPackets
import BLEReplay
import CaptureIO
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// blecap as the host of a controller (`blecap replay --controller`): against blecap's own
/// virtual controller playing the other side of the same session (the captured central,
/// from the peripheral's capture), over a pseudo-terminal opened as `serial:` and over a
/// socket; and against controllers that never answer or refuse.
@Suite struct RadioHostTests {
    static let central = Fixtures.capture("bumble/hr_short_notification.central.btsnoop")
    static let peripheral = Fixtures.capture("bumble/hr_short_notification.peripheral.btsnoop")

    @Test func parsesControllerNames() throws {
        #expect(try ControllerSpec("tcp-client:127.0.0.1:9000") == .tcp(.tcpClient(host: "127.0.0.1", port: 9000)))
        #expect(
            try ControllerSpec("serial:/dev/ttyACM0")
                == .serial(path: "/dev/ttyACM0", baud: 1_000_000, flowControl: true))
        #expect(
            try ControllerSpec("serial:/dev/ttyUSB0,115200,noflow")
                == .serial(path: "/dev/ttyUSB0", baud: 115_200, flowControl: false))
        #expect(try ControllerSpec("hci1") == .hci(index: 1))
        #expect(throws: TransportError.self) { try ControllerSpec("serial:/dev/ttyS0,12345") }
        #expect(throws: TransportError.self) { try ControllerSpec("pty") }
        #expect(throws: TransportError.self) { try ControllerSpec("hcix") }
    }

    /// The central's capture played through a controller whose air is the peripheral's capture
    /// of the same session: the central there repeats the captured requests, so every captured
    /// operation comes back the same, and --out's btsnoop holds both directions.
    @Test func playsTheCapturedPeripheralOverASerialPseudoTerminal() throws {
        let pty = try FileDescriptorTransport.open(.pty(link: nil))
        let serial = try ControllerSpec.serial(path: pty.endpoint, baud: 1_000_000, flowControl: false).open()
        let far = FarSide(path: Self.peripheral, role: .central, transport: pty, lingerMicros: 500_000)
        far.start()
        let report = try host(over: serial)
        serial.close()
        far.done.wait()
        let ops = report.operations.flatMap { $0 }
        #expect(!ops.isEmpty)
        #expect(ops.allSatisfy { $0.verdict == .same }, "\(ops.filter { $0.verdict != .same })")
        #expect(report.notServed.isEmpty)
    }

    @Test func playsTheCapturedPeripheralOverASocket() throws {
        let (link, end) = SocketLink.pair()
        let far = FarSide(path: Self.peripheral, role: .central, transport: end, lingerMicros: 500_000)
        far.start()
        var recorded: [UInt8] = []
        let report = try host(over: link) { recorded = $0 }
        link.close()
        far.done.wait()
        let ops = report.operations.flatMap { $0 }
        #expect(!ops.isEmpty && ops.allSatisfy { $0.verdict == .same })
        // What crossed the HCI: commands and ACL sent, events and ACL received, readable back.
        let hci = RecordedHCI.packets(recorded)
        #expect(hci.contains { $0.sent } && hci.contains { !$0.sent })
    }

    /// A controller that never answers: a clear error naming the command, not a hang.
    @Test func aSilentControllerIsAnErrorNotAHang() throws {
        let (link, far) = SocketLink.pair()
        defer { far.close() }
        var config = RadioHost.Configuration()
        config.commandTimeoutMicros = 100_000
        let host = RadioHost(virtual: try Self.virtual(), transport: link, configuration: config, record: false)
        do {
            _ = try host.run(timeoutMicros: 5_000_000)
            Issue.record("a silent controller was taken as ready")
        } catch {
            #expect(error.description.contains("did not answer HCI Reset"))
        }
    }

    /// A controller that refuses a command: the error names the command and the HCI status.
    @Test func aRefusedCommandIsNamed() throws {
        let (link, far) = SocketLink.pair()
        // Answers the Reset with Hardware Failure (0x03), as a wedged dongle might.
        try far.send(HCISynthesis.commandComplete(HCIOpcode.reset, [0x03]))
        let host = RadioHost(virtual: try Self.virtual(), transport: link, record: false)
        do {
            _ = try host.run(timeoutMicros: 5_000_000)
            Issue.record("a refused Reset was taken as success")
        } catch {
            #expect(error.description.contains("refused HCI Reset: Hardware Failure"))
        }
        far.close()
    }

    static func virtual() throws -> VirtualController {
        var config = ControllerConfiguration()
        config.speed = .max
        config.aclPackets = 255
        return VirtualController(replay: try CaptureReplay(path: central), configuration: config)
    }

    private func host(over link: FileDescriptorTransport, recorded: ([UInt8]) -> Void = { _ in }) throws
        -> ServeReport
    {
        let virtual = try Self.virtual()
        var config = RadioHost.Configuration()
        config.acceptTimeoutMicros = 10_000_000
        let host = RadioHost(virtual: virtual, transport: link, configuration: config, record: true)
        let end = try host.run(timeoutMicros: 30_000_000)
        #expect(end == .sessionOver)
        recorded(host.capture?.bytes ?? [])
        return virtual.report()
    }
}
