import BLESimulator

// Types the BLESimulator product hands out, named with its import alone (replay into the
// simulator's among them: a replayed peer, its report).
public func uses(
    _ peripheral: SimulatedPeripheral, _ address: BDAddr, _ event: TimelineEvent, _ peer: ReplayedPeer,
    _ report: ReplayReport
) -> BDAddr { address }
