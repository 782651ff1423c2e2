import BLEDiagnose
import BLELint
import BLETimeline
import CaptureArchive
import CaptureIO

/// The command a batch runs, which decides what each capture's analysis computes.
public enum BatchCommand: String, Sendable {
    case lint, diagnose, info
}

/// What the lint engine and the diagnoser need, as the command's options set them.
public struct AnalysisOptions {
    public var command: BatchCommand
    public var configuration: LintConfiguration
    public var baseline: Baseline
    /// lint: the lowest severity that makes a capture's class `findings`; nil never.
    public var failOn: Severity?
    /// lint: the diagnoser also observes the lint pass, so one reading of a capture gives both
    /// its findings and its verdicts (what `lint` then `diagnose` give, at one decode's cost).
    public var alsoDiagnose: Bool

    public init(
        command: BatchCommand, configuration: LintConfiguration = LintConfiguration(), baseline: Baseline = Baseline(),
        failOn: Severity? = nil, alsoDiagnose: Bool = false
    ) {
        self.command = command
        self.configuration = configuration
        self.baseline = baseline
        self.failOn = failOn
        self.alsoDiagnose = alsoDiagnose
    }

    /// Whether the pass runs the diagnoser.
    var diagnoses: Bool { command == .diagnose || (command == .lint && alsoDiagnose) }
}

/// One capture's result: the lint pass's report (with no rule enabled for diagnose and info:
/// its facts and connections), the verdicts (diagnose), the first and last record times, and
/// what the first controller initialisation in the capture said of the controller.
public struct CaptureAnalysis {
    public var report: CaptureReport
    public var verdicts: [Verdict]?
    public var firstTime: Int64?
    public var lastTime: Int64?
    public var controller: ControllerInfo?

    /// Seconds from the first record to the last (nil without two records' times).
    public var duration: Double? {
        guard let a = firstTime, let b = lastTime, b >= a else { return nil }
        return Double(b - a) / 1e6
    }

    /// Analyses one capture of an opened input, in one pass (lint's, the diagnoser observing
    /// it), the same whatever else the batch holds.
    public static func run(_ member: CaptureMember, in bundle: CaptureBundle, options: AnalysisOptions)
        -> CaptureAnalysis
    {
        var configuration = options.configuration
        if options.command != .lint {
            for d in RuleRegistry.descriptors { configuration.overrides[d.id] = .init(enabled: false) }
        }
        let diagnoser = options.diagnoses ? Diagnoser() : nil
        final class Seen {
            var first: Int64?
            var last: Int64?
            var controller: ControllerInfo?
        }
        let seen = Seen()
        let observer = LintPassObserver(
            frame: { f in
                if seen.first == nil { seen.first = f.record.timestamp }
                seen.last = f.record.timestamp
            },
            event: { e in
                if seen.controller == nil, case .initComplete(let info) = e.kind { seen.controller = info }
                diagnoser?.observe(e)
            }, connectionEnded: { diagnoser?.connectionEnded($0) })
        var report: CaptureReport
        if bundle.container == nil, member.name == nil, bundle.path != "-", member.isRereadable {
            // A plain file by path, as `lint` reads it (a simulator trace is told apart there).
            report = CaptureLinter.lint(
                path: bundle.path, configuration: configuration, baseline: options.baseline, observer: observer)
        } else {
            do {
                report = CaptureLinter.lint(
                    reader: try member.makeReader(), name: member.displayName,
                    reopen: member.isRereadable ? { try? member.makeReader() } : nil, configuration: configuration,
                    baseline: options.baseline, observer: observer)
            } catch {
                report = CaptureReport(path: member.displayName)
                report.error = error.description
            }
        }
        if let d = member.damage ?? bundle.damage { report.damage = report.damage.map { "\($0); \(d)" } ?? d }
        var verdicts: [Verdict]?
        if let diagnoser, report.error == nil {
            diagnoser.platform = report.facts.platform.platform
            verdicts = diagnoser.finish()
        }
        return CaptureAnalysis(
            report: report, verdicts: verdicts, firstTime: seen.first, lastTime: seen.last, controller: seen.controller)
    }

    /// The capture's exit class: unreadable, damaged, findings at `failOn` (lint), or ok.
    public func exitClass(failOn: Severity?) -> ExitClass {
        if report.error != nil { return .unreadable }
        if report.damage != nil { return .damaged }
        if !report.failing(at: failOn).isEmpty { return .findings }
        return .ok
    }
}
