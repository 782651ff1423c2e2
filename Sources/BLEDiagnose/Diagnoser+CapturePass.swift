import BLEPass

/// The diagnoser is one consumer of a capture pass: it hears the timeline's events and each
/// ended connection, nothing per frame. Run it with `pass.run(diagnoser)`, then `finish()`.
/// In live mode (`onVerdict`) it also hears when each frame is through the timeline (to know
/// when a connection's verdict is final), and hands out the last verdicts when the pass ends.
extension Diagnoser: CaptureConsumer {
    public var observes: CaptureObservations {
        onVerdict == nil ? [.events, .connections] : [.events, .connections, .framesAfterTimeline]
    }
    public func event(_ event: TimelineEvent) { observe(event) }
    public func frameAfterTimeline(_ frame: DecodedFrame) { live(frameDone: frame.record.frame) }
    public func finish(_ pass: CapturePass) {
        if damage == nil { damage = pass.reader.damage?.description }
        if onVerdict != nil { _ = finish() }
    }
}
