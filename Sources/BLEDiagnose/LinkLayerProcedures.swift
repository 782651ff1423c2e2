import BLEPackets
import BLETimeline

/// An LL control procedure one side started over the air and the other has not answered yet
/// (link-layer captures only: HCI shows none of the link layer's own traffic).
struct PendingProcedure {
    var frame: Int
    var time: Int64
    var opcode: UInt8
    var byCentral: Bool
}

extension Link {
    /// The LL control PDUs that answer `request` from the other side (Core 5.4 Vol 6 Part B
    /// 5.1), besides LL_REJECT_IND, LL_REJECT_EXT_IND and LL_UNKNOWN_RSP, which end any; nil
    /// when the PDU starts no procedure that waits for an answer (the LL response timeout of
    /// 5.2 runs for these).
    static func answers(to request: UInt8) -> [UInt8]? {
        switch request {
        case LLControlOpcode.encReq: [LLControlOpcode.encRsp]
        case LLControlOpcode.featureReq, LLControlOpcode.peripheralFeatureReq: [LLControlOpcode.featureRsp]
        case LLControlOpcode.pauseEncReq: [LLControlOpcode.pauseEncRsp]
        case LLControlOpcode.connectionParamReq:
            [LLControlOpcode.connectionParamRsp, LLControlOpcode.connectionUpdateInd]
        case LLControlOpcode.pingReq: [LLControlOpcode.pingRsp]
        case LLControlOpcode.lengthReq: [LLControlOpcode.lengthRsp]
        case LLControlOpcode.phyReq: [LLControlOpcode.phyRsp, LLControlOpcode.phyUpdateInd]
        default: nil
        }
    }

    /// Over the air: notes the procedures each LL control PDU starts or answers.
    func linkLayerProcedure(_ e: TimelineEvent) {
        switch e.kind {
        case .linkLayerControl(let opcode, let byCentral, _):
            guard let byCentral else { return }
            if let p = llPending, p.byCentral != byCentral,
                opcode == LLControlOpcode.rejectInd || opcode == LLControlOpcode.rejectExtInd
                    || opcode == LLControlOpcode.unknownRsp || Self.answers(to: p.opcode)?.contains(opcode) == true
            {
                llPending = nil
            }
            if Self.answers(to: opcode) != nil {
                llPending = PendingProcedure(frame: e.frame, time: e.time, opcode: opcode, byCentral: byCentral)
            }
        case .dataLengthChange:
            if llPending?.opcode == LLControlOpcode.lengthReq { llPending = nil }
        case .connectionUpdate:
            if llPending?.opcode == LLControlOpcode.connectionParamReq { llPending = nil }
        case .phyUpdate:
            if llPending?.opcode == LLControlOpcode.phyReq { llPending = nil }
        default:
            break
        }
    }
}

extension Diagnoser {
    /// Reason 0x22 (LL Response Timeout): which procedure went unanswered, when the capture is
    /// over the air and shows it; else what the capture cannot show.
    func llResponseTimeoutSteps(_ l: Link, _ end: Disconnection, overTheAir: Bool, _ v: inout Verdict) {
        let hostIsCentral = (l.summary?.role ?? l.role).map { $0 == 0 }
        if !overTheAir, let c = l.summary?.linkCommand, let status = c.statusFrame, c.time <= end.time {
            hostCommandStep(c, statusFrame: status, end, &v)
            return
        }
        guard let p = l.llPending, p.time <= end.time else {
            v.steps.append(
                Verdict.Step(
                    what: "ll_procedure",
                    text: overTheAir
                        ? "no LL control procedure left unanswered is in the capture: the sniffer may have missed the request or its answer"
                        : "an HCI capture does not show the link layer's own procedures: which one went unanswered takes an over-the-air capture",
                    frames: [], certainty: .inferred,
                    basis: overTheAir
                        ? "every LL request over the air was answered" : "HCI carries no LL control PDUs"))
            return
        }
        let name = LLControlPDU.name(p.opcode).description
        let sender: String
        let other: String
        if let hostIsCentral {
            sender = p.byCentral == hostIsCentral ? "this host's controller" : "the peer"
            other = p.byCentral == hostIsCentral ? "the peer" : "this host's controller"
        } else {
            sender = p.byCentral ? "the central" : "the peripheral"
            other = p.byCentral ? "the peripheral" : "the central"
        }
        let answers = Self.answersText(p.opcode)
        v.steps.append(
            Verdict.Step(
                what: "ll_procedure",
                text:
                    "\(sender) sent \(name) \(Codes.duration(end.time - p.time)) before the end and \(other) never answered it (\(answers), LL_REJECT_IND or LL_UNKNOWN_RSP)",
                frames: [p.frame, end.frame], certainty: .inferred,
                basis:
                    "over the air: no answering LL control PDU from the other side after the request; the LL response timeout is 40 s (Vol 6 Part B 5.2)"
            ))
        if v.cause == "ll_response_timeout" { v.signature += " procedure=\(name)" }
    }

    /// HCI: the LE command of this host whose procedure had not completed when the link
    /// ended (the controller accepted it with Command Status; its completion event never came).
    func hostCommandStep(_ c: OutstandingLinkCommand, statusFrame: Int, _ end: Disconnection, _ v: inout Verdict) {
        let name = c.commandName.description
        v.steps.append(
            Verdict.Step(
                what: "ll_procedure",
                text:
                    "this host's \(name) (frame \(c.frame)) was accepted by the controller (Command Status, frame \(statusFrame)) \(Codes.duration(end.time - c.time)) before the end, and no \(c.completionName) came: the link-layer procedure it started is the one most likely left unanswered",
                frames: [c.frame, statusFrame, end.frame], certainty: .inferred,
                basis:
                    "HCI: the command's Command Status with no completion event before the Disconnection Complete; the LL response timeout is 40 s (Vol 6 Part B 5.2)"
            ))
        if v.cause == "ll_response_timeout" {
            v.signature += " command=" + String(name.map { $0 == " " ? "_" : $0 })
        }
    }

    static func answersText(_ opcode: UInt8) -> String {
        (Link.answers(to: opcode) ?? []).map { LLControlPDU.name($0).description }.joined(separator: " or ")
    }
}

extension Diagnoser {
    /// Reason 0x3D (MIC failure): the encryption start that preceded it and where its key came
    /// from, as far as the capture shows.
    func micFailureSteps(_ l: Link, _ end: Disconnection, _ v: inout Verdict) {
        guard let enc = l.encryption, enc.frame <= end.frame else {
            v.steps.append(
                Verdict.Step(
                    what: "key",
                    text: "no encryption start is in the capture before the end: which key was in use cannot be told",
                    frames: [], certainty: .observed, basis: "no Encryption Change (or LL_START_ENC) on the link"))
            if v.cause == "mic_failure" { v.signature += " key=unknown" }
            return
        }
        var frames = [enc.frame, end.frame]
        let text: String
        let key: String
        if let p = l.pairingRequest, p.mark.frame < enc.frame {
            frames.append(p.mark.frame)
            key = "pairing"
            text =
                "encryption started at frame \(enc.frame), \(Codes.duration(end.time - enc.time)) before the end, with the key of the pairing this link made at frame \(p.mark.frame)"
        } else {
            key = "bonded"
            text =
                "encryption started at frame \(enc.frame), \(Codes.duration(end.time - enc.time)) before the end, with a key bonded before: no pairing on this link precedes it, so one side may hold another key for the bond"
        }
        var step = Verdict.Step(
            what: "key", text: text, frames: frames, certainty: .inferred,
            basis: "the last Encryption Change (or LL_START_ENC) before the end, and the pairing before it")
        if let k = l.keySource {
            step.text +=
                k.decrypting
                ? "; over the air blecap decrypted it with \(k.text) (frame \(k.frame))"
                : "; over the air blecap could not decrypt it: \(k.text) (frame \(k.frame))"
            step.frames.append(k.frame)
        }
        v.steps.append(step)
        if v.cause == "mic_failure" { v.signature += " key=\(key)" }
    }
}

extension Link {
    static func keyText(_ n: LinkLayerDecryptionNote) -> String {
        switch n {
        case .decrypting(let source):
            switch source {
            case .recoveredFromPairing: "the STK of this link's LE legacy pairing (its TK recovered from the capture)"
            case .given: "a key given with --ltk"
            case .distributed(_, let frame): "the LTK a pairing distributed at frame \(frame)"
            case .secureConnectionsDebugKey: "the LTK of LE Secure Connections with the debug key"
            }
        case .notDecryptable(let why): "no key (\(why))"
        }
    }
}

extension Diagnoser {
    /// A stall ending this long before the link's end is still cited: the link may have
    /// recovered for a moment only.
    static let stallWindow: Int64 = 10_000_000

    /// (d) Every LE ACL buffer held by the link's packets, with no Number of Completed Packets
    /// for at least `ACLBufferStall.threshold`, up to the end or shortly before it.
    func bufferStallStep(_ st: ACLBufferStall, _ end: Disconnection, _ v: inout Verdict) {
        guard st.duration >= ACLBufferStall.threshold, st.startTime <= end.time else { return }
        let stallEnd = st.startTime + st.duration
        if st.endFrame != nil, end.time - stallEnd > Self.stallWindow { return }
        let until =
            st.endFrame.map { "until frame \($0), \(Codes.duration(end.time - stallEnd)) before the end" }
            ?? "until the end (\(st.packets) packets still unacknowledged)"
        v.steps.append(
            Verdict.Step(
                what: "buffer_stall",
                text:
                    "every LE ACL buffer of the controller held this link's packets for \(Codes.duration(st.duration)) with no Number of Completed Packets, from frame \(st.startFrame) \(until): the controller could not deliver to the peer",
                frames: [st.startFrame] + (st.endFrame.map { [$0] } ?? []) + [end.frame], certainty: .inferred,
                basis:
                    "the ACL packets this host sent against LE Read Buffer Size's count and the Number of Completed Packets events; 1 s or more counts (a delivering link frees its buffers within a few connection intervals)"
            ))
        v.signals.append("acl_buffer_stall")
    }
}
