import BLEPackets
import BLETimeline

/// BLE001: scanning or connecting before the adapter is up.
///
/// Core Bluetooth drops (or refuses with an "API MISUSE" log) a `scanForPeripherals` or
/// `connect` issued before `centralManagerDidUpdateState` reported `.poweredOn`. In HCI this
/// shows as LE scan enable / create connection sent before the HCI Reset that initialises the
/// controller, or while the index is removed/closed; controllers may reject it with Command
/// Disallowed (Core Vol 4 Part E 7.8.65). On Linux it shows as mgmt Start Discovery answered
/// Not Powered.
public struct ScanBeforePoweredOn: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE001", slug: "scan-before-powered-on", title: "Scan or connect before the adapter is powered on",
        defaultSeverity: .error,
        summary: """
            A scan or connection was started before the Bluetooth adapter was ready: an LE scan enable \
            or LE Create Connection sent before the HCI Reset that initialises the controller (or before \
            that Reset completed), while the controller index was removed or closed, a command rejected \
            with Command Disallowed before initialisation, a BlueZ Start Discovery answered Not Powered, \
            or Core Bluetooth's own "API MISUSE … powered on state" log. Core Bluetooth ignores such \
            calls: the app waits for results that never come. On Android the HCI commands are the \
            stack's: an app's startScan reaches the controller only through the stack once Bluetooth \
            is on (an app's call before that fails in the API and never reaches HCI), so on Android \
            captures such commands are the stack's own and are noted as not evaluated, not blamed on \
            the app. On \
            Android, the fix is to wait for BluetoothAdapter.STATE_ON (ACTION_STATE_CHANGED) before \
            calling BluetoothAdapter.getBluetoothLeScanner() and \
            BluetoothLeScanner.startScan(filters, settings, callback) (getBluetoothLeScanner returns \
            null while Bluetooth is off), and to handle onScanFailed.
            """,
        enforces: [
            "Start a scan or a connection only after `centralManagerDidUpdateState(_:)` reported `.poweredOn`.",
            "Gate every Bluetooth operation on that state, and stop when it changes away from `.poweredOn`.",
        ],
        references: [
            .apple("CBCentralManagerDelegate.centralManagerDidUpdateState(_:)"),
            .apple("CBManagerState.poweredOn"),
            .apple("CBCentralManager.scanForPeripherals(withServices:options:)"),
            .apple("CBCentralManager.connect(_:options:)"),
            .android("BluetoothAdapter.isEnabled()"),
            .android("BluetoothAdapter.ACTION_STATE_CHANGED"),
            .android("BluetoothAdapter.getBluetoothLeScanner()"),
            .android("BluetoothLeScanner.startScan(List<ScanFilter>, ScanSettings, ScanCallback)"),
            .android("ScanCallback.onScanFailed(int)"),
        ],
        evidence: [.hci, .inferred, .api],
        fix: """
            func centralManagerDidUpdateState(_ central: CBCentralManager) {
                guard central.state == .poweredOn else { return }
                central.scanForPeripherals(withServices: [serviceUUID])
            }
            """,
        android: PlatformAdvice(
            enforces: [
                "Start a scan or a connection only while `BluetoothAdapter.getState()` is `STATE_ON`; before that `getBluetoothLeScanner()` returns null and Android refuses the call.",
                "Gate every Bluetooth operation on that state, and stop when `ACTION_STATE_CHANGED` reports it leaving `STATE_ON`.",
            ],
            """
            On Android a scan or connection started while Bluetooth is off fails in the API: \
            `BluetoothAdapter.getBluetoothLeScanner()` returns null and nothing reaches the controller \
            (Android's `BluetoothAdapter` reference), so an HCI capture cannot show an app doing it, and \
            commands the stack sends before the controller is ready are the stack's own. Check \
            `BluetoothAdapter.isEnabled()`, or wait for `ACTION_STATE_CHANGED` to report `STATE_ON`, \
            before scanning.
            """,
            fix: """
                if (bluetoothAdapter.isEnabled) {
                    bluetoothAdapter.bluetoothLeScanner.startScan(filters, settings, scanCallback)
                } else {
                    // Wait for BluetoothAdapter.ACTION_STATE_CHANGED with EXTRA_STATE == STATE_ON.
                }
                """))

    /// mgmt status Not Powered (BlueZ doc/mgmt-api.txt).
    static let mgmtNotPowered: UInt8 = 0x0F
    static let commandDisallowed: UInt8 = HCIError.commandDisallowed

    struct Early {
        var event: TimelineEvent
        var what: String
    }
    /// Scans/connects seen before any Reset; reported when a Reset follows (bounded).
    var early: [Early] = []
    var resetSeen = false
    /// Frame of the latest Reset's Command Complete; commands before it are early too.
    var resetCompletes: Int?
    var resetFrame = 0
    /// Why the adapter is down (index removed/closed), nil when up.
    var down: String?

    /// Whose behaviour an HCI-level finding reports, on the platform the engine decided (not
    /// reported on Android: `finish`).
    static func party(_ platform: Platform) -> String {
        platform == .linux ? ". Party: bluetoothd, on behalf of its clients" : ""
    }

    public static let observedEvents: TimelineEventClasses = [.controller, .scanning, .connection]
    public static let observedFacts: HCIFactClasses = .management

    public init(settings: RuleSettings) {}

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        if f.isOverTheAir, !f.hasAPITrace {
            return "\(CaptureFacts.overTheAir): power state and scanning are the host's (HCI commands, API calls)"
        }
        if f.hciCommands == 0 && f.managementCommands == 0 && f.textRecords == 0 && !f.hasAPITrace {
            return "the input holds no HCI commands, BlueZ mgmt commands, PacketLogger text or API trace"
        }
        return nil
    }

    static func what(_ e: TimelineEvent) -> String? {
        switch e.kind {
        case .scanStart: "LE scan enable"
        case .connectionCreate: "LE Create Connection" + (e.peer.map { " to \($0)" } ?? "")
        default: nil
        }
    }

    public mutating func observe(_ e: TimelineEvent, _ sink: FindingSink) {
        switch e.kind {
        case .controllerReset:
            resetFrame = e.frame
            resetCompletes = e.outcome.responseFrame
            down = nil
            if !resetSeen {
                resetSeen = true
                for x in early {
                    var msg = "\(x.what) was sent before the HCI Reset that initialises the controller"
                    var related = [e.frame]
                    if case .error(let f, _, let code, _) = x.event.outcome {
                        msg += "; the controller rejected it with \(Describe.hciStatus(code))"
                        related.insert(f, at: 0)
                    } else if let f = x.event.outcome.responseFrame {
                        related.insert(f, at: 0)
                    }
                    postpone(msg + ": the app scanned or connected before the adapter was powered on", x.event, related)
                }
                early.removeAll()
            }
        case .indexRemoved: down = "the controller index was removed"
        case .indexClosed: down = "the controller index was closed"
        case .indexOpened, .indexAdded: break
        case .scanStart, .connectionCreate:
            guard let what = Self.what(e) else { return }
            if let down {
                postpone("\(what) was sent while \(down): the adapter was not powered on", e, [])
            } else if !resetSeen {
                if early.count < 8 { early.append(Early(event: e, what: what)) }
            } else if let done = resetCompletes, e.frame < done {
                postpone(
                    "\(what) was sent before the HCI Reset completed: the adapter was not powered on yet", e,
                    [resetFrame, done])
            }
        case .annotation:
            // Core Bluetooth logs "API MISUSE: <call> can only accept this command while in the
            // powered on state" into the PacketLogger/sysdiagnose text.
            let text = String(decoding: e.value.bytes, as: UTF8.self)
            if text.contains("API MISUSE"), text.lowercased().contains("powered on") {
                sink.report(
                    "Core Bluetooth logged an API misuse: a call was made before the manager was powered on",
                    event: e)
            }
        default: break
        }
    }

    public mutating func observe(_ fact: HCIFact, _ sink: FindingSink) {
        guard case .managementStatus(let op, let status) = fact.kind, status == Self.mgmtNotPowered,
            op == BlueZManagementOpcode.startDiscovery || op == BlueZManagementOpcode.startServiceDiscovery
                || op == BlueZManagementOpcode.startLimitedDiscovery
        else { return }
        sink.report(
            "BlueZ answered a discovery request with Not Powered: the app scanned before the adapter was powered on",
            connection: nil, peer: nil, handle: nil, time: fact.time, frames: [fact.frame], evidence: .inferred)
    }

    /// Exact from an API trace: a scan or connect made while the manager was not `.poweredOn`,
    /// and any other call Core Bluetooth refused with "API MISUSE" for the same reason (every
    /// operation waits for `.poweredOn`, docs/rules/scan-before-powered-on.md).
    public mutating func observe(_ call: APICall, _ sink: FindingSink) {
        let message: String
        switch call.kind {
        case .scanForPeripherals(_, let s) where s != .poweredOn:
            message =
                "scanForPeripherals(withServices:options:) was called while the central manager was .\(s): Core Bluetooth ignored it (API MISUSE)"
        case .connect(let s, _) where s != .poweredOn:
            message =
                "connect(_:options:) was called while the central manager was .\(s): Core Bluetooth ignored it (API MISUSE)"
        default:
            guard case .misuse(APICall.Disposition.notPoweredOn) = call.disposition else { return }
            message =
                "\(call.selector) was called before the central manager was .poweredOn: Core Bluetooth ignored it (API MISUSE)"
        }
        sink.report(
            message, connection: nil, peer: call.peer, handle: nil, time: call.time, frames: [call.sequence],
            evidence: .api)
    }

    public mutating func finish(at time: Int64, _ sink: FindingSink) {
        // No Reset in the capture: only a rejection with Command Disallowed says the controller
        // was not ready; anything else may be a capture that started after initialisation.
        for x in early {
            guard case .error(let f, _, let code, _) = x.event.outcome, code == Self.commandDisallowed else { continue }
            postpone(
                "\(x.what) was rejected with \(Describe.hciStatus(code)) before any HCI Reset in the capture: the adapter was not ready",
                x.event, [f])
        }
        early.removeAll()
        // On Android the HCI commands are the stack's: an app's startScan or connectGatt made
        // before Bluetooth is on fails in the API (getBluetoothLeScanner() returns null) and
        // never reaches the controller, so these are not the app's (issue 27: judged on the
        // app's scans only). Known only now: the engine decides the platform as frames come.
        let platform = sink.platform
        if platform == .android, let first = deferred.first {
            sink.notEvaluable(
                "on Android an app's scan or connection made before Bluetooth is on fails in the API (BluetoothAdapter.getBluetoothLeScanner() returns null) and never reaches the controller; the \(deferredCount) scan or connection command\(deferredCount == 1 ? "" : "s") this capture shows before the controller was ready (first at frame \(first.event.frame)) are the Android stack's own, e.g. from an earlier Bluetooth session, not the app's"
            )
        } else {
            for d in deferred {
                sink.report(
                    d.message + Self.party(platform), event: d.event, related: d.related,
                    party: platform == .linux ? .osStack : nil)
            }
        }
        deferred.removeAll()
    }

    /// HCI-level findings, reported at the end once the host stack is known (bounded).
    var deferred: [(message: String, event: TimelineEvent, related: [Int])] = []
    var deferredCount = 0

    mutating func postpone(_ message: String, _ e: TimelineEvent, _ related: [Int]) {
        deferredCount += 1
        if deferred.count < 64 { deferred.append((message, e, related)) }
    }
}
