import BLEBytes
import BLEPackets
import BLESpool
import CaptureIO
import Foundation
import TestSupport
import Testing

@testable import BLEReplay

/// What replay spools (`Spool`, BLESpool: a long connection's exchange and stream, the max-speed
/// clock's instants, the export's sorted runs) reads back as it was written, and a connection
/// long enough to spill replays, compares and exports exactly as one that stays in memory.
@Suite struct ReplaySpoolTests {
    /// The clock's table (`ReplayInstants`, from an external sort spilled in runs of ten):
    /// distinct, and the last instant at or before any time, both while the instants are kept
    /// as one array (about 1,800 of them) and once they spill (about 24,000 past a memory limit
    /// of one 8,192-instant block: three blocks on the spool, the rest in memory).
    @Test(arguments: [(5000, 2000, Spool.arrayMemoryLimit), (40_000, 60_000, 4 << 10)])
    func instantsFromAnExternalSortAreDistinctAndFoundByTime(values count: Int, range: Int, memoryLimit: Int) {
        var rng = SplitMix64(seed: 9)
        let half = Int64(range / 2)
        let values = (0..<count).map { _ in Int64(rng.next() % UInt64(range)) - half }
        let instants = Spool.$arrayMemoryLimit.withValue(memoryLimit) {
            var sorter = ExternalSorter<Int64>(runBytes: 80)
            for v in values { sorter.append(v) }
            return ReplayInstants(&sorter)
        }
        let distinct = Array(Set(values)).sorted()
        #expect(instants.count == distinct.count)
        #expect(instants.first == distinct.first)
        var probes: [Int64] = [-2 * half, -half, -half + 1, -1, 0, 1, half / 2, half - 1, half, 5 * half]
        probes += (0..<200).map { _ in Int64(rng.next() % UInt64(2 * range)) - 2 * half }
        for t in probes {
            let k = distinct.lastIndex { $0 <= t }
            let found = instants.last(atOrBefore: t)
            #expect(found?.index == k && found?.instant == k.map { distinct[$0] }, "t = \(t)")
        }
    }

    /// One connection: a subscription, then `notifications` notifications with a read every
    /// 5000 (so that steps anchor after a long stretch of stream), then the disconnection.
    static func longConnection(notifications: Int) -> [UInt8] {
        var w = SyntheticConnection(peer: BDAddr(rawValue: 0xC0_00_00_00_00_07))
        w.att([0x12, 0x12, 0x00, 0x01, 0x00], sent: true)
        w.att([0x13], sent: false)
        for i in 0..<notifications {
            let v = UInt16(truncatingIfNeeded: i)
            // Gaps of 0–3 ms: some notifications share a µs with nothing, some follow at once.
            w.att([0x1B, 0x11, 0x00, UInt8(v & 0xFF), UInt8(v >> 8)], sent: false, after: Int64(i % 4) * 1000)
            if i % 5000 == 4999 {
                w.att([0x0A, 0x11, 0x00], sent: true)
                w.att([0x0B, UInt8(v & 0xFF)], sent: false, after: 400)
            }
        }
        return w.disconnect()
    }

    /// 20 000 notifications with arrays spilling past 64 KiB: the exchange, the stream and the
    /// export's runs spill to the spool.
    @Test func aConnectionThatSpillsReplaysAsTheWholeSession() throws {
        try Spool.$arrayMemoryLimit.withValue(64 << 10) { try replayTheSpilledConnection() }
    }

    private func replayTheSpilledConnection() throws {
        let path = ReplayFixtures.temporaryCapture(Self.longConnection(notifications: 20_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let whole = try CaptureReplay(path: path)
        let m = try #require(whole.models.first)
        #expect(m.stream.count == 20_000 && m.steps.count == 5)
        let clock = CaptureReplay.maxSpeedClock(reader: try CaptureFile.open(path: path), path: path)
        let variants: [(ReplaySpeed, ReplayFaults)] = [
            (.realtime, .none),
            (.factor(4), ReplayFaults(responseDelayMicros: 3000, notificationDropProbability: 0.2)),
            (.max, ReplayFaults(dropLinkAtMicros: 60_000_000)),
        ]
        for (speed, faults) in variants {
            _ = try ReplayFixtures.expectStreamedAsWhole(whole, path: path, speed: speed, faults: faults, clock: clock)
        }
        #expect(whole.run().isIdentical)
    }
}
