import BLEBytes
import BLEPackets
import BLETimeline

/// Says why each connection of a capture ended and why each connection attempt failed, from
/// the timeline alone: feed it every `TimelineEvent` (`observe`) and every ended connection's
/// summary (`connectionEnded`), in the order a `TimelineBuilder` hands them out, then call
/// `finish()`. It decodes no frame itself, so it works on whatever the timeline was built
/// from (HCI, over the air, a simulator trace).
///
/// State is bounded per connection (a fixed set of marks and at most
/// `maximumErrorGroups` GATT error groups); verdicts are kept until `finish()`, one per
/// connection and per failed attempt.
public final class Diagnoser {
    /// A local disconnect this soon after a GATT error response counts as its consequence.
    public static let disconnectAfterErrorWindow: Int64 = 2_000_000
    /// A disconnect this soon after a Security Request (with no pairing or encryption since)
    /// counts as its consequence.
    public static let securityRequestWindow: Int64 = 10_000_000
    /// A create-connection cancelled after waiting at least this long was the host's connect
    /// timeout, not a change of mind (Android's direct connect gives up after 30 s).
    public static let connectTimeoutWait: Int64 = 20_000_000
    /// The same request failing this many times is a retry storm.
    public static let retryStorm = 3
    static let maximumErrorGroups = 32
    static let maximumFramesPerGroup = 8

    var links: [Int: Link] = [:]
    /// The link the last event named: events come in runs on one connection. Held unretained:
    /// `links` holds every link it names (each place that takes a link out of `links` clears
    /// it), and a strong reference was retained and released for every event
    /// (docs/performance.md).
    var lastLink: Link? {
        get { lastLinkRef?.takeUnretainedValue() }
        set { lastLinkRef = newValue.map { Unmanaged.passUnretained($0) } }
    }
    private var lastLinkRef: Unmanaged<Link>?
    /// Verdicts made as their events arrived (attempts, disconnections of unknown links).
    var early: [Verdict] = []
    var attempt: Attempt?
    /// The last Disconnection Complete of a known link: a second one right after it, for a
    /// handle no link holds, is most likely the same end reported twice.
    var lastEnd: (frame: Int, time: Int64, connection: Int)?
    /// Two ends this close together are taken as one end reported twice.
    static let duplicateEndWindow: Int64 = 10_000

    /// Live mode (`Diagnoser+Live.swift`): where each verdict goes as soon as it is known.
    let onVerdict: ((Verdict) -> Void)?
    /// Live mode: ended links waiting for the last of their events, with the frame after
    /// which the timeline had ended them (nil until that frame is through the timeline).
    var waiting: [Int: Int?] = [:]
    /// Live mode: connections whose verdict was handed out (later events for them are ignored).
    var handedOut: Set<Int> = []
    /// What the capture's reader said of damage (`CaptureDamage`'s description), when it was
    /// cut or damaged: verdicts still open at its end say that the rest is missing.
    public var damage: String?
    /// The platform whose API the budget's advice names (lint's platform fact).
    public var platform: Platform
    /// The controller's LE ACL buffers (HCI LE Read Buffer Size), for the budget.
    var aclBuffers: (packets: Int, length: Int)?
    /// What each advertiser's reports showed (AttemptContext.swift), bounded by
    /// `maximumAdvertisers`, and when the last report of any came.
    var advertisers: [BDAddr: AdvertiserSeen] = [:]
    var lastAdvertisementTime: Int64?
    /// Failed attempts per target, for `reconnect_loop`.
    var loops: [String: LoopHistory] = [:]

    /// - Parameters:
    ///   - platform: whose API the budget's advice names.
    ///   - onVerdict: when given, each verdict is handed to it as soon as it is known
    ///     (a connection's when its end has come through the timeline, an attempt's when its
    ///     result has), and the rest by `finish()`; nothing handed out is kept.
    public init(platform: Platform = .unknown, onVerdict: ((Verdict) -> Void)? = nil) {
        self.platform = platform
        self.onVerdict = onVerdict
    }

    // MARK: feeding

    public func observe(_ e: TimelineEvent) {
        // Notifications, most events of a transfer, straight to their link (what the `default`
        // case below does for them), without unpacking the other kinds' payloads. Live mode
        // takes the general path.
        if onVerdict == nil, case .notification(let op) = e.kind, let n = e.connection {
            if let u = lastLinkRef, u._withUnsafeGuaranteedRef({ $0.number == n }) {
                u._withUnsafeGuaranteedRef { l in
                    l.notification(e, sent: op.sent)
                    l.budget.notification(e, op.mtu, op.mtuKnown, op.sent)
                }
            } else {
                let l = link(n, e.frame)
                l.notification(e, sent: op.sent)
                l.budget.notification(e, op.mtu, op.mtuKnown, op.sent)
            }
            return
        }
        if onVerdict != nil, let n = e.connection, handedOut.contains(n) { return }
        defer { if onVerdict != nil { live(after: e) } }
        switch e.kind {
        case .advertisement(let info):
            noteAdvertisement(e, info)
            lastAdvertisementTime = e.time
            return
        case .scanStart, .scanStop, .scanFilters, .annotation, .advertisingStart, .advertisingStop:
            return
        case .connectionCreate(let info): create(e, info)
        case .connectionCancel: cancel(e)
        case .connectionFailed(let info): failed(e, info)
        case .connectionComplete(let info):
            if info.role != 1 { attempt = nil }
            if let n = e.connection {
                let l = link(n, e.frame)
                l.role = info.role
                l.completeHandle = info.handle
                l.budget.connected(info.timing)
            }
        case .initComplete(let c):
            if let n = c.leACLPackets, n > 0, let len = c.leACLMaxLength, len > 0 {
                aclBuffers = (Int(n), Int(len))
            }
        case .disconnection(let status, let reason, let side):
            if let n = e.connection {
                let l = link(n, e.frame)
                if status == 0 {
                    l.end = Disconnection(frame: e.frame, time: e.time, reason: reason, side: side)
                    lastEnd = (e.frame, e.time, n)
                } else if l.failedDisconnect == nil {
                    l.failedDisconnect = (e.frame, status)
                }
            } else if status == 0 {
                early.append(unknownLinkEnded(e, reason: reason, side: side))
            }
        default:
            guard let n = e.connection else { return }
            let l = link(n, e.frame)
            l.observe(e)
            l.budget.observe(e)
        }
    }

    public func connectionEnded(_ s: ConnectionSummary) {
        if onVerdict != nil, handedOut.contains(s.number) { return }
        link(s.number, s.startFrame).summary = s
        if onVerdict != nil { live(ended: s.number) }
    }

    /// The verdicts, in the order their connections or attempts started.
    public func finish() -> [Verdict] {
        if let a = attempt {
            var v = a.unfinished()
            context(&v, a, endTime: nil)
            early.append(v)
            attempt = nil
        }
        let ordered = links.values.sorted { $0.number < $1.number }
        var all = early
        for l in ordered { all.append(verdictWithBudget(l, among: ordered)) }
        if let damage { for i in all.indices { Self.noteCut(&all[i], damage) } }
        // A loop starts at its first attempt's frame, and comes right after that attempt.
        all += loopVerdicts()
        all.sort {
            ($0.startFrame, $0.connection ?? 0, $0.kind == .loop ? 1 : 0)
                < ($1.startFrame, $1.connection ?? 0, $1.kind == .loop ? 1 : 0)
        }
        loops.removeAll()
        advertisers.removeAll()
        links.removeAll()
        lastLink = nil
        early.removeAll()
        waiting.removeAll()
        if let onVerdict { for v in all { onVerdict(v) } }
        return all
    }

    /// A link's verdict with its budget: what `finish()` and a live hand-out give alike.
    func verdictWithBudget(_ l: Link, among links: [Link]) -> Verdict {
        var v = verdict(l, among: links)
        v.budget = l.budget.finish(platform: platform, role: l.summary?.role ?? l.role, aclBuffers: aclBuffers)
        return v
    }

    func link(_ number: Int, _ frame: Int) -> Link {
        if let l = lastLink, l.number == number { return l }
        if let l = links[number] {
            lastLink = l
            return l
        }
        let l = Link(number: number, firstFrame: frame)
        links[number] = l
        lastLink = l
        return l
    }

    // MARK: attempts

    private func create(_ e: TimelineEvent, _ info: ConnectionCreateInfo) {
        if case .error(let frame, _, let code, _) = e.outcome {
            early.append(Attempt(e, info).rejected(responseFrame: frame, code: code))
            return
        }
        if let a = attempt {
            var v = a.superseded(by: e.frame)
            context(&v, a, endTime: e.time)
            early.append(v)
        }
        attempt = Attempt(e, info)
    }

    private func cancel(_ e: TimelineEvent) {
        guard attempt != nil else { return }
        if case .error = e.outcome { return }
        attempt?.cancel = (e.frame, e.time)
    }

    private func failed(_ e: TimelineEvent, _ info: ConnectionCompleteInfo) {
        let a = attempt
        attempt = nil
        var v = Attempt.failed(e, info, after: a)
        context(&v, a, endTime: e.time)
        if a == nil, info.overTheAir { followOverTheAir(v, e) }
        early.append(v)
    }

    private func unknownLinkEnded(_ e: TimelineEvent, reason: UInt8, side: DisconnectionSide) -> Verdict {
        var v = Verdict(
            kind: .connection, connection: nil, peer: nil, handle: nil, role: nil, startFrame: e.frame,
            endFrame: e.frame, ended: side.name.description, reason: Int(reason),
            reasonName: HCIError.name(reason)?.description, cause: "cause_unknown", party: "unknown",
            summary: "", signature: "", signals: [], frames: [], steps: [])
        v.steps.append(
            Verdict.Step(
                what: "end",
                text: "Disconnection Complete, reason \(Codes.hci(reason)), for a handle this capture never saw in use",
                frames: [e.frame], certainty: .observed, basis: "HCI Disconnection Complete"))
        if let last = lastEnd, e.time - last.time <= Self.duplicateEndWindow {
            // Contradictory: an end for a link just ended. The timeline's events name no
            // handle, so which link the second one meant is not stated.
            v.steps.append(
                Verdict.Step(
                    what: "contradiction",
                    text:
                        "connection #\(last.connection) ended \(Codes.duration(e.time - last.time)) earlier (frame \(last.frame)): this is most likely the same end reported a second time, with another reason",
                    frames: [last.frame, e.frame], certainty: .inferred,
                    basis:
                        "two Disconnection Completes within \(Codes.duration(Self.duplicateEndWindow)), the second for no open link"
                ))
            v.summary =
                "A second Disconnection Complete right after connection #\(last.connection)'s end: the capture contradicts itself, and this one's cause cannot be told."
            v.signature =
                "cause_unknown end=\(side.name) reason=\(Codes.hex(reason)) contradiction=second_disconnection"
        } else {
            v.steps.append(
                Verdict.Step(
                    what: "missing",
                    text:
                        "no Connection Complete and no traffic for the handle: the link was made before the capture started (or before a controller reset) and left nothing in it, so why it ended cannot be told",
                    frames: [e.frame], certainty: .inferred,
                    basis: "no earlier event of the capture names the handle"))
            v.summary = "A link the capture never showed ended (\(Codes.hci(reason))); the capture holds nothing of it."
            v.signature = "cause_unknown end=\(side.name) reason=\(Codes.hex(reason)) missing=connection_start"
        }
        v.finishFrames()
        return v
    }
}

/// An LE Create Connection waiting for its Connection Complete.
struct Attempt {
    var frame: Int
    var time: Int64
    var peer: BDAddr?
    var acceptList: Bool
    /// The devices on the accept list, when the capture built it (at most 4), and how many more.
    var acceptListDevices: [BDAddr]?
    var acceptListComplete: Bool
    var acceptListMore: Int
    var cancel: (frame: Int, time: Int64)?

    init(_ e: TimelineEvent, _ info: ConnectionCreateInfo) {
        frame = e.frame
        time = e.time
        peer = e.peer
        acceptList = info.filterPolicy != 0
        acceptListDevices = info.acceptListDevices?.devices
        acceptListComplete =
            info.acceptListDevices.map { $0.complete && $0.total <= AcceptListDevices.capacity } ?? false
        acceptListMore = max(0, (info.acceptListDevices?.total ?? 0) - AcceptListDevices.capacity)
    }

    private func base(ended: String, endFrame: Int?, reason: UInt8?) -> Verdict {
        Verdict(
            kind: .attempt, connection: nil, peer: peer?.description, handle: nil, role: "central",
            startFrame: frame, endFrame: endFrame, ended: ended, reason: reason.map(Int.init),
            reasonName: reason.flatMap { HCIError.name($0) }?.description, cause: "", party: "",
            summary: "", signature: "", signals: [], frames: [], steps: [createStep])
    }

    /// The steps of a cancelled attempt: how long the host waited, and what that suggests.
    static func cancelled(_ a: Attempt?, _ complete: Verdict.Step, _ v: inout Verdict) {
        guard let a else {
            v.steps.append(complete)
            v.steps.append(
                Verdict.Step(
                    what: "missing",
                    text:
                        "the create-connection this status ends is not in the capture (it began before the capture): how long the host waited cannot be told",
                    frames: [complete.frames.first ?? v.startFrame], certainty: .inferred,
                    basis: "status 0x02 is how a cancelled create-connection completes (Vol 4 Part E 7.8.13)"))
            v.summary = "A create-connection that began before the capture was cancelled."
            v.signature = "create_connection_cancelled missing=create"
            return
        }
        guard let c = a.cancel else {
            v.steps.append(complete)
            v.steps.append(
                Verdict.Step(
                    what: "missing", text: "no Create Connection Cancel is in the capture before this status",
                    frames: [complete.frames.first ?? v.startFrame], certainty: .inferred,
                    basis: "status 0x02 is how a cancelled create-connection completes (Vol 4 Part E 7.8.13)"))
            v.summary = "The create-connection ended as cancelled, though the cancel is not in the capture."
            v.signature = "create_connection_cancelled missing=cancel\(a.targetContext)"
            return
        }
        let waited = c.time - a.time
        v.steps.append(
            Verdict.Step(
                what: "cancel",
                text:
                    "this host cancelled the create-connection after waiting \(Codes.duration(waited)) for \(a.target)",
                frames: [c.frame], certainty: .observed, basis: "HCI LE Create Connection Cancel"))
        v.steps.append(complete)
        if a.acceptList {
            // Stacks keep a background connect on the accept list and cancel it whenever they
            // change the list or switch to a direct connect: the wait says nothing of a timeout.
            v.party = "os-stack"
            v.steps.append(
                Verdict.Step(
                    what: "why",
                    text:
                        "no device on the accept list connected in that time; stacks cancel a background (accept-list) connect to change the list or make a direct connect, then start it again",
                    frames: [c.frame], certainty: .inferred, basis: "the create used the filter accept list"))
            v.summary =
                "The OS stack's background connect was cancelled after \(Codes.duration(waited)) with no device on its accept list connecting."
            v.signature = "create_connection_cancelled target=accept_list"
            return
        }
        let long = waited >= Diagnoser.connectTimeoutWait
        v.steps.append(
            Verdict.Step(
                what: "why",
                text: long
                    ? "the device did not advertise connectably within the host's connect timeout (Android's direct connect gives up after 30 s)"
                    : "the host stopped waiting early: the app cancelled (disconnect / cancelPeripheralConnection) or the stack switched to another connection",
                frames: [c.frame], certainty: .inferred, basis: "the time from the create to the cancel"))
        v.summary =
            long
            ? "The host gave up connecting after \(Codes.duration(waited)): the device never answered in that time."
            : "The host cancelled connecting after \(Codes.duration(waited)), before the device could answer."
        v.signature = "create_connection_cancelled wait=\(long ? "timeout" : "short")"
    }

    private var target: String {
        acceptList ? "a device on the filter accept list" : (peer.map { "\($0)" } ?? "a device")
    }

    private var createStep: Verdict.Step {
        Verdict.Step(
            what: "create", text: "this host asked its controller to connect to \(target)", frames: [frame],
            certainty: .observed, basis: "HCI LE Create Connection")
    }

    private var targetContext: String { acceptList ? " target=accept_list" : "" }

    func rejected(responseFrame: Int, code: UInt8) -> Verdict {
        var v = base(ended: "rejected", endFrame: responseFrame, reason: code)
        v.cause = "create_connection_rejected"
        v.party = "host"
        v.steps.append(
            Verdict.Step(
                what: "rejected", text: "the controller refused the command: \(Codes.hci(code))",
                frames: [responseFrame], certainty: .observed, basis: "HCI Command Status"))
        v.summary = "The controller refused to start connecting (\(Codes.hci(code)))."
        v.signature = "create_connection_rejected reason=\(Codes.hex(code))\(targetContext)"
        v.finishFrames()
        return v
    }

    func superseded(by next: Int) -> Verdict {
        var v = base(ended: "unfinished", endFrame: nil, reason: nil)
        v.cause = "cause_unknown"
        v.party = "unknown"
        v.steps.append(
            Verdict.Step(
                what: "missing",
                text:
                    "another create-connection went out (frame \(next)) with no Connection Complete for this one in the capture",
                frames: [next], certainty: .observed, basis: "HCI LE Create Connection"))
        v.summary = "The attempt's result is not in the capture: another create-connection followed without one."
        v.signature = "cause_unknown attempt=no_result\(targetContext)"
        v.finishFrames()
        return v
    }

    func unfinished() -> Verdict {
        var v = base(ended: "unfinished", endFrame: nil, reason: nil)
        v.cause = "cause_unknown"
        v.party = "unknown"
        v.steps.append(
            Verdict.Step(
                what: "missing", text: "the capture ended while the controller was still connecting",
                frames: [], certainty: .observed, basis: "no Connection Complete after the create-connection"))
        v.summary = "Still connecting when the capture ended: whether it would have succeeded cannot be told."
        v.signature = "cause_unknown attempt=capture_ended\(targetContext)"
        v.finishFrames()
        return v
    }

    /// A Connection Complete with a non-zero status (7.7.65.1), with the attempt it ends.
    static func failed(_ e: TimelineEvent, _ info: ConnectionCompleteInfo, after a: Attempt?) -> Verdict {
        let code = info.status
        var v: Verdict
        if let a {
            v = a.base(ended: "failed", endFrame: e.frame, reason: code)
        } else {
            v = Verdict(
                kind: .attempt, connection: nil,
                peer: e.peer.flatMap { $0.description == "00:00:00:00:00:00" ? nil : $0.description }, handle: nil,
                role: info.role.map { $0 == 0 ? "central" : "peripheral" }, startFrame: e.frame, endFrame: e.frame,
                ended: "failed", reason: Int(code), reasonName: HCIError.name(code)?.description, cause: "",
                party: "", summary: "", signature: "", signals: [], frames: [], steps: [])
        }
        let targetContext = a?.targetContext ?? ""
        let complete =
            info.overTheAir
            ? Verdict.Step(
                what: "end",
                text:
                    "CONNECT_IND with no answer from the peripheral in the transmit window and the 6 connection intervals after it: \(Codes.hci(code))",
                frames: [e.frame], certainty: .inferred,
                basis: "over the air: the peripheral's silence on the new access address (Core Vol 6 Part B 4.5.2)")
            : Verdict.Step(
                what: "end", text: "Connection Complete with status \(Codes.hci(code))", frames: [e.frame],
                certainty: .observed, basis: "HCI LE Connection Complete")
        if code == HCIError.unknownConnectionIdentifier {
            // 7.8.13: a cancelled create-connection completes with Unknown Connection Identifier.
            v.ended = "cancelled"
            v.cause = "create_connection_cancelled"
            v.party = "host"
            cancelled(a, complete, &v)
        } else if code == HCIError.connectionFailedToBeEstablished {
            v.cause = "failed_to_be_established"
            v.party = "link"
            v.steps.append(complete)
            v.steps.append(
                Verdict.Step(
                    what: "why",
                    text:
                        "the controller sent the connection request but the peer never answered its first packets (moved away, stopped advertising, or interference)",
                    frames: [e.frame], certainty: .inferred, basis: "the meaning of status 0x3E"))
            v.summary = "The connection failed to be established: the peer never answered the connection request."
            v.signature = "failed_to_be_established reason=0x3E\(targetContext)"
        } else if code == HCIError.pageTimeout {
            // BR/EDR Connection Complete (7.7.3): the device did not answer paging.
            v.cause = "page_timeout"
            v.party = "link"
            v.steps.append(complete)
            v.summary = "A BR/EDR connection failed: the device did not answer paging (Page Timeout)."
            v.signature = "page_timeout reason=0x04\(targetContext)"
        } else if code == HCIError.advertisingTimeout {
            v.cause = "advertising_timeout"
            v.party = "host"
            v.steps.append(complete)
            v.summary = "Directed advertising timed out with no central connecting."
            v.signature = "advertising_timeout reason=0x3C"
        } else {
            v.cause = "connection_failed"
            v.party = "unknown"
            v.steps.append(complete)
            v.summary = "The connection attempt failed: \(Codes.hci(code))."
            v.signature = "connection_failed reason=\(Codes.hex(code))\(targetContext)"
        }
        v.finishFrames()
        return v
    }
}

extension Verdict {
    /// `frames` as the sorted union of the steps' frames; steps' frames sorted and unique.
    mutating func finishFrames() {
        var all: [Int] = []
        for i in steps.indices {
            steps[i].frames = Array(Set(steps[i].frames)).sorted()
            all += steps[i].frames
        }
        frames = Array(Set(all)).sorted()
        signals.sort()
    }
}
