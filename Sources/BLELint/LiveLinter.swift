import BLEPackets
import BLEPass
import BLETimeline
import CaptureIO

/// Lints a session as it happens (`blecap watch`): the same consumer of a `CapturePass` as
/// `CaptureLinter`'s — the rules see the timeline's events and each frame's HCI facts — handing
/// out each timeline event as it becomes final and each finding as its rule reports it, after
/// the record that made it known. Findings that need the end of something (a scan left running,
/// a link lost without reconnect) come when that end is seen, or at the end of the pass.
///
/// Memory is the timeline's and the rules' bounded state: nothing is kept per record.
public final class LiveLinter: CaptureConsumer {
    let engine: LintEngine
    var facts = FactExtractor()
    /// Findings of the sink already handed out.
    var delivered = 0
    let onEvent: (TimelineEvent) -> Void
    let onFinding: (Finding) -> Void
    let onConnectionEnded: (ConnectionSummary) -> Void
    /// The whole run's findings (fingerprinted, in frame order), the rules that could not be
    /// evaluated and the capture's facts, once the pass has ended.
    public private(set) var result: (findings: [Finding], notEvaluated: [NotEvaluated], facts: CaptureFacts)?

    public init(
        configuration: LintConfiguration = LintConfiguration(), onEvent: @escaping (TimelineEvent) -> Void,
        onFinding: @escaping (Finding) -> Void, onConnectionEnded: @escaping (ConnectionSummary) -> Void = { _ in }
    ) {
        engine = LintEngine(configuration: configuration)
        self.onEvent = onEvent
        self.onFinding = onFinding
        self.onConnectionEnded = onConnectionEnded
        facts.platform.force(engine)  // `--platform`: the rules hear it at the first frame
    }

    /// Records seen so far.
    public var frames: Int { engine.facts.frames }

    public var observes: CaptureObservations { [.frames, .framesAfterTimeline, .events, .connections] }

    public func begin(_ pass: CapturePass) { engine.scanFilterTables = pass.scanFilterTables }

    public func frame(_ frame: DecodedFrame) { engine.facts.count(frame.record) }

    public func event(_ event: TimelineEvent) {
        engine.observe(event)
        onEvent(event)
    }

    public func connectionEnded(_ summary: ConnectionSummary) { onConnectionEnded(summary) }

    public func frameAfterTimeline(_ frame: DecodedFrame) {
        facts.extract(frame, engine)
        deliver()
    }

    func deliver() {
        let all = engine.findingsSoFar
        while delivered < all.count {
            onFinding(all[delivered])
            delivered += 1
        }
    }

    /// The session ended: what was still pending became final (the timeline's end), rules
    /// that wait for the end report.
    public func finish(_ pass: CapturePass) {
        deliver()
        let result = engine.finish()
        // Rules that wait for the end of the input report in `engine.finish()`.
        deliver()
        self.result = (result.findings, result.notEvaluated, engine.facts)
    }
}
