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

extension HCILESetExtendedScanParameters.Entry {
    public var isActive: Bool { scanType == 1 }
    public var intervalMicroseconds: Int64 { Int64(interval) * HCIFields.slot625 }
    public var windowMicroseconds: Int64 { Int64(window) * HCIFields.slot625 }
}

extension HCILESetExtendedScanParameters {
    /// The whole H4 packet scanning on LE 1M only (`scanningPHYs` 0x01) with one block.
    public static func h4Encoded(
        ownAddressType: UInt8, filterPolicy: UInt8, scanType: UInt8, interval: UInt16,
        window: UInt16
    ) -> [UInt8] {
        Self(
            ownAddressType: ownAddressType, filterPolicy: filterPolicy, scanningPHYs: 0x01,
            entries: [Entry(scanType: scanType, interval: interval, window: window)]
        ).h4Encoded()
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

extension HCILEExtendedCreateConnection {
    /// The whole H4 packet of a [v1] command initiating on LE 1M only (`initiatingPHYs` 0x01)
    /// with one block.
    public static func h4Encoded(
        initiatorFilterPolicy: UInt8, ownAddressType: UInt8, peerAddressType: UInt8, peerAddress: BDAddr,
        scanInterval: UInt16, scanWindow: UInt16, connection: HCIConnectionParameters
    ) -> [UInt8] {
        Self(
            initiatorFilterPolicy: initiatorFilterPolicy, ownAddressType: ownAddressType,
            peerAddressType: peerAddressType, peerAddress: peerAddress, initiatingPHYs: 0x01,
            entries: [Entry(scanInterval: scanInterval, scanWindow: scanWindow, connection: connection)]
        ).h4Encoded()
    }

    /// [v1] or [v2] (whose Advertising_Handle and Subevent only PAwR uses) by `opcode`, as [v1]:
    /// what the timeline needs of either. Nil for another opcode or short parameters.
    public init?(opcode: UInt16, parameters p: ByteView) {
        switch opcode {
        case Self.opcode: self.init(parameters: p)
        case HCILEExtendedCreateConnectionV2.opcode:
            guard let v2 = HCILEExtendedCreateConnectionV2(parameters: p) else { return nil }
            self.init(
                initiatorFilterPolicy: v2.initiatorFilterPolicy, ownAddressType: v2.ownAddressType,
                peerAddressType: v2.peerAddressType, peerAddress: v2.peerAddress, initiatingPHYs: v2.initiatingPHYs,
                entries: v2.entries)
        default: return nil
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

    /// Host Number Of Completed Packets (7.3.40): same shape as the event of that name.
    static func hostNumberOfCompletedPackets(_ p: ByteView, _ sink: FieldSink) {
        HCIEventDecoders.numberOfCompletedPackets(p, sink)
    }
}
