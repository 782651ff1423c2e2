import BLEBytes

// What the typed return values add beyond their fields. Read Local Version Information, Read
// Buffer Size's Fields, Read RSSI and LE Read Local Supported Features are generated with their
// return layouts from scripts/pdu/hci_commands.py (RETURNS, HCICommands+Generated.swift). LE
// Read Buffer Size's Fields stay here: one type reads [v1] or [v2] by `version`, through the
// layout `blecap packets` describes each with. Each field is nil when the return parameters end
// before it. Status is the first octet of every one (Core 5.4 Vol 4 Part E 7.7.14).

/// The Status octet and the fields after it, read through `layout`.
private func returnFields(_ layout: [HCIParameter], _ p: ByteView) -> (status: UInt8?, fields: HCILayoutFields) {
    (p.u8(0), HCILayoutFields(layout: layout, parameters: p.suffix(from: 1) ?? .empty))
}

extension HCILEReadBufferSize {
    /// LE Read Buffer Size's return parameters each as far as they reach, [v1] or [v2] by
    /// `version` (`HCILEReadBufferSize` itself needs all of its version's).
    public struct Fields: Sendable, Equatable {
        public let status: UInt8?
        public let leACLDataPacketLength: UInt16?
        public let totalNumLEACLDataPackets: UInt8?
        /// v2 only.
        public let isoDataPacketLength: UInt16?
        public let totalNumISODataPackets: UInt8?

        public init(returnParameters p: ByteView, version: Int = 1) {
            let layout =
                version == 2 ? HCICommandLayouts.leReadBufferSizeV2Return : HCICommandLayouts.leReadBufferSizeV1Return
            let (s, f) = returnFields(layout, p)
            status = s
            leACLDataPacketLength = f.uint16("le_acl_data_packet_length")
            totalNumLEACLDataPackets = f.uint8("total_num_le_acl_data_packets")
            isoDataPacketLength = f.uint16("iso_data_packet_length")
            totalNumISODataPackets = f.uint8("total_num_iso_data_packets")
        }
    }
}

extension HCIReadRSSI {
    /// RSSI 127: the controller has no value to give.
    public static let notAvailable: Int8 = 127
}
