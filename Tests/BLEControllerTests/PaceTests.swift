import BLEBytes
import BLEPackets
import BLEReplay
import Foundation
import TestSupport
import Testing

@testable import BLEController

/// The realtime pace's machinery, on virtual time (no wall time is asserted anywhere): the
/// lateness measure and its percentile, the runner's wait towards an absolute deadline, and
/// the controller measuring each timed event against its deadline on the clock it is given.
@Suite struct PaceTests {
    @Test func percentilesComeFromTheHistogramAndNeverExceedTheWorst() {
        var m = PaceMeasure()
        #expect(m.percentileMicros(0.99) == 0 && m.events == 0)
        // 990 events on time, 9 late by 1 ms, one late by 40 ms.
        for _ in 0..<990 { m.record(latenessMicros: 0) }
        for _ in 0..<9 { m.record(latenessMicros: 1_000) }
        m.record(latenessMicros: 40_000)
        #expect(m.events == 1000)
        #expect(m.worstMicros == 40_000)
        #expect(m.meanMicros == (9 * 1_000 + 40_000) / 1000)
        #expect(m.percentileMicros(0.99) == PaceMeasure.bucketMicros)  // the 990th is on time
        #expect(m.percentileMicros(0.995) == 1_000 + PaceMeasure.bucketMicros)
        #expect(m.percentileMicros(1) == 40_000)
        // Early (a clock read before the deadline) is on time; beyond the histogram is the worst.
        var n = PaceMeasure()
        n.record(latenessMicros: -50)
        n.record(latenessMicros: 5_000_000)
        #expect(n.worstMicros == 5_000_000 && n.percentileMicros(0.5) == PaceMeasure.bucketMicros)
        #expect(n.percentileMicros(1) == 5_000_000)
    }

    @Test func theRunnerWaitsForTheHostInWholeMillisecondsEndingBeforeTheDeadline() {
        #expect(ServeRunner.pollWait(untilDeadline: -5) == 0)
        #expect(ServeRunner.pollWait(untilDeadline: ServeRunner.fineSleepMicros) == 0)
        #expect(ServeRunner.pollWait(untilDeadline: 2_400) == 0)  // 0.9 ms of poll: slept instead
        #expect(ServeRunner.pollWait(untilDeadline: 2_600) == 1_000)
        #expect(ServeRunner.pollWait(untilDeadline: 7_499) == 5_000)
        #expect(ServeRunner.pollWait(untilDeadline: 10_000_000) == 50_000)
        for d in stride(from: Int64(0), to: 100_000, by: 137) {
            let w = ServeRunner.pollWait(untilDeadline: d)
            #expect(w % 1000 == 0 && w >= 0 && w <= max(0, d - ServeRunner.fineSleepMicros))
        }
    }

    /// hr_short_notification's host, played on virtual time with a clock that reads a fixed
    /// 700 µs behind each deadline: every timed event is measured, 700 µs late, and the report
    /// says so; without a clock there is no pace in the report.
    @Test func theControllerMeasuresEachTimedEventAgainstItsDeadline() throws {
        let path = Fixtures.capture("bumble/hr_short_notification.central.btsnoop")
        let host = try HostSide(path)
        let bench = try Bench(path)
        #expect(bench.controller.report().pace == nil)
        let controller = bench.controller
        controller.clock = { [unowned controller] in controller.now + 700 }
        bench.play(host)
        let report = controller.report()
        let pace = try #require(report.pace)
        let notifications = report.replay.connections.first?.replayed.pdus.count {
            $0.bytes.first == ATTOpcode.handleValueNotification.rawValue
        }
        #expect((notifications ?? 0) > 0)
        #expect(pace.events > notifications ?? 0)  // responses, completions, the link's end too
        #expect(pace.worstLatenessMicros == 700 && pace.meanLatenessMicros == 700)
        #expect(pace.p99LatenessMicros == 700)
        #expect(pace.speed == "realtime")
        #expect(pace.connectionIntervalMicros == (try CaptureReplay(path: path)).models[0].connection.intervalMicros)
        #expect(report.text().contains("pace (realtime): \(pace.events) timed events"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
        let p = try #require(json["pace"] as? [String: Any])
        #expect(p["worstLatenessMicros"] as? Int == 700 && p["events"] as? Int == pace.events)
    }
}
