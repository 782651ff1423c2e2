import BLEPass

// Types the BLEPass product hands out, named with its import alone: a consumer of the pass.
public final class FrameCounter: CaptureConsumer {
    public var frames = 0
    public var observes: CaptureObservations { .frames }
    public func frame(_ frame: DecodedFrame) { frames += 1 }
    public func finish(_ pass: CapturePass) { _ = pass.reader.format }
}
