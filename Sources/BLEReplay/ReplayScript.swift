import BLESpool

/// A connection's client script (`ReplayConnectionModel.steps`), a 48-byte record per step
/// whose PDU is kept once, in the captured exchange, spilled to the replay spool past 1 MiB.
///
/// Why: a step per request or command, as a `ReplayStep` with its own copy of the bytes, cost
/// about 130 bytes and a heap block; a connection of 950,000 requests held 250 MB of script,
/// answers and replay times (peak RSS). Elements are `ReplayStep`s made on access; the engine
/// reads records instead (`Cursor`), and their PDUs from the exchange.
public struct ReplayScript: RandomAccessCollection, Sendable, ExpressibleByArrayLiteral {
    struct Record: Sendable {
        var capturedIndex: Int
        /// `ReplayStep.anchor`: its case (`anchorKind`) and its step or captured index.
        var anchorValue: Int
        var delay: Int64
        /// `ReplayStep.latency` and `responseIndex`, -1 for nil (both are never negative).
        var rawLatency: Int64 = -1
        var rawResponseIndex = -1
        var anchorKind: UInt8
        var opcode: UInt8
        var hostIsClient: Bool

        init(_ s: ReplayStep, opcode: UInt8) {
            capturedIndex = s.capturedIndex
            delay = s.delay
            hostIsClient = s.hostIsClient
            self.opcode = opcode
            (anchorKind, anchorValue) =
                switch s.anchor {
                case .connectionStart: (0, 0)
                case .sent(let n): (1, n)
                case .answered(let n): (2, n)
                case .serverPDU(let i): (3, i)
                }
            rawLatency = s.latency ?? -1
            rawResponseIndex = s.responseIndex ?? -1
        }

        var anchor: ReplayStep.Anchor {
            switch anchorKind {
            case 1: .sent(step: anchorValue)
            case 2: .answered(step: anchorValue)
            case 3: .serverPDU(capturedIndex: anchorValue)
            default: .connectionStart
            }
        }
        var latency: Int64? { rawLatency < 0 ? nil : rawLatency }
        var responseIndex: Int? { rawResponseIndex < 0 ? nil : rawResponseIndex }
        var isRequest: Bool { ATTRole.isRequest(opcode) }
    }

    private var captured: CapturedATTPDUs = []
    private var records = SpooledArray<Record>()

    public init() {}

    public init(arrayLiteral elements: ReplayStep...) {
        for e in elements { append(e) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { records.count }

    public subscript(i: Int) -> ReplayStep {
        let r = records[i]
        return ReplayStep(
            captured: captured, capturedIndex: r.capturedIndex, anchor: r.anchor, delay: r.delay,
            hostIsClient: r.hostIsClient, latency: r.latency, responseIndex: r.responseIndex)
    }

    /// Step `i`'s record, without making the step (and copying the exchange's references).
    func record(at i: Int) -> Record { records[i] }

    /// Reads records holding the spooled block of the last one read (`CapturedATTPDUs.Cursor`).
    struct Cursor {
        private var records: SpooledArray<Record>.Reader

        init(_ script: ReplayScript) { records = SpooledArray.Reader(script.records) }

        mutating func record(at i: Int) -> Record { records.element(at: i) }
    }

    /// Appends a step. Every step of a model comes from its one captured exchange.
    public mutating func append(_ step: ReplayStep) {
        if records.isEmpty { captured = step.captured }
        records.append(Record(step, opcode: step.captured.opcode(at: step.capturedIndex)))
    }

    /// Files the captured response to request step `i` (its index and the server's latency):
    /// known only once the response comes, maybe after the script spilled past the step.
    mutating func answer(_ i: Int, responseIndex: Int, latency: Int64) {
        records.update(i) {
            $0.rawResponseIndex = responseIndex
            $0.rawLatency = Swift.max(0, latency)
        }
    }

    /// Moves what is still in memory to the spool (a model kept until the session replays).
    mutating func seal() { records.seal() }

    /// Whether the first steps are in the spool (tests).
    var isSpilled: Bool { records.location(of: 0) != nil }
}

/// A server's recorded answers to one kind of request on one handle (`ReplayServerModel.reads`
/// and the like), in order: the captured responses' indices in the connection's exchange,
/// 8 bytes an answer, spilled to the replay spool past 1 MiB. An answer kept as a
/// `ReplayAnswer` held its value in a heap block: about 64 bytes an answer, 60 MB for the
/// 940,000 answers of the 950,000-request capture. Elements are `ReplayAnswer`s made on access.
public struct ReplayAnswers: RandomAccessCollection, Sendable {
    /// The connection's exchange, behind one reference: the server copies a list per request
    /// it answers, and an exchange is four.
    private final class Exchange: Sendable {
        let pdus: CapturedATTPDUs
        init(_ pdus: CapturedATTPDUs) { self.pdus = pdus }
    }
    private let captured: Exchange
    private var responses = SpooledArray<Int>()

    /// Answers from `captured`, the connection's exchange.
    init(_ captured: CapturedATTPDUs) { self.captured = Exchange(captured) }

    public var startIndex: Int { 0 }
    public var endIndex: Int { responses.count }

    public subscript(i: Int) -> ReplayAnswer { ReplayAnswer(response: captured.pdus.bytes(at: responses[i])) }

    /// Appends the answer the captured PDU at `responseIndex` gave.
    mutating func append(response responseIndex: Int) { responses.append(responseIndex) }

    /// Moves what is still in memory to the spool (a model kept until the session replays).
    mutating func seal() { responses.seal() }

    /// Whether the first answers are in the spool (tests).
    var isSpilled: Bool { responses.location(of: 0) != nil }
}
