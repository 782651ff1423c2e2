import BLEBytes
import BLEPackets
import BLESpool
import BLETimeline
import CaptureIO
import FoundationEssentials

/// A captured session turned into models that can be replayed: per connection, the peer's
/// GATT server (and this host's, if the peer used it) and the client script, ready for
/// `run(…)` (the ATT-level replay `blecap replay` reports on) or to install as simulated
/// peripherals in a `SimulatedWorld` for the app's own code.
public final class CaptureReplay {
    public let session: CapturedSession
    public let models: [ReplayConnectionModel]

    /// Reads and models the capture at `url` (btsnoop, pcap/pcapng, PacketLogger).
    public convenience init(contentsOf url: URL) throws {
        try self.init(path: url.path)
    }

    public convenience init(path: String) throws {
        let session = try CapturedSession(path: path)
        self.init(session: session)
    }

    public init(session: CapturedSession) {
        self.session = session
        // Every model is kept until the session is replayed: its script, stream and recorded
        // answers wait in the spool.
        models = session.connections.map {
            var m = ReplayConnectionModel($0)
            m.seal()
            return m
        }
    }

    private init(session: CapturedSession, models: [ReplayConnectionModel]) {
        self.session = session
        self.models = models
    }

    /// The same capture with each connection's captured central as its peer, whichever side
    /// recorded it: a connection recorded on the central (the LE Connection Complete's Role
    /// says so) is seen from the peripheral (`CapturedConnection.seenFromPeer`), so that the
    /// player of the captured peer plays its central. Connections recorded on the peripheral
    /// keep their models.
    public func centralsAsPeers() -> CaptureReplay { seenFromPeers(recordedOnCentral: true) }

    /// The same capture with each connection's captured peripheral as its peer, whichever side
    /// recorded it (the mirror of `centralsAsPeers`): a connection recorded on the peripheral
    /// is seen from its central, the peer advertising as the recording host did when the
    /// connection came up (`hostAdvertisement`), from the address it advertised with.
    /// Connections recorded on the central keep their models.
    public func peripheralsAsPeers() -> CaptureReplay { seenFromPeers(recordedOnCentral: false) }

    /// The connections recorded on that side seen from their peer, the recording host (at the
    /// address it advertised from, when it was the peripheral) becoming the peer.
    private func seenFromPeers(recordedOnCentral: Bool) -> CaptureReplay {
        guard session.connections.contains(where: { $0.hostIsCentral == recordedOnCentral }) else { return self }
        let flipped = zip(session.connections, models).map { c, m in
            guard c.hostIsCentral == recordedOnCentral else { return m }
            let advertising = recordedOnCentral ? nil : c.hostAdvertisement
            let (address, type) = recorderAddress(advertising: advertising)
            var seen = c.seenFromPeer(recorder: address, recorderType: type)
            if !recordedOnCentral {
                seen.advertisement = advertising.map {
                    CapturedAdvertisement(hostAdvertising: $0, frame: c.summary.startFrame)
                }
            }
            var model = ReplayConnectionModel(seen)
            model.seal()
            return model
        }
        return CaptureReplay(session: session, models: flipped)
    }

    /// The address the recording host advertised from: the random one the advertising used
    /// (own address type 1, or 3's fallback), else its public address; without advertising
    /// (recorded on the central) or either known, its random address from power-on, else its
    /// public one.
    private func recorderAddress(advertising a: AdvertisingSetup?) -> (BDAddr?, UInt8?) {
        if let a, let r = a.randomAddress, a.ownAddressType == 1 || a.ownAddressType == 3 { return (r, 1) }
        if a?.ownAddressType == 0 || a?.ownAddressType == 2, let p = session.hostPublicAddress { return (p, 0) }
        let recorder = session.hostRandomAddress ?? session.hostPublicAddress
        return (recorder, recorder == nil ? nil : session.hostRandomAddress == nil ? 0 : 1)
    }

    /// The models of the connections `selection` picks.
    public func models(_ selection: ConnectionSelection) -> [ReplayConnectionModel] {
        models.filter { selection.matches($0) }
    }

    /// Replays the selected connections' ATT exchanges against their server models and
    /// compares each with the capture. One clock runs the whole session at `speed`
    /// (`ReplayClock`), so the connections keep their captured order among themselves too.
    public func run(
        _ selection: ConnectionSelection = .all, faults: ReplayFaults = .none,
        speed: ReplaySpeed = .realtime
    ) -> ReplayReport {
        let clock = ReplayClock(speed: speed, session: session)
        let results = models(selection).map { m in
            Self.replay(m, faults: faults, clock: clock, sessionStart: session.startTime)
        }
        return ReplayReport(session: session, connections: results, faults: faults, clock: clock)
    }

    static func replay(
        _ m: ReplayConnectionModel, faults: ReplayFaults, clock: ReplayClock, sessionStart: Int64
    ) -> ReplayConnectionResult {
        let own = faults.relative(toConnectionAt: m.connection.summary.startTime &- sessionStart)
        var replayed = ReplayEngine(model: m, faults: own, clock: clock).run()
        // Kept with the report (for its export) while the other connections replay: spooled.
        replayed.pdus.seal()
        return ReplayConnectionResult(
            model: m, replayed: replayed,
            fidelity: ReplayFidelity(connection: m.connection, replayed: replayed, clock: clock))
    }

    /// Whether `streamed(reader:…)` can replay at `speed` in one pass: every speed but `.max`,
    /// whose clock is built from every instant of the whole session before anything is
    /// replayed (`maxSpeedClock`: a first pass over a capture that can be read twice).
    public static func canStream(at speed: ReplaySpeed) -> Bool { speed != .max }

    /// The `.max` clock of the capture `reader` reads, for a second, streamed pass
    /// (`streamed(…, clock:)`): a pass that keeps each connection only until it ends and then
    /// only its instants (8 bytes each, spooled: `ReplayInstants`). The clock `run` uses on the whole
    /// session, as long as the capture holds at most `CapturedSession.maximumPDUs` ATT PDUs
    /// (the whole session stops there, a stream only past that many in open connections).
    public static func maxSpeedClock(
        reader: any CaptureReader, path: String, keys: LinkLayerKeys = LinkLayerKeys()
    ) -> ReplayClock {
        var all = ExternalSorter<Int64>()
        let session = CapturedSession.stream(reader: reader, path: path, keys: keys) { c, _ in
            ReplayClock.addInstants(of: c, to: &all)
        }
        return ReplayClock(speed: .max, origin: session.startTime, instants: &all)
    }

    /// The report `CaptureReplay(session:).run(…)` gives, in bounded memory: each connection is
    /// modelled, replayed and compared as soon as the capture has shown all of it, and then only
    /// what the report prints is kept (`ReplayConnectionResult.summarised()`): counts, the
    /// first divergence, timing deltas, how the link ended. Peak memory is that of the
    /// connections open at once (their long exchanges spooled, `Spool`), not of the
    /// capture. The report has neither the captured nor the replayed exchanges, so it cannot be
    /// exported itself (`btsnoop()`): with `export`, the replayed packets go there as they are
    /// made, the same ones `run(…).btsnoop()` writes. At `.max` only with `clock`, the
    /// `maxSpeedClock` of the same capture (read before).
    public static func streamed(
        reader: any CaptureReader, path: String, _ selection: ConnectionSelection = .all,
        faults: ReplayFaults = .none, speed: ReplaySpeed = .realtime, keys: LinkLayerKeys = LinkLayerKeys(),
        clock maxClock: ReplayClock? = nil, export: ReplayExport? = nil
    ) -> ReplayReport {
        precondition(
            canStream(at: speed) || maxClock?.speed == .max,
            "a streamed replay runs at realtime, a factor, or max with the capture's clock")
        var results: [ReplayConnectionResult] = []
        // Realtime and factor clocks need only the capture's first frame.
        let session = CapturedSession.stream(reader: reader, path: path, keys: keys) { c, start in
            let m = ReplayConnectionModel(c)
            guard selection.matches(m) else { return }
            let clock = maxClock ?? ReplayClock(speed: speed, connections: [], origin: start)
            let own = faults.relative(toConnectionAt: m.connection.summary.startTime &- start)
            // Compared as it runs: the replayed exchange is never held, only the comparison.
            let (replayed, fidelity) = ReplayEngine(model: m, faults: own, clock: clock).runComparing(export: export)
            results.append(ReplayConnectionResult(model: m, replayed: replayed, fidelity: fidelity).summarised())
        }
        results.sort { $0.model.number < $1.model.number }
        return ReplayReport(
            session: session, connections: results, faults: faults,
            clock: maxClock ?? ReplayClock(speed: speed, connections: [], origin: session.startTime))
    }
}

extension CaptureReplay {
    /// `blecap replay`'s run over one capture, in the least memory the input allows, and the
    /// replayed packets when `exporting` (for `--out` and `--lint`, in file order). Each
    /// connection is replayed as it ends (`streamed`) when the speed allows it or the input can
    /// be read twice (`reread` opens it again: at `.max` a first pass builds the clock, a
    /// second replays); otherwise (standard input at `.max`) the whole session is read first,
    /// its long exchanges waiting in the replay's spool, not in memory.
    public static func replay(
        reader: any CaptureReader, reread: (() throws -> any CaptureReader)?, path: String,
        _ selection: ConnectionSelection, faults: ReplayFaults, speed: ReplaySpeed, keys: LinkLayerKeys,
        exporting: Bool
    ) throws -> (report: ReplayReport, export: ReplayExport?) {
        guard canStream(at: speed) || reread != nil else {
            let session = CapturedSession(reader: reader, path: path, keys: keys)
            let report = CaptureReplay(session: session).run(selection, faults: faults, speed: speed)
            return (report, exporting ? report.export() : nil)
        }
        var reader = reader
        var clock: ReplayClock?
        if !canStream(at: speed), let reread {
            clock = maxSpeedClock(reader: reader, path: path, keys: keys)
            reader = try reread()
        }
        let export = exporting ? ReplayExport() : nil
        let report = streamed(
            reader: reader, path: path, selection, faults: faults, speed: speed, keys: keys, clock: clock,
            export: export)
        return (report, export)
    }
}

/// Which connections of a capture to replay.
public enum ConnectionSelection: Sendable, Equatable {
    case all
    /// By the capture's connection number (`#N` in `blecap timeline`).
    case number(Int)
    /// Every connection to this peer address.
    case peer(BDAddr)

    func matches(_ m: ReplayConnectionModel) -> Bool {
        switch self {
        case .all: true
        case .number(let n): m.number == n
        case .peer(let a): m.peer == a || m.connection.summary.identity == a
        }
    }
}

/// One replayed connection with its model and how faithful the replay was.
public struct ReplayConnectionResult: Sendable {
    public var model: ReplayConnectionModel
    public var replayed: ReplayedConnection
    public var fidelity: ReplayFidelity
    /// The script's client PDUs and server-initiated PDUs (kept when `summarised()` drops them).
    public var clientPDUs: Int
    public var serverInitiatedPDUs: Int

    /// Why the first divergence cannot be avoided, when the capture explains it: the captured
    /// behaviour at that PDU is one no replay can reproduce (`ReplayUnreproducible`). Nil when
    /// the replay is identical or the divergence is unexplained.
    public var unreproducible: ReplayUnreproducible? {
        guard let i = fidelity.divergence?.captured?.index else { return nil }
        return model.unreproducible.first { $0.capturedIndex == i }
    }

    init(model: ReplayConnectionModel, replayed: ReplayedConnection, fidelity: ReplayFidelity) {
        self.model = model
        self.replayed = replayed
        self.fidelity = fidelity
        clientPDUs = model.steps.count
        serverInitiatedPDUs = model.stream.count
    }

    /// The result with only what the report prints: the captured and replayed exchanges, the
    /// script, the servers' recorded answers and the timeline's GATT databases (the models'
    /// attribute tables stay) are dropped; counts, the fidelity (first divergence, timing) and
    /// how the link ended stay.
    public func summarised() -> ReplayConnectionResult {
        var r = self
        r.model.connection.att = []
        r.model.connection.summary.remoteDatabase = GATTDatabase()
        r.model.connection.summary.localDatabase = GATTDatabase()
        r.model.connection.advertisement = nil
        r.model.steps = []
        r.model.stream = []
        r.model.peerServer.forgetHistory()
        r.model.hostServer.forgetHistory()
        r.replayed.pdus = []
        return r
    }
}

/// The outcome of replaying a capture.
public struct ReplayReport: Sendable {
    public var session: CapturedSession
    public var connections: [ReplayConnectionResult]
    public var faults: ReplayFaults
    /// The clock the session was replayed on: replayed times (offsets, the export's
    /// timestamps) are captured times put through it.
    public var clock: ReplayClock
    public var speed: ReplaySpeed { clock.speed }

    /// Every replayed connection reproduced its captured ATT exchange.
    public var isIdentical: Bool { connections.allSatisfy(\.fidelity.isIdentical) }
}
