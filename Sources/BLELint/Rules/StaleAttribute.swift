import BLEBytes
import BLETimeline

/// BLE016: a service, characteristic or descriptor object used after the connection that
/// discovered it ended.
///
/// Core Bluetooth invalidates a peripheral's `services` (and every `CBCharacteristic` and
/// `CBDescriptor` under them) when the link goes down; after reconnecting, the app discovers
/// again in `centralManager(_:didConnect:)` and uses the new objects
/// (docs/rules/stale-attribute.md). An
/// app that keeps characteristic
/// objects across a reconnect and uses them gets "API MISUSE" and no callback: the read,
/// write or subscription never happens. Only an API trace shows this — on the air the handles
/// of a cached database look the same.
public struct StaleAttribute: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE016", slug: "stale-attribute", title: "Attribute from an earlier connection used",
        defaultSeverity: .error,
        summary: """
            The app called a CBPeripheral method with a service, characteristic or descriptor \
            object it had discovered on an earlier connection. After a disconnect those objects are \
            invalid: Core Bluetooth refuses the call ("API MISUSE") and calls no delegate method, so \
            the read, write or subscription silently never happens. Rediscover in didConnect and use \
            the new objects. Needs an API trace (the simulator records one): on the air a cached \
            database's handles are the same.
            """,
        enforces: [
            "After every connection, discover the services again and use only the objects discovered on that connection."
        ],
        references: [
            .apple("CBCentralManagerDelegate.centralManager(_:didConnect:)"),
            .apple("CBPeripheral.discoverServices(_:)"),
            .apple("CBPeripheralDelegate.peripheral(_:didDiscoverCharacteristicsFor:error:)"),
            .android("BluetoothGatt.close()"),
            .android("BluetoothDevice.connectGatt(Context, boolean, BluetoothGattCallback, int)"),
            .android("BluetoothGatt.discoverServices()"),
            .android("BluetoothGatt.getService(UUID)"),
            .android("BluetoothGattCallback.onServicesDiscovered"),
        ],
        evidence: [.api],
        fix: """
            func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
                controlPoint = nil  // the old CBCharacteristic died with the old connection
                peripheral.delegate = self
                peripheral.discoverServices([serviceUUID])
            }

            func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
                controlPoint = service.characteristics?.first { $0.uuid == controlPointUUID }
            }
            """,
        android: PlatformAdvice(
            """
            On Android the `BluetoothGattService` and `BluetoothGattCharacteristic` objects belong to the \
            `BluetoothGatt` that discovered them. After a disconnection, `close()` that `BluetoothGatt`, connect \
            again with `connectGatt`, call `discoverServices()` after reconnecting and take the objects from \
            the new `BluetoothGatt.getService` in `onServicesDiscovered`; operations on the old objects fail \
            (Android's `BluetoothGatt` reference).
            """,
            fix: """
                override fun onServicesDiscovered(gatt: BluetoothGatt, status: Int) {
                    // The objects of the previous BluetoothGatt are gone with it.
                    controlPoint = gatt.getService(serviceUuid)?.getCharacteristic(controlPointUuid)
                }
                """))

    public static let observedEvents: TimelineEventClasses = []
    public static let observedFacts: HCIFactClasses = []

    public init(settings: RuleSettings) {}

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        f.hasAPITrace
            ? nil
            : "needs an API trace: over the air an attribute of a cached database looks the same on every connection"
    }

    public mutating func observe(_ call: APICall, _ sink: FindingSink) {
        guard call.disposition == .misuse(reason: "foreign_attribute") else { return }
        let name: String
        switch call.kind {
        case .peripheralCommand(let n), .other(let n): name = n
        case .writeValue: name = "writeValue(_:for:)"
        case .discoverServices: name = "discoverServices(_:)"
        case .connect: name = "connect(_:options:)"
        default: name = "a CBPeripheral method"
        }
        let attribute = call.attribute.map { " (\($0))" } ?? ""
        sink.report(
            "\(name) named an attribute\(attribute) discovered on an earlier connection: Core Bluetooth refused it and nothing happened; rediscover after reconnecting and use the new objects",
            connection: nil, peer: call.peer, handle: nil, time: call.time, frames: [call.sequence], evidence: .api)
    }
}
