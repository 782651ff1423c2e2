import BLEReplay

// Types the BLEReplay product hands out, named with its import alone.
public func uses(_ report: ReplayReport, _ pdu: CapturedATTPDU, _ event: TimelineEvent, _ address: BDAddr)
    -> CapturedATTPDU
{
    pdu
}
