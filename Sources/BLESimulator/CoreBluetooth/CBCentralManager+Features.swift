import Foundation

extension CBCentralManager {
    /// `CBCentralManager.Feature` (iOS 13+).
    public struct Feature: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// Extended advertising scanning and connecting (Core Vol 6 Part B 2.3.1, LE Extended
        /// Create Connection).
        public static let extendedScanAndConnect = Feature(rawValue: 1 << 0)
    }

    /// Whether the platform supports `features`. The simulated central scans and connects with
    /// the legacy commands only (its radio records are LE Set Scan Parameters and LE Create
    /// Connection), so `extendedScanAndConnect` is unsupported, as on an iPhone before the XS.
    public class func supports(_ features: Feature) -> Bool { features.isEmpty }

    /// `registerForConnectionEvents(options:)` (iOS 13+): matching connections of other apps are
    /// to be reported in `centralManager(_:connectionEventDidOccur:for:)`.
    ///
    /// Deliberately a no-op (documented in docs/simulator.md): a simulated world has no other
    /// apps whose connections the system could report, and the manager's own connections are
    /// reported through `didConnect`/`didDisconnectPeripheral`. The delegate method is never
    /// called; the call is not recorded in the trace.
    public func registerForConnectionEvents(options: [CBConnectionEventMatchingOption: Any]? = nil) {}
}

/// `CBConnectionEvent`: raw values as Core Bluetooth's.
public enum CBConnectionEvent: Int, Sendable {
    case peerDisconnected = 0
    case peerConnected = 1
}

/// `CBConnectionEventMatchingOption`: the keys of `registerForConnectionEvents(options:)`.
public struct CBConnectionEventMatchingOption: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Match peripherals offering any of these services (`[CBUUID]`).
    public static let serviceUUIDs = Self(rawValue: "kCBConnectionEventMatchingOptionServiceUUIDs")
    /// Match these peripherals (`[UUID]`).
    public static let peripheralUUIDs = Self(rawValue: "kCBConnectionEventMatchingOptionPeripheralUUIDs")
}
