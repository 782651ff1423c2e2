import BLEPass

/// The diagnoser is one consumer of a capture pass: it hears the timeline's events and each
/// ended connection, nothing per frame. Run it with `pass.run(diagnoser)`, then `finish()`.
extension Diagnoser: CaptureConsumer {
    public var observes: CaptureObservations { [.events, .connections] }
    public func event(_ event: TimelineEvent) { observe(event) }
}
