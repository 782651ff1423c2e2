import BLEBytes
import BLEPackets
import BLEReplay
import CaptureIO
import Foundation
import TestSupport
import Testing

/// `CaptureReplay.streamed` (what `blecap replay` runs when only the report is wanted) gives
/// the report `run` gives, while holding only the connections still open.
@Suite struct ReplayStreamingTests {
    static let captures =
        Fixtures.captures(in: "bumble").filter { $0.hasSuffix(".btsnoop") }
        + Fixtures.captures(in: "linklayer").filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng") }
        + [Fixtures.capture("public/pklg-be_ios-sysdiagnose-bafang-ebike.pklg")]

    /// The options `blecap replay` can stream with: realtime, a factor, faults.
    static let variants: [(ReplaySpeed, ReplayFaults)] = [
        (.realtime, .none),
        (.factor(3), ReplayFaults(responseDelayMicros: 7000, timesFromCaptureStart: true)),
        (
            .realtime,
            ReplayFaults(
                dropLinkAtMicros: 2_500_000, serverMTU: 23, errors: [0x0003: 0x02], notificationDropProbability: 0.3,
                seed: 5, timesFromCaptureStart: true)
        ),
    ]

    @Test(arguments: captures)
    func streamedReportIsTheReportOfTheWholeSession(_ path: String) throws {
        let whole = try CaptureReplay(path: path)
        for (speed, faults) in Self.variants {
            let full = whole.run(faults: faults, speed: speed)
            let export = ReplayExport()
            let streamed = CaptureReplay.streamed(
                reader: try CaptureFile.open(path: path), path: path, faults: faults, speed: speed, export: export)
            #expect(streamed.text() == full.text(), "\(Fixtures.relative(path)) at \(speed.description)")
            #expect(streamed.json() == full.json(), "\(Fixtures.relative(path)) at \(speed.description)")
            // The export made as the connections replay is the whole session's.
            var exported: [UInt8] = []
            export.writeBTSnoop { exported += $0 }
            #expect(exported == full.btsnoop(), "\(Fixtures.relative(path)) at \(speed.description)")
        }
        // A selection is applied to the streamed connections too.
        if let n = whole.models.last?.number {
            let streamed = CaptureReplay.streamed(reader: try CaptureFile.open(path: path), path: path, .number(n))
            #expect(streamed.json() == whole.run(.number(n)).json())
        }
    }

    /// At max speed the clock comes from a first pass over the capture; the second, streamed,
    /// gives the report of the whole session at max speed, faults or not.
    @Test(arguments: captures)
    func twoPassMaxSpeedReportIsTheReportOfTheWholeSession(_ path: String) throws {
        let whole = try CaptureReplay(path: path)
        let clock = CaptureReplay.maxSpeedClock(reader: try CaptureFile.open(path: path), path: path)
        for faults in Self.variants.map(\.1) {
            let full = whole.run(faults: faults, speed: .max)
            let export = ReplayExport()
            let streamed = CaptureReplay.streamed(
                reader: try CaptureFile.open(path: path), path: path, faults: faults, speed: .max, clock: clock,
                export: export)
            #expect(streamed.text() == full.text(), "\(Fixtures.relative(path))")
            #expect(streamed.json() == full.json(), "\(Fixtures.relative(path))")
            var exported: [UInt8] = []
            export.writeBTSnoop { exported += $0 }
            #expect(exported == full.btsnoop(), "\(Fixtures.relative(path))")
            // The same clock: every captured instant lands where the whole session's clock puts it.
            for c in whole.session.connections {
                #expect(
                    c.att.indices.allSatisfy { clock.time(c.att.time(at: $0)) == full.clock.time(c.att.time(at: $0)) })
            }
        }
    }

    @Test func eachConnectionIsHandedOverWhenItEndsNotAtTheEndOfTheCapture() throws {
        // Six connections one after another: each must leave memory before the next one ends.
        let path = Fixtures.capture("bumble/reconnect_storm.central.btsnoop")
        let reader = CountingReader(try CaptureFile.open(path: path))
        var handedOver: [(number: Int, endFrame: Int?, readSoFar: Int)] = []
        let session = CapturedSession.stream(reader: reader, path: path) { c, _ in
            handedOver.append((c.number, c.summary.endFrame, reader.count))
        }
        #expect(handedOver.map(\.number) == Array(1...6))
        #expect(session.connections.isEmpty)
        for h in handedOver.dropLast() {
            let end = try #require(h.endFrame)
            // Handed over within a few frames of its Disconnection Complete.
            #expect(h.readSoFar >= end && h.readSoFar < end + 8, "#\(h.number) ended at \(end), out at \(h.readSoFar)")
            #expect(h.readSoFar < session.frames)
        }
        // The same connections, PDU for PDU, as the whole-session reader gives.
        let whole = try CapturedSession(path: path)
        var streamed: [CapturedConnection] = []
        _ = CapturedSession.stream(reader: try CaptureFile.open(path: path), path: path) { c, _ in streamed.append(c) }
        #expect(streamed.map(\.att) == whole.connections.map(\.att))
        #expect(streamed.map { $0.disconnection?.frame } == whole.connections.map { $0.disconnection?.frame })
        #expect(streamed.map { $0.timing?.interval } == whole.connections.map { $0.timing?.interval })
        #expect(streamed.map(\.advertisement) == whole.connections.map(\.advertisement))
    }

    @Test func aFailedDisconnectionDoesNotHandTheConnectionOverEarly() throws {
        // #1 gets a failed Disconnection Complete, then its real one while #2's read is still
        // unanswered (so the timeline holds that event back): #1 must wait for its real one.
        let a = try #require(BDAddr("C0:00:00:00:00:01"))
        let b = try #require(BDAddr("C0:00:00:00:00:02"))
        var w = BTSnoopWriter()
        var t: Int64 = 1_700_000_000_000_000
        func add(_ packet: [UInt8], received: Bool = true) {
            t += 10_000
            w.append(packet, received: received, unixMicros: t)
        }
        for (handle, peer) in [(UInt16(0x40), a), (0x41, b)] {
            add(
                HCISynthesis.leConnectionComplete(
                    status: 0, handle: handle, peerType: 0, peer: peer, interval: 24, latency: 0, timeout: 400))
        }
        add(HCIDisconnectionComplete(status: 0x0C, handle: 0x40, reason: 0x13).h4Encoded())
        for f in HCISynthesis.acl(handle: 0x41, payload: [0x0A, 0x03, 0x00], received: false, fragment: 27) {
            add(f, received: false)
        }
        add(HCISynthesis.disconnectionComplete(handle: 0x40, reason: 0x13))
        for f in HCISynthesis.acl(handle: 0x41, payload: [0x0B, 0x42], received: true, fragment: 27) { add(f) }
        add(HCISynthesis.disconnectionComplete(handle: 0x41, reason: 0x13))
        let path = ReplayFixtures.temporaryCapture(w.take())
        defer { try? FileManager.default.removeItem(atPath: path) }

        let whole = try CapturedSession(path: path)
        var streamed: [CapturedConnection] = []
        _ = CapturedSession.stream(reader: try CaptureFile.open(path: path), path: path) { c, _ in streamed.append(c) }
        #expect(whole.connections.map { $0.disconnection?.frame } == [5, 7])
        #expect(streamed.map { $0.disconnection?.frame } == [5, 7])
        let full = CaptureReplay(session: whole).run()
        #expect(CaptureReplay.streamed(reader: try CaptureFile.open(path: path), path: path).text() == full.text())
    }

    @Test func aSummarisedResultKeepsNoExchangeButEveryCount() throws {
        let path = Fixtures.capture("bumble/hr_short_notification.central.btsnoop")
        let full = try CaptureReplay(path: path).run()
        let streamed = CaptureReplay.streamed(reader: try CaptureFile.open(path: path), path: path)
        let c = try #require(full.connections.first)
        let s = try #require(streamed.connections.first)
        #expect(c.serverInitiatedPDUs > 0 && c.clientPDUs > 0)
        #expect(s.model.connection.att.isEmpty && s.model.steps.isEmpty && s.model.stream.isEmpty)
        #expect(s.replayed.pdus.isEmpty)
        #expect(s.model.connection.summary.remoteDatabase.isEmpty && s.model.connection.advertisement == nil)
        #expect(s.clientPDUs == c.clientPDUs && s.serverInitiatedPDUs == c.serverInitiatedPDUs)
        #expect(s.fidelity.captured == c.model.connection.att.count)
        #expect(s.model.peerServer.attributes == c.model.peerServer.attributes)
    }
}

/// Counts the records read so far.
private final class CountingReader: CaptureReader {
    let base: any CaptureReader
    var count = 0
    init(_ base: any CaptureReader) { self.base = base }
    var format: CaptureFormat { base.format }
    var damage: CaptureDamage? { base.damage }
    func next() -> CaptureRecord? {
        guard let r = base.next() else { return nil }
        count += 1
        return r
    }
}
