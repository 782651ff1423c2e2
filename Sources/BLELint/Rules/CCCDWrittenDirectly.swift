import BLEBytes
import BLEPackets
import BLETimeline

/// BLE015: a subscription written straight into the CCCD instead of through the subscription
/// procedure.
///
/// Core Bluetooth subscribes with `setNotifyValue(_:for:)`, which writes the Client
/// Characteristic Configuration descriptor with a Write Request and reports the server's answer
/// in `peripheral(_:didUpdateNotificationStateFor:error:)` (Apple's documentation of
/// `CBPeripheral.setNotifyValue(_:for:)`); `writeValue(_:for:)` on the CCCD is refused (Apple's
/// documentation of
/// `CBPeripheral.writeValue(_:for:)`: use `setNotifyValue(_:for:)` instead). GATT writes a
/// descriptor with Write Characteristic Descriptors, i.e. a Write Request (Core 5.4 Vol 3 Part G
/// 4.12.3), so the client learns whether the server applied it.
///
/// - HCI: a CCCD value sent with a Write Command (or Signed Write Command). Nothing answers it:
///   the client cannot know whether notifications are on, and a server that only accepts
///   Write Requests on its CCCD ignores it silently. Whose: this host's app or its stack's
///   descriptor write (a Core Bluetooth app cannot produce it; on Android an app's descriptor
///   write went out this way).
/// - API trace: `writeValue(_:for:)` on a CCCD, refused as misuse `cccd_write`.
public struct CCCDWrittenDirectly: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE015", slug: "cccd-written-directly", title: "Subscription written to the CCCD directly",
        defaultSeverity: .warning,
        summary: """
            This host enabled or disabled notifications by writing the Client Characteristic \
            Configuration descriptor with a Write Command, which the server never answers (GATT \
            writes descriptors with a Write Request, Vol 3 Part G 4.12.3): the client cannot know \
            whether the subscription took effect. In an API trace: writeValue(_:for:) on a CCCD, \
            which Core Bluetooth refuses; setNotifyValue(_:for:) is the call that subscribes.
            """,
        enforces: [
            "Subscribe with `setNotifyValue(_:for:)` and learn the outcome in `peripheral(_:didUpdateNotificationStateFor:error:)`; never write the Client Characteristic Configuration descriptor yourself.",
            "Where an app writes that descriptor (Android), write it with a Write Request, which the peer answers.",
        ],
        references: [
            .apple("CBPeripheral.setNotifyValue(_:for:)"),
            .apple("CBPeripheralDelegate.peripheral(_:didUpdateNotificationStateFor:error:)"),
            .apple("CBPeripheral.writeValue(_:for:)"),
            .android("BluetoothGatt.setCharacteristicNotification(BluetoothGattCharacteristic, boolean)"),
            .android("BluetoothGatt.writeDescriptor(BluetoothGattDescriptor, byte[])"),
            .android("BluetoothGattCallback.onDescriptorWrite"),
            .android("BluetoothGattDescriptor.ENABLE_NOTIFICATION_VALUE"),
            .spec("Vol 3 Part G 4.12.3", "descriptors are written with a Write Request"),
            .spec("Vol 3 Part G 3.3.3.3", "Client Characteristic Configuration"),
        ],
        evidence: [.hci, .api],
        fix: """
            // Not: peripheral.writeValue(Data([0x01, 0x00]), for: cccd)
            peripheral.setNotifyValue(true, for: characteristic)

            func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic,
                            error: Error?) {
                guard error == nil, characteristic.isNotifying else { return }  // now subscribed
            }
            """,
        android: PlatformAdvice(
            enforces: [
                "Android's stack does not subscribe for the app: `setCharacteristicNotification` only routes the values locally, and the app writes the Client Characteristic Configuration descriptor itself with `writeDescriptor`.",
                "Write that descriptor with a Write Request (what `writeDescriptor` sends), which the peer answers in `onDescriptorWrite`.",
            ],
            """
            On Android the app writes the CCCD itself, and does it right with `BluetoothGatt.writeDescriptor` \
            (a Write Request, answered in `onDescriptorWrite`) after `setCharacteristicNotification`; a CCCD \
            value sent as a Write Command (for instance `writeCharacteristic` with `WRITE_TYPE_NO_RESPONSE` \
            aimed at the descriptor's handle) gets no answer (Android's `BluetoothGatt` and \
            `BluetoothGattDescriptor` references).
            """,
            fix: """
                gatt.setCharacteristicNotification(characteristic, true)
                val cccd = characteristic.getDescriptor(UUID.fromString("00002902-0000-1000-8000-00805f9b34fb"))
                gatt.writeDescriptor(cccd, BluetoothGattDescriptor.ENABLE_NOTIFICATION_VALUE)  // a Write Request

                override fun onDescriptorWrite(gatt: BluetoothGatt, d: BluetoothGattDescriptor, status: Int) {
                    if (status == BluetoothGatt.GATT_SUCCESS) { /* subscribed */ }
                }
                """))

    public static let observedEvents: TimelineEventClasses = .gattRequests
    public static let observedFacts: HCIFactClasses = []

    public init(settings: RuleSettings) {}

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        f.aclPackets == 0 && !f.hasAPITrace ? "the input holds no ACL data (no ATT traffic) and no API trace" : nil
    }

    public mutating func observe(_ e: TimelineEvent, _ sink: FindingSink) {
        guard case .subscribe(let op, let configuration) = e.kind, op.sent,
            op.opcode == ATTOpcode.writeCommand.rawValue || op.opcode == ATTOpcode.signedWriteCommand.rawValue
        else { return }
        let name =
            op.attribute.map { "\(Describe.handle(op.handle)) (\($0.displayName))" } ?? Describe.handle(op.handle)
        let what =
            configuration == 0
            ? "turned notifications and indications off"
            : "enabled \(ReadOrNotifyWithoutProperty.configurationName(configuration))"
        let advice =
            sink.platform == .android
            ? "an Android app writes the CCCD with BluetoothGatt.writeDescriptor, which sends a Write Request"
            : "a Core Bluetooth app subscribes with setNotifyValue(_:for:)"
        sink.report(
            "this host \(what) by writing \(name) with a Write Command: the server sends no answer, so the client cannot know whether the subscription took effect (GATT writes a CCCD with a Write Request); the app's or its stack's descriptor write — \(advice)",
            event: e, handle: op.handle)
    }

    public mutating func observe(_ call: APICall, _ sink: FindingSink) {
        guard call.disposition == .misuse(reason: "cccd_write") else { return }
        sink.report(
            "writeValue(_:for:) on the Client Characteristic Configuration descriptor: Core Bluetooth refuses it and nothing is written; subscribe with setNotifyValue(_:for:)",
            connection: nil, peer: call.peer, handle: nil, time: call.time, frames: [call.sequence], evidence: .api)
    }
}
