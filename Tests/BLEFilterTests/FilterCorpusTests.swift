import BLEFilter
import BLEPackets
import BLEPass
import BLETimeline
import CaptureIO
import Foundation
import TestSupport
import Testing

/// One expression of Corpus/filter-corpus.json: a capture in captures/, a blecap filter, the
/// tshark display filter that means the same, and the frames tshark gave for it (recorded by
/// scripts/filter_corpus.py --record; the conformance check 'filter corpus' re-runs tshark).
struct CorpusEntry: Decodable, CustomTestStringConvertible {
    var capture: String
    var command: String?
    var blecap: String
    var tshark: String
    var frames: [Int]
    var testDescription: String { "\(capture): \(blecap)" }
}

struct Corpus: Decodable {
    var entries: [CorpusEntry]

    static func load() throws -> [CorpusEntry] {
        let url = Fixtures.repositoryRoot.appendingPathComponent("Tests/BLEFilterTests/Corpus/filter-corpus.json")
        return try JSONDecoder().decode(Corpus.self, from: Data(contentsOf: url)).entries
    }
}

/// The frames a filter keeps, as `packets` (frames) or `timeline` (events' frames) keeps them.
final class Matches: CaptureConsumer {
    let filter: Filter
    let events: Bool
    var frames: [Int] = []
    /// The peers of open handles, as `packets` keeps them (the `peer` field reads it).
    let peers = ConnectionPeers()

    init(filter: Filter, events: Bool) {
        self.filter = filter
        self.events = events
    }

    var observes: CaptureObservations { events ? .events : .frames }
    func frame(_ frame: DecodedFrame) {
        peers.observe(frame)
        if filter.matches(PacketSubject(frame, peers: peers)) { frames.append(frame.record.frame) }
    }
    func event(_ event: TimelineEvent) {
        if filter.matches(event), frames.last != event.frame { frames.append(event.frame) }
    }
}

@Suite struct FilterCorpusTests {
    @Test func corpusCoversTheLanguage() throws {
        let entries = try Corpus.load()
        #expect(entries.count >= 15)
        let text = entries.map(\.blecap).joined(separator: " ")
        for op in ["==", "!=", "<", "<=", ">", ">=", " in {", "..", "~", "&&", "||", "!", "("] {
            #expect(text.contains(op), "no corpus expression uses \(op)")
        }
        for field in ["att.", "hci.event", "conn", "frame in", "ll.", "smp.", "uuid", "peer =="] {
            #expect(text.contains(field), "no corpus expression uses \(field)")
        }
        #expect(entries.allSatisfy { !$0.frames.isEmpty }, "an entry that matches nothing proves little")
    }

    @Test(arguments: try Corpus.load())
    func blecapMatchesTsharksFrames(_ entry: CorpusEntry) throws {
        let events = entry.command == "timeline"
        let filter = try Filter(entry.blecap, fields: events ? EventField.table : PacketField.table)
        let path = try Fixtures.existing(entry.capture)
        let pass = CapturePass(reader: try CaptureFile.open(path: path), name: path)
        let matches = Matches(filter: filter, events: events)
        pass.run(matches)
        #expect(matches.frames == entry.frames, "tshark -Y '\(entry.tshark)'")
    }
}
