import BLEBytes
import BLECodes
import BLEPackets

/// The rules of one ATT bearer: the ATT_MTU before and after an exchange and the transaction
/// timeout (of a request and of an indication alike). `ATTBearerState` keeps a bearer's state by them; every front of the virtual air
/// holds one (docs/architecture.md, "The virtual air").
public enum ATTBearer {
    /// ATT_MTU until an Exchange MTU completes: the LE default (Core Vol 3 Part F 3.2.8).
    @inlinable public static var defaultMTU: UInt16 { 23 }

    /// The ATT_MTU an Exchange MTU settles on: the smaller of the two Rx MTUs, but never below
    /// the default (Vol 3 Part F 3.4.2.2: a smaller value is not allowed, so it is not used).
    @inlinable public static func effectiveMTU(client: UInt16, server: UInt16) -> UInt16 {
        max(defaultMTU, min(client, server))
    }

    /// A transaction (a request and its response, or an indication and its confirmation) not
    /// completed within 30 seconds has timed out, and no more ATT PDUs may be sent on the bearer
    /// (Vol 3 Part F 3.3.3).
    @inlinable public static var transactionTimeoutMicros: Int64 { 30_000_000 }
}

/// Which of a bearer's two clients: either side of a connection may be an ATT client, and each
/// keeps its own one outstanding request, and is sent at most one unconfirmed indication by the
/// other side's server (Vol 3 Part F 3.3.2). The host is the side whose
/// stack or app the front plays for (the simulated phone, the replayed capture's host, the
/// host on the virtual controller's HCI); the peer is the other side.
public enum ATTClientSide: Int, Sendable {
    case host = 0
    case peer = 1
}

/// The state of one ATT bearer (Core 5.4 Vol 3 Part F 3.3), the one copy every front keeps:
///
/// - ATT_MTU, 23 until an Exchange MTU completes, then the exchange's (3.2.8, 3.4.2);
/// - each client's outstanding request, its opcode and when it was sent (µs, the air's one
///   time unit): a client sends no other request until it is answered (3.3.2);
/// - the indication each client has not confirmed yet, its handle, when it was sent and the
///   front's tag: the other side's server sends no other indication to that client until the
///   Handle Value Confirmation arrives (3.3.2, 3.4.7.2);
/// - timed out: a request unanswered, or an indication unconfirmed, for 30 s fails the
///   transaction, and no more ATT PDUs go on the bearer (3.3.3).
///
/// The front decides what it does with a rule broken on its side (the simulator queues, the
/// replay engine holds a captured step back, a capture whose client did not wait is played as
/// captured); this type states the rules once and keeps the state they act on.
public struct ATTBearerState: Sendable, Equatable {
    /// A request on the air.
    public struct Request: Sendable, Equatable {
        public let opcode: ATTOpcode
        /// When it was sent, in µs on the front's clock.
        public let sentAt: Int64
        /// The front's own name for it (a script step, a trace record), handed back on answer.
        public let tag: Int

        @inlinable public init(opcode: ATTOpcode, sentAt: Int64, tag: Int) {
            (self.opcode, self.sentAt, self.tag) = (opcode, sentAt, tag)
        }

        /// Whether `response` answers this request: its response opcode, or an Error Response
        /// naming this request's opcode (Vol 3 Part F 3.4.1.1, 3.4.8).
        @inlinable public func isAnswered(by response: ATTPDU) -> Bool {
            switch response {
            case .errorResponse(let e): return e.requestOpcode == opcode
            case .malformed, .unknown: return false
            default: return opcode.responseOpcode == response.opcode
            }
        }
    }

    /// An indication on the air: sent by one side's server, to be confirmed by the other side's
    /// client (Vol 3 Part F 3.4.7.2, 3.4.7.3).
    public struct Indication: Sendable, Equatable {
        /// The attribute handle it carries the value of.
        public let handle: UInt16
        /// When it was sent, in µs on the front's clock.
        public let sentAt: Int64
        /// The front's own name for it (a trace record, a captured index), handed back on
        /// confirmation.
        public let tag: Int

        @inlinable public init(handle: UInt16, sentAt: Int64, tag: Int) {
            (self.handle, self.sentAt, self.tag) = (handle, sentAt, tag)
        }

        /// Whether `pdu` confirms an indication: a Handle Value Confirmation (it names no handle:
        /// it confirms the one outstanding indication, Vol 3 Part F 3.4.7.3).
        @inlinable public static func isConfirmed(by pdu: ATTPDU) -> Bool {
            pdu.opcode == ATTOpcode.handleValueConfirmation
        }
    }

    /// The transaction that timed out: a client's request, or the indication a client did not
    /// confirm (Vol 3 Part F 3.3.3 times both out alike).
    public enum Transaction: Sendable, Equatable {
        case request(Request)
        case indication(Indication)

        /// When it began, in µs on the front's clock.
        @inlinable public var sentAt: Int64 {
            switch self {
            case .request(let r): r.sentAt
            case .indication(let i): i.sentAt
            }
        }

        /// The front's tag of the request or indication.
        @inlinable public var tag: Int {
            switch self {
            case .request(let r): r.tag
            case .indication(let i): i.tag
            }
        }
    }

    // Stored internal, read through the getters below: only the methods change them, and
    // they are inlinable so that each front's hot path gets them as plain field accesses.
    @usableFromInline var storedMTU: UInt16 = ATTBearer.defaultMTU
    @usableFromInline var exchanged = false
    /// The host's and the peer's outstanding requests.
    @usableFromInline var hostRequest: Request?
    @usableFromInline var peerRequest: Request?
    /// The indications the host's and the peer's clients have not confirmed yet.
    @usableFromInline var hostIndication: Indication?
    @usableFromInline var peerIndication: Indication?
    @usableFromInline var isTimedOut = false

    /// ATT_MTU in force.
    @inlinable public var mtu: UInt16 { storedMTU }
    /// Whether an Exchange MTU has completed on this bearer (a client sends it once, 3.4.2.1).
    @inlinable public var mtuExchanged: Bool { exchanged }
    /// A transaction timed out: nothing more goes on this bearer.
    @inlinable public var timedOut: Bool { isTimedOut }

    @inlinable public init() {}

    /// The request `client` has on the air, if any.
    @inlinable public func outstanding(_ client: ATTClientSide) -> Request? {
        client == .host ? hostRequest : peerRequest
    }

    /// Whether `client` may send a request now: nothing of its own outstanding, not timed out.
    @inlinable public func maySendRequest(_ client: ATTClientSide) -> Bool {
        !timedOut && outstanding(client) == nil
    }

    /// `client` sent a request with `opcode` at `time`; it is the outstanding one from now on.
    /// A front that plays a capture whose client did not wait sends it anyway: the later request
    /// is the outstanding one, and the one it displaced is returned. Nothing is recorded on a
    /// timed-out bearer (returns nil).
    @inlinable @discardableResult
    public mutating func requestSent(_ opcode: ATTOpcode, by client: ATTClientSide, at time: Int64, tag: Int = 0)
        -> Request?
    {
        guard !timedOut else { return nil }
        let request = Request(opcode: opcode, sentAt: time, tag: tag)
        if client == .host {
            defer { hostRequest = request }
            return hostRequest
        }
        defer { peerRequest = request }
        return peerRequest
    }

    /// Whether `response` answers `client`'s outstanding request.
    @inlinable public func answersOutstanding(_ response: ATTPDU, of client: ATTClientSide) -> Bool {
        outstanding(client)?.isAnswered(by: response) ?? false
    }

    /// `client`'s transaction completed (its response arrived): it may send its next request.
    /// Returns the request it completed.
    @inlinable @discardableResult
    public mutating func responseReceived(by client: ATTClientSide) -> Request? {
        if client == .host {
            defer { hostRequest = nil }
            return hostRequest
        }
        defer { peerRequest = nil }
        return peerRequest
    }

    /// An Exchange MTU completed with these Rx MTUs: ATT_MTU is `ATTBearer.effectiveMTU`.
    @inlinable public mutating func exchangeMTU(client: UInt16, server: UInt16) {
        storedMTU = ATTBearer.effectiveMTU(client: client, server: server)
        exchanged = true
    }

    /// `response` went out to `request`: when the two are an Exchange MTU Request and its
    /// response, ATT_MTU is the exchange's from now on (a request too short to hold its Client
    /// Rx MTU counts as the default). Returns whether they were.
    @inlinable @discardableResult
    public mutating func exchangeCompleted(request: ATTPDU, response: ATTPDU) -> Bool {
        guard case .exchangeMTUResponse(let r) = response else { return false }
        switch request {
        case .exchangeMTURequest(let q): exchangeMTU(client: q.clientRxMTU, server: r.serverRxMTU)
        case .malformed(.exchangeMTURequest?, _, _): exchangeMTU(client: ATTBearer.defaultMTU, server: r.serverRxMTU)
        default: return false
        }
        return true
    }

    /// The capture evidences a larger ATT_MTU than the bearer has (an exchange it does not
    /// contain): raise it to `m`.
    @inlinable public mutating func adoptEvidence(_ m: Int?) {
        if let m, m > Int(storedMTU) { storedMTU = UInt16(clamping: m) }
    }

    // MARK: indications (Vol 3 Part F 3.3.2, 3.4.7.2)

    /// The indication `client` has not confirmed yet, if any (its server is the other side).
    @inlinable public func outstandingIndication(to client: ATTClientSide) -> Indication? {
        client == .host ? hostIndication : peerIndication
    }

    /// Whether the other side's server may send `client` an indication now: `client` has
    /// confirmed the last one, and the bearer has not timed out.
    @inlinable public func maySendIndication(to client: ATTClientSide) -> Bool {
        !timedOut && outstandingIndication(to: client) == nil
    }

    /// The other side's server sent `client` an indication of `handle` at `time`; it is the
    /// unconfirmed one from now on. A front that plays a capture whose server did not wait sends
    /// it anyway: the later indication is the outstanding one, and the one it displaced is
    /// returned. Nothing is recorded on a timed-out bearer (returns nil).
    @inlinable @discardableResult
    public mutating func indicationSent(handle: UInt16, to client: ATTClientSide, at time: Int64, tag: Int = 0)
        -> Indication?
    {
        guard !timedOut else { return nil }
        let indication = Indication(handle: handle, sentAt: time, tag: tag)
        if client == .host {
            defer { hostIndication = indication }
            return hostIndication
        }
        defer { peerIndication = indication }
        return peerIndication
    }

    /// `client`'s Handle Value Confirmation arrived: its server may indicate again. Returns the
    /// indication it confirmed (nil: there was none, a confirmation nothing asked for).
    @inlinable @discardableResult
    public mutating func confirmationReceived(from client: ATTClientSide) -> Indication? {
        if client == .host {
            defer { hostIndication = nil }
            return hostIndication
        }
        defer { peerIndication = nil }
        return peerIndication
    }

    // MARK: the transaction timeout (Vol 3 Part F 3.3.3)

    /// When `client`'s oldest open transaction times out (µs): its outstanding request or the
    /// indication it has not confirmed, whichever began first; nil when it has neither.
    @inlinable public func timeoutDue(_ client: ATTClientSide) -> Int64? {
        oldestTransaction(client).map { $0.sentAt &+ ATTBearer.transactionTimeoutMicros }
    }

    /// `client`'s request or unconfirmed indication, whichever began first (the request on a
    /// tie).
    @inlinable func oldestTransaction(_ client: ATTClientSide) -> Transaction? {
        let r = outstanding(client)
        let i = outstandingIndication(to: client)
        if let i, r.map({ i.sentAt < $0.sentAt }) ?? true { return .indication(i) }
        return r.map { .request($0) }
    }

    /// At `now`, `client`'s request has been unanswered, or an indication to it unconfirmed,
    /// 30 s or more: the transaction fails, the bearer is timed out, nothing is outstanding any
    /// more, and the transaction is returned (the older one when both are). Nil (nothing
    /// changes) otherwise.
    @inlinable public mutating func timeOut(_ client: ATTClientSide, now: Int64) -> Transaction? {
        guard !timedOut, let t = oldestTransaction(client), now &- t.sentAt >= ATTBearer.transactionTimeoutMicros
        else {
            return nil
        }
        isTimedOut = true
        closed()
        return t
    }

    /// The link is gone: nothing is outstanding any more (the bearer's MTU stays readable).
    @inlinable public mutating func closed() {
        hostRequest = nil
        peerRequest = nil
        hostIndication = nil
        peerIndication = nil
    }
}
