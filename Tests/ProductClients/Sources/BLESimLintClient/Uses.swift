import BLESimLint

// Types the BLESimLint product hands out, named with its import alone.
public func uses(_ finding: Finding, _ peripheral: SimulatedPeripheral, _ address: BDAddr) -> String { finding.slug }
