import BLEBytes
import BLEPackets
import BLETimeline

/// BLE014: a connection attempt cancelled moments after it started, with no connection —
/// what Core Bluetooth does when the app lets go of the `CBPeripheral` it passed to
/// `connect(_:options:)`.
///
/// Core Bluetooth does not retain discovered peripherals: the app keeps the `CBPeripheral` it
/// connects to. When the last reference goes, the pending connection is cancelled
/// silently: in HCI an LE Create Connection, then within milliseconds LE Create Connection
/// Cancel (Core Vol 4 Part E 7.8.13) and the LE Connection Complete with status 0x02 Unknown
/// Connection Identifier that the cancel produces. No delegate method is called, so the app
/// just never hears of the peripheral again.
///
/// From HCI this is inferred: an app can also cancel on purpose, which is why only cancels
/// within `cancel_within_s` of the attempt count (connect timeouts are seconds long). Hosts
/// that connect through the filter accept list (iOS, macOS, Android autoConnect) cancel and
/// re-issue that command whenever the set of pending peripherals changes, and the command
/// names no peer: a cancel of it cannot be pinned on one peripheral. Those are never
/// findings; a quick accept-list cancel that is not re-issued is listed as not evaluable.
/// From an API trace it is exact: `connect` records whether the app still held the
/// peripheral when the call's run-loop turn ended.
public struct PeripheralNotRetained: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE014", slug: "peripheral-not-retained", title: "Peripheral not retained: connection cancelled at once",
        defaultSeverity: .warning,
        summary: """
            An LE Create Connection was cancelled (LE Create Connection Cancel, then LE Connection \
            Complete 0x02 Unknown Connection Identifier) within cancel_within_s and no connection \
            came of it — what Core Bluetooth does, silently, when the app keeps no strong reference \
            to the CBPeripheral it passed to connect(_:options:). Inferred from HCI for connections \
            to a named peer; connections through the filter accept list (how iOS and macOS connect) \
            name no peer and are cancelled and re-issued whenever the OS updates the list, so they \
            are not attributed. Exact in an API trace: a connect(_:options:) whose peripheral the \
            app had released by the end of the run-loop turn.
            """,
        enforces: [
            "Keep a strong reference to a discovered peripheral for as long as the app connects to it or uses it."
        ],
        references: [
            .apple("CBPeripheral"),
            .apple("CBCentralManager.connect(_:options:)"),
            .apple("CBCentralManagerDelegate.centralManager(_:didDiscover:advertisementData:rssi:)"),
            .android("BluetoothDevice.connectGatt(Context, boolean, BluetoothGattCallback, int)"),
            .android("BluetoothGatt.disconnect()"),
            .android("BluetoothGatt.close()"),
            .spec("Vol 4 Part E 7.8.13", "LE Create Connection Cancel"),
        ],
        evidence: [.inferred, .api],
        thresholds: [
            ThresholdSpec(
                "cancel_within_s", 1, unit: "s",
                "A cancel this soon after LE Create Connection is no deliberate connect timeout")
        ],
        fix: """
            private var discoveredPeripheral: CBPeripheral?  // strong reference

            func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                                advertisementData: [String: Any], rssi RSSI: NSNumber) {
                discoveredPeripheral = peripheral
                central.stopScan()
                central.connect(peripheral, options: nil)
            }
            """,
        android: PlatformAdvice(
            enforces: [
                "Keep the `BluetoothGatt` that `connectGatt` returned for as long as the app uses the connection, and `close()` it when done: Android does not drop a connection whose object is no longer referenced, and a `BluetoothGatt` never closed keeps one of the stack's few client registrations."
            ],
            """
            Android has no such silent cancel: the connection attempt of `BluetoothDevice.connectGatt` lasts \
            until it succeeds, times out (direct connection, about 30 s) or the app calls \
            `BluetoothGatt.disconnect()` or `close()`, whatever references the app keeps (Android's \
            `BluetoothDevice` and `BluetoothGatt` references). On an Android capture a Create Connection \
            cancelled at once and not re-issued means the app gave the attempt up (`disconnect()` or \
            `close()` before it connected), and the finding says so in Android's terms; one the stack \
            re-issues to the same peer at once is the stack's own restart, which is not reported.
            """,
            fix: """
                // Keep the BluetoothGatt until the connection is no longer wanted; close it only then.
                gatt = device.connectGatt(context, false, callback, BluetoothDevice.TRANSPORT_LE)

                override fun onConnectionStateChange(gatt: BluetoothGatt, status: Int, newState: Int) {
                    if (newState == BluetoothProfile.STATE_CONNECTED) gatt.discoverServices()
                }

                fun stop() { gatt?.close(); gatt = null }  // not right after connectGatt
                """))

    /// A cancelled attempt waiting to learn whether a connection came of it after all (the
    /// cancel can lose the race, 7.8.13) or, for accept-list attempts, whether it is re-issued.
    struct Cancelled {
        var create: TimelineEvent
        var cancel: TimelineEvent
        var acceptList: Bool
        var failedFrame: Int?
        /// Waits to see whether the attempt is re-issued: an accept-list attempt, or any on an
        /// Android host (whose stack restarts its own attempts).
        var waitsForReissue: Bool
    }

    let cancelWithin: Int64
    var pendingCreate: TimelineEvent?
    var cancelled: Cancelled? {
        didSet { acceptListCancelTime = cancelled.flatMap { $0.waitsForReissue ? $0.cancel.time : nil } }
    }
    /// The time of `cancelled`'s cancel when it waits to see the attempt re-issued (accept-list
    /// attempts; every attempt on an Android host), read for every event: reading it through `cancelled` copied the optional's
    /// two events (an outlined copy per event; docs/performance.md, "Moved from the source").
    var acceptListCancelTime: Int64?

    public init(settings: RuleSettings) {
        cancelWithin = Int64(settings.threshold("cancel_within_s", in: Self.descriptor) * 1_000_000)
    }

    public static let observedFacts: HCIFactClasses = []

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        if f.isOverTheAir, !f.hasAPITrace {
            return
                "\(CaptureFacts.overTheAir): LE Create Connection and its cancel are host commands (the air shows only the CONNECT_IND that succeeded)"
        }
        if f.hasAPITrace { return nil }
        return f.hciCommands == 0
            ? "the input holds no HCI commands (LE Create Connection and its cancel are commands)" : nil
    }

    static func isAcceptList(_ e: TimelineEvent) -> Bool {
        guard case .connectionCreate(let c) = e.kind else { return false }
        return c.filterPolicy & 0x01 != 0 || e.peer == nil
    }

    public mutating func observe(_ e: TimelineEvent, _ sink: FindingSink) {
        // Binding `cancelled` first copied its two events (a `memcpy` for every event, most of
        // this rule's cost on a notification stream).
        if let cancelTime = acceptListCancelTime, e.time - cancelTime > cancelWithin, let c = cancelled {
            c.acceptList ? unattributed(c, sink) : report(c, sink)  // not re-issued in time
            cancelled = nil
        }
        // Notifications and indications change nothing here; told apart before the switch
        // below binds any payload.
        if case .notification = e.kind { return }
        observeLink(e, sink)
    }

    /// The events that move an attempt on, apart from the per-event check above: kept out of
    /// `observe` because the copy of the event that their stores need was otherwise made on
    /// entry, for every notification too (docs/performance.md).
    @inline(never)
    mutating func observeLink(_ e: TimelineEvent, _ sink: FindingSink) {
        switch e.kind {
        case .connectionCreate:
            if let c = cancelled {
                // An accept-list re-issue is a list update.
                if !c.acceptList { report(c, sink, reissuedAt: e.peer == c.create.peer ? e.frame : nil) }
                cancelled = nil
            }
            if case .error = e.outcome { pendingCreate = nil } else { pendingCreate = e }
        case .connectionCancel:
            guard let create = pendingCreate, case .success = e.outcome else { return }
            pendingCreate = nil
            guard e.time - create.time <= cancelWithin else { return }
            let acceptList = Self.isAcceptList(create)
            cancelled = Cancelled(
                create: create, cancel: e, acceptList: acceptList,
                waitsForReissue: acceptList || sink.platform == .android)
        case .connectionFailed(let info):
            pendingCreate = nil
            guard info.status == HCIError.unknownConnectionIdentifier, var c = cancelled, c.failedFrame == nil else {
                return
            }
            c.failedFrame = e.frame
            if c.waitsForReissue {
                cancelled = c  // still to see whether the list is re-issued
            } else {
                report(c, sink)
                cancelled = nil
            }
        case .connectionComplete(let info):
            guard info.role != 1 else { return }
            // The attempt (or the accept list's) connected after all: the cancel lost the race.
            pendingCreate = nil
            cancelled = nil
        default: break
        }
    }

    func unattributed(_ c: Cancelled, _ sink: FindingSink) {
        sink.notEvaluable(
            "an LE Create Connection through the filter accept list was cancelled within cancel_within_s and not re-issued: the command names no peer, so the peripheral it was for is unknown"
        )
    }

    /// `reissuedAt`: the frame of the next LE Create Connection, when it went to the same peer.
    func report(_ c: Cancelled, _ sink: FindingSink, reissuedAt: Int? = nil) {
        let target = c.create.peer.map { "to \($0)" } ?? "through the filter accept list"
        let outcome = c.failedFrame != nil ? " (LE Connection Complete 0x02 Unknown Connection Identifier)" : ""
        let what =
            "LE Create Connection \(target) was cancelled \(Describe.duration(c.cancel.time - c.create.time)) after it was sent, without a connection\(outcome)"
        let frames = [c.create.frame, c.cancel.frame] + (c.failedFrame.map { [$0] } ?? [])
        guard sink.platform == .android else {
            sink.report(
                "\(what): the app likely released the CBPeripheral it connected", connection: nil, peer: c.create.peer,
                handle: nil, time: c.create.time, frames: frames, evidence: .inferred)
            return
        }
        // Android cancels no attempt for a dropped reference: a BluetoothGatt's attempt lasts
        // until it connects, times out, or the app calls disconnect() or close(). An attempt
        // re-issued to the same peer at once is the stack's own (it changed its connection
        // list): no finding. One given up is the app's close.
        if let again = reissuedAt {
            sink.notEvaluable(
                "an LE Create Connection cancelled and re-issued to the same peer at once (frame \(again)) on an Android host: the stack restarts its own attempts, so this is no app's cancel"
            )
            return
        }
        sink.report(
            "\(what), and not re-issued: on Android no dropped reference cancels an attempt, so the app gave it up — it called BluetoothGatt.disconnect() or close() before the connection completed",
            connection: nil, peer: c.create.peer, handle: nil, time: c.create.time, frames: frames, evidence: .inferred)
    }

    public mutating func observe(_ call: APICall, _ sink: FindingSink) {
        guard case .connect(_, let retained?) = call.kind, !retained else { return }
        sink.report(
            "connect(_:options:) was called for a CBPeripheral the app did not keep a strong reference to: Core Bluetooth cancelled the connection silently when it was released",
            connection: nil, peer: call.peer, handle: nil, time: call.time, frames: [call.sequence], evidence: .api)
    }

    public mutating func finish(at time: Int64, _ sink: FindingSink) {
        if let c = cancelled { c.acceptList ? unattributed(c, sink) : report(c, sink) }
        cancelled = nil
    }
}
