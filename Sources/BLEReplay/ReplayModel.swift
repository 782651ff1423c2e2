import BLEAir
import BLEBytes
import BLEPackets
import BLETimeline

/// An attribute of a modelled GATT server (Core 5.4 Vol 3 Part F 3.2): its handle, type and
/// value as discovery showed them.
public struct ReplayAttribute: GATTTableAttribute, Sendable, Equatable {
    public var handle: UInt16
    /// 0x2800/0x2801 service, 0x2802 include, 0x2803 characteristic declaration; for values the
    /// characteristic's UUID; for descriptors their type. Inferred attributes: `inferredType`.
    public var type: BluetoothUUID
    /// Declarations: their value (Vol 3 Part G 3.1–3.3). Values and descriptors: empty (their
    /// answers come from the recorded history).
    public var value: [UInt8]
    /// Services: the last handle of the group.
    public var groupEnd: UInt16?
    /// Values: the characteristic's properties (Vol 3 Part G 3.3.1.1); inferred attributes:
    /// the properties their use implies.
    public var properties: UInt8?
    /// Never discovered: added because traffic used the handle.
    public var isInferred: Bool

    /// The type given to attributes used but never discovered: a blecap-private 128-bit UUID
    /// that carries the handle, so it names the attribute without claiming a SIG meaning.
    public static func inferredType(_ handle: UInt16) -> BluetoothUUID {
        BluetoothUUID(high: 0xB1EC_A900_0000_1000, low: 0x8000_0000_0000_0000 | UInt64(handle))
    }

    package static let primaryService = BluetoothUUID(uuid16: GATTDeclaration.primaryService)
    package static let secondaryService = BluetoothUUID(uuid16: GATTDeclaration.secondaryService)
    package static let include = BluetoothUUID(uuid16: GATTDeclaration.include)
    package static let characteristic = BluetoothUUID(uuid16: GATTDeclaration.characteristic)
    package static let cccd = BluetoothUUID(uuid16: GATTDescriptorType.clientCharacteristicConfiguration)
}

/// What a server answered to one request: a value, or an ATT Error Response code.
public enum ReplayAnswer: Sendable, Equatable {
    case value([UInt8])
    case error(UInt8)
}

/// A notification or indication the server sent on its own, placed relative to what started
/// it: the client's CCCD write that enabled it, or the start of the connection.
public struct ReplayStreamItem: Sendable {
    public enum Anchor: Sendable, Equatable {
        case connectionStart
        /// The script step (index into `ReplayConnectionModel.steps`) whose CCCD write enabled it.
        case subscription(step: Int)
    }
    /// The PDU, opcode first (made on access from the captured exchange, which the item
    /// shares rather than holding a copy: a long stream costs no heap block per item).
    public var bytes: [UInt8] { Array(captured.bytes(at: capturedIndex)) }
    /// The connection's captured exchange (`capturedIndex` is this item's place in it).
    let captured: CapturedATTPDUs
    public var anchor: Anchor
    /// µs after the anchor, as captured.
    public var offset: Int64
    /// Index of the PDU in the captured exchange (orders events that fall on one µs).
    public var capturedIndex: Int
    /// The server that sent it: the peer's (true) or this host's.
    public var hostIsClient: Bool
    /// Its anchor as a key: -1 for the connection's start, else the subscribing step.
    var subscriptionKey: Int {
        switch anchor {
        case .connectionStart: -1
        case .subscription(let n): n
        }
    }
}

/// The GATT server on one side of a connection, as replay models it: its attribute table,
/// what it answered, in order, and its own notifications.
public struct ReplayServerModel: Sendable {
    public var attributes: [ReplayAttribute] = []
    /// The Server Rx MTU of its Exchange MTU Response (Vol 3 Part F 3.4.2.2).
    public var serverRxMTU: UInt16?
    /// Answers to Read Requests per handle, in the order they were given.
    public var reads: [UInt16: ReplayAnswers] = [:]
    /// Answers to Read Blob Requests per handle.
    public var blobReads: [UInt16: ReplayAnswers] = [:]
    /// Outcomes of Write Requests per handle (`.value([])` for success).
    public var writes: [UInt16: ReplayAnswers] = [:]
    /// Outcomes of Prepare Write Requests per handle.
    public var prepares: [UInt16: ReplayAnswers] = [:]
    /// The Value Offset of each Read Blob Request in `blobReads`, in the same order (a whole
    /// value read continues with the ones that ask for its end, `RecordedGATTValues.readValue`).
    public var blobOffsets: [UInt16: [UInt16]] = [:]
    /// Outcomes of executed long writes per handle (Prepare Write … Execute Write with flags
    /// 0x01, Vol 3 Part F 3.4.6.3): the handle's first refused Prepare Write, else the Execute
    /// Write Response or its error.
    public var longWrites: [UInt16: ReplayAnswers] = [:]
    /// Which handle an Attribute Not Found error of a discovery request names. Vol 3 Part F
    /// 3.4.3.1 says the starting handle; some stacks name the ending handle or the one after
    /// it, and not always the same for every request (iOS); others the last handle they
    /// searched: the ending handle, or the server's last attribute when the range runs past it
    /// (never below the starting handle). Learned per request opcode from the captured errors:
    /// the policies every one of them agrees with (`NotFoundPolicy` bits); the first that
    /// remains is used.
    public var notFoundPolicies: [UInt8: UInt8] = [:]

    /// The handles an Attribute Not Found error can name, as bits of `notFoundPolicies`.
    enum NotFoundPolicy {
        static let starting: UInt8 = 0b0001
        static let ending: UInt8 = 0b0010
        static let afterEnding: UInt8 = 0b0100
        static let lastSearched: UInt8 = 0b1000
        static let all: UInt8 = 0b1111
    }

    /// The highest handle the table holds (a service's group end counts): where a server's
    /// search of a range running past its database stops.
    var lastHandle: UInt16 { attributes.reduce(0) { Swift.max($0, $1.handle, $1.groupEnd ?? 0) } }

    /// The policies a captured Attribute Not Found naming `named` for `start...end` agrees with.
    func notFoundAgreement(named: UInt16, start: UInt16, end: UInt16, last: UInt16) -> UInt8 {
        var agree: UInt8 = 0
        if named == start { agree |= NotFoundPolicy.starting }
        if named == end { agree |= NotFoundPolicy.ending }
        if named == (end == .max ? end : end + 1) { agree |= NotFoundPolicy.afterEnding }
        if named == Swift.min(end, Swift.max(start, last)) { agree |= NotFoundPolicy.lastSearched }
        return agree
    }

    /// The handle the server names in Attribute Not Found for a request over `start...end`.
    func notFoundHandle(opcode: UInt8, start: UInt16, end: UInt16) -> UInt16 {
        let p = notFoundPolicies[opcode] ?? notFoundPolicies.values.reduce(NotFoundPolicy.all, &)
        if p & NotFoundPolicy.starting != 0 || p == 0 { return start }
        if p & NotFoundPolicy.afterEnding != 0 { return end == .max ? end : end + 1 }
        if p & NotFoundPolicy.ending != 0 { return end }
        return Swift.min(end, Swift.max(start, lastHandle))
    }

    /// Adds an attribute the server named in a Find Information Response (3.4.3.2): its handle
    /// and type are the server's word, its value unknown (a declaration's stays empty, which
    /// the list answers skip). A handle the table already holds keeps its entry.
    mutating func learn(handle: UInt16, type: BluetoothUUID) {
        guard byHandle[handle] == nil else { return }
        attributes.append(
            ReplayAttribute(handle: handle, type: type, value: [], groupEnd: nil, properties: nil, isInferred: false))
        byHandle[handle] = attributes.count - 1
    }

    /// The most entries the server put in one discovery response, per response opcode and
    /// entry length (`opcode << 8 | length`). Some stacks return one 128-bit service per Read
    /// By Group Type Response however large ATT_MTU is; the model does the same.
    public var maximumEntries: [UInt16: Int] = [:]

    func entryLimit(_ opcode: UInt8, _ length: Int) -> Int {
        maximumEntries[UInt16(opcode) << 8 | UInt16(truncatingIfNeeded: length)] ?? .max
    }

    /// For a connection whose ATT_MTU is unknown (the capture started after its exchange): what
    /// its record (`ConnectionFacts.mtuAtLeast`, the timeline's fact) says it was at least, in
    /// force from the capture's start. Nil when ATT_MTU is a fact: 23 until an exchange, which
    /// replay plays out itself.
    var mtuAtLeast: Int?

    /// The ATT_MTU the connection's record puts in force before any exchange replay plays, if
    /// larger than 23 (the same at every captured index `i`: the exchange came before them all).
    func evidencedMTU(at i: Int) -> Int? { mtuAtLeast }
    /// Requests replay does not model (Read By Type of a value, Read Multiple, Execute Write,
    /// unknown opcodes): the captured responses to identical request bytes, in order (an
    /// Execute Write's error names the attribute that failed, which only the capture knows).
    public var verbatim: [[UInt8]: [[UInt8]]] = [:]

    var byHandle: [UInt16: Int] = [:]

    /// Moves the recorded answers still in memory to the spool (a model kept until the
    /// session replays).
    mutating func sealHistory() {
        for kind in [\Self.reads, \.blobReads, \.writes, \.prepares, \.longWrites] {
            for h in self[keyPath: kind].keys { self[keyPath: kind][h]?.seal() }
        }
    }

    /// Drops the recorded answers (what a summarised report no longer needs).
    mutating func forgetHistory() {
        reads = [:]
        blobReads = [:]
        writes = [:]
        prepares = [:]
        blobOffsets = [:]
        longWrites = [:]
        verbatim = [:]
    }

    public func attribute(_ handle: UInt16) -> ReplayAttribute? { byHandle[handle].map { attributes[$0] } }

    mutating func index() {
        attributes.sort { $0.handle < $1.handle }
        byHandle = [:]
        for (i, a) in attributes.enumerated() { byHandle[a.handle] = i }
    }

    /// The characteristic value a CCCD at `handle` configures: the value handle of the last
    /// characteristic declared before it (descriptors follow their value, Vol 3 Part G 3.3).
    public func valueHandle(ofCCCD handle: UInt16) -> UInt16? {
        guard let i = byHandle[handle] else { return nil }
        for a in attributes[..<i].reversed() where a.type == ReplayAttribute.characteristic {
            return GATTCharacteristicDeclarationValue.valueHandle(in: a.value)
        }
        return nil
    }

    /// Whether `handle` is a Client Characteristic Configuration descriptor.
    public func isCCCD(_ handle: UInt16) -> Bool { attribute(handle)?.type == ReplayAttribute.cccd }
}

/// One ATT PDU the client side sends in the replay, and when.
public struct ReplayStep: Sendable {
    /// What the step's send time counts from.
    public enum Anchor: Sendable, Equatable {
        case connectionStart
        /// When step n went out.
        case sent(step: Int)
        /// When the response to step n arrived.
        case answered(step: Int)
        /// When the server PDU at this captured index arrived (a confirmation's indication).
        case serverPDU(capturedIndex: Int)
    }
    /// The PDU, opcode first (made on access from the captured exchange, which the step shares
    /// rather than holding a copy: a script of a million requests costs no heap block a step).
    public var bytes: [UInt8] { Array(captured.bytes(at: capturedIndex)) }
    /// The PDU where the exchange keeps it: for scans over a script, which `bytes` would copy
    /// step by step.
    public var pdu: ArraySlice<UInt8> { captured.bytes(at: capturedIndex) }
    /// The PDU's opcode, read in place.
    public var opcode: UInt8 { captured.opcode(at: capturedIndex) }
    /// The connection's captured exchange (`capturedIndex` is this step's place in it).
    let captured: CapturedATTPDUs
    public var capturedIndex: Int
    public var anchor: Anchor
    /// µs after the anchor, as captured (the client's own pace).
    public var delay: Int64
    /// Sent by the host's client (true) or the peer's.
    public var hostIsClient: Bool
    /// For requests: µs the server took to answer, as captured; nil when no answer was captured.
    public var latency: Int64?
    /// For requests: index of the captured response.
    public var responseIndex: Int?
    public var isRequest: Bool { ATTRole.isRequest(captured.opcode(at: capturedIndex)) }
}

/// How the captured connection ended.
public struct ReplayLinkEnd: Sendable, Equatable {
    public var reason: UInt8
    public var side: DisconnectionSide
    /// Counted from the same anchors as script steps (the last client step or response).
    public var anchor: ReplayStep.Anchor
    public var delay: Int64
    /// µs after connection start, as captured.
    public var capturedOffset: Int64
}

/// Everything replay knows about one captured connection: the two servers (the peer's, and
/// this host's if the peer used it), the client script, the server's own notifications,
/// latencies and the end of the link.
public struct ReplayConnectionModel: Sendable {
    public var connection: CapturedConnection
    /// The peer's server, which this host's client used.
    public var peerServer = ReplayServerModel()
    /// This host's server, which the peer's client used.
    public var hostServer = ReplayServerModel()
    public var steps: ReplayScript = []
    public var stream: ReplayStream = []
    /// Captured responses no request explains (replayed at their captured offsets).
    public var linkEnd: ReplayLinkEnd?

    public var number: Int { connection.number }
    public var peer: BDAddr? { connection.summary.peer }

    /// Captured behaviour the replay cannot reproduce, with why (in capture order).
    public var unreproducible: [ReplayUnreproducible] = []

    public init(_ c: CapturedConnection) {
        connection = c
        let (misread, reasons) = Self.mismatchedResponses(c.att)
        // What the timeline learned from a response to another request is not this server's
        // word: a characteristic list taken for includes (or the reverse) is left out.
        peerServer = Self.server(from: c.summary.remoteDatabase, connection: c.number, misread: misread[0])
        hostServer = Self.server(from: c.summary.localDatabase, connection: c.number, misread: misread[1])
        unreproducible = reasons
        buildScript()
        inferAttributes()
        recordedMTU()
        peerServer.index()
        hostServer.index()
        learnNotFoundPolicies()
    }

    /// A captured response paired with a request it cannot answer, and what that request asked.
    struct MismatchedResponse {
        var request: Int
        var mismatch: ATTResponseMismatch
        var requestOpcode: ATTOpcode
        var responseOpcode: ATTOpcode

        func detail(requestFrame: Int, responseFrame: Int) -> String {
            let why: String
            switch mismatch {
            case .otherRequest(let answered): why = "it answers a \(answered.name)"
            case .entrySize(let n): why = "its entries are \(n) octets, not those of the requested declarations"
            case .outsideRange(let h):
                why = "it lists handle \(Hex.string(UInt64(h), digits: 4)) outside the requested range"
            }
            return "frame \(responseFrame) (\(responseOpcode.name)) does not answer frame \(requestFrame)'s "
                + "\(requestOpcode.name): \(why); the capture lacks the request it answers (frames lost)"
        }
    }

    /// At most this many unreproducible responses are named per connection: a replay diverges
    /// at the first one at the latest (its model answers the captured request, not the lost
    /// one), so the report needs the first; the cap bounds what hostile input makes the model
    /// hold (the handle sets below are bounded by the handle space).
    static let maximumUnreproducible = 64

    /// The captured responses that cannot answer the request outstanding before them on their
    /// bearer direction (one at a time, Vol 3 Part F 3.3.2): per server ([peer's, host's]) the
    /// handles a mismatched Read By Type Response listed, by the declaration type asked for
    /// (what the timeline took them for), and the first of them as unreproducible behaviour.
    static func mismatchedResponses(_ att: CapturedATTPDUs)
        -> (misread: [[UInt16: Set<UInt16>]], reasons: [ReplayUnreproducible])
    {
        var outstanding: [Int?] = [nil, nil]
        var misread: [[UInt16: Set<UInt16>]] = [[:], [:]]
        var reasons: [ReplayUnreproducible] = []
        // By index through a cursor, not `for pdu in att`: each element made is an array of its
        // bytes, and this walk runs over every PDU of every replayed connection.
        var cursor = CapturedATTPDUs.Cursor(att)
        var bytesStart = 0
        for i in 0..<att.count {
            let record = cursor.record(at: i)
            let opcode = cursor.opcode(in: bytesStart..<Int(record.end))
            bytesStart = Int(record.end)
            let fromClient = ATTRole.isFromClient(opcode)
            let dir = fromClient == record.sentByHost ? 0 : 1
            if fromClient {
                if ATTRole.isRequest(opcode) { outstanding[dir] = i }
                continue
            }
            guard ATTRole.isResponse(opcode), let r = outstanding[dir] else { continue }
            outstanding[dir] = nil
            let request = cursor.bytes(at: r)
            let response = cursor.bytes(at: i)
            let mismatch = request.withUnsafeBytes { q in
                response.withUnsafeBytes { ATTPDU.mismatch(request: ByteView(q), response: ByteView($0)) }
            }
            guard let mismatch else { continue }
            let frame = cursor.frame(at: i)
            let m = MismatchedResponse(
                request: r, mismatch: mismatch, requestOpcode: ATTOpcode(request.first ?? 0),
                responseOpcode: ATTOpcode(opcode))
            request.withUnsafeBytes { q in
                response.withUnsafeBytes { b in
                    if case .readByTypeRequest(let rq) = ATTPDU(ByteView(q)),
                        case .readByTypeResponse(let rs) = ATTPDU(ByteView(b)),
                        let type = rq.attributeType.flatMap({ $0.width == 2 ? $0.uuid16 : nil })
                    {
                        misread[dir][type, default: []].formUnion(rs.attributeData.lazy.map(\.handle))
                    }
                }
            }
            if reasons.count < maximumUnreproducible {
                reasons.append(
                    ReplayUnreproducible(
                        kind: .responseToAnotherRequest, capturedIndex: i, frame: frame,
                        detail: m.detail(requestFrame: cursor.frame(at: r), responseFrame: frame)))
            }
        }
        return (misread, reasons)
    }

    /// A captured Attribute Not Found of a discovery request: what it asked, the handle named.
    private struct NotFoundError {
        var opcode: UInt8
        var start: UInt16
        var end: UInt16
        var named: UInt16
    }
    /// Per server ([peer's, host's]), kept while the model is built.
    private var notFoundErrors: [[NotFoundError]] = [[], []]
    /// Per bearer direction ([host client, peer client]): the handles prepared since the last
    /// Execute Write, in order, with the captured index of the first refusal of each.
    private var prepared: [[(handle: UInt16, refusal: Int?)]] = [[], []]

    private mutating func learnNotFoundPolicies() {
        for dir in 0..<2 {
            var server = dir == 0 ? peerServer : hostServer
            let last = server.lastHandle
            for e in notFoundErrors[dir] {
                server.notFoundPolicies[e.opcode, default: ReplayServerModel.NotFoundPolicy.all] &=
                    server.notFoundAgreement(named: e.named, start: e.start, end: e.end, last: last)
            }
            if dir == 0 { peerServer = server } else { hostServer = server }
        }
        notFoundErrors = [[], []]
    }

    func server(hostIsClient: Bool) -> ReplayServerModel { hostIsClient ? peerServer : hostServer }

    /// µs after the connection's start at which the captured PDU `index` was logged.
    public func capturedOffset(ofPDU index: Int) -> Int64 {
        connection.att.time(at: index) &- connection.summary.startTime
    }

    /// When a step's anchor happened in the capture (µs after connection start): what its
    /// captured `delay` counts from.
    public func capturedOffset(of anchor: ReplayStep.Anchor) -> Int64 {
        switch anchor {
        case .connectionStart: 0
        case .sent(let n): capturedOffset(ofPDU: steps.record(at: n).capturedIndex)
        case .answered(let n):
            steps.record(at: n).responseIndex.map(capturedOffset(ofPDU:))
                ?? capturedOffset(ofPDU: steps.record(at: n).capturedIndex)
        case .serverPDU(let i): capturedOffset(ofPDU: i)
        }
    }

    /// When a stream item's anchor happened in the capture: what its captured `offset` counts from.
    public func capturedOffset(of anchor: ReplayStreamItem.Anchor) -> Int64 {
        switch anchor {
        case .connectionStart: 0
        case .subscription(let n): capturedOffset(ofPDU: steps.record(at: n).capturedIndex)
        }
    }

    /// Moves what is still in memory of the script, the stream and the recorded answers to the
    /// spool (a model kept until the session replays).
    mutating func seal() {
        steps.seal()
        stream.seal()
        peerServer.sealHistory()
        hostServer.sealHistory()
    }

    /// The attribute table discovery revealed (Vol 3 Part G 3.1–3.3): service, include and
    /// characteristic declarations with their values, value attributes, descriptors.
    ///
    /// Entries carried over from an earlier connection are the client's cache, not what this
    /// server said: they are kept only where this connection's own discovery did not cover
    /// them (outside every service it found), so a server whose database changed between
    /// connections is modelled as it answered on this one.
    static func server(from db: GATTDatabase, connection: Int, misread: [UInt16: Set<UInt16>] = [:])
        -> ReplayServerModel
    {
        var m = ReplayServerModel()
        var seen = Set<UInt16>()
        let misreadIncludes = misread[GATTDeclaration.include] ?? []
        let misreadCharacteristics = misread[GATTDeclaration.characteristic] ?? []
        let ownServices = db.services.filter { $0.learnedIn == connection }
        func keep(_ handle: UInt16, _ learnedIn: Int) -> Bool {
            learnedIn == connection || !ownServices.contains { $0.startHandle <= handle && handle <= $0.endHandle }
        }
        func add(_ a: ReplayAttribute) {
            guard seen.insert(a.handle).inserted else { return }
            m.attributes.append(a)
        }
        for s in db.services where keep(s.startHandle, s.learnedIn) {
            add(
                ReplayAttribute(
                    handle: s.startHandle,
                    type: s.isPrimary
                        ? ReplayAttribute.primaryService
                        : ReplayAttribute.secondaryService,
                    value: s.uuid.attBytes, groupEnd: s.endHandle, properties: nil, isInferred: false))
        }
        for i in db.includes where keep(i.handle, i.learnedIn) && !misreadIncludes.contains(i.handle) {
            add(
                ReplayAttribute(
                    handle: i.handle, type: ReplayAttribute.include,
                    value: i.includedStart.littleEndianBytes + i.includedEnd.littleEndianBytes
                        + (i.uuid.map(\.attBytes) ?? []),
                    groupEnd: nil, properties: nil, isInferred: false))
        }
        for c in db.characteristics
        where keep(c.declarationHandle, c.learnedIn) && !misreadCharacteristics.contains(c.declarationHandle) {
            add(
                ReplayAttribute(
                    handle: c.declarationHandle, type: ReplayAttribute.characteristic,
                    value: [c.properties] + c.valueHandle.littleEndianBytes + c.uuid.attBytes,
                    groupEnd: nil, properties: nil, isInferred: false))
            add(
                ReplayAttribute(
                    handle: c.valueHandle, type: c.uuid, value: [], groupEnd: nil, properties: c.properties,
                    isInferred: false))
        }
        for d in db.descriptors where keep(d.handle, d.learnedIn) {
            add(
                ReplayAttribute(
                    handle: d.handle, type: d.uuid, value: [], groupEnd: nil, properties: nil,
                    isInferred: false))
        }
        m.index()
        return m
    }

    // MARK: script

    private mutating func buildScript() {
        let att = connection.att
        let start = connection.summary.startTime
        // Outstanding request per bearer direction: [host client, peer client], its step and bytes.
        var outstanding: [(step: Int, bytes: [UInt8])?] = [nil, nil]
        var lastAnchor: (ReplayStep.Anchor, Int64) = (.connectionStart, start)
        var lastIndication: [Int?] = [nil, nil]
        // Latest enabling CCCD write per (direction, value handle): its step and captured time.
        var subscriptions: [[UInt16: (step: Int, time: Int64)]] = [[:], [:]]

        // By index through a cursor: a server PDU outside a request–response pair (most of a
        // long stream: its notifications) is read where it lies, and only the others are made
        // as elements, an array of their bytes each (docs/performance.md, session 44).
        var cursor = CapturedATTPDUs.Cursor(att)
        var bytesStart = 0
        for i in 0..<att.count {
            let r = cursor.record(at: i)
            let range = bytesStart..<Int(r.end)
            bytesStart = Int(r.end)
            let op = cursor.opcode(in: range)
            let isFromClient = ATTRole.isFromClient(op)
            let hostIsClient = isFromClient == r.sentByHost
            let dir = hostIsClient ? 0 : 1
            if !isFromClient, !ATTRole.isResponse(op) || outstanding[dir] == nil {
                // Notifications, indications, and responses nothing asked for: the server's own.
                if op == ATTOpcode.handleValueIndication.rawValue { lastIndication[dir] = i }
                var anchor: ReplayStreamItem.Anchor = .connectionStart
                var anchorTime = start
                if let h = Self.subscriptionHandle(cursor.bytes(in: range)), let (n, t) = subscriptions[dir][h] {
                    anchor = .subscription(step: n)
                    anchorTime = t
                }
                stream.append(
                    ReplayStreamItem(
                        captured: att, anchor: anchor, offset: max(0, r.time &- anchorTime),
                        capturedIndex: i, hostIsClient: hostIsClient))
                continue
            }
            let pdu = CapturedATTPDU(
                frame: r.frame, time: r.time, sentByHost: r.sentByHost, bytes: Array(cursor.bytes(in: range)))
            if isFromClient {
                var anchor = lastAnchor
                if op == ATTOpcode.handleValueConfirmation.rawValue, let ind = lastIndication[dir] {
                    anchor = (.serverPDU(capturedIndex: ind), att.time(at: ind))
                }
                steps.append(
                    ReplayStep(
                        captured: att, capturedIndex: i, anchor: anchor.0,
                        delay: max(0, pdu.time &- anchor.1), hostIsClient: pdu.hostIsClient))
                let n = steps.count - 1
                if ATTRole.isRequest(op) { outstanding[dir] = (n, pdu.bytes) }
                lastAnchor = (.sent(step: n), pdu.time)
            } else if ATTRole.isResponse(op), let (n, request) = outstanding[dir] {
                outstanding[dir] = nil
                steps.answer(n, responseIndex: i, latency: pdu.time &- att.time(at: steps.record(at: n).capturedIndex))
                // A response to a request the capture lost teaches the model nothing
                // (`unreproducible` says so).
                let answers = request.withByteView { q in
                    pdu.bytes.withByteView { ATTPDU.mismatch(request: q, response: $0) } == nil
                }
                if answers { record(request: request, response: pdu.bytes, at: i, hostIsClient: pdu.hostIsClient) }
                if pdu.opcode == ATTOpcode.writeResponse.rawValue,
                    let (h, config) = request.withByteView({ b -> (UInt16, UInt16)? in
                        guard case .writeRequest(let w) = ATTPDU(b),
                            let bits = GATTClientConfiguration.bits(of: w.value)
                        else { return nil }
                        return (w.handle, bits)
                    })
                {
                    let server = server(hostIsClient: pdu.hostIsClient)
                    if let value = server.valueHandle(ofCCCD: h) ?? (server.attribute(h) == nil ? h &- 1 : nil) {
                        let enabling = GATTClientConfiguration.notification | GATTClientConfiguration.indication
                        subscriptions[dir][value] =
                            config & enabling != 0 ? (n, att.time(at: steps.record(at: n).capturedIndex)) : nil
                    }
                }
                lastAnchor = (.answered(step: n), pdu.time)
            }
        }
        if let summary = connection.summary.endReason, let side = connection.summary.endSide,
            let end = connection.disconnection
        {
            linkEnd = ReplayLinkEnd(
                reason: summary, side: side, anchor: lastAnchor.0, delay: max(0, end.1 &- lastAnchor.1),
                capturedOffset: max(0, end.1 &- start))
        }
    }

    /// Files a captured answer (the response at captured index `index`) under what the server
    /// model answers from.
    private mutating func record(request: [UInt8], response: [UInt8], at index: Int, hostIsClient: Bool) {
        let requestOp = ATTOpcode(request.first ?? 0)
        let responseOp = response.first.map(ATTOpcode.init(_:))
        let error = response.withByteView(ATTErrorResponse.init(pdu:))
        let att = connection.att
        let fields = request.withByteView(RequestFields.init)
        func file(_ m: inout ReplayServerModel) {
            let h = fields.handle
            if let end = fields.end, let error, error.errorCode == ATTErrorCode.attributeNotFound {
                // Learned once the table is whole (`learnNotFoundPolicies`): one policy is the
                // server's last handle.
                notFoundErrors[hostIsClient ? 0 : 1].append(
                    NotFoundError(opcode: request[0], start: h, end: end, named: error.handle))
            }
            // Entries per list response, by entry size (the server's habit, 3.4.3.2–3.4.4.10).
            if let op = responseOp, response.count >= 2,
                let (length, body) = response.withByteView({ listShape(op, $0) })
            {
                if length > 0 {
                    let key = UInt16(op.rawValue) << 8 | UInt16(truncatingIfNeeded: length)
                    m.maximumEntries[key] = max(m.maximumEntries[key] ?? 0, body / length)
                }
            }
            switch requestOp {
            case .exchangeMTURequest:
                if responseOp == .exchangeMTUResponse {
                    m.serverRxMTU = response.withByteView(ATTExchangeMTUResponse.init(pdu:))?.serverRxMTU
                }
            case .readRequest: m.reads[h, default: ReplayAnswers(att)].append(response: index)
            case .readBlobRequest:
                m.blobReads[h, default: ReplayAnswers(att)].append(response: index)
                m.blobOffsets[h, default: []].append(fields.offset)
            case .writeRequest: m.writes[h, default: ReplayAnswers(att)].append(response: index)
            case .prepareWriteRequest:
                m.prepares[h, default: ReplayAnswers(att)].append(response: index)
                let dir = hostIsClient ? 0 : 1
                if let k = prepared[dir].firstIndex(where: { $0.handle == h }) {
                    if error != nil, prepared[dir][k].refusal == nil { prepared[dir][k].refusal = index }
                } else {
                    prepared[dir].append((h, error != nil ? index : nil))
                }
            case .executeWriteRequest:
                m.verbatim[request, default: []].append(response)
                let dir = hostIsClient ? 0 : 1
                if fields.executes {
                    for p in prepared[dir] {
                        m.longWrites[p.handle, default: ReplayAnswers(att)].append(response: p.refusal ?? index)
                    }
                }
                prepared[dir] = []
            case .findInformationRequest:
                // Discovery is answered from the attribute table; what Find Information named
                // (declarations included, which the timeline's database keeps apart) is in it.
                if let end = fields.end, let info = response.withByteView(ATTFindInformationResponse.init(pdu:)) {
                    for e in info.information where h <= e.handle && e.handle <= end {
                        m.learn(handle: e.handle, type: e.uuid)
                    }
                }
            case .findByTypeValueRequest, .readByGroupTypeRequest:
                break  // discovery: answered from the attribute table
            case .readByTypeRequest:
                // Characteristic and include discovery come from the table; Read Using
                // Characteristic UUID is answered as captured.
                let type = fields.readByType16
                if type != GATTDeclaration.characteristic && type != GATTDeclaration.include {
                    m.verbatim[request, default: []].append(response)
                }
            default: m.verbatim[request, default: []].append(response)
            }
        }
        if hostIsClient { file(&peerServer) } else { file(&hostServer) }
    }

    /// What filing a captured answer reads of its request, decoded by BLEPackets: the handle
    /// it names (a discovery request's Starting Handle; 0 when there is none), a discovery
    /// request's Ending Handle, and a Read By Type's 16-bit type. A request too short for its
    /// opcode keeps the fields it holds.
    private struct RequestFields {
        var handle: UInt16 = 0
        var end: UInt16?
        var readByType16: UInt16?
        /// A Read Blob's Value Offset.
        var offset: UInt16 = 0
        /// An Execute Write that writes the prepared values (flags 0x01), not one that cancels them.
        var executes = false

        init(_ request: ByteView) {
            switch ATTPDU(request) {
            case .readRequest(let r): handle = r.handle
            case .readBlobRequest(let r): (handle, offset) = (r.handle, r.offset)
            case .executeWriteRequest(let r): executes = r.flags == ATTExecuteWriteRequest.writeAllPreparedWrites
            case .writeRequest(let r): handle = r.handle
            case .prepareWriteRequest(let r): handle = r.handle
            case .findInformationRequest(let r): (handle, end) = (r.startingHandle, r.endingHandle)
            case .findByTypeValueRequest(let r): (handle, end) = (r.startingHandle, r.endingHandle)
            case .readByGroupTypeRequest(let r): (handle, end) = (r.startingHandle, r.endingHandle)
            case .readByTypeRequest(let r):
                (handle, end) = (r.startingHandle, r.endingHandle)
                readByType16 = r.attributeType.flatMap { $0.width == 2 ? $0.uuid16 : nil }
            case .malformed(let op?, let raw, _):
                let (a, b) = ATTPDU.leadingHandles(of: raw)
                handle = a ?? 0
                switch op {
                case .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest, .readByGroupTypeRequest:
                    end = b
                default: break
                }
            default: break
            }
        }
    }

    /// The handle a server PDU outside any request–response pair names, for timing it from the
    /// subscription to that handle: a notification's or indication's (a multiple notification's
    /// first); any other PDU's first two parameter octets, as replay has always read them.
    ///
    /// A notification's or indication's Attribute Handle is its first parameter, so this is the
    /// PDU's first 16-bit parameter whatever its opcode: read as that, without decoding the PDU,
    /// whose decoded value was a retained copy for every notification of a stream
    /// (docs/performance.md, session 44).
    private static func subscriptionHandle(_ bytes: ArraySlice<UInt8>) -> UInt16? {
        bytes.withUnsafeBytes { ATTPDU.leadingHandles(of: ByteView($0)).first }
    }

    /// ATT_MTU as the connection's record states it (issue 28: no command recomputes a fact):
    /// when unknown, the lower bound the timeline kept (the largest ATT PDU seen) holds from
    /// the start; when known, the LE default until the exchange replay plays.
    private mutating func recordedMTU() {
        let s = connection.summary
        let atLeast = s.mtuKnown || s.mtuAtLeast <= 23 ? nil : Int(s.mtuAtLeast)
        peerServer.mtuAtLeast = atLeast
        hostServer.mtuAtLeast = atLeast
    }

    /// Adds handles the traffic used but discovery never named, with the properties their use
    /// implies (read, write, write without response, notify, indicate), marked inferred.
    private mutating func inferAttributes() {
        var implied: [[UInt16: UInt8]] = [[:], [:]]
        // By index through a cursor, not `for pdu in connection.att`: each element made is an
        // array of its bytes, an allocation and five releases for every PDU of the connection
        // (10 % of replaying 100 k notifications; docs/performance.md, session 44).
        let att = connection.att
        var cursor = CapturedATTPDUs.Cursor(att)
        var bytesStart = 0
        for i in 0..<att.count {
            let r = cursor.record(at: i)
            let range = bytesStart..<Int(r.end)
            bytesStart = Int(r.end)
            let opcode = cursor.opcode(in: range)
            let bit: UInt8
            switch ATTOpcode(opcode) {
            case .readRequest, .readBlobRequest: bit = GATTCharacteristicProperty.read
            case .writeCommand: bit = GATTCharacteristicProperty.writeWithoutResponse
            case .writeRequest, .prepareWriteRequest: bit = GATTCharacteristicProperty.write
            case .handleValueNotification: bit = GATTCharacteristicProperty.notify
            case .handleValueIndication: bit = GATTCharacteristicProperty.indicate
            case .signedWriteCommand: bit = GATTCharacteristicProperty.authenticatedSignedWrites
            default: continue
            }
            // `CapturedATTPDU.hostIsClient`.
            let dir = ATTRole.isFromClient(opcode) == r.sentByHost ? 0 : 1
            let handle = cursor.bytes(in: range).withUnsafeBytes { ATTPDU.handle(of: ByteView($0)) }
            guard let h = handle, h != 0 else { continue }
            implied[dir][h, default: 0] |= bit
        }
        for dir in 0..<2 {
            var server = dir == 0 ? peerServer : hostServer
            server.index()
            for (h, props) in implied[dir].sorted(by: { $0.key < $1.key }) where server.attribute(h) == nil {
                server.attributes.append(
                    ReplayAttribute(
                        handle: h, type: ReplayAttribute.inferredType(h), value: [],
                        groupEnd: nil, properties: props, isInferred: true))
            }
            if dir == 0 { peerServer = server } else { hostServer = server }
        }
    }
}

/// The entry size of a list response and how many bytes of entries follow it: Find
/// Information (by its Format, 3.4.3.2), Find By Type Value (4, 3.4.3.4), Read By Type and Read
/// By Group Type (their Length, 3.4.4.2, 3.4.4.10); nil for other PDUs.
func listShape(_ op: ATTOpcode, _ pdu: ByteView) -> (length: Int, body: Int)? {
    switch op {
    case .findInformationResponse:
        guard let r = ATTFindInformationResponse(pdu: pdu) else { return nil }
        return (r.format == ATTFindInformationResponse.format16BitUUIDs ? 4 : 18, r.information.bytes.count)
    case .findByTypeValueResponse:
        guard let r = ATTFindByTypeValueResponse(pdu: pdu) else { return nil }
        return (4, r.handlesInformation.bytes.count)
    case .readByTypeResponse:
        guard let r = ATTReadByTypeResponse(pdu: pdu) else { return nil }
        return (Int(r.length), r.attributeData.bytes.count)
    case .readByGroupTypeResponse:
        guard let r = ATTReadByGroupTypeResponse(pdu: pdu) else { return nil }
        return (Int(r.length), r.attributeData.bytes.count)
    default: return nil
    }
}
