import BLEBytes

private typealias P = HCIParameter

/// Fixed parameter layouts of HCI commands and their return parameters (Core 5.4 Vol 4
/// Part E 7.1–7.8). Return layouts leave out the leading `Status`, which
/// `HCIFields.describeReturn` reads for all of them. The parameter layouts of the typed
/// commands and the return layouts of the typed return values are generated from
/// scripts/pdu/hci_commands.py (HCICommands+Generated.swift).
enum HCICommandLayouts {
    static let addressAndType = [P("address_type", .code8(HCIValueNames.addressType)), P("address", .address)]

    // Controller & baseband (OGF 0x03), 7.3.
    static let setControllerToHostFlowControl = [P("flow_control_enable", .hex8)]
    static let hostBufferSize = [
        P("host_acl_data_packet_length", .uint16), P("host_synchronous_data_packet_length", .uint8),
        P("host_total_num_acl_data_packets", .uint16), P("host_total_num_synchronous_data_packets", .uint16),
    ]
    static let writeLEHostSupported = [P("le_supported_host", .code8(HCIValueNames.enable)), P("unused", .hex8)]

    // Informational (OGF 0x04), 7.4.
    static let supportedCommandsReturn = [P("supported_commands", .bytes(64))]
    static let lmpFeaturesReturn = [P("lmp_features", .hex64)]
    static let bdAddrReturn = [P("bd_addr", .address)]

    // LE controller (OGF 0x08), 7.8.
    static let leReadBufferSizeV1Return = [
        P("le_acl_data_packet_length", .uint16), P("total_num_le_acl_data_packets", .uint8),
    ]
    static let leReadBufferSizeV2Return = [
        P("le_acl_data_packet_length", .uint16), P("total_num_le_acl_data_packets", .uint8),
        P("iso_data_packet_length", .uint16), P("total_num_iso_data_packets", .uint8),
    ]
    static let txPowerReturn = [P("tx_power_level", .dBm)]
    /// Connection interval … maximum CE length: shared by LE Create Connection, LE Connection
    /// Update and LE Remote Connection Parameter Request Reply.
    static let connectionParameters = [
        P("connection_interval_min", .duration16(unit: HCIFields.unit1250)),
        P("connection_interval_max", .duration16(unit: HCIFields.unit1250)),
        P("max_latency", .uint16),
        P("supervision_timeout", .duration16(unit: HCIFields.unit10ms)),
        P("min_ce_length", .duration16(unit: HCIFields.slot625)),
        P("max_ce_length", .duration16(unit: HCIFields.slot625)),
    ]
    static let listSizeReturn = [P("list_size", .uint8)]
    static let leEncrypt = [P("key", .bytes(16)), P("plaintext_data", .bytes(16))]
    static let leEncryptReturn = [P("encrypted_data", .bytes(16))]
    static let leRandReturn = [P("random_number", .hex64)]
    static let leRemoteConnectionParameterRequestNegativeReply = [
        P("connection_handle", .handle), P("reason", .status),
    ]
    static let peerIdentity = [
        P("peer_identity_address_type", .code8(HCIValueNames.addressType)),
        P("peer_identity_address", .address),
    ]
    static let resolvableAddressReturn = [P("resolvable_address", .address)]
    static let addressResolutionEnable = [P("address_resolution_enable", .code8(HCIValueNames.enable))]
    static let rpaTimeout = [P("rpa_timeout", .duration16(unit: 1_000_000))]
    static let leReadMaximumDataLengthReturn = [
        P("supported_max_tx_octets", .uint16), P("supported_max_tx_time", .duration16(unit: 1)),
        P("supported_max_rx_octets", .uint16), P("supported_max_rx_time", .duration16(unit: 1)),
    ]
    static let leReadPHYReturn = [
        P("connection_handle", .handle),
        P("tx_phy", .code8(HCIValueNames.phy)), P("rx_phy", .code8(HCIValueNames.phy)),
    ]
    static let leSetDefaultPHY = [
        P("all_phys", .flags8(HCIValueNames.allPHYsBits)),
        P("tx_phys", .flags8(HCIValueNames.phyBits)), P("rx_phys", .flags8(HCIValueNames.phyBits)),
    ]
    static let selectedTxPowerReturn = [P("selected_tx_power", .dBm)]
    static let maxAdvertisingDataLengthReturn = [P("max_advertising_data_length", .uint16)]
    static let numSupportedAdvertisingSetsReturn = [P("num_supported_advertising_sets", .uint8)]
    static let leSetPrivacyMode = peerIdentity + [P("privacy_mode", .code8(HCIValueNames.privacyMode))]
    static let leSetHostFeature = [P("bit_number", .uint8), P("bit_value", .uint8)]
}
