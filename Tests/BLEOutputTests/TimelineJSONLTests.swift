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
    /// The host's own advertising (clean_heart_rate.peripheral frames 29–36, the values tshark
    /// shows: properties 0x0013, interval 160 = 100 ms, own address random
    /// D8:0D:18:00:00:01, PHYs 1M, frame 33's 29 octets), in JSONL and in text.
    @Test func advertisingStartInBothFormats() throws {
        let path = try Fixtures.existing("bumble/clean_heart_rate.peripheral.btsnoop")
        var lines: [String] = []
        for jsonl in [true, false] {
            let pass = CapturePass(reader: try CaptureFile.open(path: path), name: path)
            let out = OutputBuffer(fd: nil)
            pass.run(JSONLConsumer(writer: TimelineWriter(out: out, jsonl: jsonl)))
            let text = String(decoding: out.bytes, as: UTF8.self).split(separator: "\n")
            lines += text.filter { $0.contains("advertising.start") }.map(String.init)
        }
        #expect(lines.count == 2)
        let jsonl: [String] = [
            #"{"frame":35,"time":"2026-11-22T11:30:37.114779Z","elapsed":0.310375,"type":"advertising.start","#,
            #""extended":true,"handle":0,"event_properties":19,"connectable":true,"scannable":true,"#,
            #""interval_min_ms":100,"interval_max_ms":100,"own_address_type":1,"#,
            #""random_address":"D8:0D:18:00:00:01","primary_phy":1,"secondary_phy":1,"parameters_set":true,"#,
            #""local_name":"PulseBelt HR","service_uuids":["180D","180F","180A"],"appearance":833,"#,
            #""data_length":29,"scan_response_length":0,"#,
            #""data":"02010607030d180f180a18031941030d0950756c736542656c74204852","scan_response":"","#,
            #""outcome":"success","response_frame":36,"latency_us":186}"#,
        ]
        #expect(lines.first == jsonl.joined())
        let text: [String] = [
            "advertising.start               extended=true handle=0 event_properties=0x0013 connectable=true ",
            "scannable=true interval_min_ms=100 interval_max_ms=100 own_address_type=1 ",
            "random_address=D8:0D:18:00:00:01 primary_phy=1 secondary_phy=1 parameters_set=true ",
            #"local_name="PulseBelt HR" service_uuids=180D,180F,180A appearance=0x0341 data_length=29 "#,
            "scan_response_length=0 outcome=success response_frame=36 latency_ms=0.186",
        ]
        #expect(lines.last?.hasSuffix(text.joined()) == true)
    }
}
