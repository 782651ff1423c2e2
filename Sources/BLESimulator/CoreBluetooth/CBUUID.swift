import BLEBytes
import Foundation

/// Core Bluetooth's UUID type over blecap's `BluetoothUUID`.
///
/// Accepts what `CBUUID(string:)` accepts: "180D" (16-bit), "0000180D" (32-bit) and the full
/// 128-bit form. A 16- or 32-bit UUID is shorthand inside the Bluetooth Base UUID (Core Vol 3
/// Part B 2.5.1), so `CBUUID(string: "180D") == CBUUID(string:
/// "0000180D-0000-1000-8000-00805F9B34FB")`, as in Core Bluetooth. `uuidString` follows Core
/// Bluetooth's style (the shortest form for based UUIDs, upper case).
///
/// A value type rather than Core Bluetooth's class: equality and hashing are all the ported code
/// relies on.
public struct CBUUID: Hashable, Sendable, CustomStringConvertible {
    public let bluetoothUUID: BluetoothUUID

    public init(_ uuid: BluetoothUUID) { bluetoothUUID = uuid }

    /// Like Core Bluetooth, an invalid string is a programming error (Core Bluetooth raises an
    /// Objective-C exception); use `init?(validating:)` for text that comes from outside.
    public init(string: String) {
        guard let u = BluetoothUUID(string) else {
            preconditionFailure("CBUUID(string:): \"\(string)\" is not a 16-, 32- or 128-bit UUID")
        }
        bluetoothUUID = u
    }

    public init?(validating string: String) {
        guard let u = BluetoothUUID(string) else { return nil }
        bluetoothUUID = u
    }

    /// 2, 4 or 16 bytes, most significant first (Core Bluetooth's `CBUUID(data:)` byte order).
    public init?(data: Data) {
        let b = [UInt8](data)
        switch b.count {
        case 2: bluetoothUUID = BluetoothUUID(uuid16: UInt16(b[0]) << 8 | UInt16(b[1]))
        case 4: bluetoothUUID = BluetoothUUID(uuid32: b.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        case 16:
            let h = b[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let l = b[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            bluetoothUUID = BluetoothUUID(high: h, low: l)
        default: return nil
        }
    }

    public init(nsuuid: UUID) {
        let t = nsuuid.uuid
        let b = [t.0, t.1, t.2, t.3, t.4, t.5, t.6, t.7, t.8, t.9, t.10, t.11, t.12, t.13, t.14, t.15]
        let h = b[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let l = b[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        bluetoothUUID = BluetoothUUID(high: h, low: l)
    }

    public var uuidString: String { bluetoothUUID.description }
    public var description: String { uuidString }

    /// The 16-bit alias, when the UUID has one.
    public var uuid16: UInt16? { bluetoothUUID.uuid16 }

    /// The shortest big-endian form (Core Bluetooth's `data`).
    public var data: Data {
        if let v = bluetoothUUID.uuid16 { return Data([UInt8(v >> 8), UInt8(v & 0xFF)]) }
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for s in stride(from: 56, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: bluetoothUUID.high >> UInt64(s)))
        }
        for s in stride(from: 56, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: bluetoothUUID.low >> UInt64(s)))
        }
        return Data(out)
    }

    /// Little-endian wire bytes in the shortest form (ATT and AD structures).
    var wireBytes: [UInt8] {
        if let v = bluetoothUUID.uuid16 { return [UInt8(v & 0xFF), UInt8(v >> 8)] }
        return [UInt8](data).reversed()
    }
}

// MARK: - Core Bluetooth's UUID strings

/// Characteristic Extended Properties descriptor (Assigned Numbers 0x2900); value `NSNumber`.
public let CBUUIDCharacteristicExtendedPropertiesString = "2900"
/// Characteristic User Description descriptor (0x2901); value `String`.
public let CBUUIDCharacteristicUserDescriptionString = "2901"
/// Client Characteristic Configuration descriptor (0x2902); value `NSNumber`. Written only
/// through `setNotifyValue(_:for:)`.
public let CBUUIDClientCharacteristicConfigurationString = "2902"
/// Server Characteristic Configuration descriptor (0x2903); value `NSNumber`.
public let CBUUIDServerCharacteristicConfigurationString = "2903"
/// Characteristic Presentation Format descriptor (0x2904); value `Data`.
public let CBUUIDCharacteristicFormatString = "2904"
/// Characteristic Aggregate Format descriptor (0x2905); value `Data`.
public let CBUUIDCharacteristicAggregateFormatString = "2905"
/// Valid Range descriptor (0x2906); value `Data`.
public let CBUUIDCharacteristicValidRangeString = "2906"
/// Apple's characteristic that publishes an L2CAP PSM (a 128-bit vendor UUID, Apple's value).
public let CBUUIDL2CAPPSMCharacteristicString = "ABDD3056-28FA-441D-A470-55A75A52553A"
