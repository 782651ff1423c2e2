import BLEBytes
import BLETimeline

/// A connection's facts (`ConnectionFacts`) as every command writes them: one rendering of
/// one record, so `info`, `gatt`, `timeline`, `lint` and `report` cannot state them apart.
extension OutputBuffer {
    /// `,"facts":{…}`.
    func jsonFacts(_ f: ConnectionFacts) {
        jsonNextKey("facts")
        string(Self.factsJSON(f))
    }

    static func factsJSON(_ f: ConnectionFacts) -> String {
        // Ints, strings and Bools only: nothing the encoder can refuse.
        (try? JSONDocumentEncoder(style: .compact).encode(f)) ?? "{}"
    }
}

extension CaptureStatistics {
    func writeFacts(_ f: ConnectionFacts, to out: OutputBuffer) { out.jsonFacts(f) }
}

/// The `connection.summary` lines `timeline` and `watch` write after the last event: each
/// connection's facts as it ends (not its databases), at most
/// `TimelineStatistics.maximumConnections` of them, as `info` lists, so a capture of a million
/// connections keeps the timeline's memory bounded.
public struct SummaryLines {
    private var lines: [(facts: ConnectionFacts, peer: BDAddr?, peerAddressType: UInt8?)] = []

    public init() {}

    /// Keeps an ended connection's facts (a `CaptureConsumer`'s `connectionEnded`).
    public mutating func add(_ s: ConnectionSummary) {
        guard lines.count < TimelineStatistics.maximumConnections else { return }
        lines.append((s.facts, s.peer, s.peerAddressType))
    }

    /// The summary lines, by connection number, stamped with the last record's frame and time.
    public func write(to writer: TimelineWriter, frame: Int, time: Int64) {
        for l in lines.sorted(by: { $0.facts.connection < $1.facts.connection }) {
            writer.writeSummary(l.facts, peer: l.peer, peerAddressType: l.peerAddressType, frame: frame, time: time)
        }
    }
}
