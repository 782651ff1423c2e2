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
    /// The live app-facing object, if any (cleared by `CBPeripheral.deinit`).
    var object: CBPeripheral? {
        get { hot.object }
        set { hot.object = newValue }
    }
    /// Bumped for each new object: attributes remember the one they belong to (`CBService.peripheral`).
    var objectGeneration: Int {
        get { hot.objectGeneration }
        set { hot.objectGeneration = newValue }
    }
    /// An object was handed to the app and not yet seen released.
    var handedOut: Bool {
        get { hot.handedOut }
        set { hot.handedOut = newValue }
    }
    var state: CBPeripheralState {
        get { hot.state }
        set { hot.state = newValue }
    }
    var link: SimulatedLink? {
        get { hot.link }
        set { hot.link = newValue }
    }
    var autoReconnect: Bool {
        get { hot.autoReconnect }
        set { hot.autoReconnect = newValue }
    }
    /// Bumped whenever a pending connection attempt is cancelled, so stale scheduled
    /// completions do nothing.
    var connectGeneration: Int {
        get { hot.connectGeneration }
        set { hot.connectGeneration = newValue }
    }
    /// Trace index of the `connect` call whose `retained` flag is still to be decided.
    var unresolvedConnectCall: Int? {
        get { hot.unresolvedConnectCall }
        set { hot.unresolvedConnectCall = newValue }
    }
    /// Reported once in the current scan (duplicate filtering).
    var seenInScan: Bool {
        get { hot.seenInScan }
        set { hot.seenInScan = newValue }
    }

    /// The entry's mutable state under one exclusivity exemption, unchecked for the reason
    /// `SimulatedWorld.hot` states (the entry belongs to its world's thread; no access spans a
    /// call). Read and written on every notification, connection event and scan report.
    @exclusivity(unchecked) private var hot = HotState()
    private struct HotState {
        unowned(unsafe) var object: CBPeripheral?
        var objectGeneration = 0
        var handedOut = false
        var state: CBPeripheralState = .disconnected
        var link: SimulatedLink?
        var autoReconnect = false
        var connectGeneration = 0
        var unresolvedConnectCall: Int?
        var seenInScan = false
    }

    init(device: SimulatedPeripheral) { self.device = device }
}
