import BLEPackets
import BLETimeline
import CaptureIO

/// What a `CaptureConsumer` observes of a pass. The pass calls only the hooks a consumer
/// declares (as a lint rule declares its `observedEvents`), and builds the timeline only when
/// some consumer observes its events or connections. The members are inlinable computed
/// constants, not stored `static let`s: a specialised pass then folds its checks away instead of
/// calling a global's accessor for each record.
public struct CaptureObservations: OptionSet, Sendable {
    public let rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Each record as read, before it is decoded (`CaptureConsumer.record`).
    @inlinable public static var records: CaptureObservations { CaptureObservations(rawValue: 1 << 0) }
    /// Each decoded frame, before the timeline takes it (`CaptureConsumer.frame`).
    @inlinable public static var frames: CaptureObservations { CaptureObservations(rawValue: 1 << 1) }
    /// Each decoded frame after the timeline took it, so after the events it made final
    /// (`CaptureConsumer.frameAfterTimeline`).
    @inlinable public static var framesAfterTimeline: CaptureObservations { CaptureObservations(rawValue: 1 << 2) }
    /// Each timeline event, as it becomes final (`CaptureConsumer.event`).
    @inlinable public static var events: CaptureObservations { CaptureObservations(rawValue: 1 << 3) }
    /// Each connection as it ends or as the capture ends (`CaptureConsumer.connectionEnded`).
    @inlinable public static var connections: CaptureObservations { CaptureObservations(rawValue: 1 << 4) }
    /// Each reassembled ATT PDU with its connection, before the timeline interprets it
    /// (`CaptureConsumer.att`: replay keeps the exchange byte for byte).
    @inlinable public static var att: CaptureObservations { CaptureObservations(rawValue: 1 << 5) }

    /// The observations that need a timeline.
    @inlinable public static var timeline: CaptureObservations { [.events, .connections, .att] }
}

/// One consumer of a capture pass: a command's output, the lint engine, the report's model,
/// replay's capture. It declares what it `observes`; the hooks it does not declare are never
/// called, and need not be written (they default to nothing).
///
/// Order within one record: `record`, then `frame`, then the events and connection ends the
/// timeline makes final on that frame, then `frameAfterTimeline`. `finish` comes once, after
/// the timeline's last events and connections (also when the pass stopped early).
///
/// To add a consumer: write a final class conforming to this protocol (state it mutates per
/// frame as `@exclusivity(unchecked)` stored properties: the pass calls it from one thread,
/// never re-entrantly), and hand it to `CapturePass.run`.
public protocol CaptureConsumer: AnyObject {
    /// The hooks the pass calls.
    var observes: CaptureObservations { get }
    /// Before the first record: the reader's format and the pass's tables are known.
    func begin(_ pass: CapturePass)
    func record(_ record: CaptureRecord)
    func frame(_ frame: DecodedFrame)
    func frameAfterTimeline(_ frame: DecodedFrame)
    func event(_ event: TimelineEvent)
    func connectionEnded(_ summary: ConnectionSummary)
    /// The PDU's bytes are valid only during the call.
    func att(_ observation: ATTObservation)
    /// Checked after each record: true stops the pass (the reader of the output went away).
    var isDone: Bool { get }
    /// After the last record (or the record after which the pass stopped).
    func finish(_ pass: CapturePass)
}

extension CaptureConsumer {
    @inlinable public func begin(_ pass: CapturePass) {}
    @inlinable public func record(_ record: CaptureRecord) {}
    @inlinable public func frame(_ frame: DecodedFrame) {}
    @inlinable public func frameAfterTimeline(_ frame: DecodedFrame) {}
    @inlinable public func event(_ event: TimelineEvent) {}
    @inlinable public func connectionEnded(_ summary: ConnectionSummary) {}
    @inlinable public func att(_ observation: ATTObservation) {}
    @inlinable public var isDone: Bool { false }
    @inlinable public func finish(_ pass: CapturePass) {}
}

/// One pass over one capture: reader → `FrameDecoder` → `TimelineBuilder` → consumers. The
/// one place that builds the decode loop; every command, the linter and replay's capture run
/// their consumers through it.
///
/// `run` is generic and inlinable, so a consumer's hooks are called directly (specialised,
/// no existential call per frame); `run(_:)` with a list calls each through its existential.
public final class CapturePass {
    /// The capture being read.
    public let reader: any CaptureReader
    /// What messages call the capture: its path, `-`, or `archive!member`.
    public let name: String
    public let decoder: FrameDecoder
    /// Where the pass's timeline keeps the tables its `scan.filters` events name.
    public let scanFilterTables: ScanFilterTables
    /// A consumer stopped the pass before the capture ended.
    public var stoppedEarly: Bool { stopped }
    @usableFromInline var stopped = false
    @usableFromInline var ran = false

    /// - Parameters:
    ///   - keys: Long Term Keys for encrypted links of an over-the-air capture (`--ltk`).
    ///   - scanFilterTables: the tables the timeline fills (a consumer that looks them up
    ///     may bring its own).
    public init(
        reader: any CaptureReader, name: String, keys: LinkLayerKeys = LinkLayerKeys(),
        scanFilterTables: ScanFilterTables = ScanFilterTables()
    ) {
        self.reader = reader
        self.name = name
        self.decoder = FrameDecoder(keys: keys)
        self.scanFilterTables = scanFilterTables
    }

    /// Reads the capture to its end (or until `consumer.isDone`), handing `consumer` what it
    /// observes. A pass runs once.
    @inlinable
    public func run<C: CaptureConsumer>(_ consumer: C) {
        precondition(!ran, "a CapturePass runs once")
        ran = true
        let observes = consumer.observes
        consumer.begin(self)
        let decoder = self.decoder
        let builder: TimelineBuilder? =
            observes.isDisjoint(with: .timeline)
            ? nil
            : TimelineBuilder(
                // Only the hooks the consumer declared (chosen once, not per event).
                emit: observes.contains(.events) ? { consumer.event($0) } : { _ in },
                connectionEnded: observes.contains(.connections) ? { consumer.connectionEnded($0) } : { _ in },
                scanFilterTables: scanFilterTables)
        if observes.contains(.att) { builder?.attObserver = { consumer.att($0) } }
        var stopped = false
        forEachRecord(of: reader) { record in
            if observes.contains(.records) { consumer.record(record) }
            let frame = decoder.decode(record)
            if observes.contains(.frames) { consumer.frame(frame) }
            builder?.feed(frame)
            if observes.contains(.framesAfterTimeline) { consumer.frameAfterTimeline(frame) }
            if consumer.isDone {
                stopped = true
                return false
            }
            return true
        }
        self.stopped = stopped
        builder?.finish()
        consumer.finish(self)
    }

    /// Runs several consumers in one pass, each called in list order for each hook it observes.
    public func run(_ consumers: [any CaptureConsumer]) {
        run(CaptureConsumerList(consumers))
    }

    /// The `--ltk` keys that decrypted no link, as the option takes them (`[SCOPE=]HEX`, the
    /// key most significant digit first). Empty when the pass stopped early: the links it did
    /// not read might have matched.
    public var unmatchedKeys: [String] {
        if stoppedEarly { return [] }
        return decoder.linkLayer.keysMatchingNoLink.map { k -> String in
            let key = k.ltk.hexMSBFirst
            switch k.scope {
            case .anyConnection: return key
            case .address(let a): return "\(a)=\(key)"
            case .accessAddress(let aa): return "0x\(String(aa, radix: 16, uppercase: true))=\(key)"
            }
        }
    }

    /// One note per unmatched key, as every command that takes `--ltk` prints it on standard
    /// error: `note: --ltk KEY matched no link in NAME`.
    public var notes: [String] {
        unmatchedKeys.map { "note: --ltk \($0) matched no link in \(name)" }
    }
}

/// Several consumers as one: each hook goes to the consumers that observe it, in list order.
final class CaptureConsumerList: CaptureConsumer {
    let consumers: [any CaptureConsumer]
    let observes: CaptureObservations
    private let recordConsumers: [any CaptureConsumer]
    private let frameConsumers: [any CaptureConsumer]
    private let afterConsumers: [any CaptureConsumer]
    private let eventConsumers: [any CaptureConsumer]
    private let connectionConsumers: [any CaptureConsumer]
    private let attConsumers: [any CaptureConsumer]

    init(_ consumers: [any CaptureConsumer]) {
        self.consumers = consumers
        observes = consumers.reduce([]) { $0.union($1.observes) }
        recordConsumers = consumers.filter { $0.observes.contains(.records) }
        frameConsumers = consumers.filter { $0.observes.contains(.frames) }
        afterConsumers = consumers.filter { $0.observes.contains(.framesAfterTimeline) }
        eventConsumers = consumers.filter { $0.observes.contains(.events) }
        connectionConsumers = consumers.filter { $0.observes.contains(.connections) }
        attConsumers = consumers.filter { $0.observes.contains(.att) }
    }

    func begin(_ pass: CapturePass) { for c in consumers { c.begin(pass) } }
    func record(_ record: CaptureRecord) { for c in recordConsumers { c.record(record) } }
    func frame(_ frame: DecodedFrame) { for c in frameConsumers { c.frame(frame) } }
    func frameAfterTimeline(_ frame: DecodedFrame) { for c in afterConsumers { c.frameAfterTimeline(frame) } }
    func event(_ event: TimelineEvent) { for c in eventConsumers { c.event(event) } }
    func connectionEnded(_ summary: ConnectionSummary) { for c in connectionConsumers { c.connectionEnded(summary) } }
    func att(_ observation: ATTObservation) { for c in attConsumers { c.att(observation) } }
    var isDone: Bool { consumers.contains { $0.isDone } }
    func finish(_ pass: CapturePass) { for c in consumers { c.finish(pass) } }
}
