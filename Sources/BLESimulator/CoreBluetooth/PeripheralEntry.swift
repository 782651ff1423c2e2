import Foundation

/// What a central manager knows about one simulated device. The manager never holds the
/// app-facing `CBPeripheral` strongly: Core Bluetooth does not retain discovered peripherals
/// (docs/rules/peripheral-not-retained.md), so a release is noticed after the
/// run-loop turn in which the app let go.
///
/// `object` is an unretained reference that the object clears itself in its `deinit`, not a
/// `weak` one: the same semantics (nil from the moment the app's last reference goes), but a
/// weak reference would move the peripheral's reference counts to a side table, which makes
/// every retain and release of it (several per notification) a slow atomic path.
final class PeripheralEntry {
    let device: SimulatedPeripheral
    var identifier: UUID { device.identifier }
    /// The entry's mutable state under one exclusivity exemption, unchecked for the reason
    /// `SimulatedWorld.hot` states (the entry belongs to its world's thread; no access spans a
    /// call). Read and written on every notification, connection event and scan report.
    @exclusivity(unchecked) var hot = HotState()
    struct HotState {
        /// The live app-facing object, if any (cleared by `CBPeripheral.deinit`).
        unowned(unsafe) var object: CBPeripheral?
        /// Bumped for each new object: attributes remember the one they belong to (`CBService.peripheral`).
        var objectGeneration = 0
        /// An object was handed to the app and not yet seen released.
        var handedOut = false
        var state: CBPeripheralState = .disconnected
        var link: SimulatedLink?
        var autoReconnect = false
        /// Bumped whenever a pending connection attempt is cancelled, so stale scheduled
        /// completions do nothing.
        var connectGeneration = 0
        /// Trace index of the `connect` call whose `retained` flag is still to be decided.
        var unresolvedConnectCall: Int?
        /// Reported once in the current scan (duplicate filtering).
        var seenInScan = false
    }

    init(device: SimulatedPeripheral) { self.device = device }
}
