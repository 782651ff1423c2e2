import BLEBytes

// LE Meta subevents (Core 5.4 Vol 4 Part E 7.7.65). The typed subevents' structs (fields,
// `init?(parameters:)`, encoder) and layouts are generated from scripts/pdu/hci_events.py into
// HCIEvents+Generated.swift; what a type adds beyond its fields is here. Every
// `init?(parameters:)` takes the subevent's parameters, i.e. `HCIEventPacket.subeventParameters`
// (after the subevent code).

extension HCILEConnectionComplete {
    public var isCentral: Bool { role == HCIRole.central }
    public var intervalMicroseconds: Int64 { Int64(interval) * HCIFields.unit1250 }
    public var supervisionTimeoutMicroseconds: Int64 { Int64(supervisionTimeout) * HCIFields.unit10ms }
}

extension HCILEEnhancedConnectionComplete {
    public var isCentral: Bool { role == HCIRole.central }
    public var intervalMicroseconds: Int64 { Int64(interval) * HCIFields.unit1250 }
    public var supervisionTimeoutMicroseconds: Int64 { Int64(supervisionTimeout) * HCIFields.unit10ms }
}

extension HCILEConnectionUpdateComplete {
    public var intervalMicroseconds: Int64 { Int64(interval) * HCIFields.unit1250 }
    public var supervisionTimeoutMicroseconds: Int64 { Int64(supervisionTimeout) * HCIFields.unit10ms }
}

/// Fixed layouts of LE subevents (7.7.65), generated from scripts/pdu/hci_events.py
/// (HCIEvents+Generated.swift).
enum HCILEEventLayouts {}
