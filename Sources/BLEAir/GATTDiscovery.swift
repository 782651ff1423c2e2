import BLEBytes
import BLECodes
import BLEPackets

/// One attribute of a GATT server's table as discovery reads it (Core 5.4 Vol 3 Part G 3):
/// its handle and type, a declaration's value, a service's group end.
public protocol GATTTableAttribute {
    var handle: UInt16 { get }
    /// 0x2800/0x2801 service, 0x2802 include, 0x2803 characteristic declaration; for a value
    /// the characteristic's UUID; for a descriptor its type.
    var type: BluetoothUUID { get }
    /// A declaration's value (Vol 3 Part G 3.1–3.3); empty when discovery does not know it
    /// (values and descriptors, whose answers come from the server's backing).
    var value: [UInt8] { get }
    /// A service declaration's last handle of the group.
    var groupEnd: UInt16? { get }
}

/// A table attribute on its own (the simulator's declared table, laid out from its definitions).
public struct GATTAttribute: GATTTableAttribute, Sendable, Equatable {
    public var handle: UInt16
    public var type: BluetoothUUID
    public var value: [UInt8]
    public var groupEnd: UInt16?

    public init(handle: UInt16, type: BluetoothUUID, value: [UInt8] = [], groupEnd: UInt16? = nil) {
        (self.handle, self.type, self.value, self.groupEnd) = (handle, type, value, groupEnd)
    }
}

extension UInt16 {
    /// The two bytes, least significant first (as ATT carries handles).
    @inlinable public var littleEndianBytes: [UInt8] {
        [UInt8(truncatingIfNeeded: self), UInt8(truncatingIfNeeded: self >> 8)]
    }
}

extension BluetoothUUID {
    /// The UUID as ATT carries it: 2 octets for 16-bit UUIDs, otherwise 16, little-endian
    /// (Vol 3 Part F 3.2.1; 32-bit UUIDs are sent as 128-bit ones).
    public var attBytes: [UInt8] {
        if width == 2, let u = uuid16 { return u.littleEndianBytes }
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: low >> (8 * UInt64(i)))) }
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: high >> (8 * UInt64(i)))) }
        return out
    }
}

/// GATT discovery answered from an attribute table, the one implementation of the servers
/// that answer it by rule (Core 5.4 Vol 3 Part F 3.4.3–3.4.4): the replay engine's and the
/// virtual controller's `ReplayATTServer` over a capture's table, and the simulator's declared
/// table in its exports (`ATTSynthesis`). Attributes come in handle order. Each answer is the
/// response PDU, or nil when nothing in the range matches; the caller decides that error's
/// handle and checks the request (range, type) before it asks. `entryLimit(responseOpcode,
/// entrySize)` caps the entries of one response, a captured server's habit (`.max`: as many
/// as ATT_MTU allows).
public enum GATTDiscovery {
    public typealias EntryLimit = (ATTOpcode, Int) -> Int

    /// Find Information (3.4.3.1–2): handle–type pairs in the range, all of the first one's
    /// format (16-bit or 128-bit), as many as fit.
    public static func findInformation<Table: Collection>(
        _ table: Table, in r: ClosedRange<UInt16>, mtu: Int, entryLimit: EntryLimit = { _, _ in .max }
    ) -> [UInt8]? where Table.Element: GATTTableAttribute {
        let hits = table.filter { r.contains($0.handle) }
        guard let first = hits.first else { return nil }
        let limit = entryLimit(.findInformationResponse, first.type.width == 2 ? 4 : 18)
        return ATTFindInformationResponse.encoded(
            hits.lazy.map { (handle: $0.handle, uuid: $0.type.attBytes) }, mtu: mtu, maximumEntries: limit)
    }

    /// Find By Type Value (3.4.3.3–4): attributes of the 16-bit `type` whose value equals
    /// `value`, each with the end of its group (services) or its own handle.
    public static func findByTypeValue<Table: Collection>(
        _ table: Table, in r: ClosedRange<UInt16>, type: UInt16, value: [UInt8], mtu: Int,
        entryLimit: EntryLimit = { _, _ in .max }
    ) -> [UInt8]? where Table.Element: GATTTableAttribute {
        let limit = entryLimit(.findByTypeValueResponse, 4)
        let found = table.lazy.filter {
            r.contains($0.handle) && $0.type.width == 2 && $0.type.uuid16 == type && $0.value == value
        }.map { (handle: $0.handle, groupEnd: $0.groupEnd ?? $0.handle) }
        return ATTFindByTypeValueResponse.encoded(found, mtu: mtu, maximumEntries: limit)
    }

    /// Read By Type (3.4.4.1–2) of declarations (include, characteristic): handle–value pairs
    /// of the first one's length, each value at most ATT_MTU − 4 octets.
    public static func readByType<Table: Collection>(
        _ table: Table, in r: ClosedRange<UInt16>, type: BluetoothUUID, mtu: Int,
        entryLimit: EntryLimit = { _, _ in .max }
    ) -> [UInt8]? where Table.Element: GATTTableAttribute {
        list(.readByTypeResponse, table, in: r, type: type, mtu: mtu, maximumValue: 253, entryLimit: entryLimit) {
            $0.handle.littleEndianBytes
        }
    }

    /// Read By Group Type (3.4.4.9–10): services of the group type with their group end, all of
    /// the first one's length.
    public static func readByGroupType<Table: Collection>(
        _ table: Table, in r: ClosedRange<UInt16>, type: BluetoothUUID, mtu: Int,
        entryLimit: EntryLimit = { _, _ in .max }
    ) -> [UInt8]? where Table.Element: GATTTableAttribute {
        list(.readByGroupTypeResponse, table, in: r, type: type, mtu: mtu, maximumValue: 251, entryLimit: entryLimit) {
            $0.handle.littleEndianBytes + ($0.groupEnd ?? $0.handle).littleEndianBytes
        }
    }

    /// A Read By Type or Read By Group Type response: a length octet, then entries of the
    /// attributes of `type` in the range, each its `header` and value, all of the first one's
    /// value length (cut to fit: ATT_MTU − 2 − header, at most `maximumValue`), as many as
    /// ATT_MTU and `entryLimit` allow.
    static func list<Table: Collection>(
        _ opcode: ATTOpcode, _ table: Table, in r: ClosedRange<UInt16>, type: BluetoothUUID, mtu: Int,
        maximumValue: Int, entryLimit: EntryLimit, header: (Table.Element) -> [UInt8]
    ) -> [UInt8]? where Table.Element: GATTTableAttribute {
        // A declaration only Find Information named has no known value: it cannot be listed.
        let hits = table.filter { r.contains($0.handle) && $0.type == type && !$0.value.isEmpty }
        guard let first = hits.first else { return nil }
        let headerLength = header(first).count
        let length = Swift.min(first.value.count, mtu - 2 - headerLength, maximumValue)
        let limit = entryLimit(opcode, headerLength + length)
        let entries = hits.prefix { $0.value.count == first.value.count }.map { header($0) + $0.value.prefix(length) }
        return opcode == .readByGroupTypeResponse
            ? ATTReadByGroupTypeResponse.encoded(entries, mtu: mtu, maximumEntries: limit)
            : ATTReadByTypeResponse.encoded(entries, mtu: mtu, maximumEntries: limit)
    }
}
