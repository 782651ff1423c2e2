import BLEBytes

private typealias P = HCIParameter

/// Fixed parameter layouts of HCI commands and their return parameters (Core 5.4 Vol 4
/// Part E 7.1–7.8). Return layouts leave out the leading `Status`, which
/// `HCIFields.describeReturn` reads for all of them.
enum HCICommandLayouts {
    static let handle = [P("connection_handle", .handle)]
    static let addressAndType = [P("address_type", .code8(HCIValueNames.addressType)), P("address", .address)]

    // Link control (OGF 0x01), 7.1.
    static let disconnect = [P("connection_handle", .handle), P("reason", .status)]

    // Controller & baseband (OGF 0x03), 7.3.
    static let eventMask = [P("event_mask", .hex64)]
    static let setControllerToHostFlowControl = [P("flow_control_enable", .hex8)]
    static let hostBufferSize = [
        P("host_acl_data_packet_length", .uint16), P("host_synchronous_data_packet_length", .uint8),
        P("host_total_num_acl_data_packets", .uint16), P("host_total_num_synchronous_data_packets", .uint16),
    ]
    static let writeLEHostSupported = [P("le_supported_host", .code8(HCIValueNames.enable)), P("unused", .hex8)]

    // Informational (OGF 0x04), 7.4.
    static let readLocalVersionReturn = [
        P("hci_version", .code8(HCIValueNames.coreVersion)), P("hci_subversion", .hex16),
        P("lmp_version", .code8(HCIValueNames.coreVersion)), P("company_identifier", .hex16),
        P("lmp_subversion", .hex16),
    ]
    static let supportedCommandsReturn = [P("supported_commands", .bytes(64))]
    static let lmpFeaturesReturn = [P("lmp_features", .hex64)]
    static let readBufferSizeReturn = [
        P("acl_data_packet_length", .uint16), P("synchronous_data_packet_length", .uint8),
        P("total_num_acl_data_packets", .uint16), P("total_num_synchronous_data_packets", .uint16),
    ]
    static let bdAddrReturn = [P("bd_addr", .address)]

    // Status (OGF 0x05), 7.5.
    static let readRSSIReturn = [P("connection_handle", .handle), P("rssi", .dBm)]

    // LE controller (OGF 0x08), 7.8.
    static let leEventMask = [P("le_event_mask", .hex64)]
    static let leReadBufferSizeV1Return = [
        P("le_acl_data_packet_length", .uint16), P("total_num_le_acl_data_packets", .uint8),
    ]
    static let leReadBufferSizeV2Return = [
        P("le_acl_data_packet_length", .uint16), P("total_num_le_acl_data_packets", .uint8),
        P("iso_data_packet_length", .uint16), P("total_num_iso_data_packets", .uint8),
    ]
    static let leFeaturesReturn = [P("le_features", .hex64)]
    static let randomAddress = [P("random_address", .address)]
    static let leSetAdvertisingParameters = [
        P("advertising_interval_min", .duration16(unit: HCIFields.slot625)),
        P("advertising_interval_max", .duration16(unit: HCIFields.slot625)),
        P("advertising_type", .code8(HCIValueNames.advertisingType)),
        P("own_address_type", .code8(HCIValueNames.ownAddressType)),
        P("peer_address_type", .code8(HCIValueNames.addressType)),
        P("peer_address", .address),
        P("advertising_channel_map", .flags8(HCIValueNames.channelMapBits)),
        P("advertising_filter_policy", .code8(HCIValueNames.advertisingFilterPolicy)),
    ]
    static let txPowerReturn = [P("tx_power_level", .dBm)]
    static let advertisingEnable = [P("advertising_enable", .code8(HCIValueNames.enable))]
    static let leSetScanParameters = [
        P("le_scan_type", .code8(HCIValueNames.scanType)),
        P("le_scan_interval", .duration16(unit: HCIFields.slot625)),
        P("le_scan_window", .duration16(unit: HCIFields.slot625)),
        P("own_address_type", .code8(HCIValueNames.ownAddressType)),
        P("scanning_filter_policy", .code8(HCIValueNames.scanningFilterPolicy)),
    ]
    static let leSetScanEnable = [
        P("le_scan_enable", .code8(HCIValueNames.enable)),
        P("filter_duplicates", .code8(HCIValueNames.filterDuplicates)),
    ]
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
    static let leCreateConnection =
        [
            P("le_scan_interval", .duration16(unit: HCIFields.slot625)),
            P("le_scan_window", .duration16(unit: HCIFields.slot625)),
            P("initiator_filter_policy", .code8(HCIValueNames.initiatorFilterPolicy)),
            P("peer_address_type", .code8(HCIValueNames.addressType)),
            P("peer_address", .address),
            P("own_address_type", .code8(HCIValueNames.ownAddressType)),
        ] + connectionParameters
    static let listSizeReturn = [P("list_size", .uint8)]
    static let leConnectionUpdate = handle + connectionParameters
    static let leEncrypt = [P("key", .bytes(16)), P("plaintext_data", .bytes(16))]
    static let leEncryptReturn = [P("encrypted_data", .bytes(16))]
    static let leRandReturn = [P("random_number", .hex64)]
    static let leStartEncryption = [
        P("connection_handle", .handle), P("random_number", .hex64),
        P("encrypted_diversifier", .hex16), P("long_term_key", .bytes(16)),
    ]
    static let leLongTermKeyRequestReply = [P("connection_handle", .handle), P("long_term_key", .bytes(16))]
    static let leRemoteConnectionParameterRequestNegativeReply = [
        P("connection_handle", .handle), P("reason", .status),
    ]
    static let leSetDataLength = [
        P("connection_handle", .handle), P("tx_octets", .uint16), P("tx_time", .duration16(unit: 1)),
    ]
    static let suggestedDefaultDataLength = [
        P("suggested_max_tx_octets", .uint16), P("suggested_max_tx_time", .duration16(unit: 1)),
    ]
    static let leAddDeviceToResolvingList = [
        P("peer_identity_address_type", .code8(HCIValueNames.addressType)),
        P("peer_identity_address", .address),
        P("peer_irk", .bytes(16)), P("local_irk", .bytes(16)),
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
    static let leSetPHY = handle + leSetDefaultPHY + [P("phy_options", .hex16)]
    static let advertisingHandle = [P("advertising_handle", .hex8)]
    static let leSetAdvertisingSetRandomAddress = [P("advertising_handle", .hex8), P("random_address", .address)]
    static let leSetExtendedAdvertisingParameters = [
        P("advertising_handle", .hex8),
        P("advertising_event_properties", .flags16(HCIValueNames.advertisingEventPropertyBits)),
        P("primary_advertising_interval_min", .duration24(unit: HCIFields.slot625)),
        P("primary_advertising_interval_max", .duration24(unit: HCIFields.slot625)),
        P("primary_advertising_channel_map", .flags8(HCIValueNames.channelMapBits)),
        P("own_address_type", .code8(HCIValueNames.ownAddressType)),
        P("peer_address_type", .code8(HCIValueNames.addressType)),
        P("peer_address", .address),
        P("advertising_filter_policy", .code8(HCIValueNames.advertisingFilterPolicy)),
        P("advertising_tx_power", .dBm),
        P("primary_advertising_phy", .code8(HCIValueNames.phy)),
        P("secondary_advertising_max_skip", .uint8),
        P("secondary_advertising_phy", .code8(HCIValueNames.phy)),
        P("advertising_sid", .hex8),
        P("scan_request_notification_enable", .code8(HCIValueNames.enable)),
    ]
    static let selectedTxPowerReturn = [P("selected_tx_power", .dBm)]
    static let extendedAdvertisingDataHeader = [
        P("advertising_handle", .hex8),
        P("operation", .code8(HCIValueNames.dataOperation)),
        P("fragment_preference", .hex8),
        P("data_length", .uint8),
    ]
    static let extendedAdvertisingEnableHeader = [
        P("enable", .code8(HCIValueNames.enable)), P("num_sets", .uint8),
    ]
    static let extendedAdvertisingEnableSet = [
        P("advertising_handle", .hex8),
        P("duration", .duration16(unit: HCIFields.unit10ms)),
        P("max_extended_advertising_events", .uint8),
    ]
    static let maxAdvertisingDataLengthReturn = [P("max_advertising_data_length", .uint16)]
    static let numSupportedAdvertisingSetsReturn = [P("num_supported_advertising_sets", .uint8)]
    static let extendedScanParametersHeader = [
        P("own_address_type", .code8(HCIValueNames.ownAddressType)),
        P("scanning_filter_policy", .code8(HCIValueNames.scanningFilterPolicy)),
        P("scanning_phys", .flags8(HCIValueNames.phyBits)),
    ]
    static let extendedScanParametersPHY = [
        P("scan_type", .code8(HCIValueNames.scanType)),
        P("scan_interval", .duration16(unit: HCIFields.slot625)),
        P("scan_window", .duration16(unit: HCIFields.slot625)),
    ]
    static let leSetExtendedScanEnable = [
        P("enable", .code8(HCIValueNames.enable)),
        P("filter_duplicates", .code8(HCIValueNames.filterDuplicates)),
        P("duration", .duration16(unit: HCIFields.unit10ms)),
        P("period", .duration16(unit: HCIFields.unit1280ms)),
    ]
    static let extendedCreateConnectionHeader = [
        P("initiator_filter_policy", .code8(HCIValueNames.initiatorFilterPolicy)),
        P("own_address_type", .code8(HCIValueNames.ownAddressType)),
        P("peer_address_type", .code8(HCIValueNames.addressType)),
        P("peer_address", .address),
        P("initiating_phys", .flags8(HCIValueNames.phyBits)),
    ]
    static let extendedCreateConnectionV2Prefix = [
        P("advertising_handle", .hex8), P("subevent", .uint8),
    ]
    static let extendedCreateConnectionPHY =
        [
            P("scan_interval", .duration16(unit: HCIFields.slot625)),
            P("scan_window", .duration16(unit: HCIFields.slot625)),
        ] + connectionParameters
    static let leSetPrivacyMode = peerIdentity + [P("privacy_mode", .code8(HCIValueNames.privacyMode))]
    static let leSetHostFeature = [P("bit_number", .uint8), P("bit_value", .uint8)]
}
