import BLEOutput
import BLEPass
import BLETimeline
import CaptureIO
import Foundation
import TestSupport
import Testing

/// The timeline's JSONL contract (docs/jsonl.md) written by the library alone: a capture pass
/// and `TimelineWriter` into an in-memory `OutputBuffer`, no command in between.
@Suite struct TimelineJSONLTests {
    /// Writes each event as the pass finalises it, times counted from the first record.
    final class JSONLConsumer: CaptureConsumer {
        let writer: TimelineWriter
        var events: [TimelineEvent] = []
        var summaries = SummaryLines()
        var last: (frame: Int, time: Int64)?

        init(writer: TimelineWriter) { self.writer = writer }

        var observes: CaptureObservations { [.records, .events, .connections] }
        func begin(_ pass: CapturePass) { writer.scanFilterTables = pass.scanFilterTables }
        func record(_ record: CaptureRecord) {
            if writer.base == nil { writer.base = record.timestamp }
            last = (record.frame, record.timestamp)
        }
        func event(_ event: TimelineEvent) {
            events.append(event)
            writer.write(event)
        }
        func connectionEnded(_ summary: ConnectionSummary) { summaries.add(summary) }
    }

    @Test func aCaptureBecomesOneJSONObjectPerEventThroughTheLibrary() throws {
        let path = try Fixtures.existing("bumble/clean_heart_rate.central.btsnoop")
        let pass = CapturePass(reader: try CaptureFile.open(path: path), name: path)
        let out = OutputBuffer(fd: nil)
        let consumer = JSONLConsumer(writer: TimelineWriter(out: out, jsonl: true))
        pass.run(consumer)
        let last = try #require(consumer.last)
        consumer.summaries.write(to: consumer.writer, frame: last.frame, time: last.time)

        let lines = String(decoding: out.bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "")
        let objects = try lines.dropLast().map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        // One line per event, in the pass's order, then the one connection's summary.
        #expect(objects.count == consumer.events.count + 1)
        for (object, event) in zip(objects, consumer.events) {
            #expect(object["type"] as? String == event.type.description)
            #expect(object["frame"] as? Int == event.frame)
        }
        #expect(objects.last?["type"] as? String == "connection.summary")
        // The contract's bytes, as `blecap timeline --format jsonl` writes this capture's first event.
        #expect(
            lines.first
                == #"{"frame":1,"time":"2026-11-22T11:30:36.801343Z","elapsed":0.000000,"type":"controller.reset","outcome":"success","response_frame":2,"latency_us":338}"#
        )
    }
}
