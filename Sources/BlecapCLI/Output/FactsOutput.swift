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
