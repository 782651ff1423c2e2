import BLEBytes
import BLETimeline

/// BLE009: ATT's sequential protocol broken.
///
/// ATT allows one outstanding request per bearer and direction: a client sends no other request
/// until the response arrived (Core 5.4 Vol 3 Part F 3.3.2), and a server sends no other
/// indication until the confirmation arrived (3.4.7.2). A transaction not completed within 30 s
/// times out and the bearer may carry no further ATT traffic (3.3.3). The client sends Exchange
/// MTU Request only once per connection (3.4.2.1).
///
/// Core Bluetooth serializes its own requests and answers indications itself, so on an iOS
/// capture these findings usually point at the peer's firmware, or at a non-Core-Bluetooth
/// host under test; the message says which side broke the rule.
public struct AttProtocol: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE009", slug: "att-protocol", title: "ATT request/indication sequencing broken",
        defaultSeverity: .warning,
        summary: """
            A second ATT request went out on a connection while the previous one (same direction) was \
            still unanswered; a request or indication got no response or confirmation within the ATT \
            transaction timeout (30 s), or a response came later than the configured threshold; a second \
            indication was sent before the previous one was confirmed; or the same client exchanged MTU a \
            second time on one connection. Each finding says whether this host or the peer broke the rule.
            """,
        enforces: [
            "Send one request at a time on a connection: start the next from the callback of the last.",
            "Indicate one value at a time: wait for the confirmation (on a peripheral, for `peripheralManagerIsReady(toUpdateSubscribers:)` when `updateValue` returned false).",
            "Answer every request and confirm every indication within ATT's 30 s transaction timeout, and exchange the MTU once per connection.",
        ],
        references: [
            .apple("CBPeripheralDelegate.peripheral(_:didWriteValueFor:error:)"),
            .apple("CBPeripheral.writeValue(_:for:type:)"),
            .apple("CBPeripheralManager.updateValue(_:for:onSubscribedCentrals:)"),
            .apple("CBPeripheralManagerDelegate.peripheralManagerIsReady(toUpdateSubscribers:)"),
            .android("BluetoothGattCallback.onCharacteristicWrite"),
            .android("BluetoothGattCallback.onCharacteristicRead"),
            .android("BluetoothGattCallback.onDescriptorWrite"),
            .android("BluetoothGattServerCallback.onNotificationSent"),
            .android("BluetoothGatt.requestMtu(int)"),
            .spec("Vol 3 Part F 3.3.2", "one outstanding request or indication"),
            .spec("Vol 3 Part F 3.3.3", "the 30 s transaction timeout"),
            .spec("Vol 3 Part F 3.4.2.1", "one MTU exchange per connection"),
        ],
        evidence: [.hci],
        thresholds: [
            ThresholdSpec(
                "response_timeout_s", 30, unit: "s",
                "A response or confirmation later than this is reported; 30 s is ATT's transaction timeout (Vol 3 Part F 3.3.3), which is always reported"
            )
        ],
        fix: """
            // One request at a time: start the next write from the callback of the last one.
            func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: Error?) {
                guard error == nil, let next = pendingWrites.popFirst() else { return }
                peripheral.writeValue(next, for: characteristic, type: .withResponse)
            }
            // Peripheral side: when updateValue returns false, wait for the queue to drain.
            func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {
                sendPendingUpdates()
            }
            """,
        android: PlatformAdvice(
            enforces: [
                "Start the next GATT operation from the callback of the last: Android's `BluetoothGatt` runs one at a time and refuses another (returns false, or `BluetoothStatusCodes.ERROR_GATT_WRITE_REQUEST_BUSY`) while one is outstanding.",
                "Indicate one value at a time: on a `BluetoothGattServer`, call `notifyCharacteristicChanged` for the next indication only after `BluetoothGattServerCallback.onNotificationSent`.",
                "Answer every request with `BluetoothGattServer.sendResponse` and confirm every indication within ATT's 30 s transaction timeout, and call `requestMtu` once per connection.",
            ],
            """
            On Android a `BluetoothGatt` runs one operation at a time: a read, write or descriptor write \
            started while another is pending is refused (`false`, or `ERROR_GATT_WRITE_REQUEST_BUSY` from \
            API 33), so an app queues its operations and starts the next from `onCharacteristicWrite`, \
            `onCharacteristicRead` or `onDescriptorWrite`. A server app that indicates waits for \
            `BluetoothGattServerCallback.onNotificationSent` before the next `notifyCharacteristicChanged` \
            with `confirm = true`; `requestMtu` is asked once per connection (Android's `BluetoothGatt` and \
            `BluetoothGattServer` references).
            """,
            fix: """
                private val ops = ArrayDeque<(BluetoothGatt) -> Unit>()
                private var busy = false

                fun enqueue(op: (BluetoothGatt) -> Unit) { ops.add(op); if (!busy) next() }

                private fun next() {
                    val op = ops.removeFirstOrNull() ?: run { busy = false; return }
                    busy = true
                    op(gatt)
                }

                override fun onCharacteristicWrite(gatt: BluetoothGatt, c: BluetoothGattCharacteristic, status: Int) = next()
                override fun onCharacteristicRead(gatt: BluetoothGatt, c: BluetoothGattCharacteristic, value: ByteArray, status: Int) = next()
                override fun onDescriptorWrite(gatt: BluetoothGatt, d: BluetoothGattDescriptor, status: Int) = next()
                """))

    /// A request (or indication) the builder found superseded, waiting for the event of the
    /// one that superseded it to report with its time.
    struct Superseded {
        var first: TimelineEvent
        var secondFrame: Int
        var what: String
        var hostSent: Bool
        var indication: Bool
    }

    struct Direction: Hashable {
        var connection: Int
        var hostSent: Bool
    }

    static let maximumTracked = 1024
    let lateLimit: Int64

    /// A finding held back until its connection proves to be an ATT bearer.
    struct Held {
        var message: String
        var connection: Int
        var peer: BDAddr?
        var time: Int64
        var frames: [Int]
    }

    var superseded: [Superseded] = []
    /// Connections whose Connection Complete is in the capture, or that carried an answered ATT
    /// transaction. A connection seen only through unanswered "requests" (e.g. a vendor's
    /// pseudo-ACL handle whose bytes happen to parse as ATT) is not judged.
    var established: Set<Int> = []
    /// The connection last found in `established`: events come in long runs per connection,
    /// and hashing its number for each was a quarter of this rule's cost.
    var lastEstablished: Int?
    var held: [Int: [Held]] = [:]
    var heldCount = 0
    /// A sniffer's capture: a response it did not record may still have been sent.
    var overTheAir = false
    /// First Exchange MTU Request per connection and client side.
    var mtuExchanges: [Direction: TimelineEvent] = [:]

    public init(settings: RuleSettings) {
        lateLimit = Int64(settings.threshold("response_timeout_s", in: Self.descriptor) * 1_000_000)
    }

    public static let observedFacts: HCIFactClasses = .capture  // over the air

    public static let readsATTOrSMP = true

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        f.aclPackets == 0 ? "the input holds no ACL data (no ATT traffic)" : nil
    }

    /// An event as an ATT transaction: who sent it, whether it is an indication, and its name
    /// for messages, made only when a message is written (every read, write and indication
    /// passes through here).
    struct Transaction {
        enum Name {
            case plain(StaticString)
            /// "Read Request for 0x0012 (Heart Rate Measurement)": the words, then the attribute.
            case about(StaticString, AttributeOperation)
        }
        var name: Name
        var hostSent: Bool
        var indication = false

        var what: String {
            switch name {
            case .plain(let s): "\(s)"
            case .about(let s, let op): "\(s) \(Describe.attribute(op))"
            }
        }
    }

    /// What the event is as an ATT transaction; nil for events that are no request or indication.
    static func transaction(_ e: TimelineEvent) -> Transaction? {
        switch e.kind {
        case .mtuExchange(_, _, _, let sent): Transaction(name: .plain("Exchange MTU Request"), hostSent: sent)
        case .discovery(let d, let sent):
            switch d.target {
            case .primaryServices, .secondaryServices:
                Transaction(
                    name: .plain(d.filter == nil ? "Read By Group Type Request" : "Find By Type Value Request"),
                    hostSent: sent)
            case .includes, .characteristics: Transaction(name: .plain("Read By Type Request"), hostSent: sent)
            case .descriptors: Transaction(name: .plain("Find Information Request"), hostSent: sent)
            }
        case .read(let op, let v):
            switch v {
            case .read: Transaction(name: .about("Read Request for", op), hostSent: op.sent)
            case .blob: Transaction(name: .about("Read Blob Request for", op), hostSent: op.sent)
            case .multiple, .multipleVariable: Transaction(name: .plain("Read Multiple Request"), hostSent: op.sent)
            case .byType: Transaction(name: .plain("Read By Type Request"), hostSent: op.sent)
            }
        case .write(let op, let v):
            switch v {
            case .request: Transaction(name: .about("Write Request to", op), hostSent: op.sent)
            case .prepare: Transaction(name: .about("Prepare Write Request to", op), hostSent: op.sent)
            case .execute: Transaction(name: .plain("Execute Write Request"), hostSent: op.sent)
            case .command, .signed: nil
            }
        case .subscribe(let op, _):
            // A CCCD write by Write Command has no response (outcome `.none`).
            e.outcome == .none ? nil : Transaction(name: .about("Write Request to", op), hostSent: op.sent)
        case .indication(let op):
            Transaction(name: .about("Handle Value Indication on", op), hostSent: op.sent, indication: true)
        default: nil
        }
    }

    static func side(_ hostSent: Bool) -> String { hostSent ? "this host" : "the peer" }

    public mutating func observe(_ fact: HCIFact, _ sink: FindingSink) {
        if case .overTheAir = fact.kind { overTheAir = true }
    }

    public mutating func observe(_ e: TimelineEvent, _ sink: FindingSink) {
        // A notification is no transaction and proves nothing new about an established
        // connection: with nothing superseded waiting, the rest of this function does nothing
        // for it (checked first, it saves 6 % of `lint` on a notification stream).
        if case .notification = e.kind, superseded.isEmpty, e.connection == nil || e.connection == lastEstablished {
            return
        }
        observeTransaction(e, sink)
    }

    /// The rest of `observe`, apart so that the notification fast path above stays apart from
    /// it: inlined, the function began by copying the whole event (for the paths that keep
    /// it), a `memcpy` of ~240 bytes for every notification.
    @inline(never)
    mutating func observeTransaction(_ e: TimelineEvent, _ sink: FindingSink) {
        if let c = e.connection, c != lastEstablished {
            if established.contains(c) {
                lastEstablished = c
            } else {
                var proven = false
                if case .connectionComplete = e.kind { proven = true }
                if Self.transaction(e) != nil, e.outcome.responseFrame != nil { proven = true }
                if proven { establish(c, sink) }
            }
        }
        reportSuperseded(by: e, sink)
        if case .disconnection = e.kind, let c = e.connection {
            mtuExchanges = mtuExchanges.filter { $0.key.connection != c }
            dropHeld(c, sink)
            established.remove(c)
            if lastEstablished == c { lastEstablished = nil }
            return
        }
        guard let t = Self.transaction(e), let c = e.connection else { return }
        if case .mtuExchange = e.kind {
            let d = Direction(connection: c, hostSent: t.hostSent)
            if let first = mtuExchanges[d] {
                emit(
                    "\(Self.side(t.hostSent)) sent Exchange MTU Request a second time on this connection (the first negotiated ATT_MTU \(first.mtuText)); a client may send it only once per connection",
                    e, frames: [e.frame, first.frame], sink)
            } else if mtuExchanges.count < Self.maximumTracked {
                mtuExchanges[d] = e
            }
        }
        switch e.outcome {
        case .unanswered(let second):
            if superseded.count < Self.maximumTracked {
                superseded.append(
                    Superseded(
                        first: e, secondFrame: second, what: t.what, hostSent: t.hostSent, indication: t.indication))
            }
        case .timeout:
            let answer = t.indication ? "confirmed" : "answered"
            emit(
                "\(t.what) from \(Self.side(t.hostSent)) was not \(answer) within the ATT transaction timeout (30 s); no further ATT traffic is allowed on the bearer",
                e, frames: [e.frame], sink)
        case .success(let f, let latency), .error(let f, let latency, _, _):
            guard lateLimit > 0, latency > lateLimit else { return }
            let answer = t.indication ? "confirmed" : "answered"
            emit(
                "\(t.what) from \(Self.side(t.hostSent)) was \(answer) only after \(Describe.seconds(latency)) (limit \(Describe.seconds(lateLimit)))",
                e, frames: [e.frame, f], sink)
        default:
            break
        }
    }

    /// Reports the superseded transactions whose successor is `e` (same connection and frame).
    mutating func reportSuperseded(by e: TimelineEvent, _ sink: FindingSink) {
        guard !superseded.isEmpty else { return }
        let pending = superseded
        superseded.removeAll()
        for s in pending {
            if s.secondFrame == e.frame, s.first.connection == e.connection {
                report(s, second: e, sink)
            } else if s.secondFrame < e.frame {
                // The successor's event never came (no event of that kind): report at the first.
                report(s, second: nil, sink)
            } else {
                superseded.append(s)
            }
        }
    }

    mutating func report(_ s: Superseded, second: TimelineEvent?, _ sink: FindingSink) {
        // Over the air a missing response is as likely lost by the sniffer as never sent
        // (crackle's Secure Connections capture: the response to frame 91 starts at 93, its
        // continuation was not captured, and the request of 95 continues where it ended).
        if overTheAir {
            sink.notEvaluable(
                "over the air: a request or indication whose response the sniffer did not record may have been answered (sniffers miss PDUs), so one outstanding transaction per direction is not judged"
            )
            return
        }
        let secondWhat =
            second.flatMap { Self.transaction($0)?.what } ?? (s.indication ? "another indication" : "another request")
        let message =
            s.indication
            ? "\(Self.side(s.hostSent)) sent \(secondWhat) before the previous \(s.what) was confirmed"
            : "\(Self.side(s.hostSent)) sent \(secondWhat) while the \(s.what) was still unanswered; ATT allows one outstanding request per direction"
        emit(message, second ?? s.first, frames: [s.secondFrame, s.first.frame], sink)
    }

    /// Reports now if the connection is an established ATT bearer, else holds the finding.
    mutating func emit(_ message: String, _ e: TimelineEvent, frames: [Int], _ sink: FindingSink) {
        guard let c = e.connection else { return }
        let h = Held(message: message, connection: c, peer: e.peer, time: e.time, frames: frames)
        if established.contains(c) {
            sink.report(
                h.message, connection: c, peer: h.peer, handle: nil, time: h.time, frames: h.frames, evidence: .hci)
        } else if heldCount < Self.maximumTracked {
            held[c, default: []].append(h)
            heldCount += 1
        }
    }

    mutating func establish(_ c: Int, _ sink: FindingSink) {
        // Bounded even when Disconnection Complete events are missing: forget the oldest.
        if established.count >= Self.maximumTracked * 4, let oldest = established.min() {
            established.remove(oldest)
            if lastEstablished == oldest { lastEstablished = nil }
        }
        established.insert(c)
        guard let list = held.removeValue(forKey: c) else { return }
        heldCount -= list.count
        for h in list {
            sink.report(
                h.message, connection: c, peer: h.peer, handle: nil, time: h.time, frames: h.frames, evidence: .hci)
        }
    }

    mutating func dropHeld(_ c: Int, _ sink: FindingSink) {
        guard let list = held.removeValue(forKey: c) else { return }
        heldCount -= list.count
        sink.notEvaluable(
            "ATT on a connection whose start is not in the capture and that carried no answered ATT transaction (possibly no ATT bearer): not judged"
        )
    }

    public mutating func finish(at time: Int64, _ sink: FindingSink) {
        let pending = superseded
        superseded.removeAll()
        for s in pending { report(s, second: nil, sink) }
        for c in held.keys.sorted() { dropHeld(c, sink) }
    }
}

extension TimelineEvent {
    /// "ATT_MTU 247" of an MTU exchange event, for messages.
    fileprivate var mtuText: String {
        if case .mtuExchange(_, _, let effective, _) = kind { return "\(effective)" }
        return "?"
    }
}
