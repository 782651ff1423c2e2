import BLEBytes

/// Connection interval … CE length, as shared by LE Create Connection (Core 5.4 Vol 4 Part E
/// 7.8.12), LE Extended Create Connection (7.8.66) and LE Connection Update (7.8.18).
public struct HCIConnectionParameters: Equatable, Sendable {
    /// Units of 1.25 ms.
    public let intervalMin: UInt16
    public let intervalMax: UInt16
    /// Peripheral latency in connection events.
    public let maxLatency: UInt16
    /// Units of 10 ms.
    public let supervisionTimeout: UInt16
    /// Units of 0.625 ms.
    public let minCELength: UInt16
    public let maxCELength: UInt16

    public static let size = 12

    public init(
        intervalMin: UInt16, intervalMax: UInt16, maxLatency: UInt16, supervisionTimeout: UInt16,
        minCELength: UInt16 = 0, maxCELength: UInt16 = 0
    ) {
        (
            self.intervalMin, self.intervalMax, self.maxLatency, self.supervisionTimeout, self.minCELength,
            self.maxCELength
        ) = (intervalMin, intervalMax, maxLatency, supervisionTimeout, minCELength, maxCELength)
    }

    public func append(to w: inout ByteWriter) {
        for v in [intervalMin, intervalMax, maxLatency, supervisionTimeout, minCELength, maxCELength] {
            w.appendUInt16LE(v)
        }
    }

    public init?(_ view: ByteView, at offset: Int) {
        guard view.contains(offset, Self.size),
            let a = view.u16le(offset), let b = view.u16le(offset + 2), let c = view.u16le(offset + 4),
            let d = view.u16le(offset + 6), let e = view.u16le(offset + 8), let f = view.u16le(offset + 10)
        else { return nil }
        (intervalMin, intervalMax, maxLatency, supervisionTimeout, minCELength, maxCELength) = (a, b, c, d, e, f)
    }

    public var intervalMinMicroseconds: Int64 { Int64(intervalMin) * HCIFields.unit1250 }
    public var intervalMaxMicroseconds: Int64 { Int64(intervalMax) * HCIFields.unit1250 }
    public var supervisionTimeoutMicroseconds: Int64 { Int64(supervisionTimeout) * HCIFields.unit10ms }
}

// HCI_Disconnect (7.1.6), LE Set Scan Parameters and Enable (7.8.10, 7.8.11), LE Set Extended
// Scan Enable (7.8.65), LE Create Connection (7.8.12) and LE Connection Update (7.8.18): their
// fields, decoders and encoders are generated from scripts/pdu/hci_commands.py
// (HCICommands+Generated.swift); here what some of them add.

extension HCILESetScanParameters {
    public var isActive: Bool { scanType == 1 }
    public var intervalMicroseconds: Int64 { Int64(interval) * HCIFields.slot625 }
    public var windowMicroseconds: Int64 { Int64(window) * HCIFields.slot625 }
}

extension HCILESetScanEnable {
    public var enable: Bool { enableValue != 0 }

    public init(enable: Bool, filterDuplicates: UInt8) {
        enableValue = enable ? 1 : 0
        self.filterDuplicates = filterDuplicates
    }

    /// The enable octet that LE Set Scan Enable and LE Set Extended Scan Enable (7.8.65) both
    /// begin with (0x00 disabled, 0x01 enabled), read through the command's layout: nil only
    /// when the parameters are empty, where the structs need all their fields.
    public static func enableValue(of parameters: ByteView) -> UInt8? {
        HCILayoutFields(layout: HCICommandLayouts.leSetScanEnable, parameters: parameters).uint8("le_scan_enable")
    }
}

/// HCI_LE_Set_Extended_Scan_Parameters (7.8.64), opcode 0x2041. One 5-byte block follows
/// the header for each PHY bit set in `scanningPHYs` (bit 0 LE 1M, bit 2 LE Coded; bit 1 is
/// reserved because scanning on 2M is not possible).
public struct HCILESetExtendedScanParameters: HCICommandEncodable, @unchecked Sendable {
    public static let opcode: UInt16 = HCIOpcode.leSetExtendedScanParameters
    public let ownAddressType: UInt8
    public let filterPolicy: UInt8
    public let scanningPHYs: UInt8
    /// The per-PHY blocks, exactly `entryCount` × 5 bytes.
    public let phyBlocks: ByteView

    public struct Entry: Equatable, Sendable {
        /// PHY value (1 = LE 1M, 3 = LE Coded).
        public let phy: UInt8
        public let scanType: UInt8
        /// Units of 0.625 ms.
        public let interval: UInt16
        public let window: UInt16
        public var isActive: Bool { scanType == 1 }
        public var intervalMicroseconds: Int64 { Int64(interval) * HCIFields.slot625 }
        public var windowMicroseconds: Int64 { Int64(window) * HCIFields.slot625 }
    }

    static let knownPHYBits: UInt8 = 0b101

    public init?(parameters p: ByteView) {
        guard let o = p.u8(0), let f = p.u8(1), let phys = p.u8(2) else { return nil }
        let count = (phys & Self.knownPHYBits).nonzeroBitCount
        guard let blocks = p.slice(3, count * 5) else { return nil }
        (ownAddressType, filterPolicy, scanningPHYs, phyBlocks) = (o, f, phys, blocks)
    }

    /// `phyBlocks`: the per-PHY blocks (Scan_Type u8, Scan_Interval u16, Scan_Window u16) as
    /// they go on the wire, one per bit of `scanningPHYs`.
    public init(ownAddressType: UInt8, filterPolicy: UInt8, scanningPHYs: UInt8, phyBlocks: ByteView) {
        (self.ownAddressType, self.filterPolicy, self.scanningPHYs, self.phyBlocks) =
            (ownAddressType, filterPolicy, scanningPHYs, phyBlocks)
    }

    public var commandOpcode: UInt16 { Self.opcode }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt8(ownAddressType)
        w.appendUInt8(filterPolicy)
        w.appendUInt8(scanningPHYs)
        w.appendBytes(phyBlocks)
    }

    /// The whole H4 packet scanning on LE 1M only (`scanningPHYs` 0x01) with one block.
    public static func h4Encoded(
        ownAddressType: UInt8, filterPolicy: UInt8, scanType: UInt8, interval: UInt16,
        window: UInt16
    ) -> [UInt8] {
        var block = ByteWriter()
        block.appendUInt8(scanType)
        block.appendUInt16LE(interval)
        block.appendUInt16LE(window)
        return block.bytes.withByteView {
            Self(ownAddressType: ownAddressType, filterPolicy: filterPolicy, scanningPHYs: 0x01, phyBlocks: $0)
                .h4Encoded()
        }
    }

    public var entryCount: Int { (scanningPHYs & Self.knownPHYBits).nonzeroBitCount }
    public var entries: Entries { Entries(phys: scanningPHYs & Self.knownPHYBits, blocks: phyBlocks) }

    /// Iterates the per-PHY entries in bit order without building an array.
    public struct Entries: Sequence, IteratorProtocol {
        var phys: UInt8
        let blocks: ByteView
        var offset = 0
        init(phys: UInt8, blocks: ByteView) {
            self.phys = phys
            self.blocks = blocks
        }

        public mutating func next() -> Entry? {
            guard phys != 0 else { return nil }
            let bit = UInt8(phys.trailingZeroBitCount)
            phys &= phys &- 1
            guard let t = blocks.u8(offset), let i = blocks.u16le(offset + 1), let w = blocks.u16le(offset + 3)
            else {
                phys = 0
                return nil
            }
            offset += 5
            return Entry(phy: bit + 1, scanType: t, interval: i, window: w)
        }
    }
}

extension HCILESetExtendedScanEnable {
    public var enable: Bool { enableValue != 0 }

    public init(enable: Bool, filterDuplicates: UInt8, duration: UInt16 = 0, period: UInt16 = 0) {
        (enableValue, self.filterDuplicates, self.duration, self.period) = (
            enable ? 1 : 0, filterDuplicates, duration, period
        )
    }
}

extension HCILECreateConnection {
    /// Where Peer_Address starts in the parameters.
    public static let peerAddressOffset = 6

    /// True when the filter accept list, not `peerAddress`, chooses the peer.
    public var usesFilterAcceptList: Bool { initiatorFilterPolicy == 1 }
}

/// HCI_LE_Extended_Create_Connection [v1] (7.8.66, opcode 0x2043) and [v2] (7.8.66,
/// opcode 0x2085, which prefixes Advertising_Handle and Subevent for PAwR). One 16-byte block
/// per bit of `initiatingPHYs` (bit 0 LE 1M, bit 1 LE 2M, bit 2 LE Coded).
public struct HCILEExtendedCreateConnection: HCICommandEncodable, Sendable {
    public static let opcodeV1: UInt16 = HCIOpcode.leExtendedCreateConnection
    public static let opcodeV2: UInt16 = HCIOpcode.leExtendedCreateConnectionV2
    public let version: Int
    /// v2 only (0xFF when not used); nil for v1.
    public let advertisingHandle: UInt8?
    public let subevent: UInt8?
    public let initiatorFilterPolicy: UInt8
    public let ownAddressType: UInt8
    public let peerAddressType: UInt8
    public let peerAddress: BDAddr
    public let initiatingPHYs: UInt8
    public let phyBlocks: ByteView

    public struct Entry: Equatable, Sendable {
        /// PHY value (1 = LE 1M, 2 = LE 2M, 3 = LE Coded).
        public let phy: UInt8
        public let scanInterval: UInt16
        public let scanWindow: UInt16
        public let connection: HCIConnectionParameters
    }

    static let knownPHYBits: UInt8 = 0b111

    public init?(parameters p: ByteView, version: Int = 1) {
        let base = version == 2 ? 2 : 0
        guard let fp = p.u8(base), let ot = p.u8(base + 1), let pt = p.u8(base + 2),
            let pa = BDAddr(littleEndian: p, at: base + 3), let phys = p.u8(base + 9),
            let blocks = p.slice(base + 10, (phys & Self.knownPHYBits).nonzeroBitCount * 16)
        else { return nil }
        self.version = version == 2 ? 2 : 1
        advertisingHandle = version == 2 ? p.u8(0) : nil
        subevent = version == 2 ? p.u8(1) : nil
        (initiatorFilterPolicy, ownAddressType, peerAddressType, peerAddress, initiatingPHYs, phyBlocks) = (
            fp, ot, pt, pa, phys, blocks
        )
    }

    /// `phyBlocks`: the per-PHY blocks (Scan_Interval, Scan_Window, then the connection
    /// parameters and Min/Max_CE_Length) as they go on the wire, one per bit of `initiatingPHYs`.
    public init(
        initiatorFilterPolicy: UInt8, ownAddressType: UInt8, peerAddressType: UInt8, peerAddress: BDAddr,
        initiatingPHYs: UInt8, phyBlocks: ByteView
    ) {
        (version, advertisingHandle, subevent) = (1, nil, nil)
        (self.initiatorFilterPolicy, self.ownAddressType, self.peerAddressType, self.peerAddress) = (
            initiatorFilterPolicy, ownAddressType, peerAddressType, peerAddress
        )
        (self.initiatingPHYs, self.phyBlocks) = (initiatingPHYs, phyBlocks)
    }

    /// The whole H4 packet of a [v1] command initiating on LE 1M only (`initiatingPHYs` 0x01)
    /// with one block.
    public static func h4Encoded(
        initiatorFilterPolicy: UInt8, ownAddressType: UInt8, peerAddressType: UInt8, peerAddress: BDAddr,
        scanInterval: UInt16, scanWindow: UInt16, connection: HCIConnectionParameters
    ) -> [UInt8] {
        var block = ByteWriter()
        block.appendUInt16LE(scanInterval)
        block.appendUInt16LE(scanWindow)
        connection.append(to: &block)
        return block.bytes.withByteView {
            Self(
                initiatorFilterPolicy: initiatorFilterPolicy, ownAddressType: ownAddressType,
                peerAddressType: peerAddressType, peerAddress: peerAddress, initiatingPHYs: 0x01, phyBlocks: $0
            ).h4Encoded()
        }
    }

    public var commandOpcode: UInt16 { version == 2 ? Self.opcodeV2 : Self.opcodeV1 }
    public func appendParameters(to w: inout ByteWriter) {
        if version == 2 {
            w.appendUInt8(advertisingHandle ?? 0xFF)
            w.appendUInt8(subevent ?? 0xFF)
        }
        w.appendUInt8(initiatorFilterPolicy)
        w.appendUInt8(ownAddressType)
        w.appendUInt8(peerAddressType)
        w.appendAddress(peerAddress)
        w.appendUInt8(initiatingPHYs)
        w.appendBytes(phyBlocks)
    }

    public var entries: Entries { Entries(phys: initiatingPHYs & Self.knownPHYBits, blocks: phyBlocks) }

    public struct Entries: Sequence, IteratorProtocol {
        var phys: UInt8
        let blocks: ByteView
        var offset = 0
        init(phys: UInt8, blocks: ByteView) {
            self.phys = phys
            self.blocks = blocks
        }

        public mutating func next() -> Entry? {
            guard phys != 0 else { return nil }
            let bit = UInt8(phys.trailingZeroBitCount)
            phys &= phys &- 1
            guard let si = blocks.u16le(offset), let sw = blocks.u16le(offset + 2),
                let c = HCIConnectionParameters(blocks, at: offset + 4)
            else {
                phys = 0
                return nil
            }
            offset += 16
            return Entry(phy: bit + 1, scanInterval: si, scanWindow: sw, connection: c)
        }
    }
}

/// Hand-written describers for commands whose parameters are not one fixed layout.
enum HCICommandDecoders {
    typealias L = HCICommandLayouts

    /// LE Set Advertising Data / Scan Response Data (7.8.7, 7.8.8): a length and 31 bytes of
    /// which only `length` are significant.
    static func advertisingData(_ p: ByteView, _ sink: FieldSink) {
        var r = ByteReader(p)
        guard let length = r.u8() else { return HCIFields.truncated(&r, sink) }
        sink.field("data_length", .uint(UInt64(length)))
        let rest = r.rest()
        if Int(length) > rest.count { sink.note("data length exceeds parameters") }
        AdvertisingData.describe(rest.prefix(Int(length)), into: sink)
    }

    /// LE Set Extended Advertising/Scan Response Data (7.8.54, 7.8.55).
    static func extendedAdvertisingData(_ p: ByteView, _ sink: FieldSink) {
        var r = ByteReader(p)
        guard HCIFields.describe(L.extendedAdvertisingDataHeader, reader: &r, into: sink),
            let length = p.u8(3)
        else { return }
        let data = r.rest()
        if Int(length) > data.count { sink.note("data length exceeds parameters") }
        AdvertisingData.describe(data.prefix(Int(length)), into: sink)
        if data.count > Int(length) {
            sink.note("unexpected trailing bytes")
            sink.field("trailing", .bytes(data.suffix(from: Int(length)) ?? .empty))
        }
    }

    /// LE Set Extended Advertising Enable (7.8.56): `num_sets` 4-byte entries.
    static func extendedAdvertisingEnable(_ p: ByteView, _ sink: FieldSink) {
        var r = ByteReader(p)
        guard HCIFields.describe(L.extendedAdvertisingEnableHeader, reader: &r, into: sink),
            let sets = p.u8(1)
        else { return }
        for _ in 0..<sets {
            sink.begin("set")
            let ok = HCIFields.describe(L.extendedAdvertisingEnableSet, reader: &r, into: sink)
            sink.end()
            if !ok { return }
        }
        HCIFields.trailing(&r, sink)
    }

    /// LE Set Extended Scan Parameters (7.8.64).
    static func extendedScanParameters(_ p: ByteView, _ sink: FieldSink) {
        var r = ByteReader(p)
        guard HCIFields.describe(L.extendedScanParametersHeader, reader: &r, into: sink),
            let phys = p.u8(2)
        else { return }
        var bits = phys & HCILESetExtendedScanParameters.knownPHYBits
        while bits != 0 {
            let phy = UInt8(bits.trailingZeroBitCount) + 1
            bits &= bits &- 1
            sink.begin("phy")
            sink.field("phy", .code(UInt64(phy), digits: 2, name: HCIValueNames.phy(phy)))
            let ok = HCIFields.describe(L.extendedScanParametersPHY, reader: &r, into: sink)
            sink.end()
            if !ok { return }
        }
        HCIFields.trailing(&r, sink)
    }

    static func extendedCreateConnectionV1(_ p: ByteView, _ sink: FieldSink) {
        extendedCreateConnection(p, sink, v2: false)
    }
    static func extendedCreateConnectionV2(_ p: ByteView, _ sink: FieldSink) {
        extendedCreateConnection(p, sink, v2: true)
    }

    /// LE Extended Create Connection [v1]/[v2] (7.8.66).
    static func extendedCreateConnection(_ p: ByteView, _ sink: FieldSink, v2: Bool) {
        var r = ByteReader(p)
        if v2, !HCIFields.describe(L.extendedCreateConnectionV2Prefix, reader: &r, into: sink) { return }
        let physOffset = r.offset + 9
        guard HCIFields.describe(L.extendedCreateConnectionHeader, reader: &r, into: sink),
            let phys = p.u8(physOffset)
        else { return }
        var bits = phys & HCILEExtendedCreateConnection.knownPHYBits
        while bits != 0 {
            let phy = UInt8(bits.trailingZeroBitCount) + 1
            bits &= bits &- 1
            sink.begin("phy")
            sink.field("phy", .code(UInt64(phy), digits: 2, name: HCIValueNames.phy(phy)))
            let ok = HCIFields.describe(L.extendedCreateConnectionPHY, reader: &r, into: sink)
            sink.end()
            if !ok { return }
        }
        HCIFields.trailing(&r, sink)
    }

    /// Host Number Of Completed Packets (7.3.40): same shape as the event of that name.
    static func hostNumberOfCompletedPackets(_ p: ByteView, _ sink: FieldSink) {
        HCIEventDecoders.numberOfCompletedPackets(p, sink)
    }
}
