/// A Bluetooth UUID: 16-, 32- or 128-bit on the wire, always comparable as 128 bits.
///
/// Core Vol 3 Part B 2.5.1: a 16- or 32-bit UUID is shorthand for
/// `xxxxxxxx-0000-1000-8000-00805F9B34FB` (the Bluetooth Base UUID). Two UUIDs are equal when
/// their 128-bit values are, whatever width they were written with.
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible {
    /// The 128-bit value, most significant half first.
    public let high: UInt64
    public let low: UInt64
    /// Bytes used on the wire (2, 4 or 16).
    public let width: UInt8

    public static let baseHighLow32: UInt64 = 0x0000_1000
    public static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    @inlinable public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
        self.width = 16
    }

    public init(uuid16: UInt16) { self.init(uuid32: UInt32(uuid16), width: 2) }
    public init(uuid32: UInt32) { self.init(uuid32: uuid32, width: 4) }

    init(uuid32: UInt32, width: UInt8) {
        high = UInt64(uuid32) << 32 | BluetoothUUID.baseHighLow32
        low = BluetoothUUID.baseLow
        self.width = width
    }

    /// Reads a little-endian UUID of exactly `view.count` bytes (2, 4 or 16), as ATT, SMP and
    /// advertising data carry them.
    public init?(littleEndian view: ByteView) {
        switch view.count {
        case 2: self.init(uuid16: view.u16le(0)!)
        case 4: self.init(uuid32: view.u32le(0)!)
        case 16: self.init(high: view.u64le(8)!, low: view.u64le(0)!)
        default: return nil
        }
    }

    /// Accepts "180D", "0x180D", "0000180D" and "0000180D-0000-1000-8000-00805F9B34FB".
    public init?(_ text: String) {
        var t = Substring(text)
        if t.hasPrefix("0x") || t.hasPrefix("0X") { t = t.dropFirst(2) }
        let hex = t.filter { $0 != "-" }
        switch hex.count {
        case 4:
            guard let v = UInt16(hex, radix: 16) else { return nil }
            self.init(uuid16: v)
        case 8:
            guard let v = UInt32(hex, radix: 16) else { return nil }
            self.init(uuid32: v)
        case 32:
            guard let h = UInt64(hex.prefix(16), radix: 16), let l = UInt64(hex.suffix(16), radix: 16) else {
                return nil
            }
            self.init(high: h, low: l)
        default: return nil
        }
    }

    /// Whether the value lies in the Bluetooth Base UUID range.
    @inlinable public var isBased: Bool {
        low == BluetoothUUID.baseLow && high & 0xFFFF_FFFF == BluetoothUUID.baseHighLow32
    }

    /// The 16-bit alias, if this UUID has one (SIG-assigned services, characteristics, descriptors).
    @inlinable public var uuid16: UInt16? {
        guard isBased, high >> 48 == 0 else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    @inlinable public var uuid32: UInt32? {
        guard isBased else { return nil }
        return UInt32(truncatingIfNeeded: high >> 32)
    }

    /// Core Bluetooth's style: "180D" for 16-bit, "0000180D" is never shown, 128-bit in full
    /// uppercase 8-4-4-4-12.
    public var description: String {
        if let v = uuid16 { return String(Hex.string(UInt64(v), digits: 4).dropFirst(2)) }
        if width == 4, let v = uuid32 { return String(Hex.string(UInt64(v), digits: 8).dropFirst(2)) }
        let h = String(Hex.string(high, digits: 16).dropFirst(2))
        let l = String(Hex.string(low, digits: 16).dropFirst(2))
        let a = Array(h + l)
        return String(a[0..<8]) + "-" + String(a[8..<12]) + "-" + String(a[12..<16]) + "-"
            + String(a[16..<20]) + "-" + String(a[20..<32])
    }

    public static func == (a: BluetoothUUID, b: BluetoothUUID) -> Bool { a.high == b.high && a.low == b.low }
    public func hash(into h: inout Hasher) {
        h.combine(high)
        h.combine(low)
    }
}
