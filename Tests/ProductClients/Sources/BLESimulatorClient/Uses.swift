import BLESimulator

// Types the BLESimulator product hands out, named with its import alone.
public func uses(_ peripheral: SimulatedPeripheral, _ address: BDAddr, _ event: TimelineEvent) -> BDAddr { address }
