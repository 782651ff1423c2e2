import BLEBytes
import BLEController
import BLEPackets
import BLEReplay
import Testing

/// A controller that misbehaves, through `ScriptedController` (real HCI bytes into the host's
/// H4 framer, virtual time): each class of bad input ends in a clear report, an error naming
/// what the controller did and at which command or step, or a session played with the
/// oddities counted; never a hang (every wait is bounded and the virtual clock gets there at
/// once), never a crash.
@Suite struct RadioHostControllerInputTests {
    /// The error, or nil when the run ended without one.
    static func failure(_ r: Result<RadioHost.End, RadioHostError>) -> String? {
        if case .failure(let e) = r { return e.description }
        return nil
    }

    static func verdicts(_ report: ServeReport) -> [OperationComparison.Verdict] {
        report.operations.flatMap { $0 }.map(\.verdict)
    }

    /// The baseline: a controller that behaves plays the whole captured connection.
    @Test func aWellBehavedControllerPlaysTheCapturedConnection() throws {
        let c = ScriptedController()
        let (end, host, report) = try c.run()
        #expect(try end.get() == .sessionOver)
        #expect(Self.verdicts(report) == [OperationComparison.Verdict](repeating: .same, count: 8))
        #expect(host.oddities.isEmpty && host.rejectedControllerInput == 0)
        // The captured answers went out: the MTU response first, the read's value last.
        #expect(c.answers.first == [0x03, 0x05, 0x02])
        #expect(c.answers.last == [0x0B, 0x01])
    }

    /// Error statuses: in Command Complete, in Command Status, and a Command Complete with no
    /// status at all; each names the command.
    @Test(arguments: [
        (
            HCIOpcode.setEventMask, [HCISynthesis.commandComplete(HCIOpcode.setEventMask, [0x12])],
            "refused HCI Set Event Mask: Invalid HCI Command Parameters (0x12)"
        ),
        (
            HCIOpcode.leSetAdvertisingEnable,
            [HCISynthesis.commandStatus(HCIOpcode.leSetAdvertisingEnable, status: HCIError.commandDisallowed)],
            "refused HCI LE Set Advertise Enable: Command Disallowed (0xc)"
        ),
        (
            HCIOpcode.leSetAdvertisingData, [HCISynthesis.commandComplete(HCIOpcode.leSetAdvertisingData, [])],
            "answered HCI LE Set Advertising Data with a Command Complete without a status"
        ),
    ])
    func errorStatusesNameTheCommand(opcode: UInt16, answer: [[UInt8]], expected: String) throws {
        let c = ScriptedController()
        c.answer = { op, _ in op == opcode ? answer : nil }
        let (end, _, _) = try c.run()
        let error = try #require(Self.failure(end))
        #expect(error.contains(expected), "\(error)")
    }

    /// Buffer sizes: no buffers anywhere is an error; one LE field 0 falls back to the shared
    /// buffers, said; a huge length and count are clamped, said, and every packet the host
    /// sends fits the clamped size.
    @Test func liesAboutBufferSizesAreRefusedOrClamped() throws {
        let none = ScriptedController()
        none.leBuffers = [0, 0, 0]
        none.sharedBuffers = [0, 0, 0, 0, 0, 0, 0]
        #expect(Self.failure(try none.run().end)?.contains("reports no ACL buffers") == true)

        let half = ScriptedController()
        half.leBuffers = [251, 0, 0]
        let (halfEnd, halfHost, _) = try half.run()
        #expect(try halfEnd.get() == .sessionOver)
        #expect(halfHost.aclPacketLength == 27 && halfHost.aclPackets == 4)
        #expect(halfHost.oddities.contains { $0.contains("251 octets in 0 buffers") })

        let huge = ScriptedController()
        huge.leBuffers = [0xFF, 0xFF, 0xFF]
        let (hugeEnd, hugeHost, hugeReport) = try huge.run()
        #expect(try hugeEnd.get() == .sessionOver)
        #expect(hugeHost.aclPacketLength == 251 && hugeHost.aclPackets == 255)
        #expect(hugeHost.oddities.contains { $0.contains("255 ACL buffers of 65535 octets") })
        #expect(Self.verdicts(hugeReport).allSatisfy { $0 == .same })

        let tiny = ScriptedController()
        tiny.leBuffers = [5, 0, 1]
        let (tinyEnd, tinyHost, _) = try tiny.run()
        #expect(try tinyEnd.get() == .sessionOver)
        #expect(tinyHost.aclPacketLength == 27)
        let acl = tiny.fromHost.filter { $0.first == H4PacketType.acl }
        #expect(!acl.isEmpty && acl.allSatisfy { $0.count <= 5 + 27 })
    }

    /// Events for handles that do not exist: ACL data, Number of Completed Packets,
    /// Disconnection Complete, and an LE Connection Complete reusing the live handle. Each is
    /// dropped and said; the live connection plays on and no buffer count goes wrong.
    @Test func eventsForUnknownHandlesAreDroppedAndSaid() throws {
        let c = ScriptedController()
        let stranger: UInt16 = 0x0EEE
        c.afterAnswer = { n in
            guard n == 1 else { return [] }
            return c.aclToHost([0x0A, 0x03, 0x00], handle: stranger) + [
                HCINumberOfCompletedPackets.h4Encoded([.init(handle: stranger, count: 9)]),
                HCISynthesis.disconnectionComplete(handle: stranger, reason: HCIError.connectionTimeout),
                HCISynthesis.leConnectionComplete(
                    status: HCIError.success, handle: c.handle, role: HCIRole.peripheral, peerType: 0,
                    peer: BDAddr(rawValue: 1), interval: 24, latency: 0, timeout: 72),
            ]
        }
        let (end, host, report) = try c.run()
        #expect(try end.get() == .sessionOver)
        #expect(Self.verdicts(report).allSatisfy { $0 == .same })
        #expect(host.rejectedControllerInput == 4)
        #expect(host.oddities.contains { $0.contains("ACL data for handle 0xeee") })
        #expect(host.oddities.contains { $0.contains("Number of Completed Packets for handle 0xeee") })
        #expect(host.oddities.contains { $0.contains("Disconnection Complete for handle 0xeee") })
        #expect(host.oddities.contains { $0.contains("LE Connection Complete for handle 0x40, already in use") })
        // The stranger was not disconnected as if blecap had accepted it.
        #expect(
            !c.fromHost.contains(
                HCIDisconnect(handle: stranger, reason: HCIError.remoteUserTerminatedConnection).h4Encoded()))
    }

    /// A controller that never reports completed packets: the host stops sending at its
    /// buffer count and, after the bound, ends the run saying so, instead of waiting forever.
    @Test func stalledCompletedPacketsEndTheRunWithAReport() throws {
        let c = ScriptedController()
        c.completesPackets = false
        c.leBuffers = [251, 0, 1]
        let (end, _, _) = try c.run(timeoutMicros: 600_000_000)
        let error = try #require(Self.failure(end))
        #expect(error.contains("completed none of 1 ACL data packet for 40 s"), "\(error)")
        #expect(c.fromHost.count { $0.first == H4PacketType.acl } == 1)
    }

    /// The central's link drops in the middle of discovery: the run ends as a session, and the
    /// report says which captured operations never came.
    @Test func aDisconnectionMidDiscoveryIsReportedAsMissingOperations() throws {
        let c = ScriptedController()
        c.endReason = HCIError.connectionTimeout
        c.afterAnswer = { n in n == 2 ? nil : [] }
        let (end, _, report) = try c.run()
        #expect(try end.get() == .sessionOver)
        #expect(Self.verdicts(report) == [.same, .same, .same, .missing, .missing, .missing, .missing, .missing])
    }

    /// Junk between packets and truncated events: dropped and counted; the session plays.
    @Test func garbageAndTruncatedPacketsAreDroppedAndCounted() throws {
        let c = ScriptedController()
        let plain = c.answer
        c.answer = { op, p in
            // Before Reset's answer: octets of no H4 type, a Command Complete cut short
            // inside its own length, and an event whose length octet says less than it carries.
            op == HCIOpcode.reset
                ? [
                    [0xFF, 0x00, 0x7E], [H4PacketType.event, HCIEventCode.commandComplete, 2, 1, 0x03],
                    HCISynthesis.commandComplete(op),
                ]
                : plain(op, p)
        }
        c.afterAnswer = { n in
            n == 0 ? [[H4PacketType.event, HCIEventCode.leMeta, 3, HCILESubeventCode.connectionComplete, 0, 0x40]] : []
        }
        let (end, host, report) = try c.run()
        #expect(try end.get() == .sessionOver)
        #expect(Self.verdicts(report).allSatisfy { $0 == .same })
        #expect(host.oddities.contains { $0.contains("3 octets of unknown H4 packet type dropped") })
        #expect(host.oddities.contains { $0.contains("short Command Complete") })
        #expect(host.oddities.contains { $0.contains("short LE Connection Complete") })
    }

    /// Half a packet, then nothing: the command's wait ends and says a packet was left unfinished.
    @Test func anUnfinishedPacketThenSilenceIsNamed() throws {
        let c = ScriptedController()
        c.answer = { op, _ in
            op == HCIOpcode.leReadBufferSize ? [[H4PacketType.event, HCIEventCode.commandComplete, 10, 1, 0x02]] : nil
        }
        let (end, _, _) = try c.run()
        let error = try #require(Self.failure(end))
        #expect(error.contains("did not answer HCI LE Read Buffer Size [v1]"), "\(error)")
        #expect(error.contains("5 octets of an unfinished H4 packet"), "\(error)")
    }

    /// Silence at each step: a command (no answer), advertising (no central), a connection
    /// (the run's limit); and a transport that closes mid-connection.
    @Test func silenceAtEveryStepIsBounded() throws {
        let command = ScriptedController()
        command.answer = { op, _ in op == HCIOpcode.leSetAdvertisingParameters ? [] : nil }
        let commandError = try #require(Self.failure(try command.run().end))
        #expect(commandError.contains("did not answer HCI LE Set Advertising Parameters within 5000 ms"))

        let advertising = ScriptedController()
        advertising.answer = { op, _ in
            op == HCIOpcode.leSetAdvertisingEnable ? [HCISynthesis.commandComplete(op)] : nil
        }
        let accept = try #require(Self.failure(try advertising.run { $0.acceptTimeoutMicros = 30_000_000 }.end))
        #expect(accept.contains("no central connected within 30 s"))
        // Advertising was turned off again before giving up.
        #expect(advertising.fromHost.last == HCILESetAdvertisingEnable(enable: 0).h4Encoded())

        let silent = ScriptedController()
        silent.requests = Array(ScriptedController.capturedRequests.prefix(2))
        silent.staysConnected = true
        let (silentEnd, _, _) = try silent.run(timeoutMicros: 90_000_000)
        #expect(try silentEnd.get() == .timeout)

        let closing = ScriptedController()
        closing.closeAfterACL = 3
        let (closedEnd, _, _) = try closing.run()
        #expect(try closedEnd.get() == .controllerClosed)
    }

    /// A Hardware Error event ends the run: the controller needs a reset.
    @Test func aHardwareErrorEndsTheRun() throws {
        let c = ScriptedController()
        // Hardware Error (Vol 4 Part E 7.7.16), code 0x2A.
        c.afterAnswer = { n in n == 1 ? [[H4PacketType.event, 0x10, 1, 0x2A]] : [] }
        let (end, _, _) = try c.run()
        let error = try #require(Self.failure(end))
        #expect(error.contains("the controller reported a Hardware Error (0x2a)"), "\(error)")
    }
}
