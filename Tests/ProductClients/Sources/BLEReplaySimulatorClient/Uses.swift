import BLEReplaySimulator

// Types the BLEReplaySimulator product hands out, named with its import alone.
public func uses(_ peer: ReplayedPeer, _ report: ReplayReport, _ peripheral: SimulatedPeripheral, _ address: BDAddr)
    -> BDAddr
{
    address
}
