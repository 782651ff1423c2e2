import BLEPackets

// Types the BLEPackets product hands out, named with its import alone.
public func uses(_ frame: DecodedFrame, _ record: CaptureRecord, _ opcode: ATTOpcode, _ address: BDAddr) -> ATTOpcode {
    opcode
}
