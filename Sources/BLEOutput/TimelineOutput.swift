import BLEFilter
import BLEPass
import BLETimeline
import CaptureIO

extension TimelineWriter {
    /// `blecap timeline`'s pass: the events `filter` keeps (nil: every one) written as they
    /// become final, then each connection's `connection.summary` line (those it keeps), stamped
    /// with the last record's frame and time; returns how many events and summaries it kept.
    /// The pass runs here, beside its consumer, so that the loop `run` specialises for it calls
    /// the consumer's hooks directly (from another module they were calls through witness
    /// thunks: docs/performance.md).
    package func writeTimeline(of pass: CapturePass, filter: Filter?) -> Int {
        let timeline = TimelineOutput(writer: self, filter: filter)
        pass.run(timeline)
        if let last = timeline.last {
            timeline.summaries.write(to: self, frame: last.frame, time: last.time)
        }
        return timeline.matched
    }
}

/// `timeline`'s consumer of the capture pass: the events that pass the filters, written as
/// they become final; each connection's facts kept for `connection.summary` lines after the
/// last event. Unchecked: the pass calls back from one thread, never re-entrantly.
final class TimelineOutput: CaptureConsumer {
    let writer: TimelineWriter
    /// nil: every event, with no test per event.
    let filter: Filter?
    @exclusivity(unchecked) var summaries = SummaryLines()
    /// The last record's frame and time: where the summary lines are stamped.
    @exclusivity(unchecked) var last: (frame: Int, time: Int64)?
    /// The time base is set: checked per record here rather than `writer.base`, whose read
    /// from the pass's loop is an exclusivity check per record.
    @exclusivity(unchecked) var started = false

    init(writer: TimelineWriter, filter: Filter?) {
        self.writer = writer
        self.filter = filter
    }

    var observes: CaptureObservations { [.records, .events, .connections] }
    func begin(_ pass: CapturePass) { writer.scanFilterTables = pass.scanFilterTables }

    func record(_ record: CaptureRecord) {
        if !started {
            started = true
            writer.base = record.timestamp
        }
        last = (record.frame, record.timestamp)
    }

    /// Events and summaries that passed the filters.
    @exclusivity(unchecked) var matched = 0

    func event(_ event: TimelineEvent) {
        if let filter, !filter.matches(event) { return }
        matched += 1
        writer.write(event)
    }

    func connectionEnded(_ summary: ConnectionSummary) {
        if let filter, !filter.matches(SummarySubject(summary)) { return }
        matched += 1
        summaries.add(summary)
    }
}
