import BLEBytes
import BLETimeline

/// Runs a set of rules over one input. Feed timeline events, HCI facts or API calls (and the
/// capture facts as they are learned), then `finish`. Rules are called in id order; each
/// reports through its own `FindingSink` into one store.
///
/// Every input is handed to the rules by borrowing (a timeline event to those whose
/// `observedEvents` hold its class): the engine unwraps a `LintInput` once and passes the same
/// event to each rule, never a copy per rule (copying the ~250-byte
/// `TimelineEvent` for each of 16 rules, and the existential boxes of the rules themselves,
/// was a quarter of `blecap lint`'s instructions).
public final class LintEngine {
    /// The rules, in id order, and the same without reference counting for the per-input loop:
    /// taken out of the array one by one each runner was retained and released around its call
    /// (32 reference count operations per event, 9 % of `lint`). `runners` keeps them alive for
    /// the engine's lifetime, so the unretained references never dangle.
    let runners: [RuleRunner]
    let unretained: [Unmanaged<RuleRunner>]
    /// Per timeline event class (`TimelineEvent.Kind.classIndex`), the rules that read it.
    let byEventClass: [[Unmanaged<RuleRunner>]]
    /// The same lists in one buffer the engine owns, read per event without reference
    /// counting: reading an inner array out of `byEventClass` retained and released it for
    /// every event (docs/performance.md). `classStart[i]..<classStart[i + 1]` is class `i`'s run.
    let classRunners: UnsafeMutableBufferPointer<Unmanaged<RuleRunner>>
    let classStart: UnsafeMutableBufferPointer<Int>
    /// The same per HCI fact class (`HCIFact.Kind.classIndex`, the rules' `observedFacts`).
    let factRunners: UnsafeMutableBufferPointer<Unmanaged<RuleRunner>>
    let factStart: UnsafeMutableBufferPointer<Int>
    let store = FindingStore()
    public var facts = CaptureFacts()
    /// The latest time seen, any epoch: captures whose clock starts before 1970 (an Android
    /// phone with an unset clock) have negative times, so this starts at the lowest value, not
    /// at 0 (issue 27 item 7); nil until something is seen.
    var lastTime: Int64?

    public convenience init(rules: [(rule: any LintRule.Type, settings: RuleSettings)]) {
        self.init(rules: rules, everyEventToEveryRule: false)
    }

    /// `everyEventToEveryRule`: ignore `observedEvents` and `observedFacts` and hand each rule
    /// every timeline event and HCI fact (tests check that no rule's declaration loses a finding).
    init(rules: [(rule: any LintRule.Type, settings: RuleSettings)], everyEventToEveryRule: Bool) {
        let store = store
        let runners = rules.map { r in
            func box<R: LintRule>(_: R.Type) -> RuleRunner { RuleBox<R>(settings: r.settings, store: store) }
            return box(r.rule)
        }
        self.runners = runners
        unretained = runners.map { Unmanaged.passUnretained($0) }
        byEventClass = (0..<TimelineEventClasses.count).map { i in
            runners.filter {
                everyEventToEveryRule || $0.type.observedEvents.contains(TimelineEventClasses(rawValue: 1 << i))
            }
            .map { Unmanaged.passUnretained($0) }
        }
        (classRunners, classStart) = Self.flatten(byEventClass)
        let byFactClass = (0..<HCIFactClasses.count).map { i in
            runners.filter {
                everyEventToEveryRule || $0.type.observedFacts.contains(HCIFactClasses(rawValue: 1 << i))
            }
            .map { Unmanaged.passUnretained($0) }
        }
        (factRunners, factStart) = Self.flatten(byFactClass)
    }

    /// Lists per class in one buffer, and where each class's run starts (`start[i]..<start[i + 1]`).
    static func flatten(_ lists: [[Unmanaged<RuleRunner>]]) -> (
        UnsafeMutableBufferPointer<Unmanaged<RuleRunner>>, UnsafeMutableBufferPointer<Int>
    ) {
        let flat = lists.flatMap { $0 }
        let runners = UnsafeMutableBufferPointer<Unmanaged<RuleRunner>>.allocate(capacity: max(flat.count, 1))
        _ = runners.initialize(from: flat)
        let start = UnsafeMutableBufferPointer<Int>.allocate(capacity: lists.count + 1)
        var s = 0
        for (i, list) in lists.enumerated() {
            start[i] = s
            s += list.count
        }
        start[lists.count] = s
        return (runners, start)
    }

    deinit {
        classRunners.deallocate()
        classStart.deallocate()
        factRunners.deallocate()
        factStart.deallocate()
    }

    public convenience init(configuration: LintConfiguration = LintConfiguration()) {
        self.init(rules: configuration.selectedRules)
        if let p = configuration.platform { forcePlatform(p) }
    }

    /// Judges the input as `platform` whatever it shows (`--platform`).
    public func forcePlatform(_ platform: Platform) {
        facts.platform = PlatformFact(platform, evidence: "set with --platform", overridden: true)
        store.platform = platform
    }

    /// A sign of the host's platform: the first decisive one decides; a weak one (a file name)
    /// holds until a decisive one. A forced platform stays.
    public func notePlatform(_ platform: Platform, evidence: String, weak: Bool = false) {
        guard !facts.platform.overridden, platform != .unknown else { return }
        if facts.platform.platform == .unknown || (weakPlatform && !weak) {
            facts.platform = PlatformFact(platform, evidence: evidence)
            store.platform = platform
            weakPlatform = weak
        }
    }

    /// The platform was decided by a weak sign only.
    var weakPlatform = false

    /// The platform the rules phrase their advice for (forced or detected so far).
    public var platform: Platform { store.platform }

    /// Where the rules look up the tables of `scan.filters` events: the timeline builder's
    /// (`TimelineBuilder.scanFilterTables`), set before its first event is observed.
    public var scanFilterTables: ScanFilterTables {
        get { store.scanFilterTables }
        set { store.scanFilterTables = newValue }
    }

    /// Findings reported so far (unsorted, without fingerprints: `finish` makes them final).
    public var findingsSoFar: [Finding] { store.findings }

    public func observe(_ input: LintInput) {
        switch input {
        case .timeline(let e): observe(e)
        case .hci(let f): observe(f)
        case .api(let c): observe(c)
        }
    }

    public func observe(_ event: TimelineEvent) {
        lastTime = max(lastTime ?? event.time, event.time)
        if case .connectionComplete(let info) = event.kind, let c = event.connection {
            store.owners[info.handle] = (c, event.peer)
        }
        let c = event.kind.classIndex
        for i in classStart[c]..<classStart[c + 1] { classRunners[i]._withUnsafeGuaranteedRef { $0.observe(event) } }
    }

    public func observe(_ fact: HCIFact) {
        lastTime = max(lastTime ?? fact.time, fact.time)
        let c = fact.kind.classIndex
        for i in factStart[c]..<factStart[c + 1] { factRunners[i]._withUnsafeGuaranteedRef { $0.observe(fact) } }
    }

    public func observe(_ call: APICall) {
        lastTime = max(lastTime ?? call.time, call.time)
        facts.apiCalls += 1
        if facts.apiCalls == 1 { notePlatform(.apple, evidence: "Core Bluetooth API trace (simulator)") }
        for r in unretained { r._withUnsafeGuaranteedRef { $0.observe(call) } }
    }

    /// Ends the input. Returns the findings (fingerprinted, in frame order) and the rules that
    /// could not be evaluated, whole or in part.
    public func finish() -> (findings: [Finding], notEvaluated: [NotEvaluated]) {
        var whole: [NotEvaluated] = []
        for r in runners {
            r.finish(at: lastTime ?? 0)
            if let why = r.type.notEvaluable(facts) {
                whole.append(NotEvaluated(ruleID: r.descriptor.id, slug: r.descriptor.slug, reason: why, whole: true))
            }
        }
        var hidden: [NotEvaluated] = []
        if let from = facts.linkLayerEncryptedFrom {
            for r in runners where r.type.readsATTOrSMP && !whole.contains(where: { $0.ruleID == r.descriptor.id }) {
                hidden.append(
                    NotEvaluated(
                        ruleID: r.descriptor.id, slug: r.descriptor.slug,
                        reason:
                            "over-the-air capture: the link is encrypted from frame \(from), so ATT and SMP after it are not visible: "
                            + (facts.linkLayerUndecryptable ?? "blecap has no key"),
                        whole: false))
            }
        }
        var findings = store.findings
        // Rules say "observed" as `.hci`; a sniffer's capture has no HCI, only the air.
        let overTheAir = facts.linkLayerRecords > 0 && facts.hciEvents == 0 && facts.hciCommands == 0
        for i in findings.indices {
            findings[i].fingerprint = Fingerprint.compute(findings[i])
            if overTheAir, findings[i].evidence == .hci { findings[i].evidence = .overTheAir }
        }
        findings.sort { ($0.firstFrame, $0.ruleID) < ($1.firstFrame, $1.ruleID) }
        let wholeIDs = Set(whole.map(\.ruleID))
        let partial = store.limitations.filter { !wholeIDs.contains($0.ruleID) }
        var dropped: [NotEvaluated] = []
        for (id, n) in store.dropped.sorted(by: { $0.key < $1.key }) {
            let d = runners.first { $0.descriptor.id == id }?.descriptor
            dropped.append(
                NotEvaluated(
                    ruleID: id, slug: d?.slug ?? id,
                    reason:
                        "\(n) more findings not kept (limit \(FindingSink.maximumFindingsPerRule) per rule and capture)",
                    whole: false))
        }
        return (findings, whole + hidden + partial + dropped)
    }
}

/// One rule of a run, its state and its sink, behind a reference: the engine calls each rule in
/// place through it, so neither the rule's state nor the input is copied per call. (A class to
/// override rather than a protocol: the engine calls it through `Unmanaged`.)
class RuleRunner {
    let type: any LintRule.Type

    init(type: any LintRule.Type) { self.type = type }

    var descriptor: RuleDescriptor { type.descriptor }
    func observe(_ event: TimelineEvent) {}
    func observe(_ fact: HCIFact) {}
    func observe(_ call: APICall) {}
    func finish(at time: Int64) {}
}

final class RuleBox<R: LintRule>: RuleRunner {
    /// The rule's state, mutated in place for every input. Unchecked: a checked access to a
    /// class's stored `var` is a `swift_beginAccess` call (thread-local lookup, access-set
    /// insert) for each rule and input, ~16 per frame and 13 % of `lint`'s instructions on the
    /// 100 k-frame bench capture. No access can overlap another: only the engine calls a box,
    /// one rule at a time on one thread, and a rule holds no reference to its own box (it gets
    /// the sink, never the box), so no call inside `observe` can reach `rule` again.
    @exclusivity(unchecked) var rule: R
    let sink: FindingSink

    init(settings: RuleSettings, store: FindingStore) {
        rule = R(settings: settings)
        sink = FindingSink(
            store: store, ruleID: R.descriptor.id, slug: R.descriptor.slug, severity: settings.severity,
            party: R.descriptor.party)
        super.init(type: R.self)
    }

    override func observe(_ event: TimelineEvent) { rule.observe(event, sink) }
    override func observe(_ fact: HCIFact) { rule.observe(fact, sink) }
    override func observe(_ call: APICall) { rule.observe(call, sink) }
    override func finish(at time: Int64) { rule.finish(at: time, sink) }
}
