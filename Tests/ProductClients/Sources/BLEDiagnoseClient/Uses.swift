import BLEDiagnose

// Types the BLEDiagnose product hands out, named with its import alone.
public func uses(_ diagnoser: Diagnoser, _ event: TimelineEvent, _ summary: ConnectionSummary) -> [Verdict] {
    diagnoser.observe(event)
    diagnoser.connectionEnded(summary)
    return diagnoser.finish()
}

public func budget(_ verdict: Verdict, _ platform: Platform) -> (Budget?, [Budget.Stretch], [Budget.Latency]) {
    (verdict.budget, verdict.budget?.stretches ?? [], verdict.budget?.latency ?? [])
}
