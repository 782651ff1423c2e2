import BLELint
import BLESimulator
import BLETimeline
import Foundation

/// Lints a simulated session: the bridge from `BLESimulator` to `BLELint`.
///
/// Data flows one way, simulator → lint: the trace is rendered to its JSONL
/// (docs/simulator-trace.md) and read by `SimulatorTraceReader`, the same path
/// `blecap lint trace.jsonl` takes, so a test and the command line see the same findings.
/// Neither BLELint nor BLESimulator depends on the other; this module depends on both.
///
/// Both modules have a type named `APICall` (the simulator's recording and the linter's
/// input); code that imports both spells them `BLESimulator.APICall` and `BLELint.APICall`.
extension SimulatorTrace {
    /// The findings of `configuration`'s rules on this trace's API calls (evidence "API
    /// trace"). `report.frames` counts the trace's records.
    public func lint(
        configuration: LintConfiguration = LintConfiguration(), baseline: Baseline = Baseline(),
        name: String = "<simulator trace>"
    ) -> CaptureReport {
        SimulatorTraceReader.lint(jsonl: jsonl(), path: name, configuration: configuration, baseline: baseline)
    }

    /// The API calls as the linter receives them, in trace order: each record through the
    /// shared `SimulatorTraceLine`, as the JSONL reader decodes it (no text in between, nothing
    /// that could fail).
    public var lintCalls: [BLELint.APICall] {
        records.compactMap { r in
            guard case .api(let a) = r.entry else { return nil }
            return SimulatorTraceReader.apiCall(sequence: r.sequence, time: r.time, a.traceCall)
        }
    }
}
