import BLEBytes

/// Event code and LE Meta subevent code → descriptor (Core 5.4 Vol 4 Part E 7.7, 7.7.65).
/// Names follow tshark 4.0's Info column ("Disconnect Complete", "Number of Completed
/// Packets", "LE Meta") so `blecap packets` lines up with it; codes tshark 4.0 does not know
/// use the Core 5.4 name with its "[v2]" convention. Lookup indexes a 256-entry array. The two
/// tables, `eventTable` and `leSubeventTable`, are generated from scripts/pdu/hci_events.py
/// (HCIEvents+Generated.swift).
public enum HCIEvents {
    typealias E = HCIEventLayouts
    typealias S = HCILEEventLayouts
    typealias D = HCIEventDecoders
    typealias R = HCIAdvertisingReportDecoders

    public static let unknownName: StaticString = "Unknown"

    public static func descriptor(for code: UInt8) -> HCIEventDescriptor? { eventsByCode[Int(code)] }

    public static func leSubeventDescriptor(for code: UInt8) -> HCIEventDescriptor? { subeventsByCode[Int(code)] }

    public static func name(for code: UInt8) -> StaticString { descriptor(for: code)?.name ?? unknownName }

    public static func leSubeventName(for code: UInt8) -> StaticString {
        leSubeventDescriptor(for: code)?.name ?? unknownName
    }

    static let eventsByCode = index(eventTable)
    static let subeventsByCode = index(leSubeventTable)

    static func index(_ table: [HCIEventDescriptor]) -> [HCIEventDescriptor?] {
        var byCode = [HCIEventDescriptor?](repeating: nil, count: 256)
        for d in table { byCode[Int(d.code)] = d }
        return byCode
    }
}
