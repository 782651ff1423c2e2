import BLEBytes
import BLEPackets
import BLESpool
import CaptureIO
import Foundation
import TestSupport
import Testing

@testable import BLEReplay

/// A connection of many requests: its client script (`ReplayScript`), its server's recorded
/// answers (`ReplayAnswers`) and the engine's step times spill to the replay spool, and the
/// connection models and replays exactly as one held in memory.
@Suite struct ReplayScriptSpoolTests {
    @Test func updatedElementsReadBackChangedInMemoryAndSpilled() {
        let spool = Spool(blockSize: 64, cacheBlocks: 2)
        do {
            var a = SpooledArray<Int64>(spool: spool, memoryLimit: 64)
            for i in 0..<500 { a.append(Int64(i)) }
            a.seal(minimumBytes: 0)
            a.append(500)
            let copy = a
            var expected = (0...500).map(Int64.init)
            // Spilled (first, middle of a block, the sealed partial last block) and in memory.
            for i in [0, 3, 8, 250, 495, 499, 500] {
                a.update(i) { $0 = -$0 - 1 }
                expected[i] = -expected[i] - 1
            }
            #expect((0..<a.count).allSatisfy { a[$0] == expected[$0] })
            // The copy still reads what was there before: a rewritten block is a new one.
            #expect((0..<copy.count).allSatisfy { copy[$0] == Int64($0) })
            a.append(501)
            #expect(a.count == 502 && a[501] == 501 && a[499] == -500)
        }
        #expect(spool.blocksInUse == 0)
    }

    /// One connection: discovery of two characteristics, then `requests` requests answered in
    /// turn (reads of 0x0011 with values that change and an error now and then, writes of
    /// 0x0013 with an error now and then), a Write Command after every 10th; in the middle a
    /// read whose answer comes only after 3,000 commands, so its step has spilled before its
    /// response is filed. Then the disconnection.
    static func requestHeavyConnection(requests: Int) -> [UInt8] {
        var w = SyntheticConnection(peer: BDAddr(rawValue: 0xC0_00_00_00_00_09))
        w.att([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], sent: true)
        w.att([0x11, 0x06, 0x0F, 0x00, 0x20, 0x00, 0xF0, 0xFF], sent: false)
        w.att([0x08, 0x10, 0x00, 0x20, 0x00, 0x03, 0x28], sent: true)
        w.att(
            [0x09, 0x07, 0x10, 0x00, 0x02, 0x11, 0x00, 0xF1, 0xFF, 0x12, 0x00, 0x0C, 0x13, 0x00, 0xF2, 0xFF],
            sent: false)
        for i in 0..<requests {
            let v = UInt8(truncatingIfNeeded: i)
            let latency = Int64(300 + i % 700)
            if i % 3 == 2 {
                w.att(
                    [0x12, 0x13, 0x00] + Array(repeating: v, count: 1 + i % 5), sent: true, after: Int64(500 + i % 900))
                w.att(i % 101 == 0 ? [0x01, 0x12, 0x13, 0x00, 0x03] : [0x13], sent: false, after: latency)
            } else {
                w.att([0x0A, 0x11, 0x00], sent: true, after: Int64(500 + i % 900))
                if i == requests / 2 {
                    for c in 0..<3000 {
                        w.att([0x52, 0x13, 0x00, UInt8(truncatingIfNeeded: c)], sent: true, after: 200)
                    }
                }
                w.att(
                    i % 97 == 0
                        ? [0x01, 0x0A, 0x11, 0x00, 0x02] : [0x0B, v, v &+ 1] + Array(repeating: v, count: i % 7),
                    sent: false, after: latency)
            }
            if i % 10 == 0 { w.att([0x52, 0x13, 0x00, v], sent: true, after: 300) }
        }
        return w.disconnect()
    }

    /// 27,000 requests with arrays spilling past 64 KiB (a step is 48 bytes, an answer 8: the
    /// script, both handles' answers and the step times all spill), against the same capture
    /// with nothing spilled: the same models, the same replays at every speed, with faults,
    /// and the same exports.
    @Test func aRequestHeavyConnectionThatSpillsReplaysAsOneInMemory() throws {
        let path = ReplayFixtures.temporaryCapture(Self.requestHeavyConnection(requests: 27_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let spilled = try Spool.$arrayMemoryLimit.withValue(64 << 10) { try Self.replays(path) }
        let inMemory = try Spool.$arrayMemoryLimit.withValue(1 << 30) { try Self.replays(path) }
        let (s, m) = (spilled.model, inMemory.model)
        #expect(s.steps.isSpilled && s.peerServer.reads[0x0011]?.isSpilled == true)
        #expect(s.peerServer.writes[0x0013]?.isSpilled == true)
        #expect(!m.steps.isSpilled && m.peerServer.reads[0x0011]?.isSpilled == false)
        // 2 discovery requests, the requests, a command every 10th and the 3,000 in the middle.
        #expect(s.steps.count == 2 + 27_000 + 2_700 + 3_000 && s.steps.count == m.steps.count)
        #expect(s.steps.filter { $0.responseIndex != nil }.count == 2 + 27_000)
        let sameSteps = zip(s.steps, m.steps).allSatisfy(Self.same)
        #expect(sameSteps)
        // The read answered after 3,000 commands: its latency spans them.
        let late = try #require(s.steps.first { ($0.latency ?? 0) > 3000 * 200 })
        #expect(late.bytes == [0x0A, 0x11, 0x00])
        for h: UInt16 in [0x0011, 0x0013] {
            let a = try #require(s.peerServer.reads[h] ?? s.peerServer.writes[h])
            let b = try #require(m.peerServer.reads[h] ?? m.peerServer.writes[h])
            #expect(a.count == (h == 0x0011 ? 18_000 : 9_000) && Array(a) == Array(b))
        }
        // Answers as captured: the 97th read an error, the others their values.
        let reads = try #require(s.peerServer.reads[0x0011])
        #expect(reads[1] == .value([0x01, 0x02, 0x01]) && reads.contains(.error(0x02)))
        #expect(spilled.outputs == inMemory.outputs)
        #expect(spilled.identical)
    }

    static func same(_ a: ReplayStep, _ b: ReplayStep) -> Bool {
        let timing = a.anchor == b.anchor && a.delay == b.delay && a.latency == b.latency
        let pdus = a.capturedIndex == b.capturedIndex && a.responseIndex == b.responseIndex && a.bytes == b.bytes
        return timing && pdus && a.hostIsClient == b.hostIsClient
    }

    /// The model, and the replays' JSON and btsnoop exports (whole and streamed, which must
    /// agree) at realtime, and at max speed with faults (delayed responses, an injected write
    /// error, the link dropped).
    private static func replays(_ path: String) throws -> (
        model: ReplayConnectionModel, outputs: [[UInt8]], identical: Bool
    ) {
        let whole = try CaptureReplay(path: path)
        let clock = CaptureReplay.maxSpeedClock(reader: try CaptureFile.open(path: path), path: path)
        var outputs: [[UInt8]] = []
        var identical = false
        let variants: [(ReplaySpeed, ReplayFaults)] = [
            (.realtime, .none),
            (.max, ReplayFaults(dropLinkAtMicros: 20_000_000, responseDelayMicros: 3000, errors: [0x0013: 0x03])),
        ]
        for (speed, faults) in variants {
            let full = try ReplayFixtures.expectStreamedAsWhole(
                whole, path: path, speed: speed, faults: faults, clock: clock)
            outputs += [Array(full.json().utf8), full.btsnoop()]
            if speed == .realtime { identical = full.isIdentical }
        }
        // Modelled anew, not sealed as `CaptureReplay`'s models are (which spills them whatever
        // the limit), so that the in-memory one stays in memory.
        let model = ReplayConnectionModel(try #require(try CapturedSession(path: path).connections.first))
        return (model, outputs, identical)
    }
}
