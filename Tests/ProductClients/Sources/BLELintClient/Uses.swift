import BLELint

// Types the BLELint product hands out, named with its import alone.
public func uses(_ finding: Finding, _ facts: CaptureFacts, _ event: TimelineEvent, _ address: BDAddr) -> String {
    finding.message
}
