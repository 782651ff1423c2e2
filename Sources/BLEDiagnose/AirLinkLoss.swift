import BLEPackets
import BLETimeline

/// Over the air a lost link carries no reason: a controller that leaves the link on an LL
/// response timeout (Core 5.4 Vol 6 Part B 5.2), a MIC failure (5.1.3.1) or an instant already
/// past (5.5.1) sends no LL_TERMINATE_IND, and the sniffer hears only the silence that the
/// timeline reports as a supervision timeout (0x08). Its host got 0x22, 0x3D or 0x28; the other
/// side's got 0x08 once its own supervision timeout ran out. What the air does show is which
/// side stopped transmitting and what came right before: that is what these causes rest on.
struct AirLinkLoss {
    var cause: String
    var reason: UInt8
    var party: String
    var step: Verdict.Step
    var summary: String
    /// The signature's tokens after the inferred reason (`procedure=LL_…`).
    var tokens: String = ""
}

extension Diagnoser {
    /// The LL response timeout's 40 s, and how far from it the requester's last PDU may be
    /// (the timer starts when the request is queued, and the requester transmits only in
    /// connection events: up to two intervals, at least 2 s, either way).
    static let llResponseTimeout: Int64 = 40_000_000
    /// A receiver that answered in the event that carried the PDU it left on: its answer comes
    /// T_IFS after, within the shortest connection interval (7.5 ms).
    static let sameEvent: Int64 = 7_500
    /// 0x28 Instant Passed (Core 5.4 Vol 1 Part F 2.40).
    static let instantPassed: UInt8 = 0x28

    /// The cause of an over-the-air link loss when the capture shows what a reasonless end
    /// hides; nil for a plain supervision timeout (or an HCI capture).
    func airLinkLoss(_ l: Link, _ s: ConnectionSummary?, _ end: Disconnection, _ reason: UInt8) -> AirLinkLoss? {
        guard let c = s?.linkLayer, reason == HCIError.connectionTimeout, end.side == .linkLoss else { return nil }
        func last(central: Bool) -> LinkLayerMark? { central ? c.lastFromCentral : c.lastFromPeripheral }
        func name(central: Bool) -> String { central ? "the central" : "the peripheral" }

        // A PDU whose MIC failed, after which its receiver sent nothing in a later event.
        if let m = c.lastMICFailure, let sender = m.byCentral, m.frame <= end.frame,
            (last(central: !sender)?.time ?? .min) < m.time + Self.sameEvent
        {
            return AirLinkLoss(
                cause: "mic_failure", reason: HCIError.connectionTerminatedMICFailure, party: "link",
                step: Verdict.Step(
                    what: "air_end",
                    text:
                        "\(name(central: sender)) sent a PDU whose MIC did not verify (frame \(m.frame)) and \(name(central: !sender)) sent nothing after it: a MIC failure makes the receiver leave the link without LL_TERMINATE_IND, so its host got 0x3D MIC Failure, the other side 0x08 once its supervision timeout ran out; the air carries neither reason",
                    frames: [m.frame, end.frame], certainty: .inferred,
                    basis:
                        "over the air: the failed MIC (blecap's check, or a sniffer that decrypted the link's other PDUs flagging it) and the receiver's silence from then on (Vol 6 Part B 5.1.3.1)"
                ),
                summary:
                    "The link was lost right after a packet failed its integrity check (MIC): the receiver left the link, the two sides most likely do not hold the same key or the packet was corrupted."
            )
        }
        // An instant-bearing PDU sent past its instant, after which its receiver went silent.
        if let p = c.instantPassed, let sender = p.pdu.byCentral, p.pdu.frame <= end.frame,
            (last(central: !sender)?.time ?? .min) < p.pdu.time + Self.sameEvent
        {
            let pdu = LLControlPDU.name(p.opcode).description
            let late = p.event &- p.instant
            return AirLinkLoss(
                cause: "instant_passed", reason: Self.instantPassed, party: "link",
                step: Verdict.Step(
                    what: "air_end",
                    text:
                        "\(name(central: sender)) sent \(pdu) (frame \(p.pdu.frame)) in connection event \(p.event) with instant \(p.instant), \(late) event\(late == 1 ? "" : "s") past, and \(name(central: !sender)) sent nothing in a later event: a receiver given an instant in the past leaves the link without LL_TERMINATE_IND, so its host got 0x28 Instant Passed, the other side 0x08 once its supervision timeout ran out; the air carries neither reason",
                    frames: [p.pdu.frame, end.frame], certainty: .inferred,
                    basis:
                        "over the air: the PDU's instant against the event counter of the event that carried it, and the receiver's silence from then on (Vol 6 Part B 5.5.1)"
                ),
                summary:
                    "The link was lost right after \(pdu) came \(late) connection event\(late == 1 ? "" : "s") past its instant: the receiver could not apply it and left.",
                tokens: " procedure=\(pdu)")
        }
        // An LL procedure left unanswered, and its requester's last PDU about 40 s after it.
        if let p = l.llPending, p.time <= end.time, let stop = last(central: p.byCentral) {
            let interval = Int64(s?.timing?.interval ?? 0) * 1250 * (1 + Int64(s?.timing?.latency ?? 0))
            let slack = max(2 * interval, 2_000_000)
            let waited = stop.time - p.time
            if waited >= Self.llResponseTimeout - slack, waited <= Self.llResponseTimeout + 2 * interval {
                return AirLinkLoss(
                    cause: "ll_response_timeout", reason: HCIError.llResponseTimeout, party: "link",
                    step: Verdict.Step(
                        what: "air_end",
                        text:
                            "\(name(central: p.byCentral)) stopped transmitting \(Codes.duration(waited)) after its unanswered \(LLControlPDU.name(p.opcode)) (its last PDU, frame \(stop.frame)): the LL response timeout (40 s) makes the requester leave the link without LL_TERMINATE_IND, so its host got 0x22 LL Response Timeout, the other side 0x08 once its supervision timeout ran out; the air carries neither reason",
                        frames: [p.frame, stop.frame, end.frame], certainty: .inferred,
                        basis:
                            "over the air: the requester's last PDU within \(Codes.duration(slack)) of 40 s after its request, and no answer to it (Vol 6 Part B 5.2)"
                    ),
                    summary:
                        "The link was lost when a link-layer procedure had gone unanswered for 40 s: the controller that asked gave up (LL response timeout)."
                )
            }
        }
        return nil
    }
}
