import BLEBytes
import BLEPackets
import BLEPass
import BLETimeline
import CaptureIO
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The result of linting one capture.
public struct CaptureReport: Sendable {
    public var path: String
    public var format: String?
    public var frames: Int = 0
    public var facts = CaptureFacts()
    public var findings: [Finding] = []
    public var notEvaluated: [NotEvaluated] = []
    /// The capture could not be opened or read at all.
    public var error: String?
    /// The capture is damaged: findings cover the part before the damage.
    public var damage: String?
    /// The container was recognised but holds no HCI traffic blecap can lint (link-layer
    /// captures, other link types).
    public var unsupportedFormat = false
    /// Wall-clock seconds spent.
    public var seconds: Double = 0
    /// Each connection's facts as the timeline established them (the record `info`, `gatt`,
    /// `timeline` and `report` state too), in connection order; at most
    /// `TimelineStatistics.maximumConnections`.
    public var connections: [ConnectionFacts] = []
    /// What the pass noted about the input, for standard error (`--ltk` keys that matched no
    /// link: `CapturePass.notes`).
    public var notes: [String] = []

    public init(path: String) { self.path = path }

    public var isUnreadable: Bool { error != nil || damage != nil }

    /// Findings that count towards failing (not baselined) at or above `threshold`.
    public func failing(at threshold: Severity?) -> [Finding] {
        guard let threshold else { return [] }
        return findings.filter { !$0.baselined && $0.severity >= threshold }
    }
}

/// Lints one capture file in a single streaming pass: records → frames → timeline → rules.
///
/// Memory is bounded by the timeline's and the rules' per-connection state plus a ring of the
/// most recent records' file offsets (for SARIF regions). Evidence frames that fell out of the
/// ring are located by a second pass over the file, which stops at the last frame needed.
public enum CaptureLinter {
    /// How many recent records' (offset, length) are remembered during the pass.
    public static let offsetRingSize = 16384

    /// `observer`, when given, sees every decoded frame, timeline event and ended connection
    /// of the lint pass, so that a consumer (the HTML report) aggregates in the same pass.
    public static func lint(
        path: String, configuration: LintConfiguration = LintConfiguration(),
        baseline: Baseline = Baseline(), observer: LintPassObserver? = nil
    ) -> CaptureReport {
        if path != "-", SimulatorTraceReader.detect(filePrefix(path) ?? []) {
            return SimulatorTraceReader.lint(path: path, configuration: configuration, baseline: baseline)
        }
        var report = CaptureReport(path: path)
        let reader: any CaptureReader
        do { reader = try CaptureFile.open(path: path) } catch {
            report.error = error.description
            switch error {
            case .unsupportedLinkType, .unsupportedBtsnoopDatalink:
                report.unsupportedFormat = true
            default: break
            }
            return report
        }
        return lint(
            reader: reader, name: path, reopen: path == "-" ? nil : { try? CaptureFile.open(path: path) },
            configuration: configuration, baseline: baseline, observer: observer)
    }

    /// Lints an opened capture whose reports are to name it `name` (an archive member:
    /// `bugreport.zip!FS/data/misc/bluetooth/logs/btsnoop_hci.log`). `reopen`, when the input
    /// can be read again, gives a fresh reader for locating evidence frames.
    public static func lint(
        reader: any CaptureReader, name: String, reopen: (() -> (any CaptureReader)?)?,
        configuration: LintConfiguration = LintConfiguration(), baseline: Baseline = Baseline(),
        observer: LintPassObserver? = nil
    ) -> CaptureReport {
        var report = CaptureReport(path: name)
        report.format = "\(reader.format)"
        let engine = LintEngine(configuration: configuration)
        lint(
            reader: reader, engine: engine, report: &report, observer: observer, reopen: reopen,
            keys: configuration.linkLayerKeys, name: name)
        if let d = reader.damage { report.damage = d.description }
        for i in report.findings.indices where baseline.fingerprints.contains(report.findings[i].fingerprint) {
            report.findings[i].baselined = true
        }
        return report
    }

    /// The first `count` bytes of a file (fewer at its end or at a read error), nil if it
    /// cannot be opened: enough to tell a simulator trace (16) or a capture (`lint DIR`'s 512).
    package static func filePrefix(_ path: String, count: Int = 16) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        var have = 0
        while have < count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + have, count - have) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            have += n
        }
        bytes.removeSubrange(have...)
        return bytes
    }

    static func lint(
        reader: any CaptureReader, engine: LintEngine, report: inout CaptureReport,
        observer: LintPassObserver? = nil, reopen: (() -> (any CaptureReader)?)? = nil,
        keys: LinkLayerKeys = LinkLayerKeys(), name: String? = nil
    ) {
        let pass = CapturePass(
            reader: reader, name: name ?? "", keys: keys,
            scanFilterTables: observer?.scanFilterTables ?? ScanFilterTables())
        // One pass specialised for each case: without an observer its calls fold away.
        let ring: UnsafeMutableBufferPointer<(frame: Int, offset: Int64, length: Int)>
        let ended: FactsBox
        let kept: AnyObject
        if let observer {
            let lint = LintPass(engine: engine, observer: observer, name: name)
            pass.run(lint)
            (ring, ended, kept) = (lint.ring, lint.ended, lint)
        } else {
            let lint = LintPass(engine: engine, observer: NoLintPassObserver(), name: name)
            pass.run(lint)
            (ring, ended, kept) = (lint.ring, lint.ended, lint)
        }
        defer { withExtendedLifetime(kept) {} }
        report.notes = pass.notes
        let result = engine.finish()
        report.frames = engine.facts.frames
        report.facts = engine.facts
        report.notEvaluated = result.notEvaluated
        report.findings = result.findings
        report.connections = ended.facts.sorted { $0.connection < $1.connection }
        // Locate the first evidence frame of each finding.
        var missing: Set<Int> = []
        for i in report.findings.indices {
            let f = report.findings[i].firstFrame
            let slot = ring[f % offsetRingSize]
            if slot.frame == f, f > 0 {
                report.findings[i].byteOffset = slot.offset
                report.findings[i].byteLength = slot.length
            } else if f > 0 {
                missing.insert(f)
            }
        }
        if !missing.isEmpty, let again = reopen?() {
            var found: [Int: (Int64, Int)] = [:]
            let last = missing.max() ?? 0
            while let r = again.next(), r.frame <= last {
                if missing.contains(r.frame) { found[r.frame] = (r.fileOffset, r.recordLength) }
            }
            for i in report.findings.indices {
                if let (o, l) = found[report.findings[i].firstFrame] {
                    report.findings[i].byteOffset = o
                    report.findings[i].byteLength = l
                }
            }
        }
    }
}

/// The linter's consumer of the capture pass: the rules see the timeline's events and the HCI
/// facts of each frame once the timeline took it; a ring keeps the recent records' file
/// offsets (for SARIF regions); `observer` (the report) sees the same frames, events and
/// connections. Unchecked: the pass calls back from one thread, never re-entrantly.
final class LintPass<Observer: LintPassObserving>: CaptureConsumer {
    let engine: LintEngine
    let observer: Observer
    let name: String?
    /// A buffer, not an array: an array in a class is checked for uniqueness on every store
    /// (`swift_isUniquelyReferenced`; docs/performance.md).
    let ring = UnsafeMutableBufferPointer<(frame: Int, offset: Int64, length: Int)>.allocate(
        capacity: CaptureLinter.offsetRingSize)
    @exclusivity(unchecked) var facts = FactExtractor()
    let ended = FactsBox()

    init(engine: LintEngine, observer: Observer, name: String?) {
        self.engine = engine
        self.observer = observer
        self.name = name
        ring.initialize(repeating: (0, 0, 0))
    }

    deinit { ring.deallocate() }

    var observes: CaptureObservations { [.frames, .framesAfterTimeline, .events, .connections] }

    func begin(_ pass: CapturePass) {
        engine.scanFilterTables = pass.scanFilterTables
        facts.platform.start(format: pass.reader.format, name: name, engine)
    }

    func frame(_ frame: DecodedFrame) {
        let record = frame.record
        ring[record.frame % CaptureLinter.offsetRingSize] = (record.frame, record.fileOffset, record.recordLength)
        observer.observe(frame: frame)
        engine.facts.count(record)
    }

    func frameAfterTimeline(_ frame: DecodedFrame) { facts.extract(frame, engine) }

    func event(_ event: TimelineEvent) {
        engine.observe(event)
        observer.observe(event: event)
    }

    func connectionEnded(_ summary: ConnectionSummary) {
        ended.add(summary)
        observer.observe(connectionEnded: summary)
    }
}

/// The connections' facts the pass's timeline hands over as each connection ends.
final class FactsBox {
    var facts: [ConnectionFacts] = []
    func add(_ s: ConnectionSummary) {
        if facts.count < TimelineStatistics.maximumConnections { facts.append(s.facts) }
    }
}

/// What the lint pass shows an observer (`LintPassObserver`, or none).
protocol LintPassObserving {
    func observe(frame: DecodedFrame)
    func observe(event: TimelineEvent)
    func observe(connectionEnded: ConnectionSummary)
}

/// No observer: the lint pass alone, whose calls to it fold away.
struct NoLintPassObserver: LintPassObserving {
    func observe(frame: DecodedFrame) {}
    func observe(event: TimelineEvent) {}
    func observe(connectionEnded: ConnectionSummary) {}
}

extension LintPassObserver: LintPassObserving {
    func observe(frame: DecodedFrame) { self.frame(frame) }
    func observe(event: TimelineEvent) { self.event(event) }
    func observe(connectionEnded summary: ConnectionSummary) { self.connectionEnded(summary) }
}

/// What the lint pass shows a consumer that aggregates in the same pass: every decoded frame
/// (in capture order), every timeline event (as it becomes final) and every connection as it
/// ends (or at the end of the capture).
public struct LintPassObserver {
    public var frame: (DecodedFrame) -> Void
    public var event: (TimelineEvent) -> Void
    public var connectionEnded: (ConnectionSummary) -> Void
    /// Where the pass's timeline keeps the tables its `scan.filters` events name, for `event`
    /// to look them up.
    public var scanFilterTables: ScanFilterTables

    public init(
        frame: @escaping (DecodedFrame) -> Void, event: @escaping (TimelineEvent) -> Void,
        connectionEnded: @escaping (ConnectionSummary) -> Void, scanFilterTables: ScanFilterTables = ScanFilterTables()
    ) {
        self.frame = frame
        self.event = event
        self.connectionEnded = connectionEnded
        self.scanFilterTables = scanFilterTables
    }
}

extension CaptureFacts {
    mutating func count(_ r: CaptureRecord) {
        frames += 1
        switch r.kind {
        case .hciCommand: hciCommands += 1
        case .hciEvent: hciEvents += 1
        case .aclData: aclPackets += 1
        case .linkLayer: linkLayerRecords += 1
        case .controlOpen, .controlClose, .controlEvent: managementRecords += 1
        case .controlCommand:
            managementRecords += 1
            managementCommands += 1
        case .note, .syslog, .userLogging, .systemNote, .kernel, .kernelDebug: textRecords += 1
        default: break
        }
    }
}

/// Turns decoded frames into the `HCIFact`s the rules below the timeline need.
struct FactExtractor {
    static let resetOpcode: UInt16 = HCIOpcode.reset
    /// LE Connection Complete and Enhanced Connection Complete [v1]/[v2] (7.7.65.1, 7.7.65.10).
    static let leConnectionCompletes: [UInt8] = [
        HCILEConnectionComplete.subevent, HCILEEnhancedConnectionComplete.subeventV1,
        HCILEEnhancedConnectionComplete.subeventV2,
    ]
    /// Read Buffer Size's ACL count, used when LE Read Buffer Size says "shared" (0).
    var sharedACLBuffers: Int?
    var overTheAirTold = false
    /// Tells the engine the host's platform from the signs frames carry.
    var platform = PlatformDetector()

    /// An L2CAP PDU (or fragment) the host sent on `handle`: ACL, or the central's LL data.
    mutating func aclSent(
        _ frame: DecodedFrame, handle: UInt16, _ engine: LintEngine, _ fact: (HCIFact.Kind) -> Void
    ) {
        guard frame.record.direction == .sent else { return }
        var op: UInt8?
        var attHandle: UInt16?
        var length: Int?
        if let att = frame.attPayload, let header = ATTPDUHeader(att) {
            op = header.opcode
            attHandle = header.leadingHandle
            length = header.lengthAfterLeadingHandle
        } else if frame.l2cap != nil {
            op = 0  // a complete non-ATT PDU: ends the PDU, is no Write Command
        }
        if op == ATTOpcode.writeCommand.rawValue || op == ATTOpcode.signedWriteCommand.rawValue {
            engine.facts.writeCommands += 1
        }
        if platform.watchesGATTServer, let att = frame.attPayload {
            platform.gattServerPDU(att, frame: frame.record.frame, engine, fact)
        }
        fact(.aclSent(handle: handle, attOpcode: op, attHandle: attHandle, valueLength: length))
    }

    mutating func extract(_ frame: DecodedFrame, _ engine: LintEngine) {
        // ACL data the host received tells the rules nothing (`aclSent` is about what it sent):
        // returned from before the switch below, which copies the frame's layer to bind it
        // (a `memcpy` per notification; docs/performance.md).
        if frame.record.kind == .aclData, frame.record.direction != .sent { return }
        let r = frame.record
        func fact(_ k: HCIFact.Kind) { engine.observe(HCIFact(frame: r.frame, time: r.timestamp, kind: k)) }
        if platform.pending { platform.tellForced(engine, fact) }
        if platform.watchesRecords { platform.record(r, engine, fact) }
        switch frame.layer {
        case .command(let c):
            if c.opcode == Self.resetOpcode { fact(.reset) }
            if c.opcode == HCILEAdvFilter.opcode { engine.facts.apcfCommands += 1 }
            if platform.watchesInit { platform.initCommand(c.opcode, frame: r.frame, engine, fact) }
            if platform.watchesScanParameters,
                c.opcode == HCILESetScanParameters.opcode || c.opcode == HCILESetExtendedScanParameters.opcode
            {
                platform.scanParameters(c, frame: r.frame, engine, fact)
            }
            if c.opcode >> 10 == 0x3F, !platform.hostStackTold {
                platform.vendorCommand(c.opcode, frame: r.frame, engine, fact)
            }
        case .event(let e):
            switch e.code {
            case HCICommandComplete.code:
                guard let cc = HCICommandComplete(parameters: e.parameters) else { return }
                switch cc.opcode {
                case HCILEGetVendorCapabilities.opcode:
                    if let v = HCILEGetVendorCapabilities(returnParameters: cc.returnParameters), v.status == 0 {
                        engine.facts.vendorFilteringSupported = v.filteringSupported
                    }
                case HCIReadBufferSize.opcode:
                    if let b = HCIReadBufferSize(returnParameters: cc.returnParameters), b.status == 0 {
                        sharedACLBuffers = Int(b.totalNumACLDataPackets)
                        engine.facts.bufferSizeReports += 1
                    }
                case HCILEReadBufferSize.opcodeV1, HCILEReadBufferSize.opcodeV2:
                    let v = cc.opcode == HCILEReadBufferSize.opcodeV2 ? 2 : 1
                    guard let b = HCILEReadBufferSize(returnParameters: cc.returnParameters, version: v), b.status == 0
                    else { return }
                    engine.facts.bufferSizeReports += 1
                    if b.leACLDataPacketLength == 0 || b.totalNumLEACLDataPackets == 0 {
                        if let n = sharedACLBuffers { fact(.leBufferSize(packets: n, length: 0)) }
                    } else {
                        fact(
                            .leBufferSize(
                                packets: Int(b.totalNumLEACLDataPackets), length: Int(b.leACLDataPacketLength)))
                    }
                default: break
                }
            case HCINumberOfCompletedPackets.code:
                guard let n = HCINumberOfCompletedPackets(parameters: e.parameters) else { return }
                for entry in n.entries { fact(.completedPackets(handle: entry.handle, count: Int(entry.count))) }
            case HCIDisconnectionComplete.code:
                if let d = HCIDisconnectionComplete(parameters: e.parameters), d.status == 0 {
                    fact(.disconnected(handle: d.handle))
                }
            case HCIEventPacket.leMetaCode:
                // Status, then Connection_Handle, in all three.
                if let sub = e.subeventCode, Self.leConnectionCompletes.contains(sub),
                    let cc = HCIStatusAndConnectionHandle(parameters: e.subeventParameters),
                    cc.status == HCIError.success
                {
                    engine.facts.connectionStarts += 1
                    if let h = cc.handle { fact(.connectionComplete(handle: h)) }
                }
            case HCIConnectionComplete.code:  // BR/EDR (7.7.3): Status, Connection_Handle
                if let cc = HCIConnectionComplete(parameters: e.parameters), cc.status == HCIError.success {
                    engine.facts.connectionStarts += 1
                    if let h = cc.handle { fact(.connectionComplete(handle: h)) }
                }
            default: break
            }
        case .acl(let acl):
            aclSent(frame, handle: acl.handle, engine, fact)
        case .linkLayer(let ll):
            if !overTheAirTold {
                overTheAirTold = true
                fact(.overTheAir)
            }
            if ll.isEncrypted, engine.facts.linkLayerEncryptedFrom == nil {
                engine.facts.linkLayerEncryptedFrom = r.frame
            }
            if case .notDecryptable(let why)? = ll.decryption, engine.facts.linkLayerUndecryptable == nil {
                engine.facts.linkLayerUndecryptable = why.description
            }
            if let d = ll.data, d.llid != LLID.control, d.length > 0, !ll.isEncrypted, !ll.isRetransmission,
                ll.crc != .invalid
            {
                // L2CAP carried over the air: what ACL data is to an HCI capture.
                engine.facts.aclPackets += 1
                aclSent(frame, handle: ll.connection, engine, fact)
            }
            if let a = ll.advertising, a.pduType == LLAdvertisingPDUType.connectInd, ll.connection != 0 {
                engine.facts.connectionStarts += 1
                fact(.connectionComplete(handle: ll.connection))
            }
        case .other:
            if let m = frame.managementCommand {
                if !platform.hostStackTold {
                    platform.decide(
                        .linux, "BlueZ management command 0x\(Describe.hex(m.opcode, 4)), frame \(r.frame)", engine,
                        fact)
                }
                var filter: Int?
                if m.opcode == BlueZManagementOpcode.startServiceDiscovery {
                    filter = BlueZStartServiceDiscovery(m.parameters).map { Int($0.uuidCount) } ?? 0
                }
                fact(
                    .managementCommand(
                        opcode: m.opcode, serviceFilter: filter, client: m.cookie, index: r.controllerIndex,
                        parameters: Array(m.parameters)))
            } else if let ev = frame.managementEvent, let a = ev.answered {
                fact(.managementStatus(opcode: a.opcode, status: a.status))
            }
        case .malformed: break
        }
    }
}
