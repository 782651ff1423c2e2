import BLEBytes
import BLEPackets
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `blecap replay --controller tcp-client:…` as a process, against a controller in the test's
/// hands that lies: error statuses, buffer sizes, handles it never gave. Each run ends on its
/// own with a message naming the lie and the exit status the help documents (4: the
/// controller refuses or cannot be used; 1: a divergence), within the run's `--timeout`.
@Suite struct ReplayControllerCLITests {
    static let capture = Fixtures.capture("bumble/hr_short_notification.central.btsnoop")

    /// A lying controller: answers every command as a well-behaved LE controller, unless
    /// `lie` returns other packets for it (empty: no answer).
    final class Controller: @unchecked Sendable {
        var lie: (_ opcode: UInt16, _ parameters: [UInt8]) -> [[UInt8]]? = { _, _ in nil }
        private(set) var commands: [UInt16] = []

        func answer(_ opcode: UInt16, _ parameters: [UInt8]) -> [[UInt8]] {
            commands.append(opcode)
            if let custom = lie(opcode, parameters) { return custom }
            switch opcode {
            case HCIOpcode.readLocalSupportedFeatures:
                return [HCISynthesis.commandComplete(opcode, [0, 0, 0, 0, 0, 0x60, 0, 0, 0])]
            case HCIOpcode.readLocalSupportedCommands:
                return [HCISynthesis.commandComplete(opcode, [0] + [UInt8](repeating: 0xFF, count: 64))]
            case HCIOpcode.readBDADDR:
                return [HCISynthesis.commandComplete(opcode, [0, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11])]
            case HCIOpcode.leReadBufferSize:
                return [HCISynthesis.commandComplete(opcode, [0, 251, 0, 4])]
            case HCIOpcode.disconnect:
                return [HCISynthesis.commandStatus(opcode)]
            default:
                return [HCISynthesis.commandComplete(opcode)]
            }
        }
    }

    /// Runs blecap replay against `controller` on a loopback socket until blecap hangs up.
    static func run(_ controller: Controller, _ extra: [String] = []) throws -> CLIRun {
        let (listener, port) = LoopbackListener.open()
        defer { close(listener) }
        let box = CLIBox()
        let args =
            [
                "replay", capture, "--controller", "tcp-client:127.0.0.1:\(port)", "--timeout", "20",
                "--accept-timeout", "5",
            ]
            + extra
        let thread = Thread { box.result = try? CLIRunner.run(args) }
        thread.start()
        var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        #expect(poll(&p, 1, 30_000) == 1)
        let fd = accept(listener, nil, nil)
        #expect(fd >= 0)
        defer { if fd >= 0 { close(fd) } }
        // Commands in, answers out, until blecap closes its end (or a minute passes: the test
        // fails below rather than hang).
        var inbox: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<1200 {
            var q = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&q, 1, 50) == 1 else {
                if box.result != nil { break }
                continue
            }
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            inbox += buffer[0..<n]
            parse: while let type = inbox.first {
                let size: Int
                switch type {
                case H4PacketType.command:
                    guard inbox.count >= 4 else { break parse }
                    size = 4 + Int(inbox[3])
                case H4PacketType.acl:
                    guard inbox.count >= 5 else { break parse }
                    size = 5 + (Int(inbox[3]) | Int(inbox[4]) << 8)
                default:
                    Issue.record("H4 packet type \(type) from blecap")
                    return try #require(box.result)
                }
                guard inbox.count >= size else { break parse }
                let packet = Array(inbox[0..<size])
                inbox.removeFirst(size)
                guard type == H4PacketType.command else { continue }
                let opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
                for answer in controller.answer(opcode, Array(packet.dropFirst(4))) {
                    _ = answer.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                }
            }
        }
        for _ in 0..<600 where box.result == nil { usleep(50_000) }
        return try #require(box.result, "blecap replay did not end")
    }

    /// A controller that refuses advertising: exit 4, the command and the error named.
    @Test func aRefusedCommandIsNamedAndExits4() throws {
        let controller = Controller()
        controller.lie = { opcode, _ in
            opcode == HCIOpcode.leSetAdvertisingParameters
                ? [HCISynthesis.commandComplete(opcode, [HCIError.commandDisallowed])] : nil
        }
        let run = try Self.run(controller)
        #expect(run.status == 4, "\(run.stderr)")
        #expect(
            run.stderr.contains("refused HCI LE Set Advertising Parameters: Command Disallowed (0xc)"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// LE buffers announced without any to hold them, and no shared ones either: exit 4.
    @Test func buffersThatCannotHoldAPacketExit4() throws {
        let controller = Controller()
        controller.lie = { opcode, _ in
            switch opcode {
            case HCIOpcode.leReadBufferSize: [HCISynthesis.commandComplete(opcode, [0, 0xA0, 0x0F, 0])]
            case HCIOpcode.readBufferSize: [HCISynthesis.commandComplete(opcode, [0, 0, 0, 0, 0, 0, 0, 0])]
            default: nil
            }
        }
        let run = try Self.run(controller)
        #expect(run.status == 4, "\(run.stderr)")
        #expect(run.stderr.contains("LE Read Buffer Size answers 4000 octets in 0 buffers"), "\(run.stderr)")
        #expect(run.stderr.contains("reports no ACL buffers"), "\(run.stderr)")
    }

    /// A central connects, then the controller sends data and completions for handles it never
    /// gave, and ends the link: the run ends, each lie is listed, and the central that did
    /// nothing is a divergence (exit 1).
    @Test func unknownHandlesAreListedAndTheRunEnds() throws {
        let controller = Controller()
        controller.lie = { opcode, parameters in
            guard opcode == HCIOpcode.leSetAdvertisingEnable, parameters.first == 1 else { return nil }
            return [
                HCISynthesis.commandComplete(opcode),
                HCISynthesis.leConnectionComplete(
                    status: HCIError.success, handle: 0x0040, role: HCIRole.peripheral, peerType: 1,
                    peer: BDAddr(rawValue: 0xC0D8_0D18_0001), interval: 24, latency: 0, timeout: 72),
            ] + HCISynthesis.acl(handle: 0x0123, payload: [0x0A, 0x03, 0x00], received: true, fragment: 27) + [
                HCISynthesis.completedPackets(handle: 0x0456),
                HCISynthesis.disconnectionComplete(handle: 0x0040, reason: HCIError.remoteUserTerminatedConnection),
            ]
        }
        let run = try Self.run(controller, ["--speed", "max"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("ACL data for handle 0x123, no such connection: dropped"), "\(run.stderr)")
        #expect(
            run.stderr.contains("Number of Completed Packets for handle 0x456, no such connection"), "\(run.stderr)")
        #expect(run.stdout.contains("missing"), "\(run.stdout)")
    }

    /// `--connection N` over a controller: a number the role does not play is a usage error
    /// (exit 2) that lists the connections it does play, before any controller is opened.
    @Test func aConnectionTheRoleDoesNotPlayIsAUsageErrorListingThoseItDoes() throws {
        let capture = Fixtures.capture("bumble/two_peripherals_concurrent.central.btsnoop")
        let run = try CLIRunner.run(["replay", capture, "--controller", "tcp-client:127.0.0.1:9", "--connection", "3"])
        #expect(run.status == 2)
        #expect(
            run.stderr.contains(
                "--connection 3: the capture has no connection #3; --role peripheral plays "
                    + "#1 (peer D8:0D:18:00:00:01), #2 (peer DF:E5:0B:00:00:08)"), "\(run.stderr)")
    }
}
