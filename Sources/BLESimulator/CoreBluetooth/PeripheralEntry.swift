import Foundation

/// What a central manager knows about one simulated device. The manager never holds the
/// app-facing `CBPeripheral` strongly: Core Bluetooth does not retain discovered peripherals
/// (000_*.txt "DON'T: Lose the peripheral reference"), so `object` is weak and a release is
/// noticed after the run-loop turn in which the app let go.
final class PeripheralEntry {
    let device: SimulatedPeripheral
    var identifier: UUID { device.identifier }
    weak var object: CBPeripheral?
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

    init(device: SimulatedPeripheral) { self.device = device }
}
