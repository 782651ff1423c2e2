import BLETimeline

// Types the BLETimeline product hands out, named with its import alone.
public func uses(_ event: TimelineEvent, _ frame: DecodedFrame, _ record: CaptureRecord, _ address: BDAddr) -> Int {
    event.frame
}
