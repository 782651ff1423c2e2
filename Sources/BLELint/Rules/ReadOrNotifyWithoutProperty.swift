import BLEPackets
import BLETimeline

/// BLE007: a read or a subscription the characteristic does not offer.
///
/// The Characteristic Properties (Core 5.4 Vol 3 Part G 3.3.1.1) say whether a value may be
/// read (Read, 0x02) and whether the server will notify (0x10) or indicate (0x20) it; only a
/// characteristic with Notify or Indicate has a Client Characteristic Configuration
/// descriptor (3.3.3.3), and only a CCCD turns notifications on. Core Bluetooth expects the app
/// to check `characteristic.properties` before `readValue(for:)` and `setNotifyValue(_:for:)`
/// (which finds and writes the CCCD itself); a stack that writes "01 00" to a guessed handle
/// (typically value handle + 1) writes whatever attribute happens to live there.
public struct ReadOrNotifyWithoutProperty: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE007", slug: "read-or-notify-without-property",
        title: "Read or subscription the characteristic does not offer",
        defaultSeverity: .warning,
        summary: """
            This host read a characteristic value whose properties lack Read (or the server refused the \
            read with Read Not Permitted); enabled notifications or indications through a CCCD whose \
            characteristic lacks Notify or Indicate; or wrote a subscription value (01 00, 02 00, 03 00) to a \
            handle that is not a CCCD and would not take that value as an ordinary write: a service or \
            characteristic declaration, or a value without the write property used. That last case is a \
            subscription aimed at a guessed handle; this rule reports it and unchecked-write does not, so \
            one write gives one finding. Handles whose properties were never discovered (on this connection \
            or an earlier one of the same peer) are reported as not evaluable.
            """,
        enforces: [
            "Read a value only when its characteristic has the Read property.",
            "Subscribe only to a characteristic with Notify or Indicate, through `setNotifyValue(_:for:)`; never write a subscription value to a handle yourself.",
        ],
        references: [
            .apple("CBCharacteristic.properties"),
            .apple("CBPeripheral.readValue(for:)"),
            .apple("CBPeripheral.setNotifyValue(_:for:)"),
            .android("BluetoothGattCharacteristic.getProperties()"),
            .android("BluetoothGatt.readCharacteristic(BluetoothGattCharacteristic)"),
            .android("BluetoothGatt.setCharacteristicNotification(BluetoothGattCharacteristic, boolean)"),
            .android("BluetoothGatt.writeDescriptor(BluetoothGattDescriptor, byte[])"),
            .spec("Vol 3 Part G 3.3.1.1", "Characteristic Properties"),
            .spec("Vol 3 Part G 3.3.3.3", "Client Characteristic Configuration"),
            .spec("Vol 3 Part F 3.4.1.1", "Read Not Permitted"),
        ],
        evidence: [.hci],
        fix: """
            for characteristic in service.characteristics ?? [] {
                if characteristic.properties.contains(.read) {
                    peripheral.readValue(for: characteristic)
                }
                if !characteristic.properties.isDisjoint(with: [.notify, .indicate]) {
                    // Core Bluetooth finds the CCCD and writes it; never write 01 00 to a handle yourself.
                    peripheral.setNotifyValue(true, for: characteristic)
                }
            }
            """,
        android: PlatformAdvice(
            enforces: [
                "Read a value only when its characteristic has `PROPERTY_READ` (`BluetoothGattCharacteristic.getProperties()`).",
                "Subscribe only to a characteristic with `PROPERTY_NOTIFY` or `PROPERTY_INDICATE`, through `setCharacteristicNotification` and a write of its Client Characteristic Configuration descriptor; never write a subscription value to another handle.",
            ],
            """
            On Android, read only a characteristic whose `getProperties()` has `PROPERTY_READ` \
            (`BluetoothGatt.readCharacteristic`, answered in `onCharacteristicRead`), and subscribe only to \
            one with `PROPERTY_NOTIFY` or `PROPERTY_INDICATE`: `BluetoothGatt.setCharacteristicNotification`, \
            then write the matching value to that characteristic's own CCCD (descriptor 0x2902) with \
            `writeDescriptor` — never a value to a handle guessed by number (Android's \
            `BluetoothGattCharacteristic` and `BluetoothGattDescriptor` references).
            """,
            fix: """
                val props = characteristic.properties
                if (props and BluetoothGattCharacteristic.PROPERTY_READ != 0) gatt.readCharacteristic(characteristic)
                val cccd = characteristic.getDescriptor(UUID.fromString("00002902-0000-1000-8000-00805f9b34fb"))
                val value = when {
                    props and BluetoothGattCharacteristic.PROPERTY_NOTIFY != 0 -> BluetoothGattDescriptor.ENABLE_NOTIFICATION_VALUE
                    props and BluetoothGattCharacteristic.PROPERTY_INDICATE != 0 -> BluetoothGattDescriptor.ENABLE_INDICATION_VALUE
                    else -> null
                }
                if (value != null && cccd != null) {
                    gatt.setCharacteristicNotification(characteristic, true)
                    gatt.writeDescriptor(cccd, value)  // one operation at a time: after onCharacteristicRead
                }
                """))

    static let read: UInt8 = GATTCharacteristicProperty.read
    static let notify: UInt8 = GATTCharacteristicProperty.notify
    static let indicate: UInt8 = GATTCharacteristicProperty.indicate
    /// ATT Read Not Permitted (Vol 3 Part F 3.4.1.1).
    static let readNotPermitted: UInt8 = ATTErrorCode.readNotPermitted

    public static let observedEvents: TimelineEventClasses = .gattRequests
    public static let observedFacts: HCIFactClasses = []

    public init(settings: RuleSettings) {}

    public static let readsATTOrSMP = true

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        f.aclPackets == 0 && !f.hasAPITrace ? "the input holds no ACL data (no ATT traffic) and no API trace" : nil
    }

    /// The Client Characteristic Configuration value of a write that looks like a subscription
    /// change (two bytes, bit 0 notifications, bit 1 indications; Vol 3 Part G 3.3.3.3) aimed at
    /// a known handle that is not a CCCD and would not accept the value as an ordinary write:
    /// a declaration, or a value without the property the write type needs. Nil otherwise.
    ///
    /// Shared with `UncheckedWrite`, which leaves these writes to this rule.
    public static func misdirectedSubscription(
        _ op: AttributeOperation, _ variant: WriteVariant,
        value: InlineBytes, truncated: Bool = false
    ) -> UInt16? {
        // A value the capture cut is the start of a longer write, not two bytes.
        guard !truncated, variant == .request || variant == .command, value.count == 2,
            let config = value.withView(GATTClientConfiguration.bits(of:)),
            (1...3).contains(config), let a = op.attribute, !a.isCCCD
        else { return nil }
        switch a.role {
        case .characteristicDeclaration, .service, .include:
            return config
        case .value:
            guard let p = a.properties else { return nil }
            return p
                & (variant == .request
                    ? GATTCharacteristicProperty.write : GATTCharacteristicProperty.writeWithoutResponse) == 0
                ? config : nil
        case .descriptor:
            // Other descriptors may legitimately hold two bytes (Server Characteristic
            // Configuration 0x2903 uses the same encoding); not a guessed CCCD.
            return nil
        }
    }

    static func configurationName(_ c: UInt16) -> String {
        switch c & 0x3 {
        case 1: "notifications"
        case 2: "indications"
        default: "notifications and indications"
        }
    }

    static func answer(_ o: Outcome) -> String? {
        switch o {
        case .success: "the server accepted it"
        case .error(_, _, let code, _): "the server answered \(Describe.attError(code))"
        default: nil
        }
    }

    public mutating func observe(_ e: TimelineEvent, _ sink: FindingSink) {
        switch e.kind {
        case .read(let op, let variant) where op.sent:
            checkRead(e, op, variant, sink)
        case .subscribe(let op, let config) where op.sent && config != 0:
            checkSubscription(e, op, config, sink)
        case .write(let op, let variant) where op.sent:
            checkGuessedCCCD(e, op, variant, sink)
        default:
            break
        }
    }

    mutating func checkRead(_ e: TimelineEvent, _ op: AttributeOperation, _ variant: ReadVariant, _ sink: FindingSink) {
        let what: String
        switch variant {
        case .read: what = "Read Request"
        case .blob: what = "Read Blob Request"
        case .multiple: what = "Read Multiple Request"
        case .multipleVariable: what = "Read Multiple Variable Request"
        case .byType: return  // names a type, not a handle: nothing to check against
        }
        var reasons: [String] = []
        if let a = op.attribute, a.role == .value, let p = a.properties, p & Self.read == 0 {
            reasons.append("its properties are \(Describe.properties(p)), without Read")
        }
        let (refusal, related) = Describe.answer(e.outcome, refusals: [Self.readNotPermitted])
        if let refusal { reasons.append(refusal) }
        if reasons.isEmpty {
            if op.attribute == nil {
                sink.notEvaluable("reads handle \(Describe.handle(op.handle)): its properties were never discovered")
            }
            return
        }
        sink.report(
            "\(what) of \(Describe.attribute(op)): " + reasons.joined(separator: "; "), event: e,
            handle: op.handle, related: related)
    }

    mutating func checkSubscription(_ e: TimelineEvent, _ op: AttributeOperation, _ config: UInt16, _ sink: FindingSink)
    {
        guard let p = op.attribute?.characteristicProperties else {
            sink.notEvaluable(
                "CCCD \(Describe.handle(op.handle)): the properties of its characteristic were never discovered")
            return
        }
        var missing: [String] = []
        if config & 0x1 != 0, p & Self.notify == 0 { missing.append("Notify") }
        if config & 0x2 != 0, p & Self.indicate == 0 { missing.append("Indicate") }
        guard !missing.isEmpty else { return }
        let value = op.attribute?.characteristicValueHandle.map { " (value \(Describe.handle($0)))" } ?? ""
        var message =
            "CCCD write enabling \(Self.configurationName(config)) on \(Describe.attribute(op)), but the characteristic\(value) "
            + "has properties \(Describe.properties(p)), without \(missing.joined(separator: " or "))"
        if let a = Self.answer(e.outcome) { message += "; \(a)" }
        sink.report(message, event: e, handle: op.handle, related: e.outcome.responseFrame.map { [$0] } ?? [])
    }

    mutating func checkGuessedCCCD(
        _ e: TimelineEvent, _ op: AttributeOperation, _ variant: WriteVariant, _ sink: FindingSink
    ) {
        guard let config = Self.misdirectedSubscription(op, variant, value: e.value, truncated: e.valueTruncated),
            let a = op.attribute
        else {
            if op.attribute == nil, !e.valueTruncated, variant == .request || variant == .command, e.value.count == 2,
                let c = e.value.withView(GATTClientConfiguration.bits(of:)), (1...3).contains(c)
            {
                sink.notEvaluable(
                    "a subscription-like write (\(Self.hexValue(c))) to handle \(Describe.handle(op.handle)), which was never discovered"
                )
            }
            return
        }
        let what = variant == .request ? "Write Request" : "Write Command"
        let target: String
        switch a.role {
        case .characteristicDeclaration: target = "it is a characteristic declaration"
        case .service: target = "it is a service declaration"
        case .include: target = "it is an include declaration"
        case .value:
            target = "it is a characteristic value with properties \(Describe.properties(a.properties ?? 0))"
        case .descriptor: target = "it is a descriptor"
        }
        var message =
            "\(what) of \(Self.hexValue(config)) (enable \(Self.configurationName(config))) to \(Describe.attribute(op)), "
            + "which is not a CCCD: \(target)"
        if let answer = Self.answer(e.outcome) { message += "; \(answer)" }
        sink.report(message, event: e, handle: op.handle, related: e.outcome.responseFrame.map { [$0] } ?? [])
    }

    /// "01 00": the little-endian bytes as written.
    static func hexValue(_ c: UInt16) -> String {
        Describe.hex(c & 0xFF, 2) + " " + Describe.hex(c >> 8, 2)
    }
}
