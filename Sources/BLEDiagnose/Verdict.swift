/// Why one connection ended, or why one connection attempt never became a connection: a
/// chain of steps, each citing the frames it rests on and saying how sure it is.
///
/// Encoded with snake_case keys in declaration order (the contract of docs/diagnose.md);
/// optional facts that are unknown are left out, never guessed.
public struct Verdict: Sendable, Equatable, Encodable {
    /// "connection" (a link that was up), "attempt" (one that never came up), or "loop" (the
    /// same target's attempts failing again and again).
    public var kind: Kind
    /// The timeline's connection number; nil for an attempt that made no connection.
    public var connection: Int?
    public var peer: String?
    public var handle: Int?
    /// This host's role on the link ("central", "peripheral"), when known.
    public var role: String?
    public var startFrame: Int
    public var endFrame: Int?
    /// How it ended: "local", "remote", "link_loss", "lost_track", "open" (as
    /// `ConnectionFacts.ended`), or for an attempt "failed", "cancelled", "rejected",
    /// "unfinished".
    public var ended: String
    /// The HCI (or LL_TERMINATE_IND) reason code of the end, and its name in the spec's words.
    public var reason: Int?
    public var reasonName: String?
    /// The cause class (docs/diagnose.md lists them); "cause_unknown" when the capture cannot tell.
    public var cause: String
    /// Whose behaviour the cause reports: "app", "host" (this host: the app or its OS stack,
    /// which HCI cannot tell apart), "os-stack", "peer", "link" (the radio link itself),
    /// "unknown".
    public var party: String
    /// One sentence: the verdict as a reader would say it.
    public var summary: String
    /// Cause class and context without addresses, handles or times: equal signatures are the
    /// same failure, across captures.
    public var signature: String
    /// Secondary findings on the connection (GATT errors, security answers) as stable tokens.
    public var signals: [String]
    /// Every frame any step cites, ascending.
    public var frames: [Int]
    public var steps: [Step]
    /// The connection's throughput and latency budget (Budget.swift), when it carried any
    /// busy stretch or answered request.
    public var budget: Budget? = nil

    public enum Kind: String, Sendable, Encodable {
        /// `loop`: one target's attempts failing the same way again and again (`reconnect_loop`).
        case connection, attempt, loop
    }

    public enum Certainty: String, Sendable, Encodable {
        /// A frame of the capture states it.
        case observed
        /// Reasoned from what the frames show (the step's `basis` says from what).
        case inferred
    }

    public struct Step: Sendable, Equatable, Encodable {
        /// A stable token for what the step establishes ("end", "last_from_host", "gatt_error" …).
        public var what: String
        public var text: String
        public var frames: [Int]
        public var certainty: Certainty
        /// What the step rests on: the frames' kinds, or the reasoning for an inferred step.
        public var basis: String

        public init(what: String, text: String, frames: [Int], certainty: Certainty, basis: String) {
            self.what = what
            self.text = text
            self.frames = frames
            self.certainty = certainty
            self.basis = basis
        }
    }

    enum CodingKeys: String, CodingKey {
        case kind, connection, peer, handle, role
        case startFrame = "start_frame"
        case endFrame = "end_frame"
        case ended, reason
        case reasonName = "reason_name"
        case cause, party, summary, signature, signals, frames, steps, budget
    }
}

/// The versioned document `blecap diagnose --format json` writes (docs/diagnose.md).
public enum DiagnoseSchema {
    public static let name = "blecap.diagnose"
    /// Bumped on any change a reader must know about (a key removed, renamed or retyped).
    public static let version = 1
}
