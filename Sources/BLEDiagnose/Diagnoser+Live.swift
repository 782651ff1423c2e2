import BLETimeline

/// Live verdicts (`Diagnoser(onVerdict:)`, `blecap watch`): each verdict is handed out as soon
/// as nothing later in the capture can change it, and forgotten.
///
/// The timeline ends a connection (`connectionEnded`) while the frame that ends it is being
/// read, and hands out the connection's last events (its requests left outstanding, its
/// Disconnection Complete) after that, in the order it made them. So a connection's verdict is
/// final when
/// * its Disconnection Complete (or LL_TERMINATE_IND, or the supervision timeout running out
///   over the air) has come as an event, every earlier event having come before it; or
/// * for a link the timeline ended without one (a controller reset, its handle reused by a new
///   Connection Complete), an event of a later frame than the one that ended it has come;
/// * else at `finish()`.
/// Attempts' verdicts are final as their result comes. The verdicts are the ones `finish()`
/// gives without `onVerdict`, in the order they became final instead of the order their
/// connections started.
extension Diagnoser {
    /// After each event, in live mode.
    func live(after e: TimelineEvent) {
        if !early.isEmpty {
            let ready = early
            early.removeAll()
            for v in ready { onVerdict?(v) }
        }
        if case .disconnection(let status, _, _) = e.kind, status == 0, let n = e.connection,
            let l = links[n], l.summary != nil
        {
            handOut(l)
        }
        guard !waiting.isEmpty else { return }
        for (n, ended) in waiting {
            guard let ended, e.frame > ended, let l = links[n] else { continue }
            handOut(l)
        }
    }

    /// A connection the timeline ended: its end event may still be on its way.
    func live(ended number: Int) {
        guard let l = links[number] else { return }
        if l.end != nil {
            handOut(l)
        } else {
            waiting[number] = .some(nil)
        }
    }

    /// After each frame has been through the timeline, in live mode: connections it ended
    /// wait for an event of a later frame.
    func live(frameDone frame: Int) {
        guard !waiting.isEmpty else { return }
        for (n, ended) in waiting where ended == nil { waiting[n] = frame }
    }

    private func handOut(_ l: Link) {
        let v = verdictWithBudget(l, among: [])
        links[l.number] = nil
        waiting[l.number] = nil
        if lastLink === l { lastLink = nil }
        handedOut.insert(l.number)
        onVerdict?(v)
    }

    /// A capture cut or damaged while a link was up or an attempt was running: what followed,
    /// its end included, is not in it.
    static func noteCut(_ v: inout Verdict, _ damage: String) {
        guard v.cause == "still_open" || v.signature.contains("attempt=capture_ended") else { return }
        v.steps.append(
            Verdict.Step(
                what: "missing",
                text:
                    "the capture is cut: \(damage); whatever followed, \(v.kind == .attempt ? "the attempt's result" : "the link's end") included, is not in it",
                frames: [], certainty: .observed, basis: "the capture's reader stopped at damage"))
        v.signature += " missing=capture_rest"
        v.summary =
            v.kind == .attempt
            ? "Still connecting where the capture breaks off (it is damaged there): the attempt's result is not in it."
            : "Still connected where the capture breaks off (it is damaged there): how and when the link ended is not in it."
    }
}
