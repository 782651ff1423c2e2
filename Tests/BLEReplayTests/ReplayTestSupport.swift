import BLEBytes
import BLEPackets
import BLETimeline
import CaptureIO
import Foundation
import TestSupport
import Testing

@testable import BLEReplay

/// Helpers shared by the replay tests: captures from captures/, and a replayed session
/// decoded back through the same reader, decoder and timeline builder as any capture.
enum ReplayFixtures {
    static func bumble(_ name: String) -> String { Fixtures.capture("bumble/\(name).btsnoop") }

    /// Writes `bytes` to a temporary file and returns its path.
    static func temporaryCapture(_ bytes: [UInt8], name: String = #function) -> String {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("blecap-replay-test-\(safe)-\(getpid())-\(UUID().uuidString).btsnoop").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    /// The timeline events of a replayed session's btsnoop export.
    static func timeline(of report: ReplayReport, name: String = #function) throws -> [TimelineEvent] {
        let path = temporaryCapture(report.btsnoop(), name: name)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try CaptureFile.open(path: path)
        var events: [TimelineEvent] = []
        let builder = TimelineBuilder(emit: { events.append($0) })
        let decoder = FrameDecoder()
        while let r = reader.next() { builder.feed(decoder.decode(r)) }
        builder.finish()
        expectNoDamage(reader)
        return events
    }

    /// Replays `path` whole and streamed, at `speed` with `faults`, and expects the same JSON and
    /// the same export; the export's runs are 64 KiB, so it is merged from many spooled runs.
    /// Returns the whole replay.
    static func expectStreamedAsWhole(
        _ whole: CaptureReplay, path: String, speed: ReplaySpeed, faults: ReplayFaults, clock: ReplayClock,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ReplayReport {
        let full = whole.run(faults: faults, speed: speed)
        let export = ReplayExport(notes: false, runBytes: 64 << 10)
        let streamed = CaptureReplay.streamed(
            reader: try CaptureFile.open(path: path), path: path, faults: faults, speed: speed,
            clock: speed == .max ? clock : nil, export: export)
        #expect(streamed.json() == full.json(), "\(speed.description)", sourceLocation: sourceLocation)
        var bytes: [UInt8] = []
        export.writeBTSnoop { bytes += $0 }
        #expect(bytes == full.btsnoop(), "\(speed.description)", sourceLocation: sourceLocation)
        return full
    }

    /// The export read back as a captured session (ATT exchange per connection).
    static func session(of report: ReplayReport, name: String = #function) throws -> CapturedSession {
        let path = temporaryCapture(report.btsnoop(), name: name)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try CapturedSession(path: path)
    }
}

/// A btsnoop of one LE connection on handle 0x0040, written PDU by PDU: for the spool tests,
/// which need more traffic than a corpus capture holds.
struct SyntheticConnection {
    private var writer = BTSnoopWriter()
    private var time: Int64 = 1_700_000_000_000_000

    /// Starts with the LE Connection Complete of `peer`.
    init(peer: BDAddr) {
        add(
            HCISynthesis.leConnectionComplete(
                status: 0, handle: 0x40, peerType: 0, peer: peer, interval: 24, latency: 0, timeout: 400))
    }

    /// An HCI packet `after` µs after the previous one.
    mutating func add(_ packet: [UInt8], received: Bool = true, after: Int64 = 1000) {
        time += after
        writer.append(packet, received: received, unixMicros: time)
    }

    /// An ATT PDU in ACL fragments of 27 bytes, sent by this host or received from the peer.
    mutating func att(_ pdu: [UInt8], sent: Bool, after: Int64 = 1000) {
        for f in HCISynthesis.acl(handle: 0x40, payload: pdu, received: !sent, fragment: 27) {
            add(f, received: !sent, after: after)
        }
    }

    /// Ends the connection (remote user terminated) and returns the file's bytes.
    mutating func disconnect() -> [UInt8] {
        add(HCISynthesis.disconnectionComplete(handle: 0x40, reason: 0x13))
        return writer.take()
    }
}

/// The export must never be damaged (it is written by blecap itself).
func expectNoDamage(_ reader: any CaptureReader, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(reader.damage == nil, sourceLocation: sourceLocation)
}
