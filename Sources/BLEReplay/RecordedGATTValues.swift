import BLEAir
import BLEPackets

/// The recorded backing of a GATT server: which captured answer a read or write gets. The n-th
/// read of a handle gets the n-th captured answer (past the last, the last; none captured: the
/// value last written), a write the captured outcome of the n-th write of its kind, an injected
/// error (`ReplayFaults.errors`) wins. It is the one copy of that logic: `ReplayATTServer` (the
/// replay engine's and the virtual controller's server) asks it per ATT request, a replayed
/// peer in the simulator (BLESimulator's `ReplayedPeer`) per Core Bluetooth operation
/// (`GATTValueBacking`).
///
/// Its histories are those of one or more captured connections to the same server, in capture
/// order: the simulator replays every connection to a peer with one peripheral, so its n-th
/// read of a handle counts through all of them.
package struct RecordedGATTValues: GATTValueBacking {
    private let servers: [ReplayServerModel]
    private let faults: ReplayFaults
    private var readCursor: [UInt16: Int] = [:]
    private var blobCursor: [UInt16: Int] = [:]
    private var writeCursor: [UInt16: Int] = [:]
    private var prepareCursor: [UInt16: Int] = [:]
    private var longWriteCursor: [UInt16: Int] = [:]
    /// The last value read or written per handle (a read past no history answers it, a Read
    /// Blob beyond the recorded ones continues it).
    private var current: [UInt16: [UInt8]] = [:]

    package init(servers: [ReplayServerModel], faults: ReplayFaults) {
        self.servers = servers
        self.faults = faults
    }

    /// The injected error for `h`, if any.
    package func fault(_ h: UInt16) -> UInt8? { faults.errors[h] }

    // MARK: ATT requests

    /// Read Request (Vol 3 Part F 3.4.4.3): the whole recorded answer (the front cuts it to
    /// ATT_MTU − 1).
    package mutating func read(_ h: UInt16) -> ReplayAnswer {
        if let code = faults.errors[h] { return .error(code) }
        switch Self.next(servers, .read, h, &readCursor) {
        case .error(let code)?: return .error(code)
        case .value(let v)?:
            current[h] = v
            return .value(v)
        case nil: return .value(current[h] ?? [])
        }
    }

    /// Read Blob Request (3.4.4.5): the recorded answers in order, then the current value from
    /// `offset` (Invalid Offset past its end).
    package mutating func readBlob(_ h: UInt16, offset: UInt16) -> ReplayAnswer {
        if let code = faults.errors[h] { return .error(code) }
        switch Self.next(servers, .blob, h, &blobCursor) {
        case .error(let code)?: return .error(code)
        case .value(let v)?: return .value(v)
        case nil:
            let v = current[h] ?? []
            guard Int(offset) <= v.count else { return .error(ATTErrorCode.invalidOffset) }
            return .value(Array(v[Int(offset)...]))
        }
    }

    /// Write Request (3.4.5.1): the recorded outcome; an accepted value becomes the current one.
    package mutating func write(_ h: UInt16, _ value: [UInt8]) -> UInt8? {
        if let code = faults.errors[h] { return code }
        if case .error(let code)? = Self.next(servers, .write, h, &writeCursor) { return code }
        current[h] = value
        return nil
    }

    /// Prepare Write Request (3.4.6.1): the recorded outcome (nil: the response echoes the
    /// request).
    package mutating func prepareWrite(_ h: UInt16) -> UInt8? {
        if let code = faults.errors[h] { return code }
        if case .error(let code)? = Self.next(servers, .prepare, h, &prepareCursor) { return code }
        return nil
    }

    // MARK: Core Bluetooth operations (GATTValueBacking)

    /// A whole-value read: the Read Request's answer, continued by the recorded Read Blob
    /// answers that asked for its end (Vol 3 Part G 4.8.3 Read Long Characteristic Values), as
    /// Core Bluetooth reports one read.
    package mutating func readValue(_ handle: UInt16) -> GATTAnswer {
        var v: [UInt8]
        switch read(handle) {
        case .error(let code): return .error(code)
        case .value(let first): v = first
        }
        while faults.errors[handle] == nil,
            let offset = Self.blobOffset(servers, handle, blobCursor[handle, default: 0]), Int(offset) == v.count
        {
            switch Self.next(servers, .blob, handle, &blobCursor) {
            case .value(let more)?: v += more
            case .error(let code)?: return .error(code)
            case nil: return .value(v)
            }
        }
        return .value(v)
    }

    package mutating func writeValue(_ handle: UInt16, _ value: [UInt8], kind: GATTWriteKind) -> UInt8? {
        switch kind {
        case .request: return write(handle, value)
        case .command:
            // No response, so nothing captured to answer with: accepted unless refused by a fault.
            if let code = faults.errors[handle] { return code }
            current[handle] = value
            return nil
        case .longWrite:
            if let code = faults.errors[handle] { return code }
            if case .error(let code)? = Self.next(servers, .longWrite, handle, &longWriteCursor) { return code }
            current[handle] = value
            return nil
        }
    }

    /// The first value a read of `h` was answered with in the capture (a descriptor's value, the
    /// Device Name).
    package func firstRecordedValue(_ h: UInt16) -> [UInt8]? {
        for s in servers {
            guard let list = s.reads[h] else { continue }
            for a in list { if case .value(let v) = a { return v } }
        }
        return nil
    }

    // MARK: Histories

    private enum Kind { case read, blob, write, prepare, longWrite }

    private static func list(_ s: ReplayServerModel, _ kind: Kind, _ h: UInt16) -> ReplayAnswers? {
        switch kind {
        case .read: s.reads[h]
        case .blob: s.blobReads[h]
        case .write: s.writes[h]
        case .prepare: s.prepares[h]
        case .longWrite: s.longWrites[h]
        }
    }

    /// The next recorded answer of `h` (past the last, the last), counted through the servers'
    /// histories in order. Static: a method of `self` given `&cursors`, a part of `self`, is
    /// called on a copy of the backing (its models' references and all), about 5% of
    /// replaying 950,000 requests (perf).
    private static func next(_ servers: [ReplayServerModel], _ kind: Kind, _ h: UInt16, _ cursors: inout [UInt16: Int])
        -> ReplayAnswer?
    {
        let n = cursors[h, default: 0]
        cursors[h] = n + 1
        if servers.count == 1 {
            guard let list = list(servers[0], kind, h), !list.isEmpty else { return nil }
            return list[min(n, list.count - 1)]
        }
        var i = n
        var last: ReplayAnswer?
        for s in servers {
            guard let list = list(s, kind, h), !list.isEmpty else { continue }
            if i < list.count { return list[i] }
            i -= list.count
            last = list[list.count - 1]
        }
        return last
    }

    /// The request offset of the `n`-th recorded Read Blob of `h`, if there is one.
    private static func blobOffset(_ servers: [ReplayServerModel], _ h: UInt16, _ n: Int) -> UInt16? {
        var i = n
        for s in servers {
            let offsets = s.blobOffsets[h] ?? []
            if i < offsets.count { return offsets[i] }
            i -= offsets.count
        }
        return nil
    }
}
