import BLEBytes

// Advertising report subevents (Core 5.4 Vol 4 Part E 7.7.65.2, .11, .13). Each carries
// Num_Reports reports; the arrayed parameters are laid out report by report (all of report 0,
// then all of report 1), which is how controllers send them and BlueZ and Wireshark read them.
// The typed views walk the reports once at init to bound them against the bytes present, then
// iterate without building arrays; a report cut short is never yielded.

/// One legacy advertising report.
public struct HCILEAdvertisingReportEntry: Sendable {
    /// 0 ADV_IND, 1 ADV_DIRECT_IND, 2 ADV_SCAN_IND, 3 ADV_NONCONN_IND, 4 SCAN_RSP.
    public let eventType: UInt8
    public let addressType: UInt8
    public let address: BDAddr
    /// AD structures (up to 31 bytes).
    public let data: ByteView
    /// dBm; 127 = not available.
    public let rssi: Int8

    public init(eventType: UInt8, addressType: UInt8, address: BDAddr, data: ByteView, rssi: Int8) {
        (self.eventType, self.addressType, self.address, self.data, self.rssi) = (
            eventType, addressType, address, data, rssi
        )
    }

    /// One report as the subevent lays it out (Data_Length from `data`).
    public func append(to w: inout ByteWriter) {
        w.appendUInt8(eventType)
        w.appendUInt8(addressType)
        w.appendAddress(address)
        w.appendUInt8(UInt8(truncatingIfNeeded: data.count))
        w.appendBytes(data)
        w.appendInt8(rssi)
    }
}

/// A report list whose reports have a variable length: the entry type reads one report at an
/// offset and says where the next one starts.
public protocol HCIAdvertisingReportEntry: Sendable {
    /// The LE Meta subevent that carries this kind of report.
    static var subevent: UInt8 { get }
    /// The report at `offset` and the offset after it, or nil if it is cut short.
    static func parse(_ body: ByteView, _ offset: Int) -> (Self, Int)?
}

/// Num_Reports reports of one kind, bounded against the bytes present at init and iterated
/// without building an array.
public struct HCIAdvertisingReportList<Entry: HCIAdvertisingReportEntry>: HCILESubeventEncodable, Sendable {
    public static var subevent: UInt8 { Entry.subevent }
    /// Num_Reports as declared.
    public let declaredCount: UInt8
    /// Whole reports present (≤ `declaredCount`).
    public let count: Int
    /// Bytes after `count` whole reports: a cut-short report, or junk after the last one.
    public let remainder: ByteView
    let body: ByteView

    public init?(parameters p: ByteView) {
        guard let n = p.u8(0) else { return nil }
        self.init(declaredCount: n, reports: p.suffix(from: 1) ?? .empty)
    }

    /// `reports`: the reports as they go on the wire (whatever follows the whole ones is
    /// `remainder`, as when decoding).
    public init(declaredCount n: UInt8, reports body: ByteView) {
        declaredCount = n
        self.body = body
        var offset = 0
        var c = 0
        while c < Int(n), let (_, next) = Entry.parse(body, offset) {
            offset = next
            c += 1
        }
        count = c
        remainder = body.suffix(from: offset) ?? .empty
    }

    public var subeventCode: UInt8 { Entry.subevent }
    public func appendSubeventParameters(to w: inout ByteWriter) {
        w.appendUInt8(declaredCount)
        w.appendBytes(body)
    }

    /// True when all declared reports are present and nothing follows them.
    public var isComplete: Bool { count == Int(declaredCount) && remainder.isEmpty }

    public var reports: Reports { Reports(body: body, remaining: count) }

    public struct Reports: Sequence, IteratorProtocol {
        let body: ByteView
        var remaining: Int
        var offset = 0
        init(body: ByteView, remaining: Int) {
            self.body = body
            self.remaining = remaining
        }
        public mutating func next() -> Entry? {
            guard remaining > 0, let (e, next) = Entry.parse(body, offset) else { return nil }
            remaining -= 1
            offset = next
            return e
        }
    }
}

extension HCILEAdvertisingReportEntry: HCIAdvertisingReportEntry {
    public static let subevent: UInt8 = HCILESubeventCode.advertisingReport

    public static func parse(_ b: ByteView, _ o: Int) -> (Self, Int)? {
        guard let t = b.u8(o), let at = b.u8(o + 1), let a = BDAddr(littleEndian: b, at: o + 2),
            let len = b.u8(o + 8), let data = b.slice(o + 9, Int(len)), let rssi = b.i8(o + 9 + Int(len))
        else { return nil }
        return (Self(eventType: t, addressType: at, address: a, data: data, rssi: rssi), o + 10 + Int(len))
    }
}

/// HCI_LE_Advertising_Report (7.7.65.2), subevent 0x02.
public typealias HCILEAdvertisingReport = HCIAdvertisingReportList<HCILEAdvertisingReportEntry>

/// One extended advertising report.
public struct HCILEExtendedAdvertisingReportEntry: Sendable {
    /// Bits: 0 connectable, 1 scannable, 2 directed, 3 scan response, 4 legacy; 5–6 data status.
    public let eventType: UInt16
    public let addressType: UInt8
    public let address: BDAddr
    public let primaryPHY: UInt8
    public let secondaryPHY: UInt8
    /// 0xFF = no ADI field.
    public let advertisingSID: UInt8
    /// dBm; 127 = not available.
    public let txPower: Int8
    public let rssi: Int8
    /// Units of 1.25 ms; 0 = no periodic advertising.
    public let periodicAdvertisingInterval: UInt16
    public let directAddressType: UInt8
    public let directAddress: BDAddr
    public let data: ByteView

    public var isConnectable: Bool { eventType & 0x01 != 0 }
    public var isScannable: Bool { eventType & 0x02 != 0 }
    public var isDirected: Bool { eventType & 0x04 != 0 }
    public var isScanResponse: Bool { eventType & 0x08 != 0 }
    public var isLegacy: Bool { eventType & 0x10 != 0 }
    /// 0 complete, 1 incomplete with more to come, 2 incomplete and truncated.
    public var dataStatus: UInt8 { UInt8(truncatingIfNeeded: (eventType >> 5) & 0x3) }

    public init(
        eventType: UInt16, addressType: UInt8, address: BDAddr, primaryPHY: UInt8, secondaryPHY: UInt8,
        advertisingSID: UInt8, txPower: Int8, rssi: Int8, periodicAdvertisingInterval: UInt16,
        directAddressType: UInt8, directAddress: BDAddr, data: ByteView
    ) {
        (self.eventType, self.addressType, self.address, self.primaryPHY, self.secondaryPHY) =
            (eventType, addressType, address, primaryPHY, secondaryPHY)
        (self.advertisingSID, self.txPower, self.rssi, self.periodicAdvertisingInterval) =
            (advertisingSID, txPower, rssi, periodicAdvertisingInterval)
        (self.directAddressType, self.directAddress, self.data) = (directAddressType, directAddress, data)
    }

    /// One report as the subevent lays it out (Data_Length from `data`).
    public func append(to w: inout ByteWriter) {
        w.appendUInt16LE(eventType)
        w.appendUInt8(addressType)
        w.appendAddress(address)
        w.appendUInt8(primaryPHY)
        w.appendUInt8(secondaryPHY)
        w.appendUInt8(advertisingSID)
        w.appendInt8(txPower)
        w.appendInt8(rssi)
        w.appendUInt16LE(periodicAdvertisingInterval)
        w.appendUInt8(directAddressType)
        w.appendAddress(directAddress)
        w.appendUInt8(UInt8(truncatingIfNeeded: data.count))
        w.appendBytes(data)
    }
}

extension HCILEExtendedAdvertisingReportEntry: HCIAdvertisingReportEntry {
    public static let subevent: UInt8 = HCILESubeventCode.extendedAdvertisingReport

    public static func parse(_ b: ByteView, _ o: Int) -> (Self, Int)? {
        guard let t = b.u16le(o), let at = b.u8(o + 2), let a = BDAddr(littleEndian: b, at: o + 3),
            let pp = b.u8(o + 9), let sp = b.u8(o + 10), let sid = b.u8(o + 11), let tx = b.i8(o + 12),
            let rssi = b.i8(o + 13), let pi = b.u16le(o + 14), let dt = b.u8(o + 16),
            let da = BDAddr(littleEndian: b, at: o + 17), let len = b.u8(o + 23),
            let data = b.slice(o + 24, Int(len))
        else { return nil }
        let e = Self(
            eventType: t, addressType: at, address: a, primaryPHY: pp, secondaryPHY: sp,
            advertisingSID: sid, txPower: tx, rssi: rssi, periodicAdvertisingInterval: pi,
            directAddressType: dt, directAddress: da, data: data)
        return (e, o + 24 + Int(len))
    }
}

/// HCI_LE_Extended_Advertising_Report (7.7.65.13), subevent 0x0D.
public typealias HCILEExtendedAdvertisingReport = HCIAdvertisingReportList<HCILEExtendedAdvertisingReportEntry>

/// One directed advertising report.
public struct HCILEDirectedAdvertisingReportEntry: Sendable {
    /// Always 1 (ADV_DIRECT_IND).
    public let eventType: UInt8
    public let addressType: UInt8
    public let address: BDAddr
    /// 1 = random (an RPA the controller could not resolve).
    public let directAddressType: UInt8
    public let directAddress: BDAddr
    public let rssi: Int8
}

/// HCI_LE_Directed_Advertising_Report (7.7.65.11), subevent 0x0B: 16 bytes per report.
public struct HCILEDirectedAdvertisingReport: Sendable {
    public static let subevent: UInt8 = 0x0B
    public typealias Entry = HCILEDirectedAdvertisingReportEntry
    static let reportSize = 16
    public let declaredCount: UInt8
    public let count: Int
    public let remainder: ByteView
    let body: ByteView

    public init?(parameters p: ByteView) {
        guard let n = p.u8(0) else { return nil }
        declaredCount = n
        body = p.suffix(from: 1) ?? .empty
        count = Swift.min(Int(n), body.count / Self.reportSize)
        remainder = body.suffix(from: count * Self.reportSize) ?? .empty
    }

    public var isComplete: Bool { count == Int(declaredCount) && remainder.isEmpty }

    static func parse(_ b: ByteView, _ o: Int) -> (Entry, Int)? {
        guard let t = b.u8(o), let at = b.u8(o + 1), let a = BDAddr(littleEndian: b, at: o + 2),
            let dt = b.u8(o + 8), let da = BDAddr(littleEndian: b, at: o + 9), let rssi = b.i8(o + 15)
        else { return nil }
        return (
            Entry(eventType: t, addressType: at, address: a, directAddressType: dt, directAddress: da, rssi: rssi),
            o + reportSize
        )
    }

    public var reports: Reports { Reports(body: body, remaining: count) }

    public struct Reports: Sequence, IteratorProtocol {
        let body: ByteView
        var remaining: Int
        var offset = 0
        init(body: ByteView, remaining: Int) {
            self.body = body
            self.remaining = remaining
        }
        public mutating func next() -> Entry? {
            guard remaining > 0, let (e, next) = HCILEDirectedAdvertisingReport.parse(body, offset) else { return nil }
            remaining -= 1
            offset = next
            return e
        }
    }
}

/// Describers for the report subevents.
enum HCIAdvertisingReportDecoders {
    static func legacy(_ p: ByteView, _ sink: FieldSink) {
        guard let e = HCILEAdvertisingReport(parameters: p) else { return sink.note("missing num_reports") }
        sink.field("num_reports", .uint(UInt64(e.declaredCount)))
        for r in e.reports {
            sink.begin("report")
            sink.field(
                "event_type",
                .code(UInt64(r.eventType), digits: 2, name: HCIValueNames.legacyReportEventType(r.eventType)))
            addressFields(r.addressType, r.address, sink)
            sink.field("data_length", .uint(UInt64(r.data.count)))
            AdvertisingData.describe(r.data, into: sink)
            sink.field("rssi", .dBm(r.rssi))
            sink.end()
        }
        remainder(e.count, e.declaredCount, e.remainder, sink)
    }

    static func extended(_ p: ByteView, _ sink: FieldSink) {
        guard let e = HCILEExtendedAdvertisingReport(parameters: p) else { return sink.note("missing num_reports") }
        sink.field("num_reports", .uint(UInt64(e.declaredCount)))
        for r in e.reports {
            sink.begin("report")
            sink.field(
                "event_type", .flags(UInt64(r.eventType), digits: 4, names: HCIValueNames.extendedReportEventTypeBits))
            sink.field(
                "data_status", .code(UInt64(r.dataStatus), digits: 2, name: HCIValueNames.dataStatus(r.dataStatus)))
            addressFields(r.addressType, r.address, sink)
            sink.field("primary_phy", .code(UInt64(r.primaryPHY), digits: 2, name: HCIValueNames.phy(r.primaryPHY)))
            sink.field(
                "secondary_phy", .code(UInt64(r.secondaryPHY), digits: 2, name: HCIValueNames.phy(r.secondaryPHY)))
            sink.field("advertising_sid", .hex(UInt64(r.advertisingSID), digits: 2))
            sink.field("tx_power", .dBm(r.txPower))
            sink.field("rssi", .dBm(r.rssi))
            sink.field(
                "periodic_advertising_interval",
                .microseconds(Int64(r.periodicAdvertisingInterval) * HCIFields.unit1250))
            sink.field(
                "direct_address_type",
                .code(UInt64(r.directAddressType), digits: 2, name: HCIValueNames.addressType(r.directAddressType)))
            sink.field("direct_address", .address(r.directAddress))
            sink.field("data_length", .uint(UInt64(r.data.count)))
            AdvertisingData.describe(r.data, into: sink)
            sink.end()
        }
        remainder(e.count, e.declaredCount, e.remainder, sink)
    }

    static func directed(_ p: ByteView, _ sink: FieldSink) {
        guard let e = HCILEDirectedAdvertisingReport(parameters: p) else { return sink.note("missing num_reports") }
        sink.field("num_reports", .uint(UInt64(e.declaredCount)))
        for r in e.reports {
            sink.begin("report")
            sink.field(
                "event_type",
                .code(UInt64(r.eventType), digits: 2, name: HCIValueNames.legacyReportEventType(r.eventType)))
            addressFields(r.addressType, r.address, sink)
            sink.field(
                "direct_address_type",
                .code(UInt64(r.directAddressType), digits: 2, name: HCIValueNames.addressType(r.directAddressType)))
            sink.field("direct_address", .address(r.directAddress))
            sink.field("rssi", .dBm(r.rssi))
            sink.end()
        }
        remainder(e.count, e.declaredCount, e.remainder, sink)
    }

    static func addressFields(_ type: UInt8, _ address: BDAddr, _ sink: FieldSink) {
        sink.field("address_type", .code(UInt64(type), digits: 2, name: HCIValueNames.addressType(type)))
        sink.field("address", .address(address))
    }

    static func remainder(_ count: Int, _ declared: UInt8, _ rest: ByteView, _ sink: FieldSink) {
        if count < Int(declared) {
            sink.note("fewer reports than num_reports")
            if !rest.isEmpty { sink.field("remaining", .bytes(rest)) }
        } else if !rest.isEmpty {
            sink.note("unexpected trailing bytes")
            sink.field("trailing", .bytes(rest))
        }
    }
}
