import Foundation

/// `CBMutableService`: a service the app publishes with `CBPeripheralManager.add(_:)`.
///
/// A `CBService` (so `peripheralManager(_:didAdd:error:)` receives it as Core Bluetooth's
/// does) whose characteristics and included services the app sets. Its `handle` is 0: the
/// handles the simulated server assigns live in the manager, as Core Bluetooth keeps them
/// private too.
public final class CBMutableService: CBService {
    public init(type: CBUUID, primary: Bool) {
        super.init(uuid: type, isPrimary: primary, handle: 0, endHandle: 0, peripheral: nil)
    }

    override public var characteristics: [CBCharacteristic]? {
        get { super.characteristics }
        set { super.characteristics = newValue }
    }

    override public var includedServices: [CBService]? {
        get { super.includedServices }
        set { super.includedServices = newValue }
    }
}

/// `CBMutableCharacteristic`: a characteristic of a published service.
///
/// Core Bluetooth's two kinds (and the simulator's):
/// - **static**: created with a non-nil `value`. Core Bluetooth caches the value and answers
///   reads itself, without `didReceiveRead`; such a characteristic must be read-only
///   (properties `.read` only), or `add(_:)` refuses the service.
/// - **dynamic**: created with `value: nil`. Every read and write reaches the delegate
///   (`didReceiveRead` / `didReceiveWrite`), which must answer each request once with
///   `respond(to:withResult:)` (Apple's `CBPeripheralManager.respond(to:withResult:)`).
public final class CBMutableCharacteristic: CBCharacteristic {
    /// What the server enforces (readable, writeable, encryption required).
    public var permissions: CBAttributePermissions
    /// Centrals that enabled notifications or indications in this characteristic's CCCD; nil
    /// until the first subscription, as in Core Bluetooth.
    public internal(set) var subscribedCentrals: [CBCentral]?
    /// The value given at creation decides static versus dynamic once and for all.
    let cachedValue: Data?
    /// The definition the simulated GATT server serves while the service is published.
    var published: SimulatedCharacteristic?

    public init(
        type: CBUUID, properties: CBCharacteristicProperties, value: Data?,
        permissions: CBAttributePermissions
    ) {
        self.permissions = permissions
        cachedValue = value
        super.init(uuid: type, properties: properties, valueHandle: 0, service: nil)
        super.value = value
    }

    override public var value: Data? {
        get { super.value }
        set { super.value = newValue }
    }

    override public var descriptors: [CBDescriptor]? {
        get { super.descriptors }
        set { super.descriptors = newValue }
    }

    /// Static: Core Bluetooth answers reads from the cached value.
    public var isStatic: Bool { cachedValue != nil }
}
