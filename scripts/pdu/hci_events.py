"""HCI events and LE Meta subevents blecap names or types (Core 5.4 Vol 4 Part E 7.7): one row per
event code (HCI_EVENTS) and per LE Meta subevent code (LE_SUBEVENTS).

scripts/pdu/generate.py (through scripts/pdu/hci_events_generate.py) writes every Swift fact that
follows from a row: the HCIEventCode / HCILESubeventCode constant (BLECodes) for a row with a
`case`; its parameter layout in HCIEventLayouts / HCILEEventLayouts (what `blecap packets`
describes); its row of HCIEvents.eventTable / leSubeventTable (the name tshark prints and the
describer); and for a row with a `type`: the struct's stored fields, memberwise init,
`init?(parameters:)` and encoder (`appendParameters(to:)` for an event,
`appendSubeventParameters(to:)` for a subevent), and its case in HCITypedEvents (BLEPackets).
What a type adds beyond its fields (computed values, constants) stays hand-written in an
extension beside its siblings (HCIEvents.swift, HCILEEvents.swift).

Each row is `Event(code, spec, section, name, ...)`:
  code      the event code (HCI_EVENTS) or the subevent code (LE_SUBEVENTS)
  spec      the spec's event name; section its section in Vol 4 Part E (None where the Core 5.4
            text no longer has the event)
  name      the name blecap prints: tshark 4.0's Info column, or the Core name with its "[v2]"
            convention for the codes tshark 4.0 does not know
  case      the BLECodes constant's Swift name, for code that refers to the event by name
  layout    the HCIEventLayouts / HCILEEventLayouts name of the parameter layout, which `packets`
            describes (rows may share one); None: the parameters are shown raw
  fields    the parameters in wire order, `F(spec_name, swift_name, kind)` with the kinds of the
            command table (scripts/pdu/hci_commands.py: `uint16`, `handle`,
            `code8(HCIValueNames.x)` ...), plus `bytes(n)` in a layout without a type; a field
            may be `optional` (nil when the parameters end before it, written only when present;
            trailing fields only)
  describe  a hand-written describer (HCIEventDecoders and siblings) instead of a layout
and, for a typed event:
  type      the Swift struct. Two rows naming the same type are its [v1] and [v2] (Encryption
            Change, LE Enhanced Connection Complete): the [v2] row's fields are the [v1] row's
            and more; the struct stores `version`, the [v2] fields optional, its decoder takes
            `version:`, its constants are `codeV1`/`codeV2` (`subeventV1`/`subeventV2`)
  doc       the type's doc comment (on the first row of a shared type)
  equatable the struct conforms to Equatable (on the first row; only where a caller compares
            values: each conformance is one more record the Swift runtime scans at its first
            conformance lookups, docs/performance.md "HCI events from one table")

A field's `handle` kind is the 12-bit Connection_Handle: the decoder clears the flag bits.
"""

from collections import namedtuple

from hci_commands import F

Event = namedtuple(
    "Event", "code spec section name case layout fields describe type doc equatable",
    defaults=(None, None, (), None, None, None, False))

ROLE = "code8(HCIValueNames.role)"
ADDRESS_TYPE = "code8(HCIValueNames.addressType)"
STATUS_HANDLE = [F("status", "status", "status"), F("connection_handle", "handle", "handle")]
TIMING = [
    F("connection_interval", "interval", "duration16(unit: HCIFields.unit1250)", doc="Units of 1.25 ms."),
    F("peripheral_latency", "latency", "uint16"),
    F("supervision_timeout", "supervisionTimeout", "duration16(unit: HCIFields.unit10ms)", doc="Units of 10 ms."),
]
CLOCK_ACCURACY = F("central_clock_accuracy", "centralClockAccuracy", "code8(HCIValueNames.clockAccuracy)")
ENHANCED_CONNECTION_COMPLETE = STATUS_HANDLE + [
    F("role", "role", ROLE, doc="0 central, 1 peripheral."),
    F("peer_address_type", "peerAddressType", ADDRESS_TYPE),
    F("peer_address", "peerAddress", "address"),
    F("local_resolvable_private_address", "localResolvablePrivateAddress", "address"),
    F("peer_resolvable_private_address", "peerResolvablePrivateAddress", "address"),
] + TIMING + [CLOCK_ACCURACY]
ENCRYPTION_CHANGE = STATUS_HANDLE + [
    F("encryption_enabled", "encryptionEnabled", "code8(HCIValueNames.encryptionEnabled)",
      doc="0 off; 1 on (AES-CCM on LE); 2 on (AES-CCM on BR/EDR)."),
]

HCI_EVENTS = [
    Event(0x01, "HCI_Inquiry_Complete", "7.7.1", "Inquiry Complete"),
    Event(0x02, "HCI_Inquiry_Result", "7.7.2", "Inquiry Result"),
    Event(0x03, "HCI_Connection_Complete", "7.7.3", "Connect Complete", case="connectionComplete",
          type="HCIConnectionComplete",
          fields=[F("status", "status", "status"),
                  F("connection_handle", "handle", "handle", optional=True,
                    doc="The 12-bit Connection_Handle (flag bits cleared)."),
                  F("bd_addr", "peerAddress", "address", optional=True),
                  F("link_type", "linkType", "code8(HCIValueNames.linkType)", optional=True),
                  F("encryption_enabled", "encryptionEnabled", "uint8", optional=True,
                    doc="Encryption_Enabled: 0 off, 1 on (link level encryption).")],
          doc="HCI_Connection_Complete (7.7.3), event 0x03: a BR/EDR link. Nil when even Status is\n"
              "missing; every later field is nil when the parameters end before it, and the encoder\n"
              "writes the parameters up to the first missing field.", equatable=True),
    Event(0x04, "HCI_Connection_Request", "7.7.4", "Connect Request"),
    Event(0x05, "HCI_Disconnection_Complete", "7.7.5", "Disconnect Complete", case="disconnectionComplete",
          layout="disconnectionComplete", type="HCIDisconnectionComplete",
          fields=STATUS_HANDLE + [
              F("reason", "reason", "status",
                doc="An HCI error code: 0x13 from the peer, 0x16 when this host asked, 0x08 on timeout …")],
          doc="HCI_Disconnection_Complete (7.7.5), event 0x05."),
    Event(0x06, "HCI_Authentication_Complete", "7.7.6", "Authentication Complete"),
    Event(0x07, "HCI_Remote_Name_Request_Complete", "7.7.7", "Remote Name Request Complete"),
    Event(0x08, "HCI_Encryption_Change [v1]", "7.7.8", "Encryption Change", case="encryptionChange",
          layout="encryptionChangeV1", type="HCIEncryptionChange", fields=ENCRYPTION_CHANGE,
          doc="HCI_Encryption_Change [v1] (7.7.8, event 0x08) and [v2] (7.7.8, event 0x59, adding the\n"
              "key size)."),
    Event(0x09, "HCI_Change_Connection_Link_Key_Complete", "7.7.9", "Change Connection Link Key Complete"),
    Event(0x0A, "HCI_Link_Key_Type_Changed", "7.7.10", "Master Link Key Complete"),
    Event(0x0B, "HCI_Read_Remote_Supported_Features_Complete", "7.7.11", "Read Remote Supported Features"),
    Event(0x0C, "HCI_Read_Remote_Version_Information_Complete", "7.7.12",
          "Read Remote Version Information Complete", case="readRemoteVersionInformationComplete",
          layout="readRemoteVersionInformationComplete", type="HCIReadRemoteVersionInformationComplete",
          fields=STATUS_HANDLE + [
              F("version", "version", "code8(HCIValueNames.coreVersion)",
                doc="The peer's Core version (LL_VERSION_IND)."),
              F("company_identifier", "companyIdentifier", "hex16"),
              F("subversion", "subversion", "hex16")],
          doc="HCI_Read_Remote_Version_Information_Complete (7.7.12), event 0x0C."),
    Event(0x0D, "HCI_QoS_Setup_Complete", "7.7.13", "QoS Setup Complete"),
    Event(0x0E, "HCI_Command_Complete", "7.7.14", "Command Complete", case="commandComplete",
          describe="D.commandComplete"),
    Event(0x0F, "HCI_Command_Status", "7.7.15", "Command Status", case="commandStatus", describe="D.commandStatus"),
    Event(0x10, "HCI_Hardware_Error", "7.7.16", "Hardware Error", case="hardwareError", layout="hardwareError",
          type="HCIHardwareError",
          fields=[F("hardware_code", "hardwareCode", "hex8",
                    doc="Hardware_Code: the controller's own, not an HCI error code.")],
          doc="HCI_Hardware_Error (7.7.16), event 0x10: the controller needs a reset.", equatable=True),
    Event(0x11, "HCI_Flush_Occurred", "7.7.17", "Flush Occurred"),
    Event(0x12, "HCI_Role_Change", "7.7.18", "Role Change"),
    Event(0x13, "HCI_Number_Of_Completed_Packets", "7.7.19", "Number of Completed Packets",
          case="numberOfCompletedPackets", describe="D.numberOfCompletedPackets"),
    Event(0x14, "HCI_Mode_Change", "7.7.20", "Mode Change"),
    Event(0x15, "HCI_Return_Link_Keys", "7.7.21", "Return Link Keys"),
    Event(0x16, "HCI_PIN_Code_Request", "7.7.22", "PIN Code Request"),
    Event(0x17, "HCI_Link_Key_Request", "7.7.23", "Link Key Request"),
    Event(0x18, "HCI_Link_Key_Notification", "7.7.24", "Link Key Notification"),
    Event(0x19, "HCI_Loopback_Command", "7.7.25", "Loopback Command"),
    Event(0x1A, "HCI_Data_Buffer_Overflow", "7.7.26", "Data Buffer Overflow", case="dataBufferOverflow",
          layout="dataBufferOverflow", type="HCIDataBufferOverflow",
          fields=[F("link_type", "linkType", "code8(HCIValueNames.linkType)",
                    doc="The kind of link whose data was lost: 0x00 synchronous, 0x01 ACL.")],
          doc="HCI_Data_Buffer_Overflow (7.7.26), event 0x1A: the host sent more than the controller's\n"
              "buffers hold."),
    Event(0x1B, "HCI_Max_Slots_Change", "7.7.27", "Max Slots Change"),
    Event(0x1C, "HCI_Read_Clock_Offset_Complete", "7.7.28", "Read Clock Offset Complete"),
    Event(0x1D, "HCI_Connection_Packet_Type_Changed", "7.7.29", "Connection Packet Type Changed"),
    Event(0x1E, "HCI_QoS_Violation", "7.7.30", "QoS Violation"),
    Event(0x1F, "HCI_Page_Scan_Mode_Change", None, "Page Scan Mode Change"),
    Event(0x20, "HCI_Page_Scan_Repetition_Mode_Change", "7.7.31", "Page Scan Repetition Mode Change"),
    Event(0x21, "HCI_Flow_Specification_Complete", "7.7.32", "Flow Specification Complete"),
    Event(0x22, "HCI_Inquiry_Result_with_RSSI", "7.7.33", "Inquiry Result With RSSI"),
    Event(0x23, "HCI_Read_Remote_Extended_Features_Complete", "7.7.34", "Read Remote Extended Features Complete"),
    Event(0x2C, "HCI_Synchronous_Connection_Complete", "7.7.35", "Synchronous Connection Complete"),
    Event(0x2D, "HCI_Synchronous_Connection_Changed", "7.7.36", "Synchronous Connection Changed"),
    Event(0x2E, "HCI_Sniff_Subrating", "7.7.37", "Sniff Subrating"),
    Event(0x2F, "HCI_Extended_Inquiry_Result", "7.7.38", "Extended Inquiry Result"),
    Event(0x30, "HCI_Encryption_Key_Refresh_Complete", "7.7.39", "Encryption Key Refresh Complete",
          case="encryptionKeyRefreshComplete", layout="statusAndHandle", type="HCIEncryptionKeyRefreshComplete",
          fields=STATUS_HANDLE,
          doc="HCI_Encryption_Key_Refresh_Complete (7.7.39), event 0x30: encryption restarted on an\n"
              "encrypted link (LE: with a new key)."),
    Event(0x31, "HCI_IO_Capability_Request", "7.7.40", "IO Capability Request"),
    Event(0x32, "HCI_IO_Capability_Response", "7.7.41", "IO Capability Response"),
    Event(0x33, "HCI_User_Confirmation_Request", "7.7.42", "User Confirmation Request"),
    Event(0x34, "HCI_User_Passkey_Request", "7.7.43", "User Passkey Request"),
    Event(0x35, "HCI_Remote_OOB_Data_Request", "7.7.44", "Remote OOB Data Request"),
    Event(0x36, "HCI_Simple_Pairing_Complete", "7.7.45", "Simple Pairing Complete"),
    Event(0x38, "HCI_Link_Supervision_Timeout_Changed", "7.7.46", "Link Supervision Timeout Changed"),
    Event(0x39, "HCI_Enhanced_Flush_Complete", "7.7.47", "Enhanced Flush Complete"),
    Event(0x3B, "HCI_User_Passkey_Notification", "7.7.48", "User Passkey Notification"),
    Event(0x3C, "HCI_Keypress_Notification", "7.7.49", "Keypress Notification"),
    Event(0x3D, "HCI_Remote_Host_Supported_Features_Notification", "7.7.50",
          "Remote Host Supported Features Notification"),
    Event(0x3E, "HCI_LE_Meta", "7.7.65", "LE Meta", case="leMeta", describe="D.leMeta"),
    # The AMP events (0x40-0x4D) left the Core in 5.3; tshark 4.0 still names them.
    Event(0x40, "HCI_Physical_Link_Complete", None, "Physical Link Complete"),
    Event(0x41, "HCI_Channel_Selected", None, "Channel Selected"),
    Event(0x42, "HCI_Disconnection_Physical_Link_Complete", None, "Disconnect Physical Link Complete"),
    Event(0x43, "HCI_Physical_Link_Loss_Early_Warning", None, "Physical Link Loss Early Warning"),
    Event(0x44, "HCI_Physical_Link_Recovery", None, "Physical Link Recovery"),
    Event(0x45, "HCI_Logical_Link_Complete", None, "Logical Link Complete"),
    Event(0x46, "HCI_Disconnection_Logical_Link_Complete", None, "Disconnect Logical Link Complete"),
    Event(0x47, "HCI_Flow_Spec_Modify_Complete", None, "Flow Spec Modify Complete"),
    Event(0x48, "HCI_Number_Of_Completed_Data_Blocks", None, "Number Of Completed Data Blocks"),
    Event(0x49, "HCI_AMP_Start_Test", None, "AMP Start Test"),
    Event(0x4A, "HCI_AMP_Test_End", None, "AMP Test End"),
    Event(0x4B, "HCI_AMP_Receiver_Report", None, "AMP Receiver Report"),
    Event(0x4C, "HCI_Short_Range_Mode_Change_Complete", None, "Short Range Mode Change Complete"),
    Event(0x4D, "HCI_AMP_Status_Change", None, "AMP Status Change"),
    Event(0x4E, "HCI_Triggered_Clock_Capture", "7.7.66", "Triggered Clock Capture"),
    Event(0x4F, "HCI_Synchronization_Train_Complete", "7.7.67", "Synchronization Train Complete"),
    Event(0x50, "HCI_Synchronization_Train_Received", "7.7.68", "Synchronization Train Received"),
    Event(0x51, "HCI_Connectionless_Peripheral_Broadcast_Receive", "7.7.69",
          "Connectionless Slave Broadcast Receive"),
    Event(0x52, "HCI_Connectionless_Peripheral_Broadcast_Timeout", "7.7.70",
          "Connectionless Slave Broadcast Timeout"),
    Event(0x53, "HCI_Truncated_Page_Complete", "7.7.71", "Truncated Page Complete"),
    Event(0x54, "HCI_Peripheral_Page_Response_Timeout", "7.7.72", "Slave Page Response Timeout"),
    Event(0x55, "HCI_Connectionless_Peripheral_Broadcast_Channel_Map_Change", "7.7.73",
          "Connectionless Slave Broadcast Channel Map Change"),
    Event(0x56, "HCI_Inquiry_Response_Notification", "7.7.74", "Inquiry Response Notification"),
    Event(0x57, "HCI_Authenticated_Payload_Timeout_Expired", "7.7.75", "Authenticated Payload Timeout Expired",
          layout="handle", fields=[F("connection_handle", "handle", "handle")]),
    Event(0x58, "HCI_SAM_Status_Change", "7.7.76", "SAM Status Change"),
    Event(0x59, "HCI_Encryption_Change [v2]", "7.7.8", "Encryption Change [v2]", case="encryptionChangeV2",
          layout="encryptionChangeV2", type="HCIEncryptionChange",
          fields=ENCRYPTION_CHANGE + [F("encryption_key_size", "keySize", "uint8")]),
    Event(0xFF, "HCI_Vendor_Specific", "5.4.4", "Vendor-Specific", describe="HCIAndroidBQRDecoders.vendorSpecific"),
]

LE_SUBEVENTS = [
    Event(0x01, "HCI_LE_Connection_Complete", "7.7.65.1", "LE Connection Complete", case="connectionComplete",
          layout="connectionComplete", type="HCILEConnectionComplete",
          fields=STATUS_HANDLE + [
              F("role", "role", ROLE, doc="0 central, 1 peripheral."),
              F("peer_address_type", "peerAddressType", ADDRESS_TYPE),
              F("peer_address", "peerAddress", "address"),
          ] + TIMING + [CLOCK_ACCURACY],
          doc="HCI_LE_Connection_Complete (7.7.65.1), subevent 0x01."),
    Event(0x02, "HCI_LE_Advertising_Report", "7.7.65.2", "LE Advertising Report", case="advertisingReport",
          describe="R.legacy"),
    Event(0x03, "HCI_LE_Connection_Update_Complete", "7.7.65.3", "LE Connection Update Complete",
          case="connectionUpdateComplete", layout="connectionUpdateComplete", type="HCILEConnectionUpdateComplete",
          fields=STATUS_HANDLE + TIMING,
          doc="HCI_LE_Connection_Update_Complete (7.7.65.3), subevent 0x03."),
    Event(0x04, "HCI_LE_Read_Remote_Features_Complete", "7.7.65.4", "LE Read Remote Features Complete",
          case="readRemoteFeaturesComplete", layout="readRemoteFeaturesComplete",
          type="HCILEReadRemoteFeaturesComplete",
          fields=STATUS_HANDLE + [
              F("le_features", "features", "hex64", doc="LE feature bits (Vol 6 Part B 4.6), little-endian.")],
          doc="HCI_LE_Read_Remote_Features_Complete (7.7.65.4), subevent 0x04."),
    Event(0x05, "HCI_LE_Long_Term_Key_Request", "7.7.65.5", "LE Long Term Key Request", case="longTermKeyRequest",
          layout="longTermKeyRequest", type="HCILELongTermKeyRequest",
          fields=[F("connection_handle", "handle", "handle"),
                  F("random_number", "randomNumber", "hex64"),
                  F("encrypted_diversifier", "encryptedDiversifier", "hex16")],
          doc="HCI_LE_Long_Term_Key_Request (7.7.65.5), subevent 0x05: the peripheral's controller asks\n"
              "its host for the LTK. Random 0 and EDIV 0 mean an LE Secure Connections (or stored) key\n"
              "is wanted."),
    Event(0x06, "HCI_LE_Remote_Connection_Parameter_Request", "7.7.65.6", "LE Remote Connection Parameter Request",
          layout="remoteConnectionParameterRequest",
          fields=[F("connection_handle", "handle", "handle"),
                  F("interval_min", "intervalMin", "duration16(unit: HCIFields.unit1250)"),
                  F("interval_max", "intervalMax", "duration16(unit: HCIFields.unit1250)"),
                  F("max_latency", "maxLatency", "uint16"),
                  F("timeout", "timeout", "duration16(unit: HCIFields.unit10ms)")]),
    Event(0x07, "HCI_LE_Data_Length_Change", "7.7.65.7", "LE Data Length Change", case="dataLengthChange",
          layout="dataLengthChange", type="HCILEDataLengthChange",
          fields=[F("connection_handle", "handle", "handle"),
                  F("max_tx_octets", "maxTxOctets", "uint16"),
                  F("max_tx_time", "maxTxTime", "duration16(unit: 1)"),
                  F("max_rx_octets", "maxRxOctets", "uint16"),
                  F("max_rx_time", "maxRxTime", "duration16(unit: 1)")],
          doc="HCI_LE_Data_Length_Change (7.7.65.7), subevent 0x07. Times are in microseconds."),
    Event(0x08, "HCI_LE_Read_Local_P-256_Public_Key_Complete", "7.7.65.8", "LE Read Local P-256 Public Key Complete",
          layout="readLocalP256PublicKeyComplete",
          fields=[F("status", "status", "status"), F("key", "key", "bytes(64)")]),
    Event(0x09, "HCI_LE_Generate_DHKey_Complete", "7.7.65.9", "LE Generate DHKey Complete",
          layout="generateDHKeyComplete",
          fields=[F("status", "status", "status"), F("dh_key", "dhKey", "bytes(32)")]),
    Event(0x0A, "HCI_LE_Enhanced_Connection_Complete [v1]", "7.7.65.10", "LE Enhanced Connection Complete",
          case="enhancedConnectionComplete", layout="enhancedConnectionCompleteV1",
          type="HCILEEnhancedConnectionComplete", fields=ENHANCED_CONNECTION_COMPLETE,
          doc="HCI_LE_Enhanced_Connection_Complete [v1] (7.7.65.10, subevent 0x0A) and [v2] (subevent\n"
              "0x29, which appends the advertising and sync handles). Adds the RPAs to LE Connection\n"
              "Complete; with address resolution on, `peerAddress` is the identity address."),
    Event(0x0B, "HCI_LE_Directed_Advertising_Report", "7.7.65.11", "LE Direct Advertising Report",
          describe="R.directed"),
    Event(0x0C, "HCI_LE_PHY_Update_Complete", "7.7.65.12", "LE PHY Update Complete", case="phyUpdateComplete",
          layout="phyUpdateComplete", type="HCILEPHYUpdateComplete",
          fields=STATUS_HANDLE + [
              F("tx_phy", "txPHY", "code8(HCIValueNames.phy)", doc="1 LE 1M, 2 LE 2M, 3 LE Coded."),
              F("rx_phy", "rxPHY", "code8(HCIValueNames.phy)")],
          doc="HCI_LE_PHY_Update_Complete (7.7.65.12), subevent 0x0C."),
    Event(0x0D, "HCI_LE_Extended_Advertising_Report", "7.7.65.13", "LE Extended Advertising Report",
          case="extendedAdvertisingReport", describe="R.extended"),
    Event(0x0E, "HCI_LE_Periodic_Advertising_Sync_Established [v1]", "7.7.65.14",
          "LE Periodic Advertising Sync Established"),
    Event(0x0F, "HCI_LE_Periodic_Advertising_Report [v1]", "7.7.65.15", "LE Periodic Advertising Report"),
    Event(0x10, "HCI_LE_Periodic_Advertising_Sync_Lost", "7.7.65.16", "LE Periodic Advertising Sync Lost"),
    Event(0x11, "HCI_LE_Scan_Timeout", "7.7.65.17", "LE Scan Timeout", layout="scanTimeout"),
    Event(0x12, "HCI_LE_Advertising_Set_Terminated", "7.7.65.18", "LE Advertising Set Terminated",
          case="advertisingSetTerminated", layout="advertisingSetTerminated", type="HCILEAdvertisingSetTerminated",
          fields=[F("status", "status", "status"),
                  F("advertising_handle", "advertisingHandle", "hex8"),
                  F("connection_handle", "connectionHandle", "handle"),
                  F("num_completed_extended_advertising_events", "numCompletedExtendedAdvertisingEvents", "uint8")],
          doc="HCI_LE_Advertising_Set_Terminated (7.7.65.18), subevent 0x12. On success the set ended\n"
              "because a connection was made on `connectionHandle`."),
    Event(0x13, "HCI_LE_Scan_Request_Received", "7.7.65.19", "LE Scan Request Received",
          layout="scanRequestReceived",
          fields=[F("advertising_handle", "advertisingHandle", "hex8"),
                  F("scanner_address_type", "scannerAddressType", ADDRESS_TYPE),
                  F("scanner_address", "scannerAddress", "address")]),
    Event(0x14, "HCI_LE_Channel_Selection_Algorithm", "7.7.65.20", "LE Channel Selection Algorithm",
          case="channelSelectionAlgorithm", layout="channelSelectionAlgorithm",
          type="HCILEChannelSelectionAlgorithm",
          fields=[F("connection_handle", "handle", "handle"),
                  F("channel_selection_algorithm", "algorithm", "code8(HCIValueNames.channelSelectionAlgorithm)",
                    doc="0 = algorithm #1, 1 = algorithm #2.")],
          doc="HCI_LE_Channel_Selection_Algorithm (7.7.65.20), subevent 0x14."),
    Event(0x15, "HCI_LE_Connectionless_IQ_Report", "7.7.65.21", "LE Connectionless IQ Report"),
    Event(0x16, "HCI_LE_Connection_IQ_Report", "7.7.65.22", "LE Connection IQ Report"),
    Event(0x17, "HCI_LE_CTE_Request_Failed", "7.7.65.23", "LE CTE Request Failed"),
    Event(0x18, "HCI_LE_Periodic_Advertising_Sync_Transfer_Received [v1]", "7.7.65.24",
          "LE Periodic Advertising Sync Transfer Received"),
    Event(0x19, "HCI_LE_CIS_Established", "7.7.65.25", "LE CIS Established"),
    Event(0x1A, "HCI_LE_CIS_Request", "7.7.65.26", "LE CIS Request"),
    Event(0x1B, "HCI_LE_Create_BIG_Complete", "7.7.65.27", "LE Create BIG Complete"),
    Event(0x1C, "HCI_LE_Terminate_BIG_Complete", "7.7.65.28", "LE Terminate BIG Complete"),
    Event(0x1D, "HCI_LE_BIG_Sync_Established", "7.7.65.29", "LE BIG Sync Established"),
    Event(0x1E, "HCI_LE_BIG_Sync_Lost", "7.7.65.30", "LE BIG Sync Lost"),
    Event(0x1F, "HCI_LE_Request_Peer_SCA_Complete", "7.7.65.31", "LE Request Peer SCA Complete"),
    Event(0x20, "HCI_LE_Path_Loss_Threshold", "7.7.65.32", "LE Path Loss Threshold"),
    Event(0x21, "HCI_LE_Transmit_Power_Reporting", "7.7.65.33", "LE Transmit Power Reporting"),
    Event(0x22, "HCI_LE_BIGInfo_Advertising_Report", "7.7.65.34", "LE BIGInfo Advertising Report"),
    Event(0x23, "HCI_LE_Subrate_Change", "7.7.65.35", "LE Subrate Change"),
    Event(0x24, "HCI_LE_Periodic_Advertising_Sync_Established [v2]", "7.7.65.14",
          "LE Periodic Advertising Sync Established [v2]"),
    Event(0x25, "HCI_LE_Periodic_Advertising_Report [v2]", "7.7.65.15", "LE Periodic Advertising Report [v2]"),
    Event(0x26, "HCI_LE_Periodic_Advertising_Sync_Transfer_Received [v2]", "7.7.65.24",
          "LE Periodic Advertising Sync Transfer Received [v2]"),
    Event(0x27, "HCI_LE_Periodic_Advertising_Subevent_Data_Request", "7.7.65.36",
          "LE Periodic Advertising Subevent Data Request"),
    Event(0x28, "HCI_LE_Periodic_Advertising_Response_Report", "7.7.65.37",
          "LE Periodic Advertising Response Report"),
    Event(0x29, "HCI_LE_Enhanced_Connection_Complete [v2]", "7.7.65.10", "LE Enhanced Connection Complete [v2]",
          case="enhancedConnectionCompleteV2", layout="enhancedConnectionCompleteV2",
          type="HCILEEnhancedConnectionComplete",
          fields=ENHANCED_CONNECTION_COMPLETE + [
              F("advertising_handle", "advertisingHandle", "hex8"),
              F("sync_handle", "syncHandle", "hex16")]),
]
