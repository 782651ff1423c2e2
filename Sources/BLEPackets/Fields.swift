import BLEBytes

/// A decoded field's value. Names are `StaticString`s and byte runs are borrowed views, so
/// describing a packet allocates nothing until a writer turns it into text or JSON.
public enum FieldValue {
    /// Decimal number.
    case uint(UInt64)
    case int(Int64)
    /// Hex number printed with `digits` digits ("0x0011").
    case hex(UInt64, digits: Int)
    case bool(Bool)
    /// A code with its assigned name, if known ("0x13 Remote User Terminated Connection").
    case code(UInt64, digits: Int, name: StaticString?)
    /// A bit field with the names of the bits that are set (names from a table).
    case flags(UInt64, digits: Int, names: FlagNames)
    case address(BDAddr)
    case uuid(BluetoothUUID)
    /// Raw bytes (printed as hex).
    case bytes(ByteView)
    /// A 128-bit key (LTK) sent least significant octet first, printed as the number it is:
    /// most significant digit first, as the specification, crackle and blecap's own key lines
    /// (`ll.decryption`, lint, `--ltk`) write keys.
    case key128(ByteView)
    /// UTF-8 text from the packet (device names, notes). Invalid UTF-8 is escaped by writers.
    case text(ByteView)
    /// A fixed name from a table (e.g. "Active", "1M").
    case name(StaticString)
    /// A C string owned by a library with static lifetime (libbluetooth's company names).
    case cString(UnsafePointer<CChar>)
    /// A duration in microseconds (intervals, timeouts); writers show ms.
    case microseconds(Int64)
    /// Signed dBm (RSSI, TX power).
    case dBm(Int8)
}

/// Names of the bits of a flag field, least significant bit first; nil entries are reserved.
public struct FlagNames: Sendable {
    public let names: [StaticString?]
    public init(_ names: [StaticString?]) { self.names = names }
}

/// Receives the fields of a decoded packet, in order. Writers (text, JSON) implement it; tests
/// implement it to collect fields. A class so that table-driven decoders can pass it around
/// without copying or boxing.
public protocol FieldSink: AnyObject {
    func field(_ name: StaticString, _ value: FieldValue)
    /// Starts a nested group (one report of several, one attribute-data entry …).
    func begin(_ name: StaticString)
    func end()
    /// Something the decoder could not make sense of; the raw bytes stay available.
    func note(_ text: StaticString)
}
