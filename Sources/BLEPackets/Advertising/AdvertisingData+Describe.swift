import BLEBytes

extension AdvertisingData {
    /// Describes every AD structure in `data` into `sink`, keeping unknown and malformed
    /// structures as raw bytes with a note.
    ///
    /// Each structure becomes a group named after its AD type ("Flags", "Complete Local Name",
    /// "Unknown AD Type") holding `type` (code + name), `length`, then the typed fields. After
    /// the structures: `padding` for an early termination, or a "Malformed AD Structure"
    /// group with the raw tail when a length runs past the end.
    public static func describe(_ data: ByteView, into sink: FieldSink) {
        var it = AdvertisingData(data).makeIterator()
        while let s = it.next() {
            let entry = ADTypeTable.entries[Int(s.type.rawValue)]
            sink.begin(entry.name ?? "Unknown AD Type")
            sink.field("type", .code(UInt64(s.type.rawValue), digits: 2, name: entry.name))
            sink.field("length", .uint(UInt64(s.length)))
            entry.describe(s.data, sink)
            sink.end()
        }
        switch it.termination {
        case .earlyTermination(_, let padding)?:
            sink.field("padding", .bytes(padding))
            if padding.contains(where: { $0 != 0 }) {
                sink.note("non-zero octets after a zero AD length (early termination)")
            }
        case .truncated(_, let raw)?:
            sink.begin("Malformed AD Structure")
            sink.note("AD structure length runs past the end of the data")
            if let length = raw.u8(0) { sink.field("length", .uint(UInt64(length))) }
            if let type = raw.u8(1) {
                sink.field("type", .code(UInt64(type), digits: 2, name: ADTypeTable.entries[Int(type)].name))
            }
            sink.field("raw", .bytes(raw))
            sink.end()
        case .complete?, nil:
            break
        }
    }
}

/// AD type → name + decoder, indexed by the type octet (like btmon's eir table).
enum ADTypeTable {
    typealias Decoder = @Sendable (ByteView, FieldSink) -> Void

    struct Entry: Sendable {
        let name: StaticString?
        let describe: Decoder
    }

    static let entries: [Entry] = {
        var table = [Entry](repeating: Entry(name: nil, describe: ADDecoders.unknown), count: 256)
        for (code, name, decoder) in known {
            table[Int(code)] = Entry(name: name, describe: decoder)
        }
        return table
    }()

    // Names from Assigned Numbers 2.3 "Common Data Types".
    private static let known: [(UInt8, StaticString, Decoder)] = [
        (0x01, "Flags", ADDecoders.flags),
        (0x02, "Incomplete List of 16-bit Service UUIDs", ADDecoders.uuids(2)),
        (0x03, "Complete List of 16-bit Service UUIDs", ADDecoders.uuids(2)),
        (0x04, "Incomplete List of 32-bit Service UUIDs", ADDecoders.uuids(4)),
        (0x05, "Complete List of 32-bit Service UUIDs", ADDecoders.uuids(4)),
        (0x06, "Incomplete List of 128-bit Service UUIDs", ADDecoders.uuids(16)),
        (0x07, "Complete List of 128-bit Service UUIDs", ADDecoders.uuids(16)),
        (0x08, "Shortened Local Name", ADDecoders.text("name")),
        (0x09, "Complete Local Name", ADDecoders.text("name")),
        (0x0A, "Tx Power Level", ADDecoders.txPower),
        (0x0D, "Class of Device", ADDecoders.classOfDevice),
        (0x0E, "Simple Pairing Hash C-192", ADDecoders.fixed(16, "hash")),
        (0x0F, "Simple Pairing Randomizer R-192", ADDecoders.fixed(16, "randomizer")),
        (0x10, "Device ID / Security Manager TK Value", ADDecoders.raw("value")),
        (0x11, "Security Manager Out of Band Flags", ADDecoders.oobFlags),
        (0x12, "Peripheral Connection Interval Range", ADDecoders.connectionIntervalRange),
        (0x14, "List of 16-bit Service Solicitation UUIDs", ADDecoders.uuids(2)),
        (0x15, "List of 128-bit Service Solicitation UUIDs", ADDecoders.uuids(16)),
        (0x16, "Service Data - 16-bit UUID", ADDecoders.serviceData(2)),
        (0x17, "Public Target Address", ADDecoders.addresses),
        (0x18, "Random Target Address", ADDecoders.addresses),
        (0x19, "Appearance", ADDecoders.appearance),
        (0x1A, "Advertising Interval", ADDecoders.advertisingInterval),
        (0x1B, "LE Bluetooth Device Address", ADDecoders.leAddress),
        (0x1C, "LE Role", ADDecoders.leRole),
        (0x1D, "Simple Pairing Hash C-256", ADDecoders.fixed(16, "hash")),
        (0x1E, "Simple Pairing Randomizer R-256", ADDecoders.fixed(16, "randomizer")),
        (0x1F, "List of 32-bit Service Solicitation UUIDs", ADDecoders.uuids(4)),
        (0x20, "Service Data - 32-bit UUID", ADDecoders.serviceData(4)),
        (0x21, "Service Data - 128-bit UUID", ADDecoders.serviceData(16)),
        (0x22, "LE Secure Connections Confirmation Value", ADDecoders.fixed(16, "confirmation")),
        (0x23, "LE Secure Connections Random Value", ADDecoders.fixed(16, "random")),
        (0x24, "URI", ADDecoders.uri),
        (0x25, "Indoor Positioning", ADDecoders.raw("data")),
        (0x26, "Transport Discovery Data", ADDecoders.raw("data")),
        (0x27, "LE Supported Features", ADDecoders.raw("features")),
        (0x28, "Channel Map Update Indication", ADDecoders.channelMapUpdate),
        (0x29, "PB-ADV", ADDecoders.raw("data")),
        (0x2A, "Mesh Message", ADDecoders.raw("data")),
        (0x2B, "Mesh Beacon", ADDecoders.raw("data")),
        (0x2C, "BIGInfo", ADDecoders.raw("data")),
        (0x2D, "Broadcast_Code", ADDecoders.fixed(16, "code")),
        (0x2E, "Resolvable Set Identifier", ADDecoders.fixed(6, "rsi")),
        (0x2F, "Advertising Interval - long", ADDecoders.advertisingIntervalLong),
        (0x30, "Broadcast_Name", ADDecoders.text("name")),
        (0x31, "Encrypted Advertising Data", ADDecoders.raw("data")),
        (0x32, "Periodic Advertising Response Timing Information", ADDecoders.raw("data")),
        (0x34, "Electronic Shelf Label", ADDecoders.raw("data")),
        (0x3D, "3D Information Data", ADDecoders.raw("data")),
        (0xFF, "Manufacturer Specific Data", ADDecoders.manufacturerData),
    ]
}

/// Decoders for the AD data of each type. They receive only the structure's own data, so a
/// bad length inside one structure cannot disturb the next.
enum ADDecoders {
    typealias Decoder = ADTypeTable.Decoder

    static func badLength(_ data: ByteView, _ sink: FieldSink) {
        sink.note("AD data length is not valid for this type")
        sink.field("data", .bytes(data))
    }

    static let unknown: Decoder = { data, sink in
        sink.note("unknown AD type")
        sink.field("data", .bytes(data))
    }

    static func raw(_ name: StaticString) -> Decoder {
        { data, sink in sink.field(name, .bytes(data)) }
    }

    static func text(_ name: StaticString) -> Decoder {
        { data, sink in sink.field(name, .text(data)) }
    }

    static func fixed(_ count: Int, _ name: StaticString) -> Decoder {
        { data, sink in
            guard data.count == count else { return badLength(data, sink) }
            sink.field(name, .bytes(data))
        }
    }

    static let flags: Decoder = { data, sink in
        // Supplement Part A 1.3: zero octets means no flag set; octets after the first are
        // reserved but kept.
        sink.field("flags", .flags(UInt64(data.u8(0) ?? 0), digits: 2, names: ADFlags.names))
        if data.count > 1, let rest = data.suffix(from: 1) { sink.field("reserved", .bytes(rest)) }
    }

    static func uuids(_ width: Int) -> Decoder {
        { data, sink in
            let list = UUIDList(data, width: width)
            for uuid in list { sink.field("uuid", .uuid(uuid)) }
            let rest = list.remainder
            if !rest.isEmpty {
                sink.note("UUID list length is not a multiple of the UUID size")
                sink.field("trailing", .bytes(rest))
            }
        }
    }

    static let txPower: Decoder = { data, sink in
        guard data.count == 1, let dBm = data.i8(0) else { return badLength(data, sink) }
        sink.field("tx power", .dBm(dBm))
    }

    static let classOfDevice: Decoder = { data, sink in
        guard data.count == 3, let cod = data.u24le(0) else { return badLength(data, sink) }
        sink.field("class of device", .hex(UInt64(cod), digits: 6))
    }

    static let oobFlags: Decoder = { data, sink in
        guard data.count == 1, let v = data.u8(0) else { return badLength(data, sink) }
        sink.field("flags", .flags(UInt64(v), digits: 2, names: SecurityManagerOOBFlags.names))
    }

    static let connectionIntervalRange: Decoder = { data, sink in
        guard data.count == 4, let lo = data.u16le(0), let hi = data.u16le(2) else {
            return badLength(data, sink)
        }
        interval("interval min", lo, "No specific minimum", sink)
        interval("interval max", hi, "No specific maximum", sink)
    }

    private static func interval(_ name: StaticString, _ v: UInt16, _ unspecified: StaticString, _ sink: FieldSink) {
        if v == ConnectionIntervalRange.unspecified {
            sink.field(name, .code(UInt64(v), digits: 4, name: unspecified))
        } else {
            sink.field(name, .microseconds(Int64(v) * 1250))
        }
    }

    static func serviceData(_ width: Int) -> Decoder {
        { data, sink in
            guard let raw = data.slice(0, width), let uuid = BluetoothUUID(littleEndian: raw) else {
                return badLength(data, sink)
            }
            sink.field("uuid", .uuid(uuid))
            sink.field("data", .bytes(data.suffix(from: width) ?? .empty))
        }
    }

    static let addresses: Decoder = { data, sink in
        let list = AddressList(data)
        for a in list { sink.field("address", .address(a)) }
        let rest = list.remainder
        if !rest.isEmpty || data.isEmpty {
            sink.note("target address list length is not a multiple of 6")
            sink.field("trailing", .bytes(rest))
        }
    }

    static let appearance: Decoder = { data, sink in
        guard data.count == 2, let v = data.u16le(0) else { return badLength(data, sink) }
        sink.field("appearance", .code(UInt64(v), digits: 4, name: AppearanceNames.name(v)))
        sink.field(
            "category", .code(UInt64(AppearanceNames.category(v)), digits: 3, name: AppearanceNames.categoryName(v)))
    }

    static let advertisingInterval: Decoder = { data, sink in
        guard data.count == 2, let v = data.u16le(0) else { return badLength(data, sink) }
        sink.field("interval", .microseconds(Int64(v) * 625))
    }

    static let advertisingIntervalLong: Decoder = { data, sink in
        let v: UInt32?
        switch data.count {
        case 3: v = data.u24le(0)
        case 4: v = data.u32le(0)
        default: v = nil
        }
        guard let v else { return badLength(data, sink) }
        sink.field("interval", .microseconds(Int64(v) * 625))
    }

    static let leAddress: Decoder = { data, sink in
        guard data.count == 7, let a = BDAddr(littleEndian: data), let t = data.u8(6) else {
            return badLength(data, sink)
        }
        sink.field("address", .address(a))
        sink.field("address type", .code(UInt64(t), digits: 2, name: t & 1 == 0 ? "Public" : "Random"))
    }

    static let leRole: Decoder = { data, sink in
        guard data.count == 1, let v = data.u8(0) else { return badLength(data, sink) }
        sink.field("role", .code(UInt64(v), digits: 2, name: LERole(rawValue: v).name))
    }

    static let uri: Decoder = { data, sink in
        // Supplement Part A 1.18: the scheme is one code point from the URI scheme table
        // (Assigned Numbers 2.7), UTF-8 encoded; the rest is the URI without its scheme.
        guard let first = data.u8(0) else { return badLength(data, sink) }
        let schemeLength: Int
        let scheme: UInt64
        if first < 0x80 {
            schemeLength = 1
            scheme = UInt64(first)
        } else if first & 0xE0 == 0xC0, let second = data.u8(1), second & 0xC0 == 0x80 {
            schemeLength = 2
            scheme = UInt64(first & 0x1F) << 6 | UInt64(second & 0x3F)
        } else {
            sink.note("URI does not start with a scheme code point")
            sink.field("uri", .text(data))
            return
        }
        sink.field("scheme", .code(scheme, digits: 4, name: uriSchemeName(scheme)))
        sink.field("uri", .text(data.suffix(from: schemeLength) ?? .empty))
    }

    /// The commonest entries of the URI scheme table (Assigned Numbers 2.7).
    static func uriSchemeName(_ code: UInt64) -> StaticString? {
        switch code {
        case 0x01: "(empty)"
        case 0x16: "http:"
        case 0x17: "https:"
        default: nil
        }
    }

    static let channelMapUpdate: Decoder = { data, sink in
        // Supplement Part A 1.20: ChM (5 octets), then Instant (2 octets).
        guard data.count == 7, let map = data.slice(0, 5), let instant = data.u16le(5) else {
            return badLength(data, sink)
        }
        sink.field("channel map", .bytes(map))
        sink.field("instant", .uint(UInt64(instant)))
    }

    static let manufacturerData: Decoder = { data, sink in
        guard let id = data.u16le(0) else {
            sink.note("manufacturer specific data shorter than a company identifier")
            sink.field("data", .bytes(data))
            return
        }
        sink.field("company id", .hex(UInt64(id), digits: 4))
        if let name = CompanyIdentifiers.name(id) { sink.field("company", .cString(name)) }
        sink.field("data", .bytes(data.suffix(from: 2) ?? .empty))
    }
}
