import BLEPackets

/// BLE006: Write Commands sent while the controller had no free buffer.
///
/// The host may have at most as many ACL packets in the controller as LE Read Buffer Size
/// reported (Core 5.4 Vol 4 Part E 4.1.1, 7.8.2); each Number Of Completed Packets event
/// (7.7.19) gives some back, a Disconnection Complete frees the handle's. Core Bluetooth
/// exposes this as `canSendWriteWithoutResponse` / `peripheralIsReady(toSendWriteWithoutResponse:)`;
/// an app that ignores it makes the stack queue or drop Write Commands.
public struct WriteWithoutResponseFlow: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE006", slug: "write-without-response-flow", title: "Write Without Response ignores flow control",
        defaultSeverity: .warning,
        summary: """
            Write Commands went to the controller while all of its LE ACL buffers were in use: more \
            packets outstanding than LE Read Buffer Size allows, before Number Of Completed Packets \
            returned any. In Core Bluetooth terms the app kept writing .withoutResponse while \
            canSendWriteWithoutResponse was false (exact from an API trace). A burst that waits for \
            Number Of Completed Packets once the buffers are full is fine.
            """,
        enforces: [
            "Write `.withoutResponse` only while `canSendWriteWithoutResponse` is true, and resume from `peripheralIsReady(toSendWriteWithoutResponse:)`."
        ],
        references: [
            .apple("CBPeripheral.canSendWriteWithoutResponse"),
            .apple("CBPeripheralDelegate.peripheralIsReady(toSendWriteWithoutResponse:)"),
            .apple("CBPeripheral.writeValue(_:for:type:)"),
            .android("BluetoothGatt.writeCharacteristic(BluetoothGattCharacteristic, byte[], int)"),
            .android("BluetoothStatusCodes.ERROR_GATT_WRITE_REQUEST_BUSY"),
            .android("BluetoothGattCallback.onCharacteristicWrite"),
            .spec("Vol 4 Part E 4.1.1", "flow control of data from host to controller"),
            .spec("Vol 4 Part E 7.8.2", "LE Read Buffer Size"),
        ],
        evidence: [.hci, .api],
        fix: """
            func send() {
                while peripheral.canSendWriteWithoutResponse, let chunk = queue.first {
                    peripheral.writeValue(chunk, for: characteristic, type: .withoutResponse)
                    queue.removeFirst()
                }
            }
            func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) { send() }
            """,
        android: PlatformAdvice(
            enforces: [
                "Write `WRITE_TYPE_NO_RESPONSE` values one at a time: Android calls `onCharacteristicWrite` once the stack has taken the value, and `writeCharacteristic` refuses the next one until then."
            ],
            """
            On Android an app sends one write at a time even without response: `BluetoothGatt.writeCharacteristic` \
            with `WRITE_TYPE_NO_RESPONSE` reports a busy stack through its return value (`false`, or \
            `BluetoothStatusCodes.ERROR_GATT_WRITE_REQUEST_BUSY` from API 33), and `onCharacteristicWrite` \
            says when the next may go (Android's `BluetoothGatt` and `BluetoothGattCallback` references). \
            Keeping the controller's buffers from overflowing is then the stack's job: on an Android capture \
            an overflow in HCI shows the stack's flow control, which the app cannot change.
            """,
            fix: """
                private val queue = ArrayDeque<ByteArray>()

                fun send(gatt: BluetoothGatt, c: BluetoothGattCharacteristic) {
                    val next = queue.firstOrNull() ?: return
                    val status = gatt.writeCharacteristic(c, next, BluetoothGattCharacteristic.WRITE_TYPE_NO_RESPONSE)
                    if (status == BluetoothStatusCodes.SUCCESS) queue.removeFirst()  // else retry from the callback
                }

                override fun onCharacteristicWrite(gatt: BluetoothGatt, c: BluetoothGattCharacteristic, status: Int) = send(gatt, c)
                """))

    static let maximumHandles = 64
    /// LE ACL buffers of the controller, once reported before any ACL of this initialisation.
    var buffers: Int?
    var aclSinceReset = false
    var total = 0
    var inFlight: [UInt16: Int] = [:]
    /// The PDU being sent on a handle had a fragment sent with no free buffer.
    var overflowing: Set<UInt16> = []
    struct Violations {
        var count = 0
        var frames: [Int] = []
        var time: Int64 = 0
        var handle: UInt16 = 0
    }
    var violations: [UInt16: Violations] = [:]

    public static let observedEvents: TimelineEventClasses = []
    public static let observedFacts: HCIFactClasses = [.controller, .aclSent, .completedPackets, .connections]

    public init(settings: RuleSettings) {}

    public static let readsATTOrSMP = true

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        if f.isOverTheAir, !f.hasAPITrace {
            return
                "\(CaptureFacts.overTheAir): flow control of Write Commands is between host and controller (HCI buffers, Number Of Completed Packets)"
        }
        if f.hasAPITrace { return nil }
        // No Write Command sent: nothing to judge, the capture is clean for this rule.
        if f.writeCommands == 0 { return nil }
        if f.bufferSizeReports == 0 {
            return
                "the capture has no LE Read Buffer Size (it started after the controller was initialised), so the controller's free buffers are unknown"
        }
        return nil
    }

    public mutating func observe(_ fact: HCIFact, _ sink: FindingSink) {
        switch fact.kind {
        case .reset:
            flushAll(sink)
            buffers = nil
            aclSinceReset = false
            total = 0
            inFlight.removeAll()
            overflowing.removeAll()
        case .leBufferSize(let packets, _):
            // Counting is exact only from an initialisation on: packets already in flight
            // before the report would be unknown.
            if !aclSinceReset, packets > 0 { buffers = packets }
        case .aclSent(let h, let op, _, _):
            aclSinceReset = true
            guard let n = buffers else { return }
            if total >= n { overflowing.insert(h) }
            // One lookup of the handle per packet (the flow control's facts come with every
            // ACL packet and every completed one: hashing was most of this rule's cost).
            if let i = inFlight.index(forKey: h) {
                inFlight.values[i] += 1
                total += 1
            } else if inFlight.count < Self.maximumHandles {
                inFlight[h] = 1
                total += 1
            }
            guard let op else { return }
            if !overflowing.isEmpty, overflowing.remove(h) != nil,
                op == ATTOpcode.writeCommand.rawValue || op == ATTOpcode.signedWriteCommand.rawValue
            {
                var v = violations[h] ?? Violations(time: fact.time, handle: h)
                v.count += 1
                if v.frames.count < 16 { v.frames.append(fact.frame) }
                violations[h] = v
            }
        case .completedPackets(let h, let count):
            if let i = inFlight.index(forKey: h) {
                let freed = min(count, inFlight.values[i])
                inFlight.values[i] -= freed
                total -= freed
            } else {
                inFlight[h] = 0  // an unseen handle is counted too (it holds none)
            }
        case .disconnected(let h):
            total -= inFlight.removeValue(forKey: h) ?? 0
            overflowing.remove(h)
            flush(h, sink)
        default: break
        }
    }

    mutating func flush(_ h: UInt16, _ sink: FindingSink) {
        guard let v = violations.removeValue(forKey: h), let n = buffers else { return }
        let owner = sink.owner(ofHandle: h)
        sink.report(
            "\(v.count) Write Command\(v.count == 1 ? " was" : "s were") sent on connection handle \(Describe.handle(h)) while all \(n) LE ACL buffers of the controller were in use (no Number Of Completed Packets had freed one)",
            connection: owner?.connection, peer: owner?.peer, handle: nil, time: v.time, frames: v.frames,
            evidence: .hci, party: sink.platform == .android ? .osStack : nil)  // Android's stack paces ACL itself
    }

    mutating func flushAll(_ sink: FindingSink) {
        for h in violations.keys.sorted() { flush(h, sink) }
    }

    /// Exact from an API trace: `.withoutResponse` writes made while `canSendWriteWithoutResponse`
    /// was false on a connected peripheral (Core Bluetooth discards them), one finding per
    /// peripheral and characteristic with the count. Calls refused for another reason (not
    /// connected, not powered on) are other rules' business: the flag is false then too, but
    /// flow control is not what went wrong.
    public mutating func observe(_ call: APICall, _ sink: FindingSink) {
        guard case .writeValue(let h, _, false, _, _, false) = call.kind else { return }
        if case .misuse = call.disposition { return }
        if let s = call.peripheralState, s != .connected { return }
        let key = APIKey(peripheral: call.peripheral, handle: h)
        guard
            var v = apiViolations[key] ?? (apiViolations.count < Self.maximumHandles ? APIViolations(first: call) : nil)
        else { return }
        v.count += 1
        if v.frames.count < 16 { v.frames.append(call.sequence) }
        apiViolations[key] = v
    }

    struct APIKey: Hashable {
        var peripheral: String?
        var handle: UInt16
    }
    struct APIViolations {
        var first: APICall
        var count = 0
        var frames: [Int] = []
    }
    var apiViolations: [APIKey: APIViolations] = [:]

    mutating func flushAPI(_ sink: FindingSink) {
        for v in apiViolations.values.sorted(by: { $0.first.sequence < $1.first.sequence }) {
            guard case .writeValue(let h, _, _, _, _, _) = v.first.kind else { continue }
            let n =
                v.count == 1
                ? "1 writeValue(type: .withoutResponse) was"
                : "\(v.count) writeValue(type: .withoutResponse) calls were"
            sink.report(
                "\(n) made to \(v.first.target(handle: h)) while canSendWriteWithoutResponse was false: Core Bluetooth drops them; wait for peripheralIsReady(toSendWriteWithoutResponse:)",
                connection: nil, peer: v.first.peer, handle: h, time: v.first.time, frames: v.frames, evidence: .api)
        }
        apiViolations.removeAll()
    }

    public mutating func finish(at time: Int64, _ sink: FindingSink) {
        flushAll(sink)
        flushAPI(sink)
    }
}
