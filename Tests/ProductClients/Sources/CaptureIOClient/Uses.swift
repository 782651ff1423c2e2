import CaptureIO

// Types the CaptureIO product hands out, named with its import alone.
public func uses(_ record: CaptureRecord, _ address: BDAddr, _ damage: CaptureDamage?) -> BDAddr { address }
