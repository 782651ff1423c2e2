import BLEBytes
import BLEDiagnose
import BLEPackets
import BLETimeline
import Foundation
import TestSupport
import Testing

/// The throughput budget held to captures whose ceiling is known by construction
/// (`captures/throughput/expected.json`, written by scripts/corpus/make_throughput.py with the
/// value bytes tshark decodes), and its bounds and latency statistics on event sequences.
@Suite struct BudgetTests {
    struct Expected: Decodable {
        var captures: [String: Case]
    }

    struct Case: Decodable {
        var ceiling_bytes_per_second: Double
        var limit: String
        var advice: String
        var tshark_value_bytes: Int?
        var tshark_malformed: Int?
        var value_bytes: Int
        var interval_us: Int
        var mtu: Int
        var over_the_air: Bool
    }

    static let expected: Expected? = {
        guard let data = try? Fixtures.bytes("throughput/expected.json") else { return nil }
        return try? JSONDecoder().decode(Expected.self, from: Data(data))
    }()

    static let generated: [String] =
        (expected?.captures.keys.sorted()) ?? ["<captures/throughput/expected.json unreadable>"]

    @Test func everyLimitIsCovered() throws {
        let e = try #require(Self.expected)
        #expect(
            Set(e.captures.values.map(\.limit)) == ["packets_per_event", "airtime", "request_response", "acl_buffers"])
    }

    @Test(arguments: generated)
    func ceilingLimitAndBytesMatchTheConstruction(_ name: String) throws {
        let want = try #require(Self.expected?.captures[name])
        let verdicts = try DiagnoseScenarioTests.diagnose(Fixtures.existing("throughput/" + name))
        #expect(verdicts.count == 1)
        let b = try #require(verdicts.first?.budget)
        #expect(b.platform == .unknown)
        #expect(b.stretches.count == 1)
        let s = try #require(b.stretches.first)
        // Achieved: the ATT value bytes tshark decodes, and no malformed frame in the file.
        #expect(want.tshark_malformed == 0)
        #expect(s.valueBytes == want.tshark_value_bytes)
        #expect(s.valueBytes == want.value_bytes)
        #expect(s.parameters.intervalUs == want.interval_us && s.parameters.mtu == want.mtu)
        // Equal-sized values: the rate is bytes of PDUs 2…n over the first-to-last time.
        let expectedRate = Double(s.valueBytes) * Double(s.pdus - 1) / Double(s.pdus) * 1e6 / Double(s.durationUs)
        #expect(abs(Double(s.bytesPerSecond) - expectedRate) <= 1)
        let ceiling = try #require(s.ceilingBytesPerSecond)
        #expect(abs(Double(ceiling) - want.ceiling_bytes_per_second) <= want.ceiling_bytes_per_second * 0.05)
        #expect(s.limit == want.limit)
        #expect(s.advice?.setting == want.advice)
        // Platform unknown: both APIs.
        #expect(s.advice?.android != nil && s.advice?.coreBluetooth != nil)
        // Each HCI transfer was made to run at its ceiling (over the air the converter's own
        // event scheduling sets the pace).
        if !want.over_the_air {
            #expect(abs(Double(s.bytesPerSecond) - Double(ceiling)) <= Double(ceiling) * 0.05)
        } else {
            #expect(s.bytesPerSecond <= ceiling)
        }
    }

    // MARK: event sequences

    static func event(_ frame: Int, _ time: Int64, _ kind: TimelineEvent.Kind) -> TimelineEvent {
        TimelineEvent(frame: frame, time: time, connection: 1, kind: kind)
    }

    static func notification(_ frame: Int, _ time: Int64, bytes: Int, mtu: UInt16 = 247) -> TimelineEvent {
        var e = event(
            frame, time,
            .notification(.make(opcode: 0x1B, handle: 0x12, attribute: nil, mtu: mtu, offset: nil, sent: false)))
        e.value = InlineBytes([UInt8](repeating: 0xA5, count: bytes).withUnsafeBytes { ByteView($0) })
        return e
    }

    static func connected(_ d: Diagnoser, intervalUnits: UInt16, latency: UInt16 = 0) {
        d.observe(
            event(
                1, 0,
                .connectionComplete(
                    .make(
                        status: 0, handle: 0x40, role: 0,
                        timing: ConnectionTiming(interval: intervalUnits, latency: latency, supervisionTimeout: 400),
                        isLE: true))))
    }

    @Test func theAdviceNamesTheDetectedPlatformOnly() throws {
        for platform in [Platform.android, .apple] {
            let d = Diagnoser(platform: platform)
            Self.connected(d, intervalUnits: 24)
            for k in 0..<20 { d.observe(Self.notification(10 + k, Int64(k) * 30_000, bytes: 20, mtu: 23)) }
            let s = try #require(d.finish().first?.budget?.stretches.first)
            let a = try #require(s.advice)
            #expect(a.setting == "connection_interval")
            #expect((a.android != nil) == (platform == .android))
            #expect((a.coreBluetooth != nil) == (platform == .apple))
        }
    }

    @Test func sparseValuesAreNoBusyStretchAndStretchesAreBounded() throws {
        let d = Diagnoser()
        Self.connected(d, intervalUnits: 24)
        var frame = 10
        var time: Int64 = 0
        // One notification a second: never busy.
        for _ in 0..<30 {
            d.observe(Self.notification(frame, time, bytes: 20))
            frame += 1
            time += 1_000_000
        }
        // 40 bursts of 12 notifications, 2 s apart: 40 stretches, 16 kept.
        for _ in 0..<40 {
            for k in 0..<12 {
                d.observe(Self.notification(frame, time + Int64(k) * 30_000, bytes: 20))
                frame += 1
            }
            time += 2_000_000
        }
        let b = try #require(d.finish().first?.budget)
        #expect(b.stretches.count == Budget.maximumStretches)
        #expect(b.stretchesOmitted == 40 - Budget.maximumStretches)
        #expect(b.stretches.allSatisfy { $0.pdus == 12 && $0.valueBytes == 240 })
    }

    @Test func latencyPercentilesAndTheSlowestExplained() throws {
        let d = Diagnoser()
        Self.connected(d, intervalUnits: 24, latency: 4)
        // 20 reads answered within an interval, one 5 events later (peripheral latency 4), one
        // 20 events later (a slow server).
        var frame = 10
        func read(_ time: Int64, _ latency: Int64) {
            var e = Self.event(
                frame, time,
                .read(.make(opcode: 0x0A, handle: 3, attribute: nil, mtu: 23, offset: nil, sent: true), .read))
            e.outcome = .success(frame: frame + 1, latency: latency)
            d.observe(e)
            frame += 2
        }
        for k in 0..<20 { read(Int64(k) * 1_000_000, 25_000 + Int64(k) * 100) }
        read(30_000_000, 140_000)
        let first = d.finish()
        let l = try #require(first.first?.budget?.latency.first)
        #expect(l.operation == "read" && l.requester == "host" && l.count == 21)
        #expect(l.medianUs == 26_000 && l.maxUs == 140_000 && l.maxFrame == 50)
        #expect(l.p95Us == 26_900)
        #expect(l.slowest.contains("peripheral latency"))

        let slow = Diagnoser()
        Self.connected(slow, intervalUnits: 24)
        var e = Self.event(
            10, 0, .read(.make(opcode: 0x0A, handle: 3, attribute: nil, mtu: 23, offset: nil, sent: true), .read))
        e.outcome = .success(frame: 11, latency: 600_000)
        slow.observe(e)
        let s = try #require(slow.finish().first?.budget?.latency.first)
        #expect(s.slowest.contains("slow server"))
    }
}
