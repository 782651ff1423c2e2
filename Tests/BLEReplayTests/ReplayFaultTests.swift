import BLEReplay
import BLETimeline
import Testing

/// Each fault option changes the replayed session the way it says, seen in the replayed
/// session's own timeline (the export decoded like any capture). clean_heart_rate.central:
/// connection at 0.415 s, MTU 247/517, discovery, reads of 0x001A and 0x001C, subscription,
/// 20 Heart Rate Measurement notifications about 1 s apart, reads of 0x0016 and 0x0013 at
/// 19.77 s, local disconnection at 19.80 s.
@Suite struct ReplayFaultTests {
    let replay: CaptureReplay

    init() throws { replay = try CaptureReplay(path: ReplayFixtures.bumble("clean_heart_rate.central")) }

    func notifications(_ events: [TimelineEvent]) -> [TimelineEvent] {
        events.filter { if case .notification = $0.kind { true } else { false } }
    }

    func disconnection(_ events: [TimelineEvent]) -> (reason: UInt8, side: DisconnectionSide, time: Int64)? {
        for e in events { if case .disconnection(_, let reason, let side) = e.kind { return (reason, side, e.time) } }
        return nil
    }

    @Test func unchangedReplayKeepsTheCapturedEnd() throws {
        let events = try ReplayFixtures.timeline(of: replay.run())
        #expect(notifications(events).count == 20)
        #expect(disconnection(events)?.reason == 0x16)
        #expect(disconnection(events)?.side == .local)
    }

    @Test func dropLinkEndsTheConnectionWithATimeoutAfterTheSupervisionTimeout() throws {
        let report = replay.run(faults: ReplayFaults(dropLinkAtMicros: 5_000_000))
        let events = try ReplayFixtures.timeline(of: report)
        let start = replay.models[0].connection.summary.startTime
        let end = try #require(disconnection(events))
        #expect(end.reason == 0x08)
        #expect(end.side == .linkLoss)
        // 720 ms supervision timeout from the Connection Complete (timeout_ms=720).
        #expect(end.time - start == 5_000_000 + 720_000)
        // Nothing arrives after the link went silent; the notifications before it did.
        let received = notifications(events)
        #expect(!received.isEmpty && received.count < 20)
        #expect(received.allSatisfy { $0.time - start < 5_000_000 })
        #expect(!report.isIdentical)
    }

    @Test func powerOffResetsTheControllerAndEndsTheSession() throws {
        let report = replay.run(faults: ReplayFaults(powerOffAtMicros: 3_000_000))
        let events = try ReplayFixtures.timeline(of: report)
        let start = replay.models[0].connection.summary.startTime
        let reset = try #require(events.first { if case .controllerReset = $0.kind { true } else { false } })
        #expect(reset.time - start == 3_000_000)
        #expect(events.filter { $0.time > reset.time && $0.connection != nil }.isEmpty)
        #expect(notifications(events).count < 20)
    }

    @Test func delayedResponsesArriveLaterByTheDelay() throws {
        let plain = try ReplayFixtures.timeline(of: replay.run())
        let delayed = try ReplayFixtures.timeline(of: replay.run(faults: ReplayFaults(responseDelayMicros: 40_000)))
        func latencies(_ e: [TimelineEvent]) -> [Int64] {
            e.compactMap { ev -> Int64? in
                switch ev.kind {
                case .read, .discovery, .mtuExchange, .subscribe: ev.outcome.latency
                default: nil
                }
            }
        }
        let a = latencies(plain)
        let b = latencies(delayed)
        #expect(a.count == b.count && !a.isEmpty)
        for (x, y) in zip(a, b) { #expect(y == x + 40_000) }
    }

    @Test func smallerServerMTUChangesTheExchangeAndCutsValues() throws {
        let report = replay.run(faults: ReplayFaults(serverMTU: 23))
        let events = try ReplayFixtures.timeline(of: report)
        let mtu = try #require(
            events.compactMap { e -> (UInt16?, UInt16)? in
                if case .mtuExchange(_, let server, let effective, _) = e.kind { return (server, effective) }
                return nil
            }.first)
        #expect(mtu.0 == 23)
        #expect(mtu.1 == 23)
        // The 15-byte Manufacturer Name still fits ATT_MTU − 1 = 22; responses and
        // notifications never exceed 23 octets.
        let session = try ReplayFixtures.session(of: report)
        #expect(session.connections[0].att.allSatisfy { $0.bytes.count <= 23 })
        #expect(report.connections[0].fidelity.divergence?.position == 1)
    }

    @Test func injectedErrorAnswersEveryRequestOnTheHandle() throws {
        // 0x0016 Battery Level: Read Not Permitted (0x02) instead of its value.
        let events = try ReplayFixtures.timeline(of: replay.run(faults: ReplayFaults(errors: [0x0016: 0x02])))
        let read = try #require(
            events.first {
                if case .read(let op, _) = $0.kind { op.handle == 0x0016 } else { false }
            })
        guard case .error(_, _, let code, let handle) = read.outcome else {
            Issue.record("expected an error outcome, got \(read.outcome)")
            return
        }
        #expect(code == 0x02)
        #expect(handle == 0x0016)
        // The other reads still succeed.
        let other = try #require(
            events.first { if case .read(let op, _) = $0.kind { op.handle == 0x0013 } else { false } })
        #expect(other.outcome.responseFrame != nil && other.outcome.latency != nil)
        if case .error = other.outcome { Issue.record("0x0013 must not fail") }
    }

    @Test func droppedNotificationsAreSeededAndDeterministic() throws {
        func kept(_ seed: UInt64) throws -> [Int64] {
            let r = replay.run(faults: ReplayFaults(notificationDropProbability: 0.5, seed: seed))
            return notifications(try ReplayFixtures.timeline(of: r)).map(\.time)
        }
        let a = try kept(7)
        let b = try kept(7)
        let c = try kept(8)
        #expect(a == b)
        #expect(a != c)
        #expect(a.count < 20 && a.count > 0)
        let dropped = replay.run(faults: ReplayFaults(notificationDropProbability: 0.5, seed: 7)).connections[0]
            .replayed.droppedNotifications
        #expect(dropped == 20 - a.count)
        // Probability 1 drops them all, 0 none.
        #expect(try kept(1).count > 0)
        let all = replay.run(faults: ReplayFaults(notificationDropProbability: 1, seed: 7))
        #expect(notifications(try ReplayFixtures.timeline(of: all)).isEmpty)
    }

    @Test func captureClockTimesCountFromTheFirstFrame() {
        // The connection starts 0.415 s into the capture: 5.415 s on the capture's clock is
        // 5 s into the connection.
        let onCapture = replay.run(faults: ReplayFaults(dropLinkAtMicros: 5_415_017, timesFromCaptureStart: true))
        let onConnection = replay.run(faults: ReplayFaults(dropLinkAtMicros: 5_000_000))
        let start = replay.models[0].connection.summary.startTime - replay.session.startTime
        #expect(start == 415_017)
        #expect(onCapture.connections[0].replayed.silentFrom == onConnection.connections[0].replayed.silentFrom)
    }
}
