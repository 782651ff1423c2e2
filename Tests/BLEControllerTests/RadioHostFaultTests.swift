import BLEBytes
import BLEController
import BLEPackets
import BLEReplay
import Testing

/// The captured central's requests, and its last one: the read of handle 0x0013.
private let requests = ScriptedController.capturedRequests
private let read: [UInt8] = [0x0A, 0x13, 0x00]

/// The faults and the report's divergence classes over the controller path (`blecap replay
/// --controller`): the central capture's peripheral played by `RadioHost` through a
/// `ScriptedController` whose central sends the captured requests, or changed ones. The
/// replay model's own fault tests (ReplayFaultTests, FaultInjectionTests) check the faults on
/// virtual time; these check that each reaches a real controller's air. Times here are the
/// scripted controller's virtual clock, deterministic.
@Suite struct RadioHostFaultTests {
    static func verdicts(_ report: ServeReport) -> [OperationComparison.Verdict] {
        report.operations.flatMap { $0 }.map(\.verdict)
    }

    // MARK: faults

    /// `--drop-link-at` and `--power-off-at`: the captured peripheral goes silent at the
    /// connection's start, and after the supervision timeout blecap ends the real link
    /// (HCI_Disconnect; a real controller takes no Connection Timeout reason, so Remote User
    /// Terminated); the central's requests go unanswered.
    @Test(arguments: [
        ReplayFaults(dropLinkAtMicros: 0), ReplayFaults(powerOffAtMicros: 0),
    ])
    func aSilencedLinkIsEndedOnTheController(faults: ReplayFaults) throws {
        let c = ScriptedController()
        let (end, _, _) = try c.run(faults: faults)
        #expect(try end.get() == .sessionOver)
        #expect(
            c.fromHost.contains(
                HCIDisconnect(handle: c.handle, reason: HCIError.remoteUserTerminatedConnection).h4Encoded()))
        #expect(c.answers.isEmpty)
    }

    @Test func delayedResponsesLeaveLaterByTheDelay() throws {
        let plain = ScriptedController()
        _ = try plain.run()
        let delayed = ScriptedController()
        _ = try delayed.run(faults: ReplayFaults(responseDelayMicros: 2_000_000))
        // The MTU exchange: request at the connection's start, answer after the delay.
        let first = try #require(delayed.att.first { $0.pdu.first == 0x03 })
        let plainFirst = try #require(plain.att.first { $0.pdu.first == 0x03 })
        #expect(plainFirst.time - plain.requestTimes[0] < 2_000_000)
        #expect(first.time - delayed.requestTimes[0] >= 2_000_000)
        #expect(delayed.answers == plain.answers)
    }

    @Test func theMTUFaultChangesTheExchangeMTUResponse() throws {
        let c = ScriptedController()
        _ = try c.run(faults: ReplayFaults(serverMTU: 100))
        #expect(c.answers.first == [0x03, 100, 0x00])
    }

    /// `--error 0x13=0x0E`: the read of handle 0x0013 is answered with Unlikely Error.
    @Test func anInjectedErrorAnswersTheRequest() throws {
        let c = ScriptedController()
        _ = try c.run(faults: ReplayFaults(errors: [0x0013: 0x0E]))
        #expect(c.answers.last == [0x01, 0x0A, 0x13, 0x00, 0x0E])
    }

    /// The subscription's 12 captured notifications reach the central while it waits before
    /// its last read; with `--drop-notifications 1` none does.
    @Test func droppedNotificationsNeverReachTheController() throws {
        func notifications(_ faults: ReplayFaults) throws -> Int {
            let c = ScriptedController()
            c.pauseBefore = [7: 15_000_000]
            _ = try c.run(faults: faults)
            return c.att.count { $0.pdu.first == 0x1B }
        }
        #expect(try notifications(.none) == 12)
        #expect(try notifications(ReplayFaults(notificationDropProbability: 1)) == 0)
    }

    /// `--speed`: at max, the captured stream's notifications go out at once, before the
    /// central's next read is answered; at realtime they keep their captured 1 s spacing,
    /// and twice as fast, half of it.
    @Test func speedSetsThePaceOfTheCapturedStream() throws {
        func run(_ speed: ReplaySpeed, pause: Int64?) throws -> ScriptedController {
            let c = ScriptedController()
            if let pause { c.pauseBefore = [7: pause] }
            _ = try c.run(speed: speed)
            return c
        }
        let fastest = try run(.max, pause: nil)
        let beforeRead = fastest.att.prefix { $0.pdu.first != 0x0B }
        #expect(beforeRead.count { $0.pdu.first == 0x1B } == 12)
        let realtime = try run(.realtime, pause: nil)
        #expect(realtime.att.count { $0.pdu.first == 0x1B } < 12)

        func span(_ c: ScriptedController) -> Int64 {
            let times = c.att.filter { $0.pdu.first == 0x1B }.map(\.time)
            return (times.last ?? 0) - (times.first ?? 0)
        }
        let slow = try run(.realtime, pause: 15_000_000)
        let fast = try run(.factor(2), pause: 15_000_000)
        #expect(span(slow) > 10_000_000)
        #expect(span(fast) < span(slow) * 6 / 10)
    }

    // MARK: divergences

    /// Each class of the report from a central that departs from the captured one.
    @Test(
        arguments: [
            // As captured.
            (requests, [OperationComparison.Verdict](repeating: .same, count: 8)),
            // The read first: every other operation where captured, the read out of order.
            ([read] + requests.dropLast(), [.same, .same, .same, .same, .same, .same, .same, .reordered]),
            // The subscription written with indications instead of notifications.
            (
                requests.map { $0 == [0x12, 0x11, 0x00, 0x01, 0x00] ? [0x12, 0x11, 0x00, 0x02, 0x00] : $0 },
                [.same, .same, .same, .same, .same, .same, .differentValue, .same]
            ),
            // No Find Information.
            (requests.filter { $0.first != 0x04 }, [.same, .same, .same, .same, .same, .missing, .same, .same]),
            // A read of the characteristic declaration the capture never made, at the end.
            (requests + [[0x0A, 0x12, 0x00]], [.same, .same, .same, .same, .same, .same, .same, .same, .extra]),
        ] as [([[UInt8]], [OperationComparison.Verdict])])
    func eachDivergenceClassIsReported(requests: [[UInt8]], expected: [OperationComparison.Verdict]) throws {
        let c = ScriptedController(requests: requests)
        let (end, _, report) = try c.run(speed: .max)
        #expect(try end.get() == .sessionOver)
        #expect(Self.verdicts(report) == expected)
        #expect(report.differences == expected.count { $0 != .same })
    }
}
