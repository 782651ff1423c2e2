import BLEReplay
import Foundation
import TestSupport
import Testing

/// Speeds change times, never the exchange: both sides of every connection (client steps,
/// responses, notification streams, the link end) and the faults run on one clock
/// (`ReplayClock`), so at `--speed max` and at any factor the replayed ATT exchange is the
/// captured one — opcode, handle, value, direction and order — on every Bumble central capture.
@Suite struct ReplaySpeedTests {
    static let centrals = BumbleReplayTests.captures.filter { $0.contains(".central.") }
    static let speeds: [ReplaySpeed] = [.max, .factor(3), .factor(0.5)]

    @Test func everyBumbleCentralIsThere() { #expect(Self.centrals.count == 10) }

    /// Direction byte (1 sent by the host) and the whole PDU, opcode first.
    static func exchange(_ c: CapturedConnection) -> [[UInt8]] { c.att.map { [$0.sentByHost ? 1 : 0] + $0.bytes } }
    static func exchange(_ r: ReplayedConnection) -> [[UInt8]] { r.pdus.map { [$0.sentByHost ? 1 : 0] + $0.bytes } }

    @Test(arguments: centrals, speeds)
    func replaysTheCapturedExchange(_ path: String, _ speed: ReplaySpeed) throws {
        let report = try CaptureReplay(path: path).run(speed: speed)
        #expect(!report.connections.isEmpty)
        let identical = report.isIdentical  // (a failing #expect would print the whole report)
        #expect(identical)
        for c in report.connections {
            let captured = c.model.connection
            #expect(
                Self.exchange(c.replayed) == Self.exchange(captured),
                "#\(c.model.number) at \(speed.description): \(BumbleReplayTests.describe(c.fidelity))")
            #expect(c.replayed.unsentSteps == 0)
            // The link ends as captured, after the whole exchange.
            #expect(c.replayed.end?.reason == captured.summary.endReason)
            #expect(c.replayed.end?.side == captured.summary.endSide)
            #expect((c.replayed.end?.offset ?? -1) >= (c.replayed.pdus.last?.offset ?? 0))
            // Every PDU at its captured time put through the session's clock, µs for µs.
            #expect(c.fidelity.maximumTimingDelta == 0)
            let start = captured.summary.startTime
            #expect(
                c.replayed.pdus.map(\.offset)
                    == captured.att.map { report.clock.time($0.time) - report.clock.time(start) })
        }
    }

    /// At max no idle time is left on either side: the whole replayed session lasts at most one
    /// µs per captured instant (each connection's start and end, each ATT PDU) where the
    /// capture took seconds — and the notifications still all arrive before the link ends.
    @Test(arguments: centrals)
    func maxSpeedLeavesNoIdleTime(_ path: String) throws {
        let replay = try CaptureReplay(path: path)
        let report = replay.run(speed: .max)
        let instants = replay.session.connections.reduce(0) { $0 + $1.att.count + 2 }
        let ends = report.connections.compactMap { c in
            c.replayed.end.map { report.clock.time(c.model.connection.summary.startTime) + $0.offset }
        }
        let capturedEnds = replay.session.connections.compactMap { $0.disconnection?.time }
        let last = try #require(ends.max())
        #expect(last - replay.session.startTime <= Int64(instants))
        #expect(try #require(capturedEnds.max()) - replay.session.startTime > 500_000)
    }

    /// A factor divides every captured time by F (from the capture's first frame), rounded
    /// once: the link end of each connection lands at its captured offset / F.
    @Test(arguments: centrals)
    func factorScalesBothSidesAlike(_ path: String) throws {
        let replay = try CaptureReplay(path: path)
        for f in [3.0, 0.5] {
            let report = replay.run(speed: .factor(f))
            for c in report.connections {
                let captured = c.model.connection
                let offsets = captured.att.map { Double($0.time - captured.summary.startTime) / f }
                for (r, expected) in zip(c.replayed.pdus.map(\.offset), offsets) {
                    #expect(abs(Double(r) - expected) <= 1, "#\(c.model.number) at \(f)x")
                }
                if let end = captured.disconnection, let replayedEnd = c.replayed.end {
                    #expect(abs(Double(replayedEnd.offset) - Double(end.time - captured.summary.startTime) / f) <= 1)
                }
            }
        }
    }

    /// The export at max, read back through blecap's own reader, decoder and timeline
    /// builder: each connection's ATT exchange PDU for PDU, at the replayed (compressed) times,
    /// and over the whole file the captured order across connections (two_peripherals_concurrent
    /// interleaves two links, reconnect_storm follows each end with a new connection).
    @Test(arguments: centrals)
    func maxSpeedExportCarriesTheCapturedExchange(_ path: String) throws {
        let report = try CaptureReplay(path: path).run(speed: .max)
        let back = try ReplayFixtures.session(of: report, name: "max-" + URL(fileURLWithPath: path).lastPathComponent)
        #expect(back.damage == nil)
        #expect(back.connections.count == report.connections.count)
        for (original, replayed) in zip(report.connections, back.connections) {
            #expect(
                Self.exchange(replayed) == Self.exchange(original.model.connection),
                "connection #\(original.model.number)")
            #expect(replayed.att.map { $0.time - replayed.summary.startTime } == original.replayed.pdus.map(\.offset))
            #expect(replayed.summary.endReason == original.model.connection.summary.endReason)
        }
        func inFileOrder(_ s: CapturedSession) -> [[UInt8]] {
            s.connections.flatMap(\.att).sorted { $0.frame < $1.frame }.map { [$0.sentByHost ? 1 : 0] + $0.bytes }
        }
        #expect(inFileOrder(back) == inFileOrder(report.session))
    }

    /// Fault times are captured times: at max and at 3x, --drop-link-at and --power-off-at cut
    /// clean_heart_rate (notifications about 1 s apart) at the same PDU as at realtime wherever
    /// they fall, the silence, power-off and end at the fault's captured time put through the clock.
    @Test(arguments: [ReplaySpeed.max, .factor(3)])
    func faultsCutAtTheSamePointAtEverySpeed(_ speed: ReplaySpeed) throws {
        let replay = try CaptureReplay(path: ReplayFixtures.bumble("clean_heart_rate.central"))
        let origin = replay.session.startTime
        let start = replay.models[0].connection.summary.startTime
        var cuts = Set<Int>()
        for tenths in stride(from: 5, through: 205, by: 5) {
            let t = Int64(tenths) * 100_000  // capture clock, like --drop-link-at
            for faults in [
                ReplayFaults(dropLinkAtMicros: t, timesFromCaptureStart: true),
                ReplayFaults(powerOffAtMicros: t, timesFromCaptureStart: true),
            ] {
                let realtime = replay.run(faults: faults).connections[0].replayed
                let report = replay.run(faults: faults, speed: speed)
                let fast = report.connections[0].replayed
                #expect(Self.exchange(fast) == Self.exchange(realtime), "fault at \(t) µs at \(speed.description)")
                #expect(fast.end?.reason == realtime.end?.reason)
                #expect(fast.end?.side == realtime.end?.side)
                #expect(fast.unsentSteps == realtime.unsentSteps)
                let at = report.clock.time(origin + t) - report.clock.time(start)
                #expect(fast.silentFrom == realtime.silentFrom.map { _ in at })
                #expect(fast.poweredOffAt == realtime.poweredOffAt.map { _ in at })
                if case .factor(let f) = speed, let end = realtime.end, let fastEnd = fast.end {
                    // The supervision timeout after a silent link scales too.
                    #expect(abs(Double(fastEnd.offset) - Double(end.offset) / f) <= 1)
                }
                cuts.insert(realtime.pdus.count)
            }
        }
        // The fault times fall at many different points of the exchange, the captured end included.
        #expect(cuts.count >= 15)
        #expect(cuts.contains(58))
    }
}
