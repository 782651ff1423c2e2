import BLEBytes
import BLEPackets
import BLETimeline

/// A frame an event stands on, and its timeline type.
struct Mark {
    var frame: Int
    var time: Int64
    var type: StaticString
}

struct Disconnection {
    var frame: Int
    var time: Int64
    var reason: UInt8
    var side: DisconnectionSide
}

/// Error responses to one request (same type, handle and error code, same requester): how
/// often, where, and what the requester did after the last one.
struct ErrorGroup {
    var type: StaticString
    var handle: UInt16
    var code: UInt8
    /// The request came from this host's client (the peer's server answered the error).
    var sentByHost: Bool
    var attribute: String?
    var count = 0
    var frames: [Int] = []
    var lastRequestFrame = 0
    var lastResponseFrame = 0
    var lastTime: Int64 = 0
    /// The requester's request count when the last error came: later ones are what it did next.
    var requestsAtLast = 0
    /// The same request answered successfully after the last error.
    var succeededAt: Int?
    /// Pairing or encryption started after the last error.
    var securityAt: Int?

    var isSecurity: Bool {
        code == ATTErrorCode.insufficientAuthentication || code == ATTErrorCode.insufficientEncryption
            || code == ATTErrorCode.insufficientEncryptionKeySize || code == ATTErrorCode.insufficientAuthorization
    }

    func matches(_ type: StaticString, _ handle: UInt16, sentByHost: Bool) -> Bool {
        self.handle == handle && self.sentByHost == sentByHost && Link.same(self.type, type)
    }
}

/// What one connection showed, kept as marks (never the events themselves).
final class Link {
    let number: Int
    let firstFrame: Int
    var summary: ConnectionSummary?
    var role: UInt8?
    /// The handle its Connection Complete gave (nil when the capture began during the link).
    var completeHandle: UInt16?
    var end: Disconnection?
    var failedDisconnect: (frame: Int, status: UInt8)?

    /// The last PDU each side sent, as far as the timeline's events show it.
    var lastFromHost: Mark?
    var lastFromPeer: Mark?
    /// Requests each side sent ([0] this host, [1] the peer).
    var requests = (0, 0)
    var errors: [ErrorGroup] = []
    var errorGroupsDropped = 0
    /// The last error response to a request of this host, and the host's request count then.
    var lastHostError: (group: Int, time: Int64, requests: Int)?
    var attTimeout: (mark: Mark, sentByHost: Bool)?
    var unanswered: (first: Int, count: Int, sentByHost: Bool)?
    /// Requests still outstanding when the link ended.
    var outstandingAtEnd: [Int] = []

    var securityRequest: (mark: Mark, sentByHost: Bool)?
    var securityRequests = 0
    var pairingRequest: (mark: Mark, sentByHost: Bool)?
    var pairingResponse: Int?
    var firstKey: Int?
    var pairingFailed: (mark: Mark, reason: UInt8, sentByHost: Bool, phase: StaticString)?
    var encryption: (frame: Int, time: Int64)?
    var encryptionFailed: (frame: Int, status: UInt8)?
    var linkLayerEncrypted: Int?
    /// Over the air: the LL control procedure waiting for the other side's answer
    /// (`LinkLayerProcedures.swift`), and where the key that decrypts the link came from.
    var llPending: PendingProcedure?
    var keySource: (frame: Int, text: String, decrypting: Bool)?
    /// Throughput and latency (Budget.swift). Unchecked: mutated for every value-carrying event,
    /// where a checked access is a runtime call (docs/performance.md); a Link belongs to one
    /// Diagnoser, used from one thread, and `observe` calls out to nothing that reaches it.
    @exclusivity(unchecked) var budget = BudgetAccumulator()

    init(number: Int, firstFrame: Int) {
        self.number = number
        self.firstFrame = firstFrame
    }

    static func same(_ a: StaticString, _ b: StaticString) -> Bool {
        a.utf8Start == b.utf8Start || a.description == b.description
    }

    /// `observe(e)` for a notification (`sent`: its `op.sent`). Most events of a transfer, and
    /// without an outcome they change only their sender's last mark: the general path looked
    /// the event's kind up three times (docs/performance.md).
    @inline(__always) func notification(_ e: TimelineEvent, sent: Bool) {
        guard case .none = e.outcome else { return observe(e) }
        // The type `TimelineEvent.Kind.type` gives a notification, without its switch.
        let m = Mark(frame: e.frame, time: e.time, type: "gatt.notification")
        if sent { lastFromHost = m } else { lastFromPeer = m }
    }

    func observe(_ e: TimelineEvent) {
        let direction = Self.sentByHost(e.kind)
        if let sent = direction {
            let m = Mark(frame: e.frame, time: e.time, type: e.kind.type)
            if sent { lastFromHost = m } else { lastFromPeer = m }
            if let f = e.outcome.responseFrame {
                let r = Mark(frame: f, time: e.time &+ (e.outcome.latency ?? 0), type: e.kind.type)
                if sent { lastFromPeer = r } else { lastFromHost = r }
            }
        }
        switch e.outcome {
        case .none, .pending: break
        case .success:
            if let sent = direction {
                count(request: sent)
                if !errors.isEmpty, let h = Self.handle(e.kind) { succeeded(e, h, sent) }
            }
        case .error(let frame, _, let code, let handle):
            guard let sent = direction else { break }
            count(request: sent)
            // Attribute Not Found ends every discovery procedure (Vol 3 Part G 4.4–4.7): normal.
            if case .discovery = e.kind, code == ATTErrorCode.attributeNotFound { break }
            if case .mtuExchange = e.kind, code == ATTErrorCode.requestNotSupported { break }
            error(e, responseFrame: frame, code: code, handle: Self.handle(e.kind) ?? handle, sent: sent)
        case .timeout:
            if let sent = direction {
                count(request: sent)
                if attTimeout == nil { attTimeout = (Mark(frame: e.frame, time: e.time, type: e.kind.type), sent) }
            }
        case .unanswered:
            if let sent = direction {
                count(request: sent)
                if let u = unanswered {
                    unanswered?.count = u.count + 1
                } else {
                    unanswered = (e.frame, 1, sent)
                }
            }
        case .disconnected:
            if direction != nil {
                count(request: direction!)
                if outstandingAtEnd.count < 8 { outstandingAtEnd.append(e.frame) }
            }
        case .endOfCapture:
            break
        }
        switch e.kind {
        case .securityRequest(_, let sent):
            securityRequests += 1
            securityRequest = (Mark(frame: e.frame, time: e.time, type: e.kind.type), sent)
        case .pairingRequest(_, let sent):
            pairingRequest = (Mark(frame: e.frame, time: e.time, type: e.kind.type), sent)
            pairingResponse = nil
            firstKey = nil
            securityStarted(e.frame)
        case .pairingResponse:
            pairingResponse = e.frame
        case .keyDistribution:
            if firstKey == nil { firstKey = e.frame }
        case .pairingFailed(let reason, let sent):
            let phase: StaticString =
                firstKey != nil ? "key_distribution" : pairingResponse != nil ? "authentication" : "feature_exchange"
            pairingFailed = (Mark(frame: e.frame, time: e.time, type: e.kind.type), reason, sent, phase)
        case .encryptionChange(let status, let enabled):
            if status == 0, enabled != 0 {
                encryption = (e.frame, e.time)
                securityStarted(e.frame)
            } else if status != 0, encryptionFailed == nil {
                encryptionFailed = (e.frame, status)
            }
        case .linkLayerEncrypted(let first):
            if linkLayerEncrypted == nil { linkLayerEncrypted = first }
        case .linkLayerControl, .dataLengthChange, .connectionUpdate, .phyUpdate:
            linkLayerProcedure(e)
        case .linkLayerDecryption(let note):
            let decrypting = if case .decrypting = note { true } else { false }
            keySource = (e.frame, Self.keyText(note), decrypting)
        default:
            break
        }
    }

    @inline(__always) private func count(request sentByHost: Bool) {
        if sentByHost { requests.0 += 1 } else { requests.1 += 1 }
    }

    private func securityStarted(_ frame: Int) {
        // Only where security is the requester's next move: no other request since the error.
        for i in errors.indices where errors[i].securityAt == nil {
            let now = errors[i].sentByHost ? requests.0 : requests.1
            if now == errors[i].requestsAtLast { errors[i].securityAt = frame }
        }
    }

    private func succeeded(_ e: TimelineEvent, _ handle: UInt16, _ sent: Bool) {
        let type = e.kind.type
        for i in errors.indices where errors[i].succeededAt == nil && errors[i].matches(type, handle, sentByHost: sent)
        {
            errors[i].succeededAt = e.frame
        }
    }

    private func error(_ e: TimelineEvent, responseFrame: Int, code: UInt8, handle: UInt16, sent: Bool) {
        let type = e.kind.type
        var index = errors.firstIndex { $0.code == code && $0.matches(type, handle, sentByHost: sent) }
        if index == nil {
            guard errors.count < Diagnoser.maximumErrorGroups else {
                errorGroupsDropped += 1
                return
            }
            errors.append(
                ErrorGroup(
                    type: type, handle: handle, code: code, sentByHost: sent, attribute: Self.attributeName(e.kind)))
            index = errors.count - 1
        }
        let i = index!
        errors[i].count += 1
        if errors[i].frames.count < Diagnoser.maximumFramesPerGroup {
            errors[i].frames.append(e.frame)
            errors[i].frames.append(responseFrame)
        }
        errors[i].lastRequestFrame = e.frame
        errors[i].lastResponseFrame = responseFrame
        errors[i].lastTime = e.time &+ (e.outcome.latency ?? 0)
        errors[i].requestsAtLast = sent ? requests.0 : requests.1
        errors[i].succeededAt = nil
        errors[i].securityAt = nil
        if sent { lastHostError = (i, errors[i].lastTime, requests.0) }
    }

    /// Whether this host sent the event's PDU; nil for events that are no PDU of either side.
    static func sentByHost(_ k: TimelineEvent.Kind) -> Bool? {
        switch k {
        case .read(let op, _), .write(let op, _), .subscribe(let op, _), .notification(let op), .indication(let op):
            op.sent
        case .discovery(_, let sent), .mtuExchange(_, _, _, let sent), .unmatchedResponse(_, _, _, let sent),
            .pairingRequest(_, let sent), .pairingResponse(_, let sent), .pairingFailed(_, let sent),
            .securityRequest(_, let sent), .identityAddress(_, _, let sent), .keyDistribution(_, let sent),
            .connectionParameterRequest(_, _, _, _, _, let sent, _), .connectionParameterResponse(_, _, let sent):
            sent
        default:
            nil
        }
    }

    static func handle(_ k: TimelineEvent.Kind) -> UInt16? {
        switch k {
        case .read(let op, _), .write(let op, _), .subscribe(let op, _), .notification(let op), .indication(let op):
            op.handle
        case .discovery(let d, _): d.startHandle
        default: nil
        }
    }

    static func attributeName(_ k: TimelineEvent.Kind) -> String? {
        switch k {
        case .read(let op, _), .write(let op, _), .subscribe(let op, _):
            guard let a = op.attribute else { return nil }
            let kind: GATTAssignedNumbers.AttributeKind =
                a.role == .descriptor ? .descriptor : a.role == .service ? .service : .characteristic
            if let n = GATTAssignedNumbers.name(for: a.uuid, as: kind) { return "\(n) (\(a.uuid))" }
            return a.uuid.description
        default:
            return nil
        }
    }
}
