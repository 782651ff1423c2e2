import BLEBytes
import BLEPackets
import BLETimeline

extension Diagnoser {
    /// One connection's verdict: how it ended, then the first cause in this order that the
    /// capture shows right before the end (each more specific than the reason code alone):
    /// an ATT transaction timeout, a failed pairing, a missing key, a peer leaving after a
    /// Security Request, this host leaving after a GATT error; else what the reason code says.
    func verdict(_ l: Link, among all: [Link]) -> Verdict {
        let s = l.summary
        let roleName = (s?.role ?? l.role).map { $0 == 0 ? "central" : "peripheral" }
        let side = s?.endSide ?? l.end?.side
        let ended = ConnectionFacts.ended(side: side, endTime: s?.endTime ?? l.end.map(\.time))
        let reason = s?.endReason ?? l.end?.reason
        var v = Verdict(
            kind: reason == HCIError.connectionFailedToBeEstablished ? .attempt : .connection,
            connection: l.number, peer: s?.peer?.description, handle: s.map { Int($0.handle) }, role: roleName,
            startFrame: s?.startFrame ?? l.firstFrame, endFrame: s?.endFrame ?? l.end?.frame, ended: ended,
            reason: reason.map(Int.init), reasonName: reason.flatMap { HCIError.name($0) }?.description,
            cause: "", party: "", summary: "", signature: "", signals: [], frames: [], steps: [])
        var context = "role=\(roleName ?? "unknown") end=\(ended)"
        if let reason { context += " reason=\(Codes.hex(reason))" }
        // The Reason this host's own Disconnect gave the peer: named when it says more than the
        // ordinary 0x13 (0x15 powering off, 0x14 low resources, 0x05 authentication failure …).
        let hostReason = side == .local ? s?.localDisconnectReason : nil
        let telling = hostReason.flatMap { $0 == HCIError.remoteUserTerminatedConnection ? nil : $0 }
        if let telling { context += " host_reason=\(Codes.hex(telling))" }

        if s?.unknownStart == true {
            v.steps.append(
                Verdict.Step(
                    what: "unknown_start",
                    text:
                        "the capture started during this connection: how it was made, and anything before frame \(v.startFrame), is not in it",
                    frames: [v.startFrame], certainty: .observed,
                    basis: "no Connection Complete before the first frame on the handle"))
            context += " start=unknown"
        }
        if let f = l.failedDisconnect {
            v.steps.append(
                Verdict.Step(
                    what: "disconnect_failed",
                    text: "a disconnection failed with status \(Codes.hci(f.status)); the link stayed up",
                    frames: [f.frame], certainty: .observed, basis: "HCI Disconnection Complete with a non-zero status")
            )
        }
        errorSteps(l, &v)
        securitySteps(l, &v)

        guard let reason, var end = l.end else {
            notEnded(l, s, ended, context, &v)
            v.finishFrames()
            return v
        }
        // Over the air a lost link is found silent at a later record (the capture's last one,
        // or the next after its timeout): it was lost when its supervision timeout ran out,
        // the connection's end time, and "before the end" counts from there.
        if s?.linkLayer != nil, end.side == .linkLoss, let t = s?.endTime, t < end.time { end.time = t }
        v.steps.append(
            Verdict.Step(
                what: "end",
                text: "\(endWho(end.side)): \(Codes.hci(reason))",
                frames: [end.frame], certainty: end.side == .remote ? .inferred : .observed,
                basis: end.side == .remote
                    ? "Disconnection Complete with no HCI Disconnect from this host for the handle"
                    : (end.side == .local
                        ? "this host's HCI Disconnect, or reason 0x16, and the Disconnection Complete"
                        : "the reason code: the controller reports the link lost, neither host ended it")))
        // A host's own choice to end (0x13–0x16) is named by the side that made it: over the
        // air a central's LL_TERMINATE_IND carries 0x13 too.
        var row = EndReason.find(reason)
        if row?.party.description == "peer" || row?.party.description == "host", reason >= 0x13, reason <= 0x16 {
            if end.side == .local {
                row = EndReason(
                    code: reason, cause: "local_host_terminated", party: "host",
                    meaning: "it asked its controller to disconnect")
            } else if reason == HCIError.connectionTerminatedByLocalHost {
                row = EndReason(
                    code: reason, cause: "remote_host_terminated", party: "peer",
                    meaning: "its host chose to disconnect")
            }
        }
        let party = row.map { $0.party.description } ?? (end.side == .local ? "host" : "unknown")

        if let t = l.attTimeout, t.mark.time <= end.time {
            v.cause = "att_transaction_timeout"
            v.party = t.sentByHost ? "peer" : "host"
            v.steps.append(
                Verdict.Step(
                    what: "att_timeout",
                    text: t.sentByHost
                        ? "this host's \(t.mark.type) request got no response in 30 s: the peer's server stopped answering"
                        : "the peer's \(t.mark.type) request got no response from this host's server in 30 s",
                    frames: [t.mark.frame], certainty: .observed,
                    basis: "the timeline's outcome `timeout`: no response within the ATT transaction timeout"))
            v.steps.append(
                Verdict.Step(
                    what: "consequence",
                    text:
                        "after an ATT timeout no more ATT may be sent on the link (Vol 3 Part F 3.3.3), so the link ended",
                    frames: [end.frame], certainty: .inferred, basis: "the ATT timeout came before the end"))
            v.summary =
                "ATT transaction timeout: a \(t.mark.type) request went unanswered for 30 s, then the link ended (\(Codes.hci(reason)))."
            v.signature =
                "att_transaction_timeout request=\(t.mark.type) requester=\(t.sentByHost ? "host" : "peer") \(context)"
        } else if let p = l.pairingFailed, end.time - p.mark.time <= Self.securityRequestWindow {
            v.cause = "pairing_failed"
            v.party = p.sentByHost ? "host" : "peer"
            v.steps.append(
                Verdict.Step(
                    what: "pairing_failed",
                    text:
                        "\(p.sentByHost ? "this host" : "the peer") failed the pairing during \(Self.phaseText(p.phase)): \(Codes.smp(p.reason))",
                    frames: [p.mark.frame] + (l.pairingRequest.map { [$0.mark.frame] } ?? []), certainty: .observed,
                    basis: "SMP Pairing Failed"))
            v.summary =
                "Pairing failed (\(Codes.smp(p.reason)), sent by \(p.sentByHost ? "this host" : "the peer")), then the link ended (\(Codes.hci(reason)))."
            v.signature =
                "pairing_failed smp=\(Codes.hex(p.reason)) by=\(p.sentByHost ? "host" : "peer") phase=\(p.phase) \(context)"
        } else if reason == HCIError.pinOrKeyMissing || l.encryptionFailed?.status == HCIError.pinOrKeyMissing {
            keyMissing(l, roleName, end, reason, context, &v)
        } else if let r = l.securityRequest, l.pairingRequest == nil || l.pairingRequest!.mark.frame < r.mark.frame,
            l.encryption == nil || l.encryption!.frame < r.mark.frame,
            end.time - r.mark.time <= Self.securityRequestWindow,
            end.side != .linkLoss
        {
            let leaver = end.side == .local ? "host" : "peer"
            v.cause = "disconnect_after_security_request"
            v.party = leaver
            v.steps.append(
                Verdict.Step(
                    what: "security_request",
                    text:
                        "\(r.sentByHost ? "this host" : "the peer") asked for security (\(l.securityRequests) Security Request\(l.securityRequests == 1 ? "" : "s") on the link) and no pairing or encryption followed",
                    frames: [r.mark.frame], certainty: .observed,
                    basis: "SMP Security Request; no Pairing Request or Encryption Change after it"))
            v.summary =
                "\(leaver == "host" ? "This host" : "The peer") ended the link \(Codes.duration(end.time - r.mark.time)) after a Security Request that was never answered with pairing or encryption."
            v.signature = "disconnect_after_security_request requested_by=\(r.sentByHost ? "host" : "peer") \(context)"
        } else if end.side == .local, let e = l.lastHostError, l.requests.0 == e.requests,
            end.time - e.time <= Self.disconnectAfterErrorWindow
        {
            let g = l.errors[e.group]
            v.cause = "host_disconnected_after_gatt_error"
            v.party = "app"
            v.steps.append(
                Verdict.Step(
                    what: "after_error",
                    text:
                        "this host disconnected \(Codes.duration(end.time - e.time)) after the error response to its \(g.type) of handle \(Codes.hex16(g.handle)), sending no request in between",
                    frames: [g.lastRequestFrame, g.lastResponseFrame, end.frame], certainty: .inferred,
                    basis:
                        "the disconnect followed the error within \(Codes.duration(Self.disconnectAfterErrorWindow)) with no other request"
                ))
            v.summary =
                "This host disconnected right after a GATT error (\(Codes.att(g.code)) to \(g.type)): the app or its stack gave up on the error."
            v.signature = "host_disconnected_after_gatt_error att=\(Codes.hex(g.code)) request=\(g.type) \(context)"
        } else if let air = airLinkLoss(l, s, end, reason) {
            v.cause = air.cause
            v.party = air.party
            v.steps.append(air.step)
            v.summary = air.summary
            v.signature = "\(air.cause) \(context) inferred_reason=\(Codes.hex(air.reason))\(air.tokens)"
        } else if let row {
            v.cause = row.cause.description
            v.party = party
            v.summary = "\(endWho(end.side).capitalizedFirst): \(row.meaning)."
            v.signature = "\(row.cause) \(context)"
        } else {
            v.cause = "ended_\(Codes.hex(reason).dropFirst(2).lowercased())"
            v.party = party
            v.summary = "\(endWho(end.side).capitalizedFirst), with \(Codes.hci(reason))."
            v.signature = "\(v.cause) \(context)"
        }
        if reason == HCIError.connectionTimeout || reason == HCIError.llResponseTimeout
            || reason == HCIError.connectionFailedToBeEstablished
        {
            lastPDUSteps(l, s, end, &v)
        }
        if reason == HCIError.connectionTimeout {
            rssiStep(s, end, &v)
            qualityReportStep(s, end, &v)
            rfStatsStep(s, end, &v)
        }
        if reason == HCIError.llResponseTimeout || v.cause == "ll_response_timeout" {
            llResponseTimeoutSteps(l, end, overTheAir: s?.linkLayer != nil, &v)
        }
        if reason == HCIError.connectionTerminatedMICFailure || v.cause == "mic_failure" { micFailureSteps(l, end, &v) }
        if let stall = s?.bufferStall { bufferStallStep(stall, end, &v) }
        rootInflammationStep(s, endFrame: end.frame, endTime: end.time, &v)
        if reason == HCIError.connectionTerminatedByLocalHost || reason == HCIError.remoteUserTerminatedConnection,
            end.side != .linkLoss,
            v.cause == "local_host_terminated"
                || v.cause == "remote_user_terminated" || v.cause == "remote_host_terminated"
        {
            if end.side == .local, let telling, let at = s?.localDisconnectFrame {
                v.steps.append(
                    Verdict.Step(
                        what: "why",
                        text: "this host's Disconnect gave the peer \(Codes.hci(telling)) as its reason",
                        frames: [at, end.frame], certainty: .observed,
                        basis: "the Reason of this host's HCI Disconnect (Vol 4 Part E 7.1.6)"))
            } else {
                v.steps.append(
                    Verdict.Step(
                        what: "why",
                        text: end.side == .local
                            ? "why this host ended it is not in HCI: an app's disconnect, or the OS closing a link no app used"
                            : "why the peer's host ended it is not in this capture: it is the peer's decision",
                        frames: [end.frame], certainty: .inferred,
                        basis: "an HCI capture holds no reason for a host's own choice"))
            }
        }
        outstandingStep(l, &v)
        v.finishFrames()
        return v
    }

    private func outstandingStep(_ l: Link, _ v: inout Verdict) {
        guard !l.outstandingAtEnd.isEmpty else { return }
        v.steps.append(
            Verdict.Step(
                what: "outstanding",
                text:
                    "\(l.outstandingAtEnd.count) request\(l.outstandingAtEnd.count == 1 ? " was" : "s were") still waiting for a response when the link ended",
                frames: l.outstandingAtEnd, certainty: .observed, basis: "the timeline's outcome `disconnected`"))
        v.signals.append("request_outstanding_at_end")
    }

    private func endWho(_ side: DisconnectionSide) -> String {
        switch side {
        case .local: "this host ended the link"
        case .remote: "the peer ended the link"
        case .linkLoss: "the link was lost, neither side ended it"
        }
    }

    static func phaseText(_ phase: StaticString) -> String {
        switch phase.description {
        case "feature_exchange": "the feature exchange (phase 1)"
        case "authentication": "authentication (phase 2)"
        default: "key distribution (phase 3)"
        }
    }

    /// Links with no Disconnection Complete: still open, or tracking lost.
    private func notEnded(_ l: Link, _ s: ConnectionSummary?, _ ended: String, _ context: String, _ v: inout Verdict) {
        if ended == "open" {
            v.cause = "still_open"
            v.party = "unknown"
            v.steps.append(
                Verdict.Step(
                    what: "open", text: "the link was still up when the capture ended", frames: [],
                    certainty: .observed, basis: "no Disconnection Complete for it"))
            v.summary = "Still connected when the capture ended: nothing to diagnose about its end."
            v.signature = "still_open \(context)"
            return
        }
        if let s, let reset = s.resetFrame {
            controllerReset(s, reset, context, &v)
            outstandingStep(l, &v)
            return
        }
        v.cause = "cause_unknown"
        v.party = "unknown"
        var text =
            "tracking of the link ended without a Disconnection Complete, reset or reuse of its handle in the capture (the timeline lets the oldest link go when too many are open at once)"
        var frames: [Int] = []
        if let s, let next = all(after: l, handle: s.handle) {
            text =
                "a Connection Complete (frame \(next)) reused handle \(Codes.hex16(s.handle)) with no Disconnection Complete for this link: its end is not in the capture"
            frames = [next]
        }
        v.steps.append(
            Verdict.Step(
                what: "missing", text: text, frames: frames, certainty: .observed,
                basis: "no Disconnection Complete or LL_TERMINATE_IND for the link"))
        v.summary = "How and why the link ended is not in the capture."
        v.signature = "cause_unknown \(context) missing=disconnection"
    }

    /// A link this host's HCI Reset ended: a reset drops every connection of the controller and
    /// no Disconnection Complete follows (Core Vol 4 Part E 7.3.2). That much is observed; why
    /// the host reset is not in HCI, unless the controller had just reported its own failure
    /// (BQR Root Inflammation), after which Android's stack restarts Bluetooth.
    private func controllerReset(_ s: ConnectionSummary, _ reset: Int, _ context: String, _ v: inout Verdict) {
        v.cause = "controller_reset"
        v.party = "host"
        v.steps.append(
            Verdict.Step(
                what: "reset",
                text:
                    "this host reset its controller while the link was up: a reset ends every connection, with no Disconnection Complete",
                frames: [reset], certainty: .observed, basis: "HCI Reset (Vol 4 Part E 7.3.2)"))
        let endTime = s.endTime ?? s.startTime
        if rootInflammationStep(s, endFrame: reset, endTime: endTime, &v) {
            v.steps.append(
                Verdict.Step(
                    what: "why",
                    text:
                        "the reset came after the controller's failure report: Android's stack restarts Bluetooth after a root inflammation, most likely this reset",
                    frames: [s.rootInflammation?.frame ?? reset, reset], certainty: .inferred,
                    basis: "a BQR Root Inflammation, then an HCI Reset, while the link was up"))
            v.summary =
                "The controller reported its own failure (BQR root inflammation), then this host reset it, which ended the link."
        } else {
            v.steps.append(
                Verdict.Step(
                    what: "why",
                    text:
                        "why this host reset its controller is not in HCI: Bluetooth turned off or restarted, or the stack recovering from an error",
                    frames: [reset], certainty: .inferred, basis: "an HCI capture holds no reason for a reset"))
            v.summary =
                "This host reset its controller while the link was up, which ended it; why it reset is not in the capture."
        }
        v.signature = "controller_reset \(context)"
    }

    /// The first link after `l` on the same handle that started with a Connection Complete.
    private func all(after l: Link, handle: UInt16) -> Int? {
        var best: Int?
        for o in links.values where o.number > l.number {
            // A link still open (live verdicts) is known by its Connection Complete's handle.
            let start: Int
            if let s = o.summary {
                guard s.handle == handle, !s.unknownStart else { continue }
                start = s.startFrame
            } else {
                guard o.completeHandle == handle else { continue }
                start = o.firstFrame
            }
            if best == nil || start < best! { best = start }
        }
        return best
    }

    private func keyMissing(
        _ l: Link, _ role: String?, _ end: Disconnection, _ reason: UInt8, _ context: String, _ v: inout Verdict
    ) {
        v.cause = "key_missing"
        var frames = [end.frame]
        if let f = l.encryptionFailed { frames.append(f.frame) }
        // The central starts encryption with the key it kept; a peripheral that lost the bond
        // answers the LTK request negatively, and the central's controller reports 0x06.
        let lostBy: String
        switch role {
        case "central": lostBy = "peer"
        case "peripheral": lostBy = "host"
        default: lostBy = "unknown"
        }
        v.party = lostBy == "host" ? "host" : lostBy
        v.steps.append(
            Verdict.Step(
                what: "key_missing",
                text: lostBy == "unknown"
                    ? "encryption with the bonded key failed: \(Codes.hci(0x06)); which side lost its bond cannot be told without this host's role"
                    : "encryption with the bonded key failed: \(lostBy == "peer" ? "the peer no longer has the key this host kept (its pairing was removed or reset)" : "this host no longer has the key the peer kept")",
                frames: frames, certainty: lostBy == "unknown" ? .observed : .inferred,
                basis:
                    "PIN or Key Missing (0x06) on \(l.encryptionFailed != nil ? "Encryption Change" : "Disconnection Complete"), with this host's role"
            ))
        v.summary =
            "The bond is gone on one side (\(Codes.hci(0x06))): \(lostBy == "peer" ? "the peer lost or removed its pairing" : lostBy == "host" ? "this host lost its pairing" : "which side lost it cannot be told"); pair again after removing the stale bond."
        v.signature = "key_missing lost_by=\(lostBy) \(context)"
    }

    /// Supervision timeout / LL response timeout: the last PDU each side sent, and what the air
    /// showed of the link when the capture is over the air.
    private func lastPDUSteps(_ l: Link, _ s: ConnectionSummary?, _ end: Disconnection, _ v: inout Verdict) {
        for (mark, who, what) in [
            (l.lastFromHost, "this host", "last_from_host"), (l.lastFromPeer, "the peer", "last_from_peer"),
        ] {
            if let m = mark {
                v.steps.append(
                    Verdict.Step(
                        what: what,
                        text:
                            "the last PDU from \(who) the timeline shows: \(m.type), \(Codes.duration(end.time - m.time)) before the end",
                        frames: [m.frame], certainty: .observed, basis: "the last ATT/SMP/L2CAP event of that side"))
            } else {
                v.steps.append(
                    Verdict.Step(
                        what: what, text: "no PDU from \(who) on this link is in the capture", frames: [],
                        certainty: .observed, basis: "no ATT/SMP/L2CAP event of that side"))
            }
        }
        if let c = s?.linkLayer {
            v.steps.append(
                Verdict.Step(
                    what: "air",
                    text:
                        "over the air: \(c.dataPDUs) data PDUs, \(c.emptyPDUs) empty, \(c.retransmissions) retransmissions, \(c.crcErrors) CRC errors, \(c.missedEvents) missed connection events",
                    frames: [], certainty: .observed, basis: "the sniffer's packets of this link"))
        } else if s?.endReason == HCIError.connectionTimeout {
            v.steps.append(
                Verdict.Step(
                    what: "why",
                    text:
                        "an HCI capture cannot show why packets stopped (range, interference, a peer that reset): an over-the-air capture, RSSI or the peer's log can",
                    frames: [], certainty: .inferred, basis: "HCI carries no radio events"))
        }
    }

    /// GATT error groups as steps and signals.
    private func errorSteps(_ l: Link, _ v: inout Verdict) {
        for g in l.errors {
            let requester = g.sentByHost ? "this host" : "the peer"
            let next: String
            let nextText: String
            let after = (g.sentByHost ? l.requests.0 : l.requests.1) - g.requestsAtLast
            if g.count >= Self.retryStorm {
                next = "retry_storm"
                nextText = "\(requester) sent the same request \(g.count) times, each refused: a retry storm"
            } else if let f = g.succeededAt {
                next = "retried_ok"
                nextText =
                    (g.securityAt.map { "pairing or encryption started (frame \($0)), then " } ?? "")
                    + "\(requester) retried and the request succeeded at frame \(f)"
            } else if let f = g.securityAt {
                next = "started_security"
                nextText = "pairing or encryption started next (frame \(f))"
            } else if after == 0 {
                next = "ended"
                nextText = "\(requester) sent no further request on the link"
            } else {
                next = "gave_up"
                nextText = "\(requester) moved on without retrying (\(after) later request\(after == 1 ? "" : "s"))"
            }
            let security = g.isSecurity
            var what = "\(g.type) of handle \(Codes.hex16(g.handle))"
            if let a = g.attribute { what += " (\(a))" }
            v.steps.append(
                Verdict.Step(
                    what: security ? "insufficient_security" : "gatt_error",
                    text:
                        "\(g.sentByHost ? "the peer's server" : "this host's server") refused \(requester == "this host" ? "this host's" : "the peer's") \(what) with \(Codes.att(g.code))\(g.count > 1 ? ", \(g.count) times" : ""); next: \(nextText)",
                    frames: g.frames + [g.succeededAt, g.securityAt].compactMap { $0 }, certainty: .observed,
                    basis: "ATT Error Response\(g.count > 1 ? "s" : "") to the request"))
            v.signals.append(
                "\(security ? "insufficient_security" : "gatt_error"):\(Codes.hex(g.code)):\(g.type):\(g.sentByHost ? "host" : "peer"):\(next)"
            )
        }
        if l.errorGroupsDropped > 0 {
            v.steps.append(
                Verdict.Step(
                    what: "gatt_error",
                    text: "\(l.errorGroupsDropped) more error responses to other requests are not listed",
                    frames: [], certainty: .observed, basis: "the diagnosis keeps \(Self.maximumErrorGroups) groups"))
        }
        if let u = l.unanswered {
            v.steps.append(
                Verdict.Step(
                    what: "unanswered",
                    text:
                        "\(u.count) request\(u.count == 1 ? "" : "s") from \(u.sentByHost ? "this host" : "the peer") got no response before the next one went out",
                    frames: [u.first], certainty: .observed, basis: "the timeline's outcome `unanswered`"))
            v.signals.append("att_unanswered:\(u.sentByHost ? "host" : "peer")")
        }
    }

    /// Security facts worth a step even when they are not the end's cause.
    private func securitySteps(_ l: Link, _ v: inout Verdict) {
        if let p = l.pairingFailed {
            v.signals.append("pairing_failed:\(Codes.hex(p.reason)):\(p.sentByHost ? "host" : "peer")")
        }
        if let e = l.encryptionFailed, e.status != HCIError.pinOrKeyMissing {
            v.steps.append(
                Verdict.Step(
                    what: "encryption_failed", text: "encryption failed to start: \(Codes.hci(e.status))",
                    frames: [e.frame],
                    certainty: .observed, basis: "HCI Encryption Change with a non-zero status"))
            v.signals.append("encryption_failed:\(Codes.hex(e.status))")
        }
        if l.securityRequests > 0, let r = l.securityRequest {
            v.signals.append("security_request:\(r.sentByHost ? "host" : "peer")")
        }
    }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
