import BLEFilter
import BLELint
import CaptureIO
import Dispatch
import FoundationEssentials
import Synchronization

/// Builds the report model of captures: one streaming pass per capture, which both lints it
/// (the same findings as `blecap lint` with the same configuration) and aggregates the model.
public enum SessionReportBuilder {
    /// The model and the lint report of one capture.
    public static func build(
        path: String, configuration: LintConfiguration = LintConfiguration(),
        baseline: Baseline = Baseline(), scope: Filter? = nil, scopeText: String? = nil
    ) -> (model: SessionReportModel, report: CaptureReport) {
        let aggregator = SessionAggregator(path: path, scope: scope, describe: scopeText)
        let report = CaptureLinter.lint(
            path: path, configuration: configuration, baseline: baseline,
            observer: aggregator.observer)
        return (aggregator.finish(report), report)
    }

    /// The model and the lint report of an opened capture that reports name `name` (an archive
    /// member); `reopen` gives a fresh reader for locating evidence frames, when there is one.
    public static func build(
        reader: any CaptureReader, name: String, reopen: (() -> (any CaptureReader)?)?,
        configuration: LintConfiguration = LintConfiguration(), baseline: Baseline = Baseline(),
        scope: Filter? = nil, scopeText: String? = nil
    ) -> (model: SessionReportModel, report: CaptureReport) {
        let aggregator = SessionAggregator(path: name, scope: scope, describe: scopeText)
        let report = CaptureLinter.lint(
            reader: reader, name: name, reopen: reopen, configuration: configuration, baseline: baseline,
            observer: aggregator.observer)
        return (aggregator.finish(report), report)
    }

    /// Several captures on all cores; results in the order of `paths`.
    public static func build(
        paths: [String], configuration: LintConfiguration = LintConfiguration(),
        baseline: Baseline = Baseline()
    ) -> [(model: SessionReportModel, report: CaptureReport)] {
        let slots = Slots(count: paths.count)
        DispatchQueue.concurrentPerform(iterations: paths.count) { i in
            let start = DispatchTime.now().uptimeNanoseconds
            var r = build(path: paths[i], configuration: configuration, baseline: baseline)
            r.report.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            slots.set(i, r)
        }
        return slots.all
    }

    final class Slots: @unchecked Sendable {
        private var slots: [(model: SessionReportModel, report: CaptureReport)?]
        private let lock = Mutex(())
        init(count: Int) { slots = Array(repeating: nil, count: count) }
        func set(_ i: Int, _ r: (model: SessionReportModel, report: CaptureReport)) {
            lock.withLock { _ in slots[i] = r }
        }
        var all: [(model: SessionReportModel, report: CaptureReport)] { lock.withLock { _ in slots.compactMap { $0 } } }
    }
}
