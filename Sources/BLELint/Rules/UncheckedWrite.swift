import BLEPackets
import BLETimeline

/// BLE003: a write the characteristic does not allow.
///
/// The Characteristic Properties (Core 5.4 Vol 3 Part G 3.3.1.1) say which write procedures a
/// characteristic supports: Write (0x08) for Write Request and Prepare Write, Write Without
/// Response (0x04) for Write Command, Authenticated Signed Writes (0x40) for Signed Write. A
/// declaration or service handle is not writable at all (3.3.1, 3.1). Core Bluetooth expects
/// the app to check `characteristic.properties` before `writeValue(_:for:type:)`.
public struct UncheckedWrite: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE003", slug: "unchecked-write", title: "Write not allowed by the characteristic's properties",
        defaultSeverity: .warning,
        summary: """
            This host wrote in a way the target does not allow: a Write Request to a characteristic without \
            the Write property, a Write Command without Write Without Response, a Signed Write without \
            Authenticated Signed Writes, a write to a handle that is no characteristic value or descriptor \
            (a declaration or service), or a write the server refused with Write Not Permitted, Invalid \
            Attribute Value Length or Request Not Supported. A subscription value (01 00, 02 00, 03 00) written \
            to such a handle is left to read-or-notify-without-property. Handles whose properties were never \
            discovered (on this connection or an earlier one of the same peer) are reported as not evaluable.
            """,
        enforces: [
            "Check a characteristic's properties before writing to it; write only to characteristic values and descriptors.",
            "Pick the write type the properties allow: `.withResponse` needs Write, `.withoutResponse` needs Write Without Response.",
        ],
        references: [
            .apple("CBCharacteristic.properties"),
            .apple("CBPeripheral.writeValue(_:for:type:)"),
            .apple("CBCharacteristicWriteType"),
            .android("BluetoothGattCharacteristic.getProperties()"),
            .android("BluetoothGatt.writeCharacteristic(BluetoothGattCharacteristic, byte[], int)"),
            .android("BluetoothGattCallback.onCharacteristicWrite"),
            .spec("Vol 3 Part G 3.3.1.1", "Characteristic Properties"),
            .spec("Vol 3 Part F 3.4.1.1", "the errors a server answers a refused write with"),
        ],
        evidence: [.hci, .api],
        fix: """
            if characteristic.properties.contains(.write) {
                peripheral.writeValue(data, for: characteristic, type: .withResponse)
            } else if characteristic.properties.contains(.writeWithoutResponse),
                      peripheral.canSendWriteWithoutResponse {
                peripheral.writeValue(data, for: characteristic, type: .withoutResponse)
            }
            """,
        android: PlatformAdvice(
            enforces: [
                "Check `BluetoothGattCharacteristic.getProperties()` before writing to it; write only to characteristic values and descriptors.",
                "Pick the write type the properties allow: `WRITE_TYPE_DEFAULT` needs `PROPERTY_WRITE`, `WRITE_TYPE_NO_RESPONSE` needs `PROPERTY_WRITE_NO_RESPONSE`; Android sends what the app asks for without checking.",
            ],
            """
            On Android, check `BluetoothGattCharacteristic.getProperties()` for `PROPERTY_WRITE` or \
            `PROPERTY_WRITE_NO_RESPONSE` and pick the matching write type (`WRITE_TYPE_DEFAULT` or \
            `WRITE_TYPE_NO_RESPONSE`) for `BluetoothGatt.writeCharacteristic`; the result arrives in \
            `BluetoothGattCallback.onCharacteristicWrite` with the server's status (Android's \
            `BluetoothGattCharacteristic` and `BluetoothGatt` references).
            """,
            fix: """
                val props = characteristic.properties
                val type = when {
                    props and BluetoothGattCharacteristic.PROPERTY_WRITE != 0 -> BluetoothGattCharacteristic.WRITE_TYPE_DEFAULT
                    props and BluetoothGattCharacteristic.PROPERTY_WRITE_NO_RESPONSE != 0 -> BluetoothGattCharacteristic.WRITE_TYPE_NO_RESPONSE
                    else -> return  // not writable: do not write
                }
                gatt.writeCharacteristic(characteristic, value, type)  // API 33; then wait for onCharacteristicWrite
                """))

    /// ATT errors that say the write itself was wrong (Vol 3 Part F 3.4.1.1).
    static let refusals: Set<UInt8> = [
        ATTErrorCode.writeNotPermitted, ATTErrorCode.requestNotSupported, ATTErrorCode.invalidAttributeValueLength,
    ]

    public static let observedEvents: TimelineEventClasses = .gattRequests
    public static let observedFacts: HCIFactClasses = []

    public init(settings: RuleSettings) {}

    public static let readsATTOrSMP = true

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        f.aclPackets == 0 && !f.hasAPITrace ? "the input holds no ACL data (no ATT traffic) and no API trace" : nil
    }

    public mutating func observe(_ e: TimelineEvent, _ sink: FindingSink) {
        guard case .write(let op, let variant) = e.kind, op.sent else { return }
        let what: String
        let needed: UInt8
        let neededName: String
        switch variant {
        case .request: (what, needed, neededName) = ("Write Request", GATTCharacteristicProperty.write, "Write")
        case .prepare: (what, needed, neededName) = ("Prepare Write Request", GATTCharacteristicProperty.write, "Write")
        case .command:
            (what, needed, neededName) = (
                "Write Command", GATTCharacteristicProperty.writeWithoutResponse, "Write Without Response"
            )
        case .signed:
            (what, needed, neededName) = (
                "Signed Write Command", GATTCharacteristicProperty.authenticatedSignedWrites,
                "Authenticated Signed Writes"
            )
        case .execute: return
        }
        // A subscription value aimed at a handle that is not a CCCD is one mistake, reported
        // once, by read-or-notify-without-property.
        if ReadOrNotifyWithoutProperty.misdirectedSubscription(
            op, variant, value: e.value, truncated: e.valueTruncated) != nil
        {
            return
        }
        var reasons: [String] = []
        if let a = op.attribute {
            switch a.role {
            case .value:
                if let p = a.properties, p & needed == 0 {
                    reasons.append("its properties are \(Describe.properties(p)), without \(neededName)")
                }
            case .characteristicDeclaration:
                reasons.append("the handle is a characteristic declaration, not a value or descriptor")
            case .service, .include:
                reasons.append("the handle is a service or include declaration, not a value or descriptor")
            case .descriptor:
                break
            }
        }
        let (refusal, related) = Describe.answer(e.outcome, refusals: Self.refusals)
        if let refusal { reasons.append(refusal) }
        if reasons.isEmpty {
            if op.attribute == nil {
                sink.notEvaluable(
                    "writes to handle \(Describe.handle(op.handle)): its properties were never discovered")
            }
            return
        }
        sink.report(
            "\(what) to \(Describe.attribute(op)): " + reasons.joined(separator: "; "), event: e,
            handle: op.handle, related: related)
    }

    /// Exact from an API trace: the write type against the characteristic's properties at call
    /// time. Core Bluetooth drops a `.withoutResponse` write the characteristic does not allow
    /// (with a console warning) and sends a `.withResponse` one that the server then refuses.
    public mutating func observe(_ call: APICall, _ sink: FindingSink) {
        guard case .writeValue(let h, _, let withResponse, let props?, _, _) = call.kind else { return }
        let needed: UInt8 =
            withResponse ? GATTCharacteristicProperty.write : GATTCharacteristicProperty.writeWithoutResponse
        guard props & needed == 0 else { return }
        var message =
            "writeValue(type: \(withResponse ? ".withResponse" : ".withoutResponse")) to \(call.target(handle: h)) whose properties are \(Describe.properties(props)), without \(withResponse ? "Write" : "Write Without Response")"
        if case .dropped = call.disposition { message += ": Core Bluetooth dropped it" }
        sink.report(
            message, connection: nil, peer: call.peer, handle: h, time: call.time, frames: [call.sequence],
            evidence: .api)
    }
}
