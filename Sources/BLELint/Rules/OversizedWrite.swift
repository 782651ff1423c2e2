import BLETimeline

/// BLE002: a value longer than the connection's ATT_MTU allows.
///
/// A Write Request/Command carries at most ATT_MTU − 3 value bytes, a Signed Write Command
/// ATT_MTU − 15 (12-byte signature), a Prepare Write Request ATT_MTU − 5 per part (Core 5.4
/// Vol 3 Part F 3.4.5.1, 3.4.5.3, 3.4.5.4, 3.4.6.1), a notification or indication ATT_MTU − 3
/// (3.4.7.1, 3.4.7.2). Core Bluetooth's `maximumWriteValueLength(for:)` gives exactly these
/// limits; a server may drop, truncate or reject longer PDUs.
public struct OversizedWrite: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE002", slug: "oversized-write", title: "Value longer than ATT_MTU allows",
        defaultSeverity: .error,
        summary: """
            A write carried more bytes than fit the connection's ATT_MTU at that moment: Write Request \
            or Command longer than ATT_MTU−3, Signed Write longer than ATT_MTU−15, a Prepare Write part \
            longer than ATT_MTU−5; or, on the peripheral side, a notification or indication longer than \
            ATT_MTU−3. Checked only for PDUs this host sent, and only where the MTU is known (the \
            connection started in the capture or its MTU exchange is in it).
            """,
        enforces: [
            "Size every written value from `maximumWriteValueLength(for:)` for the write type used, never from a constant.",
            "Split a longer value into writes that fit, or send a value that fits.",
        ],
        references: [
            .apple("CBPeripheral.maximumWriteValueLength(for:)"),
            .apple("CBPeripheral.writeValue(_:for:type:)"),
            .android("BluetoothGatt.requestMtu(int)"),
            .android("BluetoothGattCallback.onMtuChanged"),
            .android("BluetoothGatt.writeCharacteristic(BluetoothGattCharacteristic, byte[], int)"),
            .spec("Vol 3 Part F 3.4.2.1", "the MTU a connection agrees on"),
            .spec("Vol 3 Part F 3.4.5.1, 3.4.5.3, 3.4.5.4, 3.4.6.1", "how long a written value may be"),
        ],
        evidence: [.hci, .api],
        fix: """
            let type: CBCharacteristicWriteType = .withResponse
            let limit = peripheral.maximumWriteValueLength(for: type)
            var offset = 0
            while offset < data.count {   // or send one value that fits
                let chunk = data.subdata(in: offset..<min(offset + limit, data.count))
                peripheral.writeValue(chunk, for: characteristic, type: type)
                offset += chunk.count
            }
            """,
        android: PlatformAdvice(
            enforces: [
                "Size every written value from the ATT_MTU `onMtuChanged` reported (ATT_MTU−3 for a write), 23 until `requestMtu` succeeds, never from a constant: a longer value does not fit one ATT write, and what happens to it then depends on the write type and the peer, not on the app.",
                "Split a longer value into writes that fit, or send a value that fits.",
            ],
            """
            On Android the ATT_MTU is 23 until the app asks for more with `BluetoothGatt.requestMtu` and \
            `BluetoothGattCallback.onMtuChanged` reports what the two sides agreed on (Android's `BluetoothGatt` \
            reference). A write carries at most that MTU minus 3 bytes: size each value from the MTU the \
            callback gave on this connection, never from a constant, and ask again after every reconnection \
            (the MTU is per connection).
            """,
            fix: """
                private var maxValue = 20  // ATT_MTU 23 − 3 until onMtuChanged says more

                override fun onConnectionStateChange(gatt: BluetoothGatt, status: Int, newState: Int) {
                    if (newState == BluetoothProfile.STATE_CONNECTED) gatt.requestMtu(247)
                }

                override fun onMtuChanged(gatt: BluetoothGatt, mtu: Int, status: Int) {
                    if (status == BluetoothGatt.GATT_SUCCESS) maxValue = mtu - 3
                    gatt.discoverServices()
                }

                // Queue the chunks; send the next from onCharacteristicWrite.
                data.asList().chunked(maxValue).forEach { pending.add(it.toByteArray()) }
                """))

    public static let observedEvents: TimelineEventClasses = [.gattRequests, .gattUpdates]
    public static let observedFacts: HCIFactClasses = []

    public init(settings: RuleSettings) {}

    public static let readsATTOrSMP = true

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        f.aclPackets == 0 && !f.hasAPITrace ? "the input holds no ACL data (no ATT traffic) and no API trace" : nil
    }

    public mutating func observe(_ e: TimelineEvent, _ sink: FindingSink) {
        guard let c = e.connection else { return }
        let op: AttributeOperation
        let what: String
        var preposition = "to"
        var overhead = 3
        switch e.kind {
        case .write(let o, let v):
            op = o
            switch v {
            case .request: what = "Write Request"
            case .command: what = "Write Command"
            case .signed:
                what = "Signed Write Command"
                overhead = 15
            case .prepare:
                what = "Prepare Write Request part"
                overhead = 5
            case .execute: return
            }
        case .notification(let o):
            op = o
            what = "Handle Value Notification"
            preposition = "of"
        case .indication(let o):
            op = o
            what = "Handle Value Indication"
            preposition = "of"
        default: return
        }
        guard op.sent else { return }
        guard !e.valueTruncated else {
            // btsnooz and filtered Android logs keep only the first bytes of each ACL packet: a
            // cut value is neither too long nor short, it is unknown.
            sink.notEvaluable(
                "the capture cut the values of some PDUs this host sent (btsnooz or a filtered log): their lengths are unknown"
            )
            return
        }
        let length = e.value.count
        // The timeline says whether ATT_MTU is known (the connection's facts); when it is not,
        // `op.mtu` is only a lower bound and a long value proves a larger MTU, not an error.
        guard op.mtuKnown else {
            if length > 23 - overhead {
                sink.notEvaluable(
                    "connection #\(c) started before the capture and its MTU exchange is not in it: ATT_MTU unknown")
            }
            return
        }
        let limit = Int(op.mtu) - overhead
        guard length > limit else { return }
        var msg =
            "\(what) \(preposition) \(Describe.attribute(op)) carries \(length) bytes, but ATT_MTU is \(op.mtu): at most \(limit) fit"
        if sink.platform == .android {
            switch e.kind {
            case .write: msg += " (the MTU BluetoothGattCallback.onMtuChanged reported, minus 3)"
            case .notification, .indication:
                msg += " (the MTU BluetoothGattServerCallback.onMtuChanged reported, minus 3)"
            default: break
            }
        } else {
            switch e.kind {
            case .write(_, .request): msg += " (maximumWriteValueLength(for: .withResponse))"
            case .write(_, .command), .write(_, .signed): msg += " (maximumWriteValueLength(for: .withoutResponse))"
            case .notification, .indication: msg += " (maximumUpdateValueLength)"
            default: break
            }
        }
        if case .success = e.outcome { msg += "; the server accepted it anyway" }
        if case .error(_, _, let code, _) = e.outcome { msg += "; the server answered \(Describe.attError(code))" }
        sink.report(msg, event: e, handle: op.handle, related: e.outcome.responseFrame.map { [$0] } ?? [])
    }

    /// Exact from an API trace: the value's length against `maximumWriteValueLength(for:)` at call
    /// time (ATT_MTU − 3 without response, 512 with response).
    public mutating func observe(_ call: APICall, _ sink: FindingSink) {
        guard case .writeValue(let h, let length, let withResponse, _, let max, _) = call.kind, length > max else {
            return
        }
        var message =
            "writeValue of \(length) bytes to \(call.target(handle: h)) exceeds maximumWriteValueLength(for: \(withResponse ? ".withResponse" : ".withoutResponse")) = \(max)"
        if case .dropped = call.disposition { message += ": Core Bluetooth dropped it" }
        sink.report(
            message, connection: nil, peer: call.peer, handle: h, time: call.time, frames: [call.sequence],
            evidence: .api)
    }
}
