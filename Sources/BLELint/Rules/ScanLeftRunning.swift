import BLEBytes
import BLETimeline

/// BLE004: scanning left running.
///
/// Scanning costs radio time and power on the phone and slows the connection it competes with.
/// The rule is to stop the scan once the target peripheral is found, before connecting,
/// and not to leave it running when no connection needs it.
public struct ScanLeftRunning: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE004", slug: "scan-left-running", title: "Scan left running",
        defaultSeverity: .warning,
        summary: """
            The scan was still enabled when this host connected to a peripheral that the same scan had \
            found (the app should call stopScan() once it has its target; a connection through the \
            filter accept list counts: the peer is the one Connection Complete names, and the finding \
            cites the accept-list commands that put it on the list, or says it was not on it as the \
            capture shows the list), or kept running longer \
            than a threshold after the last LE connection ended with nothing connected: running at the \
            disconnection or started again within a second of it, judged over the whole period after \
            it, not at its instant. Only LE links count (a BR/EDR link is never the last connection). A \
            scan disabled and enabled again within a second is the same scan (Android re-programs the \
            controller for every client change); one finding per scan, however many connections it \
            ran through. On Android only the app's scan is judged: Android runs one controller scan \
            for every client, so blecap reads the offloaded filter table (APCF, docs/timeline.md \
            "Whose scan"): when none of the app's filters is in force (its filter was removed before \
            the connection, and only the OS's Fast Pair, Nearby, Find My Device or Samsung scanners or \
            device discovery run on) the app had stopped its scan, and a drop of the scan parameters to \
            the low-power mode's window just before the connection means the app's more demanding \
            scan stopped and another client's low-power scan ran on. The message says whose scan it \
            is and what decided it. From an API trace: connect(_:options:) called while the scan was \
            running.
            """,
        enforces: [
            "Stop scanning once the target peripheral is found, before connecting to it.",
            "Do not leave a scan running after the last connection has ended.",
        ],
        references: [
            .apple("CBCentralManager.stopScan()"),
            .apple("CBCentralManagerDelegate.centralManager(_:didDiscover:advertisementData:rssi:)"),
            .apple("CBCentralManager.connect(_:options:)"),
            .android("BluetoothLeScanner.stopScan(ScanCallback)"),
            .android("ScanCallback.onScanResult"),
            .android("BluetoothDevice.connectGatt(Context, boolean, BluetoothGattCallback, int)"),
            .android("ScanSettings.Builder.setScanMode(int)"),
        ],
        evidence: [.hci, .api],
        thresholds: [
            ThresholdSpec(
                "after_last_connection_s", 30, unit: "s",
                "How long a scan may keep running after the last connection ended, with no connection open")
        ],
        fix: """
            func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                                advertisementData: [String: Any], rssi RSSI: NSNumber) {
                discoveredPeripheral = peripheral
                central.stopScan()
                central.connect(peripheral, options: nil)
            }
            """,
        android: PlatformAdvice(
            """
            On Android an app's scan runs until it calls `BluetoothLeScanner.stopScan(callback)` \
            (Android's `BluetoothLeScanner` reference): connecting does not stop it. Stop the scan in \
            `ScanCallback.onScanResult` once the device is found, before `BluetoothDevice.connectGatt`, and \
            do not start it again while connected. The controller's scan is shared by every app and OS \
            service, so a scan only other clients keep running is not this app's. If a scan must run \
            on, lower its cost with `ScanSettings.Builder.setScanMode(SCAN_MODE_LOW_POWER)` and a `ScanFilter`.
            """,
            fix: """
                override fun onScanResult(callbackType: Int, result: ScanResult) {
                    if (result.device.address != targetAddress) return
                    scanner.stopScan(this)
                    gatt = result.device.connectGatt(context, false, gattCallback, BluetoothDevice.TRANSPORT_LE)
                }
                """))

    static let maximumPeers = 4096
    /// A scan disabled and enabled again within this gap is one scan session. Android re-programs
    /// the controller whenever any client's scan changes (disable, new parameters, enable): the
    /// gaps in the shared Android captures are 2–22 ms (domyos 181→187, 229→235, 241→247,
    /// 258→264, 272→278), against seconds or minutes between scans an app starts and stops.
    static let restartGap: Int64 = 1_000_000
    let lingerLimit: Int64

    /// The scan session is running (or paused for a restart that has not come yet).
    var scanning = false
    var scanStart: TimelineEvent?
    /// Where and when an event happened: what the session keeps of the events it tests on
    /// every event (a kept `TimelineEvent` is copied whenever an optional one is bound).
    struct Moment {
        var frame: Int
        var time: Int64
        init(_ e: TimelineEvent) {
            frame = e.frame
            time = e.time
        }
    }
    /// The last disable of the session, until the gap tells whether a restart follows.
    var stopped: Moment?
    /// Advertisers this scan session reported (bounded), with the frame of their last report.
    var seen: [BDAddr: Int] = [:]
    /// LE Create Connection to a peer the scan had found, sent while the app's scan ran.
    var pending: [BDAddr: TimelineEvent] = [:]
    /// LE Create Connection through the filter accept list (initiator filter policy 1) sent
    /// while the app's scan ran: the peer is the one Connection Complete names.
    var acceptListCreate: TimelineEvent?
    /// The Filter Accept List that create chose from, as the timeline built it (nil: unknown).
    var acceptListAtCreate: FilterAcceptList?
    /// Open LE connections (BR/EDR links are not counted: an LE rule's "last connection" is an
    /// LE one), by connection number.
    var openLE: Set<Int> = []
    var openLEUnnumbered = 0
    /// Connections this session's scan ran through (the first few kept), reported once when the
    /// session ends: one act, however many connections it spans.
    var connectedWhileScanning: [(create: TimelineEvent, complete: TimelineEvent, related: [Int], why: String)] = []
    var connectedWhileScanningCount = 0
    /// The platform the engine decided (detected or `--platform`), read at each scan or link
    /// event: the rule's wording and its mode-drop judgement follow it, never a sign of its own.
    var isAndroid = false
    var isLinux = false

    // Whose scan (Android): the filter table in force and the scan modes of the session.
    /// A `scan.filters` event was seen: Android's offloaded filters tell whose scans run (a
    /// source of evidence, not the platform, which is the engine's).
    var filterTableSeen = false
    /// The app's filters were in force in the last table (true where the table is unknown).
    var appFilters = true
    var appFilterText = ""
    /// The last table told whose filters were in force (APCF enabled and seen).
    var ownerKnown = true
    /// The app's indices in force (Android), to tell whether they could have found a peer.
    var appIndices: [ScanFilterEntry] = []
    /// The Android scan mode of each (re)start of the session: the last one and the highest.
    var lastMode: AndroidScanMode?
    var lastModeStart: TimelineEvent?
    var previousMode: AndroidScanMode?
    /// The scan parameters were one of Android's scan modes exactly (a detail of the owner
    /// text; the platform itself is the engine's).
    var exactAndroidModes = false

    /// The app's scan: since when it runs (restarts within `restartGap` merged), and since
    /// when it is gone.
    var appSince: Moment?
    var appGoneAt: Int64?
    /// The last LE disconnection that left nothing connected, while no connection opened since.
    var idleFrom: Moment?
    var lingerReported = false

    public init(settings: RuleSettings) {
        lingerLimit = Int64(settings.threshold("after_last_connection_s", in: Self.descriptor) * 1_000_000)
    }

    public static let observedFacts: HCIFactClasses = []

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        if f.isOverTheAir, !f.hasAPITrace {
            return
                "\(CaptureFacts.overTheAir): scan enable/disable are host commands (a scanner shows over the air only by its SCAN_REQs)"
        }
        return f.hciCommands == 0 && !f.hasAPITrace
            ? "the input holds no HCI commands (scan enable/disable are host commands) and no API trace" : nil
    }

    mutating func readPlatform(_ sink: FindingSink) {
        let p = sink.platform
        isAndroid = p == .android
        isLinux = p == .linux
    }

    /// Whose scan it is, in words, with the evidence that decided it.
    var owner: String {
        if filterTableSeen, !ownerKnown {
            return
                " Party: this app or another client of the Android stack, which the capture cannot tell apart (\(appFilterText))."
        }
        if filterTableSeen {
            return
                " Party: this app. Evidence: its own filters were in force in Android's offloaded filter table (APCF) the whole time (\(appFilterText)); the OS's background scanners (Fast Pair, Nearby, Find My Device, Samsung) and device discovery are told apart by their filters and not counted."
        }
        if isAndroid {
            return exactAndroidModes
                ? " Party: this app, as far as the capture tells (Android scan-mode parameters; no offloaded filters to tell one client from another)."
                : " Party: this app, as far as the capture tells: Android's stack runs one controller scan for every app and system client and this capture shows no offloaded filters, so another client's scan cannot be ruled out."
        }
        return isLinux
            ? " (bluetoothd runs the controller's scan for its clients, so this shows the OS kept scanning)" : ""
    }

    var advice: String {
        isAndroid
            ? " On Android: call BluetoothLeScanner.stopScan(callback) in onScanResult once the target is found, before BluetoothDevice.connectGatt, and do not start a scan again while connected or after disconnecting unless you are looking for a device."
            : ""
    }

    /// Ends the session when its last disable was not followed by a restart in time.
    mutating func settle(now: Int64, _ sink: FindingSink) {
        if let gone = appGoneAt, now &- gone > Self.restartGap {
            appGoneAt = nil
            appSince = nil
        }
        guard let s = stopped, now &- s.time > Self.restartGap else { return }
        stopped = nil
        scanning = false
        pending.removeAll()
        acceptListCreate = nil
        lastMode = nil
        lastModeStart = nil
        previousMode = nil
        reportConnections(sink)
    }

    /// One finding for every connection the session's scan ran through.
    mutating func reportConnections(_ sink: FindingSink) {
        guard let first = connectedWhileScanning.first, let start = scanStart else { return }
        readPlatform(sink)
        let peers = Set(connectedWhileScanning.map { $0.complete.peer })
        let whom =
            peers.count == 1
            ? (first.complete.peer.map { "\($0)" } ?? "a peripheral") : "\(peers.count) peripherals"
        let times = connectedWhileScanningCount == 1 ? "" : " (\(connectedWhileScanningCount) connections)"
        var frames = [first.create.frame, first.complete.frame, start.frame] + first.related
        for c in connectedWhileScanning.dropFirst() { frames += [c.create.frame, c.complete.frame] }
        let tail = Self.sentence(owner) + advice
        sink.report(
            "the scan was still running when this host connected to \(whom)\(times), which the scan had found\(first.why): stop scanning before connecting\(tail)",
            connection: first.complete.connection, peer: first.complete.peer, handle: nil, time: first.create.time,
            frames: frames, evidence: .hci)
        connectedWhileScanning.removeAll()
        connectedWhileScanningCount = 0
    }

    var isScanning: Bool { scanning && stopped == nil }

    /// The scan running is the app's: on Android, its filters are in force and the scan mode did
    /// not drop to a lower one just now (Android programs the most demanding client's mode: a
    /// drop means that client stopped and another client's lighter scan runs on).
    var isAppScanning: Bool { isScanning && appFilters && !modeDropped }

    var modeDropped: Bool {
        guard isAndroid, let now = lastMode, let before = previousMode else { return false }
        return now.rank < before.rank && now.rank <= AndroidScanMode.lowPower.rank
    }

    /// Follows the app's scan after a change of the scan or its filters at `e`.
    mutating func updateApp(_ e: TimelineEvent) {
        if isAppScanning {
            if appSince == nil { appSince = Moment(e) }
            appGoneAt = nil
        } else if appSince != nil, appGoneAt == nil {
            appGoneAt = e.time
        }
    }

    public mutating func observe(_ e: TimelineEvent, _ sink: FindingSink) {
        // Both need a scan (`stopped` is set only while `scanning`, and cleared with it): most
        // events come while none runs, and testing the optional events first was 4 % of `lint`.
        if scanning || appSince != nil {
            settle(now: e.time, sink)
            checkLinger(now: e.time, sink)
        }
        // Nothing below is about notifications; told apart before the switch binds a payload
        // (which copied the event's kind, a `memcpy` per event).
        if case .notification = e.kind { return }
        observeScanOrLink(e, sink)
    }

    /// Everything but the per-event checks above: kept out of `observe` because the copy of
    /// the event that its stores need was otherwise made on entry, for every notification too
    /// (docs/performance.md).
    @inline(never)
    mutating func observeScanOrLink(_ e: TimelineEvent, _ sink: FindingSink) {
        readPlatform(sink)
        switch e.kind {
        case .scanStart(let p):
            if case .error = e.outcome { return }
            if stopped != nil {
                stopped = nil  // a restart: the same session goes on
            } else if !scanning {
                scanning = true
                scanStart = e
                seen.removeAll(keepingCapacity: true)
            }
            if let m = p.androidScanMode {
                if lastMode != m { previousMode = lastMode }
                lastMode = m
                lastModeStart = e
                if p.isExactAndroidScanMode { exactAndroidModes = true }
            }
            updateApp(e)
        case .scanStop:
            if case .error = e.outcome { return }
            if scanning { stopped = Moment(e) }
            updateApp(e)
        case .scanFilters(let snapshot):
            guard let t = sink.scanFilterTable(snapshot) else { return }
            filterTableSeen = true
            let app = t.appEntries
            appIndices = t.enabled == true ? app : []
            appFilters = t.enabled != true || !app.isEmpty
            ownerKnown = t.enabled == true
            if t.enabled != true {
                appFilterText =
                    t.enabled == false
                    ? "APCF filtering disabled: every client's scan sees every advertisement, so the filters do not tell whose scan ran"
                    : "the capture shows no APCF Enable before this scan, so the filters in force are unknown"
            } else if !app.isEmpty {
                appFilterText =
                    "APCF "
                    + app.prefix(4).map { "index \($0.index), \(t.owner($0).description)" }.joined(separator: "; ")
            }
            updateApp(e)
        case .advertisement:
            guard isScanning, let p = e.peer else { return }
            if seen[p] != nil || seen.count < Self.maximumPeers { seen[p] = e.frame }
        case .connectionCreate(let info):
            guard isAppScanning else { return }
            if info.filterPolicy != 0 {
                acceptListCreate = e
                acceptListAtCreate = sink.acceptList(info.acceptList)
                return
            }
            guard let p = e.peer, seen[p] != nil, appCouldFind(p), pending.count < 64 else { return }
            pending[p] = e
        case .connectionFailed:
            if let p = e.peer { pending[p] = nil }
            acceptListCreate = nil
        case .connectionComplete(let info):
            guard info.isLE else { return }
            if let c = e.connection { openLE.insert(c) } else { openLEUnnumbered += 1 }
            idleFrom = nil
            lingerReported = false
            let viaAcceptList = acceptListCreate
            acceptListCreate = nil
            guard info.role == 0, let p = e.peer, isAppScanning else { return }
            var create = pending.removeValue(forKey: p)
            var why = ""
            var related = seen[p].map { [$0] } ?? []
            if create == nil, let a = viaAcceptList, seen[p] != nil, appCouldFind(p) {
                create = a
                why = Self.acceptListWhy(a, acceptListAtCreate, peer: p)
                if let listed = acceptListAtCreate?.entry(for: p) { related.append(listed.frame) }
            }
            guard let create else { return }
            connectedWhileScanningCount += 1
            if connectedWhileScanning.count < 8 { connectedWhileScanning.append((create, e, related, why)) }
        case .disconnection:
            if let c = e.connection {
                guard openLE.remove(c) != nil else { return }  // not an open LE link
            } else {
                guard openLEUnnumbered > 0 else { return }
                openLEUnnumbered -= 1
            }
            if openLE.isEmpty, openLEUnnumbered == 0 {
                idleFrom = Moment(e)
                lingerReported = false
            }
        default: break
        }
    }

    /// On Android: one of the app's indices in force could have let `p`'s advertisements
    /// through (an index that matches broadcaster addresses only lets those through; other
    /// conditions are not checked against the advertisement, so they count as possible).
    func appCouldFind(_ p: BDAddr) -> Bool {
        guard filterTableSeen, !appIndices.isEmpty else { return true }
        return appIndices.contains { $0.addresses.isEmpty || $0.addresses.contains(p) }
    }

    /// The owner text after the message: a " Party: …" sentence starts a new sentence.
    static func sentence(_ owner: String) -> String { owner.hasPrefix(" Party") ? "." + owner : owner }

    static func policy(_ e: TimelineEvent) -> UInt8 {
        if case .connectionCreate(let info) = e.kind { return info.filterPolicy }
        return 0
    }

    /// How a connection through the filter accept list reached its peer: the list as the
    /// accept-list commands built it, and whether the peer that connected was on it (said as
    /// the capture shows it, never guessed).
    static func acceptListWhy(_ create: TimelineEvent, _ list: FilterAcceptList?, peer: BDAddr) -> String {
        let head =
            " (LE Create Connection at frame \(create.frame) through the filter accept list, initiator filter policy \(policy(create))"
        guard let list else { return head + ": the peer is the one Connection Complete names)" }
        return head + "; the list held \(list.description); the peer that connected: \(list.membership(of: peer)))"
    }

    /// The app's scan kept running more than the limit after the last LE connection ended, with
    /// nothing connected: running at the disconnection, or started again within `restartGap`
    /// of it, and never gone since (judged over the whole period, not at the instant).
    mutating func checkLinger(now: Int64, _ sink: FindingSink) {
        guard !lingerReported, let d = idleFrom, let since = appSince, appGoneAt == nil, isAppScanning,
            since.time <= d.time &+ Self.restartGap, now &- d.time > lingerLimit
        else { return }
        lingerReported = true
        readPlatform(sink)
        let start = since.time <= d.time ? (scanStart.map(Moment.init) ?? since) : since
        let restarted =
            since.time > d.time
            ? " (started again \(Describe.seconds(since.time &- d.time)) after the disconnection, frame \(since.frame))"
            : ""
        sink.report(
            "the scan kept running more than \(Describe.seconds(lingerLimit)) after the last connection ended (the last LE link, disconnected at frame \(d.frame)), with nothing connected\(restarted)\(Self.sentence(owner) + advice)",
            connection: nil, peer: nil, handle: nil, time: start.time, frames: [start.frame, d.frame, since.frame],
            evidence: .hci)
    }

    /// Exact from an API trace: `connect` made while the same manager was still scanning. (The
    /// linger check needs disconnection times, which the API calls do not carry.)
    public mutating func observe(_ call: APICall, _ sink: FindingSink) {
        guard case .connect = call.kind, call.isScanning, call.disposition == .performed else { return }
        sink.report(
            "connect(_:options:) was called while the scan was still running: call stopScan() once the target is found",
            connection: nil, peer: call.peer, handle: nil, time: call.time, frames: [call.sequence], evidence: .api)
    }

    public mutating func finish(at time: Int64, _ sink: FindingSink) {
        readPlatform(sink)
        checkLinger(now: time, sink)
        reportConnections(sink)
    }
}
