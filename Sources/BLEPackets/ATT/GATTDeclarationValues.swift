import BLEBytes

/// The value of a characteristic declaration (Core 5.4 Vol 3 Part G 3.3.1): Characteristic
/// Properties (1), Characteristic Value Handle (2), Characteristic UUID (2 or 16). Decodes
/// when the properties and the value handle are there; the UUID's bytes are kept as they are.
public struct GATTCharacteristicDeclarationValue: ByteEncodable, @unchecked Sendable {
    public let properties: UInt8
    public let valueHandle: UInt16
    public let uuidBytes: ByteView

    public init(properties: UInt8, valueHandle: UInt16, uuidBytes: ByteView) {
        (self.properties, self.valueHandle, self.uuidBytes) = (properties, valueHandle, uuidBytes)
    }

    public init?(_ value: ByteView) {
        guard let p = value.u8(0), let h = value.u16le(1) else { return nil }
        (properties, valueHandle, uuidBytes) = (p, h, value.suffix(from: 3)!)
    }

    /// The characteristic's UUID, nil unless its bytes are 2, 4 or 16 long.
    public var uuid: BluetoothUUID? { BluetoothUUID(littleEndian: uuidBytes) }

    /// Properties, value handle and UUID of a declaration value kept as an array; nil unless
    /// it decodes with a UUID.
    public static func fields(in value: [UInt8]) -> (properties: UInt8, valueHandle: UInt16, uuid: BluetoothUUID)? {
        value.withByteView { v in Self(v).flatMap { d in d.uuid.map { (d.properties, d.valueHandle, $0) } } }
    }

    /// The value handle a declaration value kept as an array names (replay keeps values as
    /// arrays), nil when it is too short for one.
    public static func valueHandle(in value: [UInt8]) -> UInt16? { value.withByteView { Self($0)?.valueHandle } }

    public func append(to w: inout ByteWriter) {
        w.appendUInt8(properties)
        w.appendUInt16LE(valueHandle)
        w.appendBytes(uuidBytes)
    }
}

/// The value of an include declaration (Vol 3 Part G 3.2): Included Service Attribute Handle
/// (2), End Group Handle (2), Service UUID (2, only for 16-bit UUIDs). Decodes when the
/// included service's handle is there; the rest is kept as it is.
public struct GATTIncludeDeclarationValue: ByteEncodable, @unchecked Sendable {
    public let includedServiceHandle: UInt16
    /// End Group Handle and Service UUID, as the value holds them.
    public let rest: ByteView

    public init(includedServiceHandle: UInt16, rest: ByteView) {
        (self.includedServiceHandle, self.rest) = (includedServiceHandle, rest)
    }

    public init?(_ value: ByteView) {
        guard let h = value.u16le(0) else { return nil }
        (includedServiceHandle, rest) = (h, value.suffix(from: 2)!)
    }

    /// End Group Handle, nil when the value ends before it.
    public var endGroupHandle: UInt16? { rest.u16le(0) }

    /// The included service's 16-bit UUID, nil when the value ends before it (a 128-bit
    /// service's UUID is not in the declaration).
    public var serviceUUID16: UInt16? { rest.u16le(2) }

    /// The included service's handle in a declaration value kept as an array.
    public static func includedServiceHandle(in value: [UInt8]) -> UInt16? {
        value.withByteView { Self($0)?.includedServiceHandle }
    }

    public func append(to w: inout ByteWriter) {
        w.appendUInt16LE(includedServiceHandle)
        w.appendBytes(rest)
    }
}

extension GATTClientConfiguration {
    /// The configuration bits a Client Characteristic Configuration value holds (Vol 3 Part G
    /// 3.3.3.3: two octets, little-endian), nil when it is shorter.
    @inlinable public static func bits(of value: ByteView) -> UInt16? { value.u16le(0) }

    /// The configuration bits of a value written to a Client Characteristic Configuration
    /// descriptor, nil unless it is exactly the two octets it holds (a server answers any
    /// other length with Invalid Attribute Value Length).
    public static func bits(ofWritten value: [UInt8]) -> UInt16? {
        value.count == 2 ? value.withByteView(bits(of:)) : nil
    }
}
