import BLEBytes
import BLESpool

/// What a `PDUArena` record must say: where its PDU's bytes end in the arena (they start where
/// the previous PDU's end).
protocol PDUArenaRecord: BitwiseCopyable, Sendable, Equatable {
    var end: UInt32 { get }
}

/// PDUs stored end to end in one arena with a fixed-size record each, both spilled to the replay
/// spool past 1 MiB: the storage of `CapturedATTPDUs` and `ReplayedPDUs`, which differ only in
/// what their record holds besides `end`.
struct PDUArena<Record: PDUArenaRecord>: Sendable, Equatable {
    private(set) var arena = SpooledArray<UInt8>()
    private(set) var records = SpooledArray<Record>()

    var count: Int { records.count }
    subscript(i: Int) -> Record { records[i] }

    /// The bytes of PDU `i`, opcode first.
    func bytes(at i: Int) -> ArraySlice<UInt8> {
        let start = i == 0 ? 0 : Int(records[i - 1].end)
        return arena.bytes(start..<Int(records[i].end))
    }

    /// Appends a PDU and its record (made from where its bytes end); false (nothing appended)
    /// when the arena would pass 4 GiB. 32-bit ends keep a record at 24 bytes.
    mutating func append(_ bytes: some Collection<UInt8>, _ record: (_ end: UInt32) -> Record) -> Bool {
        guard let end = UInt32(exactly: arena.count + bytes.count) else { return false }
        arena.append(contentsOf: bytes)
        records.append(record(end))
        return true
    }

    /// Moves what is still in memory to the spool.
    mutating func seal() {
        arena.seal()
        records.seal()
    }

    /// The same PDUs in the same order (however they are stored).
    static func == (a: Self, b: Self) -> Bool {
        guard a.count == b.count else { return false }
        return (0..<a.count).allSatisfy { a.records[$0] == b.records[$0] && a.bytes(at: $0) == b.bytes(at: $0) }
    }
}

/// The ATT PDUs of one connection, in order, stored compactly: every PDU's bytes end to end in
/// one arena and a fixed-size record (frame, time, where its bytes end, direction) per PDU.
///
/// Why: a connection can carry millions of notifications, and one `[UInt8]` per PDU costs a
/// heap block (≥ 48 bytes with its header and malloc's rounding) for typically 5–20 bytes of
/// PDU. Here a PDU costs its bytes plus a 24-byte record, and past 1 MiB of either the older
/// ones go to the replay spool (`Spool`): a long connection is not held in memory.
/// Elements are `CapturedATTPDU`s made on access (their `bytes` a fresh array); `bytes(at:)`
/// reads a PDU's bytes without copying them when it can.
public struct CapturedATTPDUs: RandomAccessCollection, Sendable, Equatable, ExpressibleByArrayLiteral {
    struct Record: PDUArenaRecord {
        var frame: Int
        var time: Int64
        var end: UInt32
        var sentByHost: Bool
    }

    private var store = PDUArena<Record>()

    public init() {}

    public init(arrayLiteral elements: CapturedATTPDU...) { self.init(elements) }

    public init(_ pdus: some Sequence<CapturedATTPDU>) {
        for p in pdus { append(p) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { store.count }

    public subscript(i: Int) -> CapturedATTPDU {
        let r = store[i]
        return CapturedATTPDU(frame: r.frame, time: r.time, sentByHost: r.sentByHost, bytes: Array(bytes(at: i)))
    }

    /// The bytes of PDU `i`, opcode first.
    public func bytes(at i: Int) -> ArraySlice<UInt8> { store.bytes(at: i) }

    /// Reads the PDUs in order holding the spooled blocks it is in, instead of looking each
    /// one up (what `for … in`, `enumerated()` and the comparison's walk do).
    public struct Iterator: IteratorProtocol {
        private var records: SpooledArray<Record>.Reader
        private var arena: SpooledArray<UInt8>.Reader
        private var start = 0

        init(_ pdus: CapturedATTPDUs) {
            records = SpooledArray.Reader(pdus.store.records)
            arena = SpooledArray.Reader(pdus.store.arena)
        }

        public mutating func next() -> CapturedATTPDU? {
            guard let r = records.next() else { return nil }
            let bytes = arena.take(Int(r.end) - start)
            start = Int(r.end)
            return CapturedATTPDU(frame: r.frame, time: r.time, sentByHost: r.sentByHost, bytes: Array(bytes))
        }
    }

    public func makeIterator() -> Iterator { Iterator(self) }

    /// Reads PDUs anywhere holding the spooled blocks of the last one read: the replay engine
    /// reads a step's PDU and time and its anchor's, near each other, and a spool lookup for
    /// each (a lock and a block's reference, about ten a request) cost, with the loop's copies
    /// in `ReplayEngine`'s `trySchedule`, 0.5 s of a 3.1 s replay of 950,000 requests.
    struct Cursor {
        private var records: SpooledArray<Record>.Reader
        private var arena: SpooledArray<UInt8>.Reader

        init(_ pdus: CapturedATTPDUs) {
            records = SpooledArray.Reader(pdus.store.records)
            arena = SpooledArray.Reader(pdus.store.arena)
        }

        mutating func time(at i: Int) -> Int64 { records.element(at: i).time }
        mutating func sentByHost(at i: Int) -> Bool { records.element(at: i).sentByHost }
        mutating func frame(at i: Int) -> Int { records.element(at: i).frame }

        /// The bytes of PDU `i`, opcode first.
        mutating func bytes(at i: Int) -> ArraySlice<UInt8> {
            let start = i == 0 ? 0 : Int(records.element(at: i - 1).end)
            return arena.bytes(start..<Int(records.element(at: i).end))
        }

        /// PDU `i`'s record (frame, time, direction, where its bytes end): a walk in order
        /// reads each record once, its bytes starting where the previous PDU's end
        /// (`opcode(in:)`, `bytes(in:)`).
        mutating func record(at i: Int) -> Record { records.element(at: i) }

        /// The first byte of a PDU's bytes `range` (0 for an empty PDU), read where it lies.
        mutating func opcode(in range: Range<Int>) -> UInt8 { range.isEmpty ? 0 : arena.element(at: range.lowerBound) }

        /// A PDU's bytes `range`.
        mutating func bytes(in range: Range<Int>) -> ArraySlice<UInt8> { arena.bytes(range) }

        /// The opcode of PDU `i` (0 for an empty PDU), as `bytes(at: i).first`, without the
        /// slice: a slice holds a reference to its spooled block, a retain and a release that
        /// a walk over every PDU paid for each (docs/performance.md, session 44).
        mutating func opcode(at i: Int) -> UInt8 {
            let start = i == 0 ? 0 : Int(records.element(at: i - 1).end)
            return Int(records.element(at: i).end) > start ? arena.element(at: start) : 0
        }
    }

    /// PDU `i`'s time and direction, without making the element.
    public func time(at i: Int) -> Int64 { store[i].time }
    public func sentByHost(at i: Int) -> Bool { store[i].sentByHost }
    public func frame(at i: Int) -> Int { store[i].frame }

    /// The opcode of PDU `i` (0 for an empty PDU), as `CapturedATTPDU.opcode`.
    public func opcode(at i: Int) -> UInt8 { bytes(at: i).first ?? 0 }

    /// Appends a PDU; false (nothing appended) when the arena would pass 4 GiB.
    @discardableResult
    public mutating func append(frame: Int, time: Int64, sentByHost: Bool, bytes: some Collection<UInt8>) -> Bool {
        store.append(bytes) { Record(frame: frame, time: time, end: $0, sentByHost: sentByHost) }
    }

    @discardableResult
    public mutating func append(_ pdu: CapturedATTPDU) -> Bool {
        append(frame: pdu.frame, time: pdu.time, sentByHost: pdu.sentByHost, bytes: pdu.bytes)
    }

    /// Moves what is still in memory to the spool, for an exchange that is complete and kept
    /// while others are read (`CapturedSession`'s whole-session read).
    mutating func seal() { store.seal() }
}

/// The ATT PDUs of a replayed connection, stored as compactly as `CapturedATTPDUs` (one arena,
/// a 24-byte record per PDU, spilled to the replay spool past 1 MiB): a replayed stream of
/// millions of notifications would otherwise cost a heap block per PDU. Elements are
/// `ReplayedPDU`s made on access.
public struct ReplayedPDUs: RandomAccessCollection, Sendable, Equatable, ExpressibleByArrayLiteral {
    struct Record: PDUArenaRecord {
        var offset: Int64
        /// `ReplayedPDU.capturedIndex`, -1 for nil (keeps the record at 24 bytes).
        var capturedIndex: Int
        var end: UInt32
        var sentByHost: Bool
    }

    private var store = PDUArena<Record>()

    public init() {}

    public init(arrayLiteral elements: ReplayedPDU...) { self.init(elements) }

    public init(_ pdus: some Sequence<ReplayedPDU>) {
        for p in pdus { append(p) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { store.count }

    public subscript(i: Int) -> ReplayedPDU {
        let r = store[i]
        return ReplayedPDU(
            offset: r.offset, sentByHost: r.sentByHost, bytes: Array(bytes(at: i)),
            capturedIndex: r.capturedIndex < 0 ? nil : r.capturedIndex)
    }

    /// The bytes of PDU `i`, opcode first.
    public func bytes(at i: Int) -> ArraySlice<UInt8> { store.bytes(at: i) }

    /// PDU `i`'s offset and direction, without making the element.
    public func offset(at i: Int) -> Int64 { store[i].offset }
    public func sentByHost(at i: Int) -> Bool { store[i].sentByHost }

    /// Appends a PDU; false (nothing appended) when the arena would pass 4 GiB.
    @discardableResult
    public mutating func append(_ pdu: ReplayedPDU) -> Bool {
        store.append(pdu.bytes) {
            Record(offset: pdu.offset, capturedIndex: pdu.capturedIndex ?? -1, end: $0, sentByHost: pdu.sentByHost)
        }
    }

    /// Moves what is still in memory to the spool (a report keeping it while others replay).
    mutating func seal() { store.seal() }
}

/// A connection's stream items (`ReplayConnectionModel.stream`), a 32-byte record each instead
/// of a 56-byte `ReplayStreamItem` (whose copy of the captured exchange is kept once here),
/// spilled to the replay spool past 1 MiB: 1 M notifications in one connection are 1 M
/// items. Elements are made on access.
public struct ReplayStream: RandomAccessCollection, Sendable, ExpressibleByArrayLiteral {
    struct Record: Sendable {
        var offset: Int64
        var capturedIndex: Int
        /// The subscribing step, -1 for the connection's start.
        var anchor: Int
        var hostIsClient: Bool
    }

    private var captured: CapturedATTPDUs = []
    private var records = SpooledArray<Record>()

    public init() {}

    public init(arrayLiteral elements: ReplayStreamItem...) {
        for e in elements { append(e) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { records.count }

    public subscript(i: Int) -> ReplayStreamItem {
        let r = records[i]
        return ReplayStreamItem(
            captured: captured, anchor: r.anchor < 0 ? .connectionStart : .subscription(step: r.anchor),
            offset: r.offset, capturedIndex: r.capturedIndex, hostIsClient: r.hostIsClient)
    }

    /// Item `i`'s record (its anchor as `ReplayStreamItem.subscriptionKey`), without making
    /// the item: the engine reads every item several times, and an item carries the exchange.
    func record(at i: Int) -> Record { records[i] }

    /// The PDU of item `i`, opcode first.
    func bytes(ofItem i: Int) -> ArraySlice<UInt8> { captured.bytes(at: records[i].capturedIndex) }

    /// Moves what is still in memory to the spool (a model kept until the session replays).
    mutating func seal() { records.seal() }

    /// Appends an item. Every item of a model comes from its one captured exchange.
    public mutating func append(_ item: ReplayStreamItem) {
        if records.isEmpty { captured = item.captured }
        records.append(
            Record(
                offset: item.offset, capturedIndex: item.capturedIndex, anchor: item.subscriptionKey,
                hostIsClient: item.hostIsClient))
    }
}
