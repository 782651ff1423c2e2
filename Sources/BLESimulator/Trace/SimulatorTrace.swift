import BLETimeline
import Foundation

/// The state an API call was made in.
public struct CallContext: Sendable, Equatable {
    /// The central manager's state at call time.
    public var managerState: CBManagerState
    /// The peripheral's state, for peripheral calls and `connect`/`cancel`.
    public var peripheralState: CBPeripheralState?
    public var isScanning: Bool
    /// The delegate method the call was made from, nil when made outside any callback (for
    /// example from `init`, before the first state update).
    public var inCallback: String?
}

/// An app call and what became of it.
public struct APICallRecord: Sendable, Equatable {
    /// Which central manager (1, 2, … in order of creation in the world).
    public var central: Int
    public var call: APICall
    public var context: CallContext
    public var disposition: APIDisposition
}

/// A delegate callback.
public struct CallbackRecord: Sendable, Equatable {
    public var central: Int
    public var callback: DelegateCallback
    /// False when no delegate was set to receive it.
    public var delivered: Bool
}

/// One entry of a simulated session's trace.
public struct TraceRecord: Sendable {
    /// Position in the session, 1-based. Radio events carry the same number as their `frame`,
    /// so a rule pointing at a frame points at a trace line. ATT responses get numbers too (as
    /// they would get frames in a capture) and are folded into their request's outcome.
    public let sequence: Int
    /// Microseconds since the world started.
    public let time: Int64
    public var entry: Entry

    public enum Entry: Sendable {
        /// A call the app made (API-only: no capture shows it).
        case api(APICallRecord)
        /// A delegate method the simulator called (API-only).
        case callback(CallbackRecord)
        /// What went over the air, in the capture timeline's own model (docs/timeline.md).
        case radio(TimelineEvent)
        /// A change in the simulated world.
        case world(WorldEvent)
        /// A `CBPeripheralManager` call or delegate callback (API-only; the peripheral role).
        case peripheralManager(PeripheralManagerRecord)
    }

    /// The source marker of the JSONL rendering.
    public var source: SimulatorTraceLine.Source {
        switch entry {
        case .api: .api
        case .callback: .callback
        case .radio: .radio
        case .world: .world
        case .peripheralManager: .peripheralManager
        }
    }
}

/// Everything a simulated session did, in order. Deterministic: the same program in the same
/// world gives the same records and the same `jsonl()` bytes.
public struct SimulatorTrace: Sendable {
    public private(set) var records: [TraceRecord] = []
    /// Core Bluetooth-style console lines ("[CoreBluetooth] API MISUSE: …", warnings).
    public private(set) var log: [String] = []
    private(set) var nextSequence = 1

    public init() {}

    mutating func allocateSequence() -> Int {
        defer { nextSequence += 1 }
        return nextSequence
    }

    /// Appends a record and returns its index (for patching outcomes later).
    @discardableResult
    mutating func append(time: Int64, _ entry: TraceRecord.Entry) -> Int {
        if case .radio(let e) = entry { return appendRadio(time: time, e) }
        reserveIfEmpty()
        records.append(TraceRecord(sequence: allocateSequence(), time: time, entry: entry))
        return records.count - 1
    }

    /// Appends a radio event, numbering its frame with the record's sequence number. A
    /// separate path so the (large) event is not copied out of and back into an entry.
    @discardableResult
    mutating func appendRadio(time: Int64, _ event: TimelineEvent) -> Int {
        var e = event
        let seq = allocateSequence()
        e.frame = seq
        reserveIfEmpty()
        records.append(TraceRecord(sequence: seq, time: time, entry: .radio(e)))
        return records.count - 1
    }

    /// A session records a few hundred entries; starting with room for them saves the first
    /// rounds of growing (and copying) the array.
    @inline(__always) private mutating func reserveIfEmpty() {
        if records.capacity == 0 { records.reserveCapacity(256) }
    }

    mutating func update(_ index: Int, _ body: (inout TraceRecord.Entry) -> Void) {
        guard records.indices.contains(index) else { return }
        body(&records[index].entry)
    }

    mutating func appendLog(_ line: String) { log.append(line) }

    /// The app calls only.
    public var apiCalls: [APICallRecord] {
        records.compactMap { if case .api(let a) = $0.entry { a } else { nil } }
    }

    /// The delegate callbacks that reached a delegate, in order.
    public var callbacks: [DelegateCallback] {
        records.compactMap { if case .callback(let c) = $0.entry, c.delivered { c.callback } else { nil } }
    }

    /// The radio events, frame = sequence.
    public var radioEvents: [TimelineEvent] {
        records.compactMap { if case .radio(let e) = $0.entry { e } else { nil } }
    }

    public var worldEvents: [WorldEvent] {
        records.compactMap { if case .world(let w) = $0.entry { w } else { nil } }
    }
}
