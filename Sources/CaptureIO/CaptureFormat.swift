/// The container a capture came in, as detected from its bytes (never from its name).
public enum CaptureFormat: Hashable, Sendable, CustomStringConvertible {
    /// btsnoop version 1 with its datalink: 1001 (HCI UART without type byte), 1002 (H4),
    /// 2001 (Linux monitor).
    case btsnoop(datalink: UInt32)
    /// libpcap classic file with its link type (187, 201, 254; over the air 157, 192, 251, 256, 272).
    case pcap(linkType: Int32, nanosecond: Bool)
    /// pcapng with the link type of its (first) interface.
    case pcapng(linkType: Int32)
    /// Apple PacketLogger (.pklg) with the byte order of its record headers.
    case packetLogger(bigEndian: Bool)

    public var description: String {
        switch self {
        case .btsnoop(let d):
            let name: String
            switch d {
            case 1001: name = "HCI UART, type from flags"
            case 1002: name = "HCI UART (H4)"
            case 2001: name = "Linux monitor"
            default: name = "unsupported"
            }
            return "btsnoop v1, datalink \(d) (\(name))"
        case .pcap(let l, let ns): return "pcap\(ns ? " (nanosecond)" : ""), link type \(l) (\(LinkType.name(l)))"
        case .pcapng(let l): return "pcapng, link type \(l) (\(LinkType.name(l)))"
        case .packetLogger(let be): return "Apple PacketLogger, \(be ? "big" : "little")-endian"
        }
    }

    /// Short machine name for JSON (`btsnoop`, `pcap`, `pcapng`, `pklg`).
    public var container: String {
        switch self {
        case .btsnoop: "btsnoop"
        case .pcap: "pcap"
        case .pcapng: "pcapng"
        case .packetLogger: "pklg"
        }
    }
}

/// libpcap link types that carry Bluetooth.
public enum LinkType {
    public static let bluetoothHCIH4: Int32 = 187
    public static let bluetoothHCIH4WithPHDR: Int32 = 201
    public static let bluetoothLinuxMonitor: Int32 = 254
    public static let ppi: Int32 = 192
    public static let user10: Int32 = 157
    public static let bluetoothLELL: Int32 = 251
    public static let bluetoothLELLWithPHDR: Int32 = 256
    public static let nordicBLE: Int32 = 272
    /// Over-the-air (link-layer) captures: records of kind `.linkLayer`.
    public static let linkLayerTypes: Set<Int32> = [157, 192, 251, 256, 272]

    public static func name(_ l: Int32) -> String {
        switch l {
        case 187: "BLUETOOTH_HCI_H4"
        case 157: "USER10 (nRF Sniffer)"
        case 192: "PPI"
        case 201: "BLUETOOTH_HCI_H4_WITH_PHDR"
        case 251: "BLUETOOTH_LE_LL"
        case 254: "BLUETOOTH_LINUX_MONITOR"
        case 256: "BLUETOOTH_LE_LL_WITH_PHDR"
        case 272: "NORDIC_BLE"
        default: "unknown"
        }
    }
}
