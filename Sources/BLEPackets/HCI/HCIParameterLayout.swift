import BLEBytes

/// One fixed-size HCI parameter: its spec name (lower-cased, e.g. `connection_handle`) and how
/// to read and show it.
///
/// Most HCI commands, return parameters and events are a fixed sequence of such parameters, so
/// they are described from a static layout (a table, like btmon's) instead of one hand-written
/// function each. Variable parts (per-PHY blocks, report lists) are written by hand and reuse
/// `describe(_:_:reader:into:)` for their fixed pieces.
public struct HCIParameter: Sendable {
    public enum Kind: Sendable {
        case uint8, uint16, uint24, uint32
        case hex8, hex16, hex32, hex64
        /// Signed 8-bit dBm (RSSI, TX power).
        case dBm
        /// Status or reason: an HCI error code (Core 5.4 Vol 1 Part F).
        case status
        /// 12-bit connection handle (Vol 4 Part E 5.4.2: the upper 4 bits are not part of it).
        case handle
        case address
        /// A fixed number of raw bytes (keys, random numbers, feature masks).
        case bytes(Int)
        /// A u16 count of `unit` microseconds (0.625 ms slots, 1.25 ms, 10 ms …).
        case duration16(unit: Int64)
        /// A u24 count of `unit` microseconds (extended advertising intervals).
        case duration24(unit: Int64)
        /// A u8 code with a name table.
        case code8(@Sendable (UInt8) -> StaticString?)
        case flags8(FlagNames)
        case flags16(FlagNames)
    }

    public let name: StaticString
    public let kind: Kind

    public init(_ name: StaticString, _ kind: Kind) {
        self.name = name
        self.kind = kind
    }

    /// Bytes this parameter occupies on the wire.
    public var size: Int {
        switch kind {
        case .uint8, .hex8, .dBm, .status, .code8, .flags8: 1
        case .uint16, .hex16, .handle, .duration16, .flags16: 2
        case .uint24, .duration24: 3
        case .uint32, .hex32: 4
        case .hex64: 8
        case .address: 6
        case .bytes(let n): n
        }
    }

    /// Reads this parameter at the reader's position and emits it; false (reader unchanged) if
    /// the bytes are not all there.
    func emit(from r: inout ByteReader, into sink: FieldSink) -> Bool {
        let value: FieldValue
        switch kind {
        case .uint8:
            guard let v = r.u8() else { return false }
            value = .uint(UInt64(v))
        case .uint16:
            guard let v = r.u16le() else { return false }
            value = .uint(UInt64(v))
        case .uint24:
            guard let v = r.u24le() else { return false }
            value = .uint(UInt64(v))
        case .uint32:
            guard let v = r.u32le() else { return false }
            value = .uint(UInt64(v))
        case .hex8:
            guard let v = r.u8() else { return false }
            value = .hex(UInt64(v), digits: 2)
        case .hex16:
            guard let v = r.u16le() else { return false }
            value = .hex(UInt64(v), digits: 4)
        case .hex32:
            guard let v = r.u32le() else { return false }
            value = .hex(UInt64(v), digits: 8)
        case .hex64:
            guard let v = r.u64le() else { return false }
            value = .hex(v, digits: 16)
        case .dBm:
            guard let v = r.i8() else { return false }
            value = .dBm(v)
        case .status:
            guard let v = r.u8() else { return false }
            value = HCIFields.status(v)
        case .handle:
            guard let v = r.u16le() else { return false }
            value = .hex(UInt64(v & 0x0FFF), digits: 4)
        case .address:
            guard let v = r.address() else { return false }
            value = .address(v)
        case .bytes(let n):
            guard let v = r.bytes(n) else { return false }
            value = .bytes(v)
        case .duration16(let unit):
            guard let v = r.u16le() else { return false }
            value = .microseconds(Int64(v) * unit)
        case .duration24(let unit):
            guard let v = r.u24le() else { return false }
            value = .microseconds(Int64(v) * unit)
        case .code8(let names):
            guard let v = r.u8() else { return false }
            value = .code(UInt64(v), digits: 2, name: names(v))
        case .flags8(let names):
            guard let v = r.u8() else { return false }
            value = .flags(UInt64(v), digits: 2, names: names)
        case .flags16(let names):
            guard let v = r.u16le() else { return false }
            value = .flags(UInt64(v), digits: 4, names: names)
        }
        sink.field(name, value)
        return true
    }
}

/// The blocks that follow a command's fixed fields, counted by its last fixed octet: `block`
/// that many times, or (`phys` the PHY bits that carry one) once per known bit set.
public struct HCIRepeatedBlocks: Sendable {
    public let block: [HCIParameter]
    public let group: StaticString
    public let phys: UInt8?

    public init(_ block: [HCIParameter], group: StaticString, phys: UInt8? = nil) {
        (self.block, self.group, self.phys) = (block, group, phys)
    }

    /// The PHY of each bit set in `bits`, lowest first (bit 0 LE 1M = 1, bit 1 LE 2M = 2, bit 2
    /// LE Coded = 3).
    public static func phys(_ bits: UInt8) -> [UInt8] {
        (0..<UInt8(8)).filter { bits & (1 << $0) != 0 }.map { $0 + 1 }
    }
}

/// Shared helpers for describing HCI parameters.
public enum HCIFields {
    /// Microseconds per unit of the common HCI time parameters.
    public static let slot625: Int64 = 625
    public static let unit1250: Int64 = 1250
    public static let unit10ms: Int64 = 10_000
    public static let unit1280ms: Int64 = 1_280_000

    @inlinable public static func status(_ code: UInt8) -> FieldValue {
        .code(UInt64(code), digits: 2, name: HCIError.name(code))
    }

    /// Describes `layout` from the reader's position. On a shortfall it notes the truncation,
    /// emits what is left as `remaining` and returns false, so the valid prefix stays decoded
    /// and no byte is dropped.
    @discardableResult
    public static func describe(_ layout: [HCIParameter], reader r: inout ByteReader, into sink: FieldSink) -> Bool {
        for parameter in layout where !parameter.emit(from: &r, into: sink) {
            truncated(&r, sink)
            return false
        }
        return true
    }

    /// Describes a whole parameter block that should be exactly `layout`; extra bytes are kept
    /// as `trailing` with a note.
    public static func describe(_ layout: [HCIParameter], _ view: ByteView, into sink: FieldSink) {
        var r = ByteReader(view)
        guard describe(layout, reader: &r, into: sink) else { return }
        trailing(&r, sink)
    }

    /// Notes a truncated parameter block and keeps its remaining bytes.
    public static func truncated(_ r: inout ByteReader, _ sink: FieldSink) {
        sink.note("truncated parameters")
        let rest = r.rest()
        if !rest.isEmpty { sink.field("remaining", .bytes(rest)) }
    }

    /// Keeps bytes past the end of a fixed layout, with a note.
    public static func trailing(_ r: inout ByteReader, _ sink: FieldSink) {
        guard !r.isAtEnd else { return }
        sink.note("unexpected trailing bytes")
        sink.field("trailing", .bytes(r.rest()))
    }

    /// `header`, then the blocks its last octet counts (Vol 4 Part E 7.8.56, 7.8.64, 7.8.66):
    /// that many blocks, or one per known bit of a PHY mask, each a group led by the PHY it is
    /// for. Stops at the first block the parameters cannot hold (noted as truncated).
    public static func describe(
        _ header: [HCIParameter], repeating blocks: HCIRepeatedBlocks, _ view: ByteView, into sink: FieldSink
    ) {
        var r = ByteReader(view)
        guard describe(header, reader: &r, into: sink), let count = view.u8(r.offset - 1) else { return }
        if let known = blocks.phys {
            var bits = count & known
            while bits != 0 {
                let phy = UInt8(bits.trailingZeroBitCount) + 1
                bits &= bits &- 1
                sink.begin(blocks.group)
                sink.field("phy", .code(UInt64(phy), digits: 2, name: HCIValueNames.phy(phy)))
                let ok = describe(blocks.block, reader: &r, into: sink)
                sink.end()
                if !ok { return }
            }
        } else {
            for _ in 0..<count {
                sink.begin(blocks.group)
                let ok = describe(blocks.block, reader: &r, into: sink)
                sink.end()
                if !ok { return }
            }
        }
        trailing(&r, sink)
    }

    /// Status first, then `layout`: the shape of most Command Complete return parameters.
    /// When the status is an error, controllers may return the status alone (Vol 4 Part E
    /// 7.7.14 allows invalid values, and several omit them), so a short block is not noted then.
    public static func describeReturn(_ layout: [HCIParameter], _ view: ByteView, into sink: FieldSink) {
        var r = ByteReader(view)
        guard let status = r.u8() else {
            sink.note("missing status")
            return
        }
        sink.field("status", HCIFields.status(status))
        if status != HCIError.success && r.isAtEnd { return }
        guard describe(layout, reader: &r, into: sink) else { return }
        trailing(&r, sink)
    }
}
