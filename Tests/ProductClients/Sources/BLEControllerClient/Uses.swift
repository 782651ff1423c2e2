import BLEController

// Types the BLEController product hands out, named with its import alone.
public func uses(_ controller: VirtualController, _ report: ReplayReport, _ record: CaptureRecord, _ address: BDAddr)
    -> BDAddr
{
    address
}
