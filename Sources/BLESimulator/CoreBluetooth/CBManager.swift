import Foundation

/// `CBManager`: what Core Bluetooth's two managers share, the adapter's state and the app's
/// Bluetooth authorization. As on iOS, `CBCentralManager` and `CBPeripheralManager` are its
/// subclasses, so app code written against `CBManager` (a state check shared by both roles,
/// `CBManager.authorization` before creating any manager) compiles unchanged.
public class CBManager {
    /// `.unknown` until the first state update arrives (Apple, `CBManager.state`: "the initial
    /// state is unknown"; an app waits for `.poweredOn`).
    // `@exclusivity(unchecked)`: hot-path state, see `SimulatedWorld`.
    @exclusivity(unchecked) public internal(set) var state: CBManagerState = .unknown
    /// The world the manager lives in (not part of Core Bluetooth's API).
    public let world: SimulatedWorld

    init(world: SimulatedWorld) { self.world = world }

    /// The app's authorization as this manager's world grants it (Apple,
    /// `CBManager.authorization`, iOS 13.1+; `SimulatedWorld.setAuthorization(_:)`).
    public var authorization: CBManagerAuthorization { world.authorization }

    /// Apple's class property (iOS 13.1+), readable before any manager exists. The simulator
    /// answers for the world bound by `SimulatedWorld.withCurrent`, where app code that creates
    /// its managers runs; outside one there is no world to ask and the answer is
    /// `.allowedAlways`, a `SimulatedWorld.Configuration`'s default.
    public class var authorization: CBManagerAuthorization {
        SimulatedWorld.current?.authorization ?? .allowedAlways
    }
}

/// `CBPeer`: a remote device, the base of `CBPeripheral` (seen by a central) and `CBCentral`
/// (seen by a peripheral manager), as on iOS.
///
/// Equality and hashing are by object identity, as `NSObject`'s `isEqual:`/`hash` are for Core
/// Bluetooth's peers: `Set<CBPeripheral>`, `firstIndex(of:)` and `==` in ported code behave as
/// on iOS. The simulator, like Core Bluetooth, hands out one object per device while the app
/// holds it, so identity equality and identifier equality agree for retained objects.
public class CBPeer: Hashable {
    /// Stable for the device (Core Bluetooth: per device and per iOS install).
    public let identifier: UUID

    init(identifier: UUID) { self.identifier = identifier }

    public static func == (lhs: CBPeer, rhs: CBPeer) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
