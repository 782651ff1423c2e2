import BLEBytes
import BLEPackets
import BLETimeline

/// BLE011: GATT requests before the connection completed.
///
/// Core Bluetooth's `connect(_:options:)` only starts connecting; the app may discover, read or
/// write only from `centralManager(_:didConnect:)` on (Apple's documentation of
/// `CBCentralManager.connect(_:options:)`). A controller carries ACL data on a handle only once its
/// Connection
/// Complete event gave the host that handle (Core Vol 4 Part E 7.7.65.1, 5.4.2), so an ATT
/// PDU this host sent on a handle that had no connection yet is a request made before the
/// connection existed.
///
/// Only PDUs this host *sent* count: received ACL data can legitimately overtake its
/// Connection Complete on transports that carry events and data on separate channels (USB
/// interrupt vs bulk endpoints), which is a transport artefact, not an app mistake.
///
/// A handle that carries traffic before any Connection Complete or Disconnection Complete for
/// it was connected before the capture started (captures that start mid-connection): that is
/// no violation. Only when the next lifecycle event of the handle is a Connection Complete was
/// the traffic sent before *that* connection completed.
public struct GattBeforeConnected: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE011", slug: "gatt-before-connected", title: "GATT request before the connection completed",
        defaultSeverity: .error,
        summary: """
            This host sent ATT PDUs (discovery, reads, writes, MTU exchange) on a connection handle \
            before the controller's Connection Complete for that handle, or after its Disconnection \
            Complete and before the next connection on it; in an API trace, a discover/read/write/\
            setNotifyValue call on a peripheral that was not connected (before didConnect or after \
            didDisconnectPeripheral). Core Bluetooth refuses such calls ("API MISUSE … connected \
            state") and the app waits for callbacks that never come. Traffic on a handle whose \
            connection started before the capture (no Connection Complete for it at all) is not \
            reported.
            """,
        enforces: [
            "Start GATT work only once the connection is up: discover services in `centralManager(_:didConnect:)`, the rest from the discovery callbacks.",
            "After a disconnection, use the peripheral again only once it has reconnected.",
        ],
        references: [
            .apple("CBCentralManagerDelegate.centralManager(_:didConnect:)"),
            .apple("CBCentralManagerDelegate.centralManager(_:didDisconnectPeripheral:error:)"),
            .apple("CBPeripheral.discoverServices(_:)"),
            .apple("CBPeripheral.state"),
            .android("BluetoothGattCallback.onConnectionStateChange"),
            .android("BluetoothGatt.discoverServices()"),
            .android("BluetoothGattCallback.onServicesDiscovered"),
            .android("BluetoothGatt.close()"),
            .android("BluetoothDevice.connectGatt(Context, boolean, BluetoothGattCallback, int)"),
            .spec("Vol 4 Part E 7.7.65.1", "LE Connection Complete"),
        ],
        evidence: [.hci, .api],
        fix: """
            central.connect(peripheral, options: nil)
            // Not here: the peripheral is not connected yet.

            func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
                peripheral.delegate = self
                peripheral.discoverServices([serviceUUID])
            }
            """,
        android: PlatformAdvice(
            enforces: [
                "Start GATT work only once the connection is up: call `discoverServices()` from `onConnectionStateChange` with `STATE_CONNECTED`, the rest from `onServicesDiscovered` and the callbacks after it.",
                "After a disconnection, `close()` the `BluetoothGatt` and use the one `connectGatt` returns once it has reconnected.",
            ],
            """
            On Android the app starts GATT work only once `BluetoothGattCallback.onConnectionStateChange` \
            reports `STATE_CONNECTED` with `GATT_SUCCESS`: `discoverServices()` first, the rest from \
            `onServicesDiscovered`. After `STATE_DISCONNECTED` the `BluetoothGatt` is done: `close()` it and \
            connect again with `BluetoothDevice.connectGatt` (Android's `BluetoothGatt` and \
            `BluetoothGattCallback` references). An app cannot make Android's stack send ATT before the \
            link is up (the stack holds requests until it is), so such traffic in an Android capture is the \
            stack's: its findings name the OS stack as the party.
            """,
            fix: """
                val gatt = device.connectGatt(context, false, callback, BluetoothDevice.TRANSPORT_LE)
                // Not here: not connected yet.

                override fun onConnectionStateChange(gatt: BluetoothGatt, status: Int, newState: Int) {
                    when {
                        status == BluetoothGatt.GATT_SUCCESS && newState == BluetoothProfile.STATE_CONNECTED -> gatt.discoverServices()
                        newState == BluetoothProfile.STATE_DISCONNECTED -> gatt.close()
                    }
                }
                """))

    /// Highest HCI connection handle (Vol 4 Part E 5.4.2: 12 bits).
    static let maximumHandle: UInt16 = 0x0EFF
    static let keptFrames = 8

    enum HandleState { case unseen, open, closed }

    /// ATT PDUs sent while the handle had no connection, waiting for the handle's next
    /// lifecycle event to decide.
    struct Early {
        var firstFrame: Int
        var firstTime: Int64
        var opcode: UInt8
        var count = 1
        var frames: [Int] = []
        /// The handle had been disconnected in the capture (not merely unseen).
        var afterDisconnection: Bool
        var disconnectionFrame: Int?
    }

    var state: [UInt16: HandleState] = [:]
    var lastDisconnection: [UInt16: Int] = [:]
    var early: [UInt16: Early] = [:]
    /// API traces: peers currently connected (didConnect … didDisconnect).
    var connectedPeers: Set<BDAddr> = []
    var apiReported: Set<BDAddr> = []

    public static let observedEvents: TimelineEventClasses = .connection
    public static let observedFacts: HCIFactClasses = [.aclSent, .connections]

    public init(settings: RuleSettings) {}

    public static let readsATTOrSMP = true

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        if f.hasAPITrace { return nil }
        if f.aclPackets == 0 { return "the input holds no ACL data (no GATT traffic to place against connections)" }
        if f.connectionStarts == 0 {
            return
                "no Connection Complete in the capture: every connection started before it, so no traffic can precede one"
        }
        return nil
    }

    public mutating func observe(_ fact: HCIFact, _ sink: FindingSink) {
        switch fact.kind {
        case .connectionComplete(let h):
            guard h <= Self.maximumHandle else { return }
            if let e = early.removeValue(forKey: h) { report(e, handle: h, complete: fact, sink) }
            state[h] = .open
        case .disconnected(let h):
            guard h <= Self.maximumHandle else { return }
            // Traffic on an unseen handle that ends in a disconnection belonged to a connection
            // that started before the capture. Traffic after an earlier disconnection is kept:
            // only a later Connection Complete on the handle settles it.
            if let e = early[h], !e.afterDisconnection { early[h] = nil }
            state[h] = .closed
            lastDisconnection[h] = fact.frame
        case .aclSent(let h, let op?, _, _):
            guard op != 0, h <= Self.maximumHandle, state[h, default: .unseen] != .open else { return }
            if var e = early[h] {
                e.count += 1
                if e.frames.count < Self.keptFrames { e.frames.append(fact.frame) }
                early[h] = e
            } else {
                let closed = state[h] == .closed
                early[h] = Early(
                    firstFrame: fact.frame, firstTime: fact.time, opcode: op, afterDisconnection: closed,
                    disconnectionFrame: closed ? lastDisconnection[h] : nil)
            }
        default: break
        }
    }

    /// Reports waiting for the timeline's Connection Complete event of the same frame, which
    /// names the connection and peer. The two streams are not interleaved in any promised
    /// order: the timeline may emit the event some frames after the HCI fact (behind pending
    /// requests) or just before it, so both sides wait for the other, boundedly.
    var awaiting: [Int: (early: Early, handle: UInt16, time: Int64)] = [:]
    static let maximumAwaiting = 64
    /// The latest Connection Complete events of the timeline (frame, connection, peer).
    var recentCompletes: [(frame: Int, connection: Int?, peer: BDAddr?)] = []
    static let keptCompletes = 16

    mutating func report(_ e: Early, handle h: UInt16, complete: HCIFact, _ sink: FindingSink) {
        if let c = recentCompletes.last(where: { $0.frame == complete.frame }) {
            emit(
                e, handle: h, completeFrame: complete.frame, completeTime: complete.time, connection: c.connection,
                peer: c.peer, sink)
        } else if awaiting.count < Self.maximumAwaiting {
            awaiting[complete.frame] = (e, h, complete.time)
        } else {
            emit(
                e, handle: h, completeFrame: complete.frame, completeTime: complete.time, connection: nil, peer: nil,
                sink)
        }
    }

    public mutating func observe(_ event: TimelineEvent, _ sink: FindingSink) {
        guard case .connectionComplete = event.kind else { return }
        guard let a = awaiting.removeValue(forKey: event.frame) else {
            if recentCompletes.count == Self.keptCompletes { recentCompletes.removeFirst() }
            recentCompletes.append((event.frame, event.connection, event.peer))
            return
        }
        emit(
            a.early, handle: a.handle, completeFrame: event.frame, completeTime: a.time, connection: event.connection,
            peer: event.peer, sink)
    }

    public mutating func finish(at time: Int64, _ sink: FindingSink) {
        for (frame, a) in awaiting.sorted(by: { $0.key < $1.key }) {
            emit(
                a.early, handle: a.handle, completeFrame: frame, completeTime: a.time, connection: nil, peer: nil, sink)
        }
        awaiting.removeAll()
    }

    func emit(
        _ e: Early, handle h: UInt16, completeFrame: Int, completeTime: Int64, connection: Int?, peer: BDAddr?,
        _ sink: FindingSink
    ) {
        let what = ATTOpcode(e.opcode).name
        let more = e.count > 1 ? " (and \(e.count - 1) more ATT PDU\(e.count > 2 ? "s" : ""))" : ""
        let when =
            e.afterDisconnection
            ? "after the previous connection on it ended and before the next Connection Complete"
            : "before its Connection Complete"
        // On Android it is the stack's: apps cannot make it send before the link is up.
        sink.report(
            "\(what)\(more) was sent on handle \(Describe.handle(h)) \(when), \(Describe.duration(completeTime - e.firstTime)) early: GATT was used before the connection existed",
            connection: connection, peer: peer, handle: nil, time: e.firstTime,
            frames: [e.firstFrame, completeFrame] + e.frames + (e.disconnectionFrame.map { [$0] } ?? []),
            evidence: .hci, party: sink.platform == .android ? .osStack : nil)
    }

    /// A simulator trace states the peripheral's state at each call (exact); other API inputs
    /// are followed through the didConnect/didDisconnect callbacks they record.
    public mutating func observe(_ call: APICall, _ sink: FindingSink) {
        let p = call.peer
        switch call.kind {
        case .didConnect:
            if let p { connectedPeers.insert(p) }
            return
        case .didDisconnect, .didFailToConnect:
            if let p { connectedPeers.remove(p) }
            return
        case .peripheralCommand, .discoverServices, .writeValue: break
        default: return
        }
        let connected: Bool
        if let state = call.peripheralState {
            connected = state == .connected
        } else if let p {
            connected = connectedPeers.contains(p)
        } else {
            return
        }
        guard !connected else { return }
        let who = p.map { "\($0)" } ?? call.peripheral ?? "a peripheral"
        sink.report(
            "\(call.selector) was called on \(who) while it was not connected (before centralManager(_:didConnect:))",
            connection: nil, peer: p, handle: nil, time: call.time, frames: [call.sequence], evidence: .api)
    }
}
