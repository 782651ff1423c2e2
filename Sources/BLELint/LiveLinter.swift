import BLEPackets
import BLETimeline
import CaptureIO

/// Lints a session as it happens (`blecap watch`): the same pass as `CaptureLinter` — records
/// → frames → timeline → rules — fed one record at a time, handing out each timeline event as
/// it becomes final and each finding as its rule reports it. Findings that need the end of
/// something (a scan left running, a link lost without reconnect) come when that end is seen,
/// or from `finish()`.
///
/// Memory is the timeline's and the rules' bounded state: nothing is kept per record.
public final class LiveLinter {
    let engine: LintEngine
    let decoder: FrameDecoder
    var builder: TimelineBuilder!
    var facts = FactExtractor()
    /// Findings of the sink already handed out.
    var delivered = 0
    let onEvent: (TimelineEvent) -> Void
    let onFinding: (Finding) -> Void

    public init(
        configuration: LintConfiguration = LintConfiguration(), onEvent: @escaping (TimelineEvent) -> Void,
        onFinding: @escaping (Finding) -> Void, onConnectionEnded: @escaping (ConnectionSummary) -> Void = { _ in }
    ) {
        engine = LintEngine(configuration: configuration)
        decoder = FrameDecoder(keys: configuration.linkLayerKeys)
        self.onEvent = onEvent
        self.onFinding = onFinding
        builder = TimelineBuilder(
            emit: { [unowned self] e in
                self.engine.observe(e)
                self.onEvent(e)
            }, connectionEnded: onConnectionEnded)
        engine.scanFilterTables = builder.scanFilterTables
        facts.platform.force(engine)  // `--platform`: the rules hear it at the first frame
    }

    /// Where the tables of the `scan.filters` events handed to `onEvent` are looked up.
    public var scanFilterTables: ScanFilterTables { builder.scanFilterTables }

    /// Records seen so far.
    public var frames: Int { engine.facts.frames }

    public func feed(_ record: CaptureRecord) {
        let frame = decoder.decode(record)
        engine.facts.count(record)
        builder.feed(frame)
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

    /// The session ended: what was still pending becomes final, rules that wait for the end
    /// report. Returns the whole run's findings (fingerprinted, in frame order) and the rules
    /// that could not be evaluated.
    public func finish() -> (findings: [Finding], notEvaluated: [NotEvaluated], facts: CaptureFacts) {
        builder.finish()
        deliver()
        let result = engine.finish()
        // Rules that wait for the end of the input report in `engine.finish()`.
        deliver()
        return (result.findings, result.notEvaluated, engine.facts)
    }
}
