/// The platform whose Bluetooth stack and app API produced a capture: findings name its API in
/// their advice (Core Bluetooth on Apple's, `android.bluetooth` on Android).
public enum Platform: String, Sendable, Codable, CaseIterable {
    case android
    /// iOS, iPadOS, macOS: Core Bluetooth (PacketLogger captures, simulator API traces).
    case apple
    /// Linux with BlueZ (Linux monitor captures: btmon).
    case linux
    case unknown

    public var label: String {
        switch self {
        case .android: "Android"
        case .apple: "iOS/macOS (Core Bluetooth)"
        case .linux: "Linux (BlueZ)"
        case .unknown: "unknown"
        }
    }

    /// `--platform ios|android|linux|auto` (nil for `auto`).
    public init?(option: String) {
        switch option.lowercased() {
        case "ios", "ipados", "macos", "apple": self = .apple
        case "android": self = .android
        case "linux", "bluez": self = .linux
        default: return nil
        }
    }
}
