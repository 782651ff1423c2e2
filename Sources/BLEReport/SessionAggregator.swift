import BLEBytes
import BLEDiagnose
import BLEFilter
import BLELint
import BLEPackets
import BLETimeline
import CaptureIO

/// Folds one capture's decoded frames, timeline events and ended connections into a
/// `SessionReportModel`, in the streaming pass that lints it. Memory is bounded by the
/// `SessionReportModel.Limits` caps, never by the number of frames: per frame it only counts,
/// per event it updates fixed-size buckets or the last row of a sequence chart.
public final class SessionAggregator {
    typealias Limits = SessionReportModel.Limits

    let path: String
    /// What every frame and event touches, in one place so that one exclusivity exemption
    /// covers it and states its reason once. Unchecked: each checked access to a class's
    /// stored `var` is a `swift_beginAccess` call, ~8 per notification and 7 % of `blecap
    /// report`'s instructions when these were checked. An aggregator is fed from the one
    /// thread of its lint pass, and no access spans a call back into it. The same holds for
    /// `ConnectionAccumulator`'s fields.
    @exclusivity(unchecked) var hot = HotState()
    struct HotState {
        var frames = 0
        var origin: Int64?
        var minTime = Int64.max
        var maxTime = Int64.min
        var controllers: UInt64 = 0
        var controllerOverflow = false
        /// Advertisers and event counts. Ended connections are only counted (`connectionCount`), not
        /// added: the statistics would keep a record of each (up to 4,096) that the page never reads.
        var statistics = TimelineStatistics()
        var connections: [Int: ConnectionAccumulator] = [:]
        /// The accumulator the last event went to: events come in long runs on one connection, and
        /// hashing its number for each was 3 % of `blecap report`. `connections` only ever gains
        /// entries, so the one remembered stays the right one for its number.
        var lastAccumulator: (number: Int, accumulator: ConnectionAccumulator)?
        /// Sniffed connections' radio, by access address (the first `Limits.rssiSeries`).
        var radio: [UInt32: LinkLayerRadioSeries] = [:]
        var throughput = BucketSeries<ThroughputBucket>(
            start: 0, width: 1_000, capacity: Limits.throughputBuckets)
        var latency: [String: LatencyHistogram] = [:]
        var scopeEvents = 0
    }

    var connectionCount = 0
    var connectionsCreated = 0
    var maxConnectionNumber = 0
    var openScan: ScanPeriod?
    var scans: [ScanPeriod] = []
    var scansOmitted = 0
    var rssi: [BDAddr: BucketSeries<RSSIBucket>] = [:]
    /// The largest database seen per peer (remote) and per controller (this host's server).
    var databases: [String: (database: GATTDatabase, connection: Int, peer: String?, side: String)] = [:]
    var databaseOrder: [String] = []
    var databasesOmitted = 0

    /// The tables the pass's `scan.filters` events name (the timeline builder fills it).
    let scanFilterTables = ScanFilterTables()
    /// `blecap diagnose`'s consumer, fed the lint pass's events and connection ends through this
    /// aggregator's observer: the verdicts come from the same decode as everything else.
    let diagnoser = Diagnoser()

    /// `report`'s scope (docs/filter.md): only the timeline events it matches reach the page,
    /// and the connections they belong to or whose summary it matches. The diagnoser still
    /// reads every event (a verdict needs the whole story); the findings are the capture's.
    let scope: Filter?
    /// `describe`: the options as given, for the page's header.
    let scopeText: String?
    var connectionsOutOfScope = 0

    public init(path: String, scope: Filter? = nil, describe: String? = nil) {
        self.path = path
        self.scope = scope
        self.scopeText = scope == nil ? nil : describe ?? scope?.expression
    }

    /// The pass's observer: hand it to `CaptureLinter.lint(path:…observer:)`.
    ///
    /// The closures hold the aggregator strongly: nothing here holds the observer, so there is no
    /// cycle, and a strong capture is used as it is, where an `unowned` one is promoted to a
    /// strong reference and released on every call (twice per frame, 5 % of `blecap report`).
    public var observer: LintPassObserver {
        LintPassObserver(
            frame: { self.frame($0) },
            event: {
                if let scope = self.scope {
                    if scope.matches($0) {
                        self.hot.scopeEvents += 1
                        self.event($0)
                    }
                } else {
                    self.event($0)
                }
                self.diagnoser.event($0)
            },
            connectionEnded: {
                if let scope = self.scope {
                    // A connection is in scope when one of its events was, or its summary is.
                    if self.hot.connections[$0.number] != nil || scope.matches(SummarySubject($0)) {
                        self.connectionEnded($0)
                    } else {
                        // The header counts the capture's hot.connections; none is "omitted".
                        self.connectionCount += 1
                        self.connectionsOutOfScope += 1
                    }
                } else {
                    self.connectionEnded($0)
                }
                self.diagnoser.connectionEnded($0)
            }, scanFilterTables: scanFilterTables)
    }

    // MARK: hot.frames

    public func frame(_ f: DecodedFrame) {
        let r = f.record
        hot.frames += 1
        if hot.origin == nil { hot.origin = r.timestamp }
        if r.timestamp < hot.minTime { hot.minTime = r.timestamp }
        if r.timestamp > hot.maxTime { hot.maxTime = r.timestamp }
        // The record's kind first: matching `f.layer` copies the decoded layer out of the frame,
        // which cost a memcpy for every frame of an HCI capture, where it never matches.
        if r.kind == .linkLayer, case .linkLayer(let ll) = f.layer, case .data = ll.pdu, !r.radio.isAdvertising {
            let aa = r.radio.accessAddress
            // One hash lookup per packet while under the cap (the usual case), two past it.
            if hot.radio.count < Limits.rssiSeries || hot.radio[aa] != nil {
                hot.radio[aa, default: LinkLayerRadioSeries()].add(r.radio, ll, at: rel(r.timestamp))
            }
        }
        if r.kind.isHCI && r.controllerIndex != 0xFFFF {
            if r.controllerIndex < 64 {
                hot.controllers |= 1 << UInt64(r.controllerIndex)
            } else {
                hot.controllerOverflow = true
            }
        }
    }

    func rel(_ t: Int64) -> Int64 { t &- (hot.origin ?? t) }

    // MARK: events

    public func event(_ e: TimelineEvent) {
        hot.statistics.add(e)
        let t = rel(e.time)
        switch e.kind {
        case .advertisement(let a):
            guard let address = e.peer else { return }
            if rssi[address] != nil || rssi.count < Limits.rssiSeries, a.rssi != 127 {
                var series = rssi[address] ?? BucketSeries(start: 0, width: 10_000, capacity: Limits.rssiBuckets)
                series.add(at: t) { $0.add(Int(a.rssi)) }
                rssi[address] = series
            }
            return
        case .scanStart(let p):
            if case .error = e.outcome { return }
            startScan(t, e.frame, active: p.active)
            return
        case .scanStop:
            stopScan(t)
            return
        case .scanFilters(let snapshot):
            guard var s = openScan, let table = scanFilterTables[snapshot] else { return }
            if s.startFrame == e.frame { s.filters = Self.summary(table) }
            s.passesEverything = (s.passesEverything ?? false) || table.passesEverything
            openScan = s
            return
        case .managementDiscovering(_, let discovering):
            if discovering { startScan(t, e.frame, active: nil) } else { stopScan(t) }
            return
        case .notification, .indication:
            // The length taken first: a closure that reads `e` holds a copy of the event.
            let n = e.value.count
            hot.throughput.add(at: t) {
                $0.notifyBytes += n
                $0.notifyPDUs += 1
            }
        case .write(_, let v) where v != .execute:
            let n = e.value.count
            hot.throughput.add(at: t) {
                $0.writeBytes += n
                $0.writePDUs += 1
            }
        default: break
        }
        if let l = e.outcome.latency, let op = Self.latencyOperation(e.kind) {
            hot.latency[op, default: LatencyHistogram(operation: op)].add(l)
        }
        guard let number = e.connection else { return }
        if let last = hot.lastAccumulator, last.number == number { return last.accumulator.add(e, t: t) }
        guard let c = hot.connections[number] ?? accumulator(number, start: (e.time, e.frame, e.peer)) else { return }
        hot.lastAccumulator = (number, c)
        c.add(e, t: t)
    }

    /// One line for a scan's offloaded filter table: APCF state, then each index in force.
    static func summary(_ t: ScanFilterTable) -> String {
        let state = t.enabled == nil ? "APCF state unknown" : t.enabled == true ? "APCF enabled" : "APCF disabled"
        let entries = t.active.prefix(16).map { f -> String in
            if f.isAllPass { return "index \(f.index) all-pass" }
            var parts = f.serviceUUIDs.map { "UUID \($0)" } + f.solicitationUUIDs.map { "solicitation \($0)" }
            parts += f.localNames.map { "name \($0)" } + f.addresses.map { "address \($0)" }
            parts += f.manufacturerCompanies.map { "company 0x" + String($0, radix: 16, uppercase: true) }
            parts += f.serviceData.map { "service data \($0)" }
            return "index \(f.index) "
                + (parts.isEmpty
                    ? "features 0x" + String(f.featureSelection ?? 0, radix: 16) : parts.joined(separator: ", "))
        }
        return state + (entries.isEmpty ? ", no filter in force" : ": " + entries.joined(separator: "; "))
    }

    func startScan(_ t: Int64, _ frame: Int, active: Bool?) {
        guard openScan == nil else { return }
        openScan = ScanPeriod(start: t, end: t, startFrame: frame, active: active, open: false)
    }

    func stopScan(_ t: Int64) {
        guard var s = openScan else { return }
        openScan = nil
        s.end = t
        if scans.count < Limits.scanPeriods { scans.append(s) } else { scansOmitted += 1 }
    }

    /// A new connection's accumulator, if it is kept; `start` is its first event's time, frame
    /// and peer (those, not the event: wrapping the event in an optional copied it, for every
    /// event).
    func accumulator(_ number: Int, start: (time: Int64, frame: Int, peer: BDAddr?)?) -> ConnectionAccumulator? {
        if let c = hot.connections[number] { return c }
        // Connection numbers only grow: one not kept now will never be kept.
        guard number > maxConnectionNumber else { return nil }
        maxConnectionNumber = number
        guard connectionsCreated < Limits.connections else { return nil }
        connectionsCreated += 1
        let c = ConnectionAccumulator(
            number: number, detailed: connectionsCreated <= Limits.detailedConnections,
            start: start.map { rel($0.time) } ?? 0, startFrame: start?.frame ?? 0)
        if let p = start?.peer { c.model.peer = p.description }
        hot.connections[number] = c
        return c
    }

    static func latencyOperation(_ k: TimelineEvent.Kind) -> String? {
        switch k {
        case .mtuExchange: "MTU Exchange"
        case .discovery: "Discovery"
        case .read: "Read"
        case .write(_, let v):
            switch v {
            case .request: "Write Request"
            case .prepare, .execute: "Prepare/Execute Write"
            default: nil
            }
        case .subscribe: "Subscribe (CCCD write)"
        case .indication: "Indication → Confirmation"
        default: nil
        }
    }

    // MARK: hot.connections

    public func connectionEnded(_ s: ConnectionSummary) {
        connectionCount += 1
        if let c = hot.connections[s.number] ?? accumulator(s.number, start: nil) {
            c.end(s, start: rel(s.startTime), end: s.endTime.map(rel))
        }
        if !s.remoteDatabase.isEmpty {
            let key = s.peer.map { "remote " + $0.description } ?? "remote #\(s.number)"
            keep(key, s.remoteDatabase, s.number, s.peer?.description, "remote")
        }
        if !s.localDatabase.isEmpty {
            keep("local \(s.controllerIndex)", s.localDatabase, s.number, nil, "local")
        }
    }

    func keep(_ key: String, _ db: GATTDatabase, _ number: Int, _ peer: String?, _ side: String) {
        // The database's own counts (the ones every command states), not a count of its own.
        func size(_ d: GATTDatabase) -> Int {
            let c = d.counts
            return c.services + c.characteristics + c.descriptors + c.includes
        }
        if let known = databases[key] {
            if size(db) >= size(known.database) { databases[key] = (db, number, peer, side) }
        } else if databases.count < Limits.databasePeers {
            databases[key] = (db, number, peer, side)
            databaseOrder.append(key)
        } else {
            databasesOmitted += 1
        }
    }

    // MARK: result

    /// The model, with the lint pass's findings (same order as `blecap lint`).
    public func finish(_ report: CaptureReport) -> SessionReportModel {
        let end = hot.maxTime == .min ? 0 : rel(hot.maxTime)
        if var s = openScan {
            s.end = end
            s.open = true
            if scans.count < Limits.scanPeriods { scans.append(s) } else { scansOmitted += 1 }
            openScan = nil
        }
        var header = ReportHeader(path: path)
        header.container = report.format
        header.frames = hot.frames
        if hot.frames > 0 {
            header.firstTime = hot.origin
            header.lastTime = hot.maxTime
            header.duration = hot.maxTime &- hot.minTime
        }
        header.controllers = hot.frames > 0 ? max(1, hot.controllers.nonzeroBitCount) : 0
        header.devices = hot.statistics.devices.count
        header.devicesCapped = hot.statistics.reportsFromUnlistedDevices > 0
        header.connections = connectionCount
        header.damage = report.damage
        header.error = report.error
        if let scopeText {
            header.scope = scopeText
            header.scopeEvents = hot.scopeEvents
        }
        var model = SessionReportModel(header: header, throughput: hot.throughput)

        var names: [String: String] = [:]
        for d in hot.statistics.devices { if let n = d.name { names[d.address.description] = n } }
        for d in hot.statistics.devices.prefix(Limits.devices) {
            model.devices.append(
                AdvertiserModel(
                    address: d.address.description, name: d.name, reports: d.reports,
                    connectable: d.connectable, rssi: rssi[d.address]))
        }
        for i in RSSIFold.folded(model.devices, limit: Limits.rssiPlotted) { model.devices[i].folded = true }
        model.devicesOmitted = max(0, hot.statistics.devices.count - Limits.devices)
        model.scanning = scans
        model.scanningOmitted = scansOmitted
        for number in hot.connections.keys.sorted() {
            let c = hot.connections[number]!
            var m = c.finish(captureEnd: end)
            if let p = m.peer { m.peerName = names[p] }
            if let aa = c.accessAddress { m.linkLayer?.radio = hot.radio[aa] }
            model.connections.append(m)
        }
        model.connectionsOmitted = max(0, connectionCount - connectionsOutOfScope - model.connections.count)
        diagnoser.damage = report.damage
        diagnoser.platform = report.facts.platform.platform
        Self.place(diagnoser.finish(), in: &model, scoped: scope != nil)
        let order = [
            "MTU Exchange", "Discovery", "Read", "Write Request", "Prepare/Execute Write",
            "Subscribe (CCCD write)", "Indication → Confirmation",
        ]
        model.latency = order.compactMap { hot.latency[$0] }
        for key in databaseOrder {
            let d = databases[key]!
            model.databases.append(Self.tree(d.database, peer: d.peer, side: d.side, connection: d.connection))
        }
        model.databasesOmitted = databasesOmitted > 0 ? databasesOmitted : nil
        model.events = hot.statistics.eventCounts.map { EventCount(type: $0.type.description, count: $0.count) }
        model.findings = report.findings.map {
            Self.finding($0, origin: hot.origin ?? $0.time, platform: report.facts.platform.platform)
        }
        model.notEvaluated = report.notEvaluated.map {
            NotEvaluatedModel(rule: $0.ruleID, slug: $0.slug, reason: $0.reason, whole: $0.whole)
        }
        Self.anchor(&model)
        model.header.findings = model.findingsBySeverity
        return model
    }

    /// Each connection's verdict on its connection; the others (attempts, unknown links,
    /// hot.connections past the limit) in the model's list, capped.
    /// `scoped`: a page narrowed by `report`'s scope keeps only its hot.connections' verdicts.
    static func place(_ verdicts: [Verdict], in model: inout SessionReportModel, scoped: Bool = false) {
        var byNumber: [Int: Int] = [:]
        for (i, c) in model.connections.enumerated() { byNumber[c.number] = i }
        for v in verdicts {
            if let n = v.connection, let i = byNumber[n], model.connections[i].diagnosis == nil {
                model.connections[i].diagnosis = v
            } else if scoped {
                continue
            } else if model.verdicts.count < Limits.verdicts {
                model.verdicts.append(v)
            } else {
                model.verdictsOmitted += 1
            }
        }
    }

    /// `platform`: the capture's, whose API the fix is written in (Android's where the rule has
    /// it, else Core Bluetooth's).
    static func finding(_ f: Finding, origin: Int64, platform: Platform) -> FindingModel {
        let d = RuleRegistry.rule(named: f.ruleID)?.descriptor
        let fix = d?.fix(for: platform)
        return FindingModel(
            rule: f.ruleID, slug: f.slug, severity: f.severity.name, title: d?.title ?? f.slug, message: f.message,
            connection: f.connection, peer: f.peer, handle: f.handle.map(Int.init), t: f.time &- origin,
            frames: Array(f.frames.prefix(Limits.findingFrames)), evidence: f.evidence.label,
            explanation: d?.summary ?? "", fix: fix?.code ?? "",
            fixPlatform: fix?.language == "kotlin" ? "Android" : "Core Bluetooth",
            docs: d?.docsPath ?? "", references: d?.references(for: platform).map(\.text) ?? [],
            baselined: f.baselined)
    }

    /// Points each finding at the sequence-chart rows that hold its hot.frames.
    static func anchor(_ model: inout SessionReportModel) {
        var byNumber: [Int: Int] = [:]
        for (i, c) in model.connections.enumerated() { byNumber[c.number] = i }
        for fi in model.findings.indices {
            let f = model.findings[fi]
            // A finding on a connection is looked up there; others in every connection.
            let candidates = f.connection.flatMap { byNumber[$0] }.map { [$0] } ?? Array(model.connections.indices)
            var anchors: [FindingAnchor] = []
            for ci in candidates {
                let c = model.connections[ci]
                for frame in f.frames {
                    guard let item = c.sequence.firstIndex(where: { $0.covers(frame) }) else { continue }
                    let a = FindingAnchor(connection: c.number, item: item)
                    if !anchors.contains(a) { anchors.append(a) }
                }
            }
            model.findings[fi].anchors = anchors
        }
    }

    static func tree(_ db: GATTDatabase, peer: String?, side: String, connection: Int) -> PeerDatabase {
        func name(_ u: BluetoothUUID, _ kind: GATTAssignedNumbers.AttributeKind) -> String? {
            GATTAssignedNumbers.name(for: u, as: kind).map { $0.description }
        }
        func characteristic(_ c: GATTCharacteristic) -> CharacteristicNode {
            var props: [String] = []
            for (bit, n) in GATTCharacteristicProperties.names where c.properties & bit != 0 {
                props.append(n.description)
            }
            return CharacteristicNode(
                uuid: c.uuid.description, name: name(c.uuid, .characteristic),
                declarationHandle: Int(c.declarationHandle),
                valueHandle: Int(c.valueHandle), properties: props,
                descriptors: db.descriptors(of: c).map {
                    DescriptorNode(uuid: $0.uuid.description, name: name($0.uuid, .descriptor), handle: Int($0.handle))
                })
        }
        let services = db.services.map { s in
            ServiceNode(
                uuid: s.uuid.description, name: name(s.uuid, .service), primary: s.isPrimary,
                startHandle: Int(s.startHandle), endHandle: Int(s.endHandle),
                characteristics: db.characteristics
                    .filter { $0.declarationHandle >= s.startHandle && $0.declarationHandle <= s.endHandle }
                    .map(characteristic))
        }
        let orphans = db.characteristics.filter { db.service(containing: $0.declarationHandle) == nil }.map(
            characteristic)
        return PeerDatabase(peer: peer, side: side, connection: connection, services: services, orphans: orphans)
    }
}

extension SequenceItem {
    /// Whether frame `f` is this row's request, its response, or inside its collapsed run.
    public func covers(_ f: Int) -> Bool {
        f == frame || f == responseFrame || (count > 1 && f >= frame && f <= lastFrame)
    }
}
