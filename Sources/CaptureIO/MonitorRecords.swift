import BLEBytes

// Typed views of Linux monitor metadata records (btsnoop datalink 2001, pcap link type 254),
// laid out as BlueZ's `monitor/btsnoop.h` and `monitor/control.c` write them. They borrow the
// record payload: valid as long as it is.

/// A C string field: the bytes up to the first NUL (or all of them if there is none).
@inlinable func cString(_ v: ByteView) -> ByteView {
    var i = 0
    while let b = v.u8(i), b != 0 { i += 1 }
    return v.prefix(i)
}

/// New Index (opcode 0): a controller appeared. type u8 (0 primary, 1 AMP), bus u8,
/// BD_ADDR (6, little-endian), name (8, NUL-padded, e.g. "hci0").
public struct MonitorNewIndex: Sendable {
    public var type: UInt8
    public var bus: UInt8
    public var address: BDAddr
    public var name: ByteView

    public init?(_ payload: ByteView) {
        guard let type = payload.u8(0), let bus = payload.u8(1),
            let address = BDAddr(littleEndian: payload, at: 2), let name = payload.slice(8, 8)
        else { return nil }
        self.type = type
        self.bus = bus
        self.address = address
        self.name = cString(name)
    }
}

/// Index Info (opcode 10): BD_ADDR (6, little-endian), manufacturer u16 LE (company ID).
public struct MonitorIndexInfo: Sendable {
    public var address: BDAddr
    public var manufacturer: UInt16

    public init?(_ payload: ByteView) {
        guard let address = BDAddr(littleEndian: payload, at: 0), let m = payload.u16le(6) else { return nil }
        self.address = address
        manufacturer = m
    }
}

/// System Note (opcode 12): NUL-terminated text ("Linux version …").
public struct MonitorSystemNote: Sendable {
    public var text: ByteView
    public init(_ payload: ByteView) { text = cString(payload) }
}

/// User Logging (opcode 13): priority u8 (syslog level), ident length u8, ident (NUL-terminated,
/// e.g. "bluetoothd"), then the message (NUL-terminated or not).
public struct MonitorUserLogging: Sendable {
    public var priority: UInt8
    /// Up to the first NUL.
    public var ident: ByteView
    public var message: ByteView
    /// The ident's and the message's bytes as recorded (NULs and line ends included), for a
    /// reader that trims them its own way.
    public var recordedIdent: ByteView
    public var recordedMessage: ByteView

    public init?(_ payload: ByteView) {
        var r = ByteReader(payload)
        guard let priority = r.u8(), let identLength = r.u8(), let ident = r.bytes(Int(identLength)) else {
            return nil
        }
        self.priority = priority
        recordedIdent = ident
        recordedMessage = r.rest()
        self.ident = cString(ident)
        message = cString(recordedMessage)
    }
}

/// Control Open (opcode 14): a management socket was opened. cookie u32, format u16,
/// version u8, revision u16, flags u32 (all little-endian), ident length u8, ident.
public struct MonitorControlOpen: Sendable {
    public var cookie: UInt32
    /// 0x0002: management interface.
    public var format: UInt16
    public var version: UInt8
    public var revision: UInt16
    public var flags: UInt32
    /// The process that opened the socket ("bluetoothd", "btmon").
    public var ident: ByteView

    public init?(_ payload: ByteView) {
        var r = ByteReader(payload)
        guard let cookie = r.u32le(), let format = r.u16le(), let version = r.u8(),
            let revision = r.u16le(), let flags = r.u32le(), let identLength = r.u8(),
            let ident = r.bytes(Int(identLength))
        else { return nil }
        self.cookie = cookie
        self.format = format
        self.version = version
        self.revision = revision
        self.flags = flags
        self.ident = cString(ident)
    }
}
