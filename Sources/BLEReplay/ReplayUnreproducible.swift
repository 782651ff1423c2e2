/// A captured behaviour a replay cannot reproduce, and why: the capture itself lacks what
/// the replay would need. When a connection's first divergence falls on it, the report names
/// it instead of leaving a bare mismatch (`ReplayConnectionResult.unreproducible`).
public struct ReplayUnreproducible: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// A response paired with a request it cannot answer: the capture lost the request it
        /// does answer (a sniffer that missed frames), so no server model gives it to the
        /// captured request.
        case responseToAnotherRequest = "response_to_another_request"
    }
    public var kind: Kind
    /// Index of the captured PDU in its connection's exchange.
    public var capturedIndex: Int
    /// Its frame in the capture.
    public var frame: Int
    /// Which behaviour and why, in words.
    public var detail: String
}
