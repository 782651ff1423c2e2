import BLEBytes
import BLETimeline
import CaptureIO
import Foundation

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
        models = session.connections.map(ReplayConnectionModel.init)
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
        let results = models(selection).map { m -> ReplayConnectionResult in
            let own = faults.relative(toConnectionAt: m.connection.summary.startTime &- session.startTime)
            let replayed = ReplayEngine(model: m, faults: own, clock: clock).run()
            return ReplayConnectionResult(
                model: m, replayed: replayed,
                fidelity: ReplayFidelity(connection: m.connection, replayed: replayed, clock: clock))
        }
        return ReplayReport(session: session, connections: results, faults: faults, clock: clock)
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
