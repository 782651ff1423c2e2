/// L2CAP channel identifiers (Core 5.4 Vol 3 Part A 2.1, Table 2.1 and 2.2).
public enum L2CAPChannel {
    public static let signaling: UInt16 = 0x0001
    public static let connectionless: UInt16 = 0x0002
    public static let att: UInt16 = 0x0004
    public static let leSignaling: UInt16 = 0x0005
    public static let smp: UInt16 = 0x0006
    public static let brEdrSMP: UInt16 = 0x0007
    /// First dynamically allocated CID on LE (Table 2.2: 0x0040–0x007F LE-U dynamic).
    public static let firstDynamic: UInt16 = 0x0040

    /// The fixed channel's name, "Dynamic" for 0x0040 and above, "Reserved" otherwise.
    public static func name(_ cid: UInt16) -> StaticString {
        switch cid {
        case 0x0000: "Null"
        case signaling: "L2CAP Signaling"
        case connectionless: "Connectionless"
        case 0x0003: "AMP Manager"
        case att: "Attribute Protocol"
        case leSignaling: "LE L2CAP Signaling"
        case smp: "Security Manager Protocol"
        case brEdrSMP: "BR/EDR Security Manager"
        case 0x003F: "AMP Test Manager"
        case firstDynamic...: "Dynamic"
        default: "Reserved"
        }
    }
}

/// LE signalling command codes code refers to by name (Vol 3 Part A 4, Table 4.2); BLEPackets
/// adds the table of all of them.
public enum L2CAPSignalingCode {
    /// 4.20: sent by the peripheral.
    public static let connectionParameterUpdateRequest: UInt8 = 0x12
    /// 4.21: sent by the central.
    public static let connectionParameterUpdateResponse: UInt8 = 0x13
}

/// SMP command codes (Vol 3 Part H 3.3, Table 3.1): the constants are generated from the SMP
/// table (scripts/pdu/smp_pdus.py, SMPCode+Generated.swift); BLEPackets adds the table of all of
/// them (name, size, decoder).
public enum SMPCode {}
