import BLEDiagnose
import BLEFilter
import BLELint
import BLEPass
import BLETimeline
import CaptureIO

/// `blecap watch`'s one pass over a live source: the linter, a live diagnoser and the session
/// share it, and each line goes out the moment it is known (timeline events that `filter`
/// keeps, findings, verdicts); at the end each connection's summary (those it keeps), then, in
/// text, the rules not evaluated and the summary line, as `lint` words them.
package struct WatchPass {
    package var configuration: LintConfiguration
    package var jsonl: Bool
    package var paint: Paint
    /// `--write`'s recorder, closed when the pass ends.
    package var saved: WatchRecorder?
    /// `-Y` and its shortcuts, over the timeline's events and summaries; nil: all of them.
    package var filter: Filter?
    /// Ctrl-C: checked after each record.
    package var shouldStop: () -> Bool

    package init(
        configuration: LintConfiguration, jsonl: Bool, paint: Paint, saved: WatchRecorder?, filter: Filter?,
        shouldStop: @escaping () -> Bool
    ) {
        self.configuration = configuration
        self.jsonl = jsonl
        self.paint = paint
        self.saved = saved
        self.filter = filter
        self.shouldStop = shouldStop
    }

    /// What the watch saw: its lint report (frames, findings, time taken, damage) and how many
    /// events and summaries the filters kept.
    package struct Outcome {
        package var report: CaptureReport
        package var matched: Int
    }

    /// Reads `reader` to its end (or Ctrl-C) writing to `out`; the pass's notes (the `--ltk`
    /// keys that matched no link) go to `note` once the lines are out, before the summary line.
    package func run(
        _ reader: any CaptureReader, name: String, to out: OutputBuffer, started: ContinuousClock.Instant,
        note: (String) -> Void
    ) -> Outcome {
        let timeline = TimelineWriter(out: out, jsonl: jsonl)
        timeline.color = paint.on
        var matched = 0
        // Each connection's facts, written as `connection.summary` lines at the end, as
        // `timeline` does.
        var summaries = SummaryLines()
        let linter = LiveLinter(
            configuration: configuration,
            onEvent: { e in
                if let filter, !filter.matches(e) { return }
                matched += 1
                timeline.write(e)
            },
            onFinding: { f in
                out.string(jsonl ? WatchFinding(f).jsonLine : WatchFinding.text(f, paint))
                out.flush()
            },
            onConnectionEnded: { s in
                if let filter, !filter.matches(SummarySubject(s)) { return }
                matched += 1
                summaries.add(s)
            })
        let diagnoser = Diagnoser(onVerdict: { v in
            out.string(jsonl ? WatchVerdict.jsonLine(v, file: name) : WatchVerdict.text(v, paint))
            out.flush()
        })
        let session = WatchSession(timeline: timeline, saved: saved, shouldStop: shouldStop)
        let pass = CapturePass(reader: reader, name: name, keys: configuration.linkLayerKeys)
        // The linter first: a record's findings are out before the session flushes them; the
        // diagnoser after it, so that a verdict follows the connection's end on the timeline.
        pass.run([linter, diagnoser, session])
        let result = linter.result!
        if let last = session.last {
            summaries.write(to: timeline, frame: last.frame, time: last.time)
        }
        out.flush()
        session.saved?.close()
        for n in pass.notes { note(n) }
        var report = CaptureReport(path: name)
        report.format = "\(reader.format)"
        report.frames = result.facts.frames
        report.facts = result.facts
        report.findings = result.findings
        report.notEvaluated = result.notEvaluated
        let elapsed = (ContinuousClock.now - started).components
        report.seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        if let d = reader.damage { report.damage = d.description }
        if !jsonl {
            for n in report.notEvaluated {
                out.string("not evaluated: \(n.ruleID) \(n.slug)\(n.whole ? "" : " (in part)"): \(n.reason)\n")
            }
            out.string(SummaryLine.render(report) + "\n")
        }
        out.flush()
        return Outcome(report: report, matched: matched)
    }
}

/// `watch`'s own consumer of the capture pass: the time base and last frame of the timeline's
/// lines, the records saved by `--write`, the output flushed after each record (once the
/// linter's findings are out); it stops the pass on Ctrl-C or when the reader of the output
/// went away.
final class WatchSession: CaptureConsumer {
    let timeline: TimelineWriter
    var saved: WatchRecorder?
    var last: (frame: Int, time: Int64)?
    let shouldStop: () -> Bool

    init(timeline: TimelineWriter, saved: WatchRecorder?, shouldStop: @escaping () -> Bool) {
        self.timeline = timeline
        self.saved = saved
        self.shouldStop = shouldStop
    }

    var observes: CaptureObservations { [.records, .framesAfterTimeline] }
    func begin(_ pass: CapturePass) { timeline.scanFilterTables = pass.scanFilterTables }

    func record(_ record: CaptureRecord) {
        if timeline.base == nil { timeline.base = record.timestamp }
        last = (record.frame, record.timestamp)
        saved?.append(record)
    }

    func frameAfterTimeline(_ frame: DecodedFrame) { timeline.out.flush() }

    var isDone: Bool { shouldStop() }
}
