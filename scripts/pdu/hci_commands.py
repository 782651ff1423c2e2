"""HCI commands blecap names or types (Core 5.4 Vol 4 Part E 7): one row per opcode.

scripts/pdu/generate.py writes every Swift fact that follows from a row: the HCIOpcode constant
(BLECodes), and for a row with a `type`: its parameter layout in HCICommandLayouts (what
`blecap packets` describes), its row in HCICommands.table (the name tshark prints, the return
layout) and the typed struct's stored fields, memberwise init, `init?(parameters:)` and
`appendParameters(to:)` (BLEPackets). What a type adds beyond its fields (computed values,
convenience inits, constants) stays hand-written in an extension beside its siblings in
Sources/BLEPackets/HCI/. Every other opcode's table row stays hand-written in
HCICommandTable.swift (most have no decoder, only a name).

Each row is `Command(ogf, ocf, spec, section, case, ...)`:
  ogf, ocf  the opcode's group (bits 10-15) and command (bits 0-9)
  spec      the spec's command name; section its section in Vol 4 Part E
  case      the HCIOpcode constant's Swift name
and, for a typed command:
  type      the Swift struct; rows naming the same type share it (its stored `commandOpcode`
            then says which, its inits take `opcode:`) and must declare the same Swift fields
  name      the name blecap prints (tshark's), for HCICommands.table
  layout    the HCICommandLayouts name of the parameter layout (rows may share one)
  fields    the parameters in wire order, `F(spec_name, swift_name, kind)`; kind is an
            HCIParameter.Kind written as in Swift (`uint16`, `handle`, `code8(HCIValueNames.x)`,
            `duration16(unit: HCIFields.slot625)` ...) or `key` (16 octets, a UInt128) or
            `connection` (the 12 octets of HCIConnectionParameters, layout `connectionParameters`)
  optional  on a field: nil when the parameters end before it, written only when present
            (trailing fields only); `partial=True` on a row makes every field so (a controller
            reads such a command as far as it reaches) and its `init(parameters:)` total
  trailer   `Data(length_spec, swift_name, maximum=, padded=)`: a length octet, then that many
            octets (`[UInt8]`); padded: always `maximum` octets on the wire, zeros after the data
  repeat    `Repeat(...)`: blocks of fields after the fixed ones, counted by the last fixed field
            (see Repeat below); decode fails cleanly when the bytes cannot hold the blocks counted
  returns   the return layout (Swift, e.g. `[]`, `L.handle`); None: not decoded
  describe  a hand-written describer (HCICommandDecoders) instead of the layout
  init      False when the memberwise init is hand-written (other labels, defaults, checks)
  doc       the type's doc comment (on the first row of a shared type)

Return layouts a typed value reads are declared once in RETURNS below (see Return).
"""

from collections import namedtuple

Command = namedtuple(
    "Command",
    "ogf ocf spec section case type name layout fields partial trailer returns describe init doc repeat",
    defaults=(None, None, None, (), False, None, None, None, True, None, None))
Field = namedtuple("Field", "spec swift kind optional doc", defaults=(False, None))
Data = namedtuple("Data", "length_spec swift maximum padded", defaults=(None, False))


# Repeated blocks (Vol 4 Part E 7.8.56, 7.8.64, 7.8.66): the row's last fixed field counts them,
# either as a number of blocks (`phys` None; the count is not stored, it is the list's length) or
# as a PHY mask with one block per known bit set (`phys` the known bits; the mask is stored as
# sent, and `packets` shows each block's PHY first).
#   swift   the stored list's name; type  the block's Swift type (`Owner.Name`: generated as an
#   extension of Owner; rows naming the same type share it); group  the name `packets` gives
#   each block; layout  the block's HCICommandLayouts name; fields  the block's fields, in wire
#   order; doc  the block type's doc comment.
Repeat = namedtuple("Repeat", "swift type group layout fields phys doc", defaults=(None, None))


def F(spec, swift, kind, optional=False, doc=None):
    return Field(spec, swift, kind, optional, doc)


# Return parameters (Command Complete, 7.7.14) a typed value reads: the layout after the leading
# Status, which `blecap packets` describes them with (`returns="L.layout"` on a row, or on a
# hand-written row of HCICommandTable.swift), and the struct the generator makes of it: `status`
# then every field, each nil when the return parameters end before it (a cut Command Complete
# says what it holds and no more); a memberwise init, `init(returnParameters:)` and
# `appendReturnParameters(to:)`, which writes up to the first missing field.
#   layout  the HCICommandLayouts name; fields  the fields after Status, `F(...)` as for a
#   command (never `optional=`: every return field is read as far as it reaches); type  the
#   Swift struct (`Owner.Name`: generated as an extension of Owner); case  the HCIOpcode constant
#   the struct's `opcode` names (None: no `opcode`); doc  the struct's doc comment.
Return = namedtuple("Return", "layout fields type case doc")

RETURNS = [
    Return("readLocalVersionReturn", [
        F("hci_version", "hciVersion", "code8(HCIValueNames.coreVersion)",
          doc="HCI_Version and LMP_Version: Core specification versions (Assigned Numbers 2.1)."),
        F("hci_subversion", "hciSubversion", "hex16"),
        F("lmp_version", "lmpVersion", "code8(HCIValueNames.coreVersion)"),
        F("company_identifier", "companyIdentifier", "hex16",
          doc="Company_Identifier of the controller's manufacturer."),
        F("lmp_subversion", "lmpSubversion", "hex16"),
    ], "HCIReadLocalVersionInformation", "readLocalVersionInformation",
        "Return parameters of HCI_Read_Local_Version_Information (7.4.1), opcode 0x1001."),
    Return("readBufferSizeReturn", [
        F("acl_data_packet_length", "aclDataPacketLength", "uint16"),
        F("synchronous_data_packet_length", "synchronousDataPacketLength", "uint8"),
        F("total_num_acl_data_packets", "totalNumACLDataPackets", "uint16"),
        F("total_num_synchronous_data_packets", "totalNumSynchronousDataPackets", "uint16"),
    ], "HCIReadBufferSize.Fields", None,
        "Read Buffer Size's return parameters each as far as they reach (`HCIReadBufferSize`\n"
        "itself needs all of them)."),
    Return("readRSSIReturn", [
        F("connection_handle", "handle", "handle", doc="The 12-bit Connection_Handle (flag bits cleared)."),
        F("rssi", "rssi", "dBm", doc="dBm, signed."),
    ], "HCIReadRSSI", "readRSSI", "Return parameters of HCI_Read_RSSI (7.5.4), opcode 0x1405."),
    Return("leFeaturesReturn", [
        F("le_features", "leFeatures", "hex64", doc="LE_Features: the LE feature bits (Vol 6 Part B 4.6), little-endian."),
    ], "HCILEReadLocalSupportedFeatures", "leReadLocalSupportedFeatures",
        "Return parameters of HCI_LE_Read_Local_Supported_Features (7.8.3), opcode 0x2003."),
]


ADDRESS_TYPE = "code8(HCIValueNames.addressType)"
OWN_ADDRESS_TYPE = "code8(HCIValueNames.ownAddressType)"
ENABLE = "code8(HCIValueNames.enable)"
SLOTS = "duration16(unit: HCIFields.slot625)"
HANDLE = [F("connection_handle", "handle", "handle")]

HANDLE_DOC = """\
A command whose parameters start with a Connection_Handle and hold nothing else the
controller reads: HCI_Read_Remote_Version_Information (7.1.23), HCI_Read_RSSI (7.5.4),
HCI_LE_Read_Remote_Features (7.8.21), HCI_LE_Long_Term_Key_Request_Negative_Reply (7.8.26),
HCI_LE_Read_PHY (7.8.47). `handle` is the 12-bit handle (flag bits cleared)."""

ADVERTISING_DATA_DOC = """\
HCI_LE_Set_Advertising_Data (7.8.7, 0x2008) and HCI_LE_Set_Scan_Response_Data (7.8.8,
0x2009): a length octet, then 31 octets of which the first `length` are the data (the rest
zero). Nil when the parameters end before the data they announce."""

EXTENDED_DATA_DOC = """\
HCI_LE_Set_Extended_Advertising_Data (7.8.54, 0x2037) and HCI_LE_Set_Extended_Scan_Response_Data
(7.8.55, 0x2038): Advertising_Handle, Operation, Fragment_Preference, then a length octet
and that many octets of data (at most 251 in one command; longer data goes in fragments).
Nil when the parameters end before the data they announce."""

PARTIAL_DOC = """\
read as far as the parameters reach (a field is nil when they end before it), and written
back field by field up to the first missing one: a controller reads `ownAddressType`, a host
(`blecap replay --controller`) writes them all."""

EXTENDED_CONNECTION_PHY = Repeat(
    "entries", "HCILEExtendedCreateConnection.Entry", "phy", "extendedCreateConnectionPHY", phys=0b111,
    fields=[
        F("scan_interval", "scanInterval", SLOTS),
        F("scan_window", "scanWindow", SLOTS),
        F("connection_parameters", "connection", "connection",
          doc="Connection_Interval_Min/Max, Max_Latency, Supervision_Timeout, Min/Max_CE_Length."),
    ],
    doc="One initiating PHY's block of HCI_LE_Extended_Create_Connection (7.8.66).")

EXTENDED_CONNECTION_HEADER = [
    F("initiator_filter_policy", "initiatorFilterPolicy", "code8(HCIValueNames.initiatorFilterPolicy)"),
    F("own_address_type", "ownAddressType", OWN_ADDRESS_TYPE),
    F("peer_address_type", "peerAddressType", ADDRESS_TYPE),
    F("peer_address", "peerAddress", "address"),
    F("initiating_phys", "initiatingPHYs", "flags8(HCIValueNames.phyBits)",
      doc="Initiating_PHYs: bit 0 LE 1M, bit 1 LE 2M, bit 2 LE Coded; one entry per bit set."),
]

HCI_COMMANDS = [
    # Link control (OGF 0x01), 7.1.
    Command(0x01, 0x001, "HCI_Inquiry", "7.1.1", "inquiry"),
    Command(0x01, 0x005, "HCI_Create_Connection", "7.1.5", "createConnection"),
    Command(0x01, 0x006, "HCI_Disconnect", "7.1.6", "disconnect", type="HCIDisconnect", name="Disconnect",
            layout="disconnect",
            fields=[F("connection_handle", "handle", "handle"),
                    F("reason", "reason", "status",
                      doc="An HCI error code (usually 0x13 Remote User Terminated Connection).")],
            doc="HCI_Disconnect (7.1.6), opcode 0x0406."),
    Command(0x01, 0x01D, "HCI_Read_Remote_Version_Information", "7.1.23", "readRemoteVersionInformation",
            type="HCIConnectionHandleCommand", name="Read Remote Version Information", layout="handle",
            fields=HANDLE, doc=HANDLE_DOC),
    # Controller & baseband (OGF 0x03), 7.3.
    Command(0x03, 0x001, "HCI_Set_Event_Mask", "7.3.1", "setEventMask", type="HCISetEventMask",
            name="Set Event Mask", layout="eventMask", fields=[F("event_mask", "mask", "hex64")], returns="[]",
            doc="HCI_Set_Event_Mask (7.3.1, 0x0C01) and HCI_LE_Set_Event_Mask (7.8.1, 0x2001): one 64-bit mask."),
    Command(0x03, 0x003, "HCI_Reset", "7.3.2", "reset"),
    Command(0x03, 0x014, "HCI_Read_Local_Name", "7.3.12", "readLocalName"),
    Command(0x03, 0x033, "HCI_Host_Buffer_Size", "7.3.39", "hostBufferSize"),
    Command(0x03, 0x063, "HCI_Set_Event_Mask_Page_2", "7.3.69", "setEventMaskPage2"),
    Command(0x03, 0x06C, "HCI_Read_LE_Host_Support", "7.3.78", "readLEHostSupport"),
    Command(0x03, 0x06D, "HCI_Write_LE_Host_Support", "7.3.79", "writeLEHostSupport"),
    # Informational (OGF 0x04), 7.4.
    Command(0x04, 0x001, "HCI_Read_Local_Version_Information", "7.4.1", "readLocalVersionInformation"),
    Command(0x04, 0x002, "HCI_Read_Local_Supported_Commands", "7.4.2", "readLocalSupportedCommands"),
    Command(0x04, 0x003, "HCI_Read_Local_Supported_Features", "7.4.3", "readLocalSupportedFeatures"),
    Command(0x04, 0x005, "HCI_Read_Buffer_Size", "7.4.5", "readBufferSize"),
    Command(0x04, 0x009, "HCI_Read_BD_ADDR", "7.4.6", "readBDADDR"),
    # Status (OGF 0x05), 7.5.
    Command(0x05, 0x005, "HCI_Read_RSSI", "7.5.4", "readRSSI", type="HCIConnectionHandleCommand", name="Read RSSI",
            layout="handle", fields=HANDLE, returns="L.readRSSIReturn"),
    # LE controller (OGF 0x08), 7.8.
    Command(0x08, 0x001, "HCI_LE_Set_Event_Mask", "7.8.1", "leSetEventMask", type="HCISetEventMask",
            name="LE Set Event Mask", layout="leEventMask", fields=[F("le_event_mask", "mask", "hex64")],
            returns="[]"),
    Command(0x08, 0x002, "HCI_LE_Read_Buffer_Size [v1]", "7.8.2", "leReadBufferSize"),
    Command(0x08, 0x003, "HCI_LE_Read_Local_Supported_Features", "7.8.3", "leReadLocalSupportedFeatures"),
    Command(0x08, 0x005, "HCI_LE_Set_Random_Address", "7.8.4", "leSetRandomAddress", type="HCILESetRandomAddress",
            name="LE Set Random Address", layout="randomAddress",
            fields=[F("random_address", "address", "address")], returns="[]",
            doc="HCI_LE_Set_Random_Address (7.8.4, 0x2005): Random_Address."),
    Command(0x08, 0x006, "HCI_LE_Set_Advertising_Parameters", "7.8.5", "leSetAdvertisingParameters",
            type="HCILESetAdvertisingParameters", name="LE Set Advertising Parameters",
            layout="leSetAdvertisingParameters", partial=True, init=False, returns="[]",
            fields=[
                F("advertising_interval_min", "intervalMin", SLOTS,
                  doc="Advertising_Interval_Min and _Max, units of 0.625 ms."),
                F("advertising_interval_max", "intervalMax", SLOTS),
                F("advertising_type", "advertisingType", "code8(HCIValueNames.advertisingType)",
                  doc="Advertising_Type: 0 ADV_IND, 1 ADV_DIRECT_IND (high duty), 2 ADV_SCAN_IND,\n"
                      "3 ADV_NONCONN_IND, 4 ADV_DIRECT_IND (low duty)."),
                F("own_address_type", "ownAddressType", OWN_ADDRESS_TYPE),
                F("peer_address_type", "peerAddressType", ADDRESS_TYPE),
                F("peer_address", "peerAddress", "address"),
                F("advertising_channel_map", "channelMap", "flags8(HCIValueNames.channelMapBits)"),
                F("advertising_filter_policy", "filterPolicy", "code8(HCIValueNames.advertisingFilterPolicy)"),
            ],
            doc="HCI_LE_Set_Advertising_Parameters (Core 5.4 Vol 4 Part E 7.8.5, 0x2006),\n" + PARTIAL_DOC),
    Command(0x08, 0x007, "HCI_LE_Read_Advertising_Physical_Channel_Tx_Power", "7.8.6",
            "leReadAdvertisingPhysicalChannelTxPower"),
    Command(0x08, 0x008, "HCI_LE_Set_Advertising_Data", "7.8.7", "leSetAdvertisingData",
            type="HCILESetAdvertisingData", name="LE Set Advertising Data", init=False,
            trailer=Data("data_length", "data", maximum=31, padded=True), describe="D.advertisingData",
            returns="[]", doc=ADVERTISING_DATA_DOC),
    Command(0x08, 0x009, "HCI_LE_Set_Scan_Response_Data", "7.8.8", "leSetScanResponseData",
            type="HCILESetAdvertisingData", name="LE Set Scan Response Data", init=False,
            trailer=Data("data_length", "data", maximum=31, padded=True), describe="D.advertisingData",
            returns="[]"),
    Command(0x08, 0x00A, "HCI_LE_Set_Advertising_Enable", "7.8.9", "leSetAdvertisingEnable",
            type="HCILESetAdvertisingEnable", name="LE Set Advertise Enable", layout="advertisingEnable",
            fields=[F("advertising_enable", "enable", ENABLE)], returns="[]",
            doc="HCI_LE_Set_Advertising_Enable (7.8.9, 0x200A): Advertising_Enable."),
    Command(0x08, 0x00B, "HCI_LE_Set_Scan_Parameters", "7.8.10", "leSetScanParameters",
            type="HCILESetScanParameters", name="LE Set Scan Parameters", layout="leSetScanParameters",
            fields=[
                F("le_scan_type", "scanType", "code8(HCIValueNames.scanType)", doc="0 passive, 1 active."),
                F("le_scan_interval", "interval", SLOTS, doc="Units of 0.625 ms."),
                F("le_scan_window", "window", SLOTS),
                F("own_address_type", "ownAddressType", OWN_ADDRESS_TYPE),
                F("scanning_filter_policy", "filterPolicy", "code8(HCIValueNames.scanningFilterPolicy)"),
            ], returns="[]", doc="HCI_LE_Set_Scan_Parameters (7.8.10), opcode 0x200B."),
    Command(0x08, 0x00C, "HCI_LE_Set_Scan_Enable", "7.8.11", "leSetScanEnable", type="HCILESetScanEnable",
            name="LE Set Scan Enable", layout="leSetScanEnable", init=False,
            fields=[
                F("le_scan_enable", "enableValue", ENABLE, doc="LE_Scan_Enable as sent (0x00 disabled, 0x01 enabled)."),
                F("filter_duplicates", "filterDuplicates", "code8(HCIValueNames.filterDuplicates)"),
            ], returns="[]", doc="HCI_LE_Set_Scan_Enable (7.8.11), opcode 0x200C."),
    Command(0x08, 0x00D, "HCI_LE_Create_Connection", "7.8.12", "leCreateConnection",
            type="HCILECreateConnection", name="LE Create Connection", layout="leCreateConnection",
            fields=[
                F("le_scan_interval", "scanInterval", SLOTS, doc="Units of 0.625 ms."),
                F("le_scan_window", "scanWindow", SLOTS),
                F("initiator_filter_policy", "initiatorFilterPolicy", "code8(HCIValueNames.initiatorFilterPolicy)"),
                F("peer_address_type", "peerAddressType", ADDRESS_TYPE),
                F("peer_address", "peerAddress", "address"),
                F("own_address_type", "ownAddressType", OWN_ADDRESS_TYPE),
                F("connection_parameters", "connection", "connection"),
            ], doc="HCI_LE_Create_Connection (7.8.12), opcode 0x200D."),
    Command(0x08, 0x00E, "HCI_LE_Create_Connection_Cancel", "7.8.13", "leCreateConnectionCancel"),
    Command(0x08, 0x00F, "HCI_LE_Read_Filter_Accept_List_Size", "7.8.14", "leReadFilterAcceptListSize"),
    Command(0x08, 0x010, "HCI_LE_Clear_Filter_Accept_List", "7.8.15", "leClearFilterAcceptList"),
    Command(0x08, 0x011, "HCI_LE_Add_Device_To_Filter_Accept_List", "7.8.16", "leAddDeviceToFilterAcceptList"),
    Command(0x08, 0x012, "HCI_LE_Remove_Device_From_Filter_Accept_List", "7.8.17",
            "leRemoveDeviceFromFilterAcceptList"),
    Command(0x08, 0x013, "HCI_LE_Connection_Update", "7.8.18", "leConnectionUpdate", type="HCILEConnectionUpdate",
            name="LE Connection Update", layout="leConnectionUpdate",
            fields=[F("connection_handle", "handle", "handle"),
                    F("connection_parameters", "connection", "connection")],
            doc="HCI_LE_Connection_Update (7.8.18), opcode 0x2013."),
    Command(0x08, 0x016, "HCI_LE_Read_Remote_Features", "7.8.21", "leReadRemoteFeatures",
            type="HCIConnectionHandleCommand", name="LE Read Remote Features", layout="handle", fields=HANDLE),
    Command(0x08, 0x018, "HCI_LE_Rand", "7.8.23", "leRand"),
    Command(0x08, 0x019, "HCI_LE_Enable_Encryption", "7.8.24", "leEnableEncryption", type="HCILEEnableEncryption",
            name="LE Start Encryption", layout="leStartEncryption",
            fields=[
                F("connection_handle", "handle", "handle"),
                F("random_number", "randomNumber", "hex64"),
                F("encrypted_diversifier", "encryptedDiversifier", "hex16"),
                F("long_term_key", "longTermKey", "key"),
            ],
            doc="HCI_LE_Enable_Encryption (7.8.24, 0x2019): Connection_Handle, Random_Number (8),\n"
                "Encrypted_Diversifier (2), Long_Term_Key (16)."),
    Command(0x08, 0x01A, "HCI_LE_Long_Term_Key_Request_Reply", "7.8.25", "leLongTermKeyRequestReply",
            type="HCILELongTermKeyRequestReply", name="LE Long Term Key Request Reply",
            layout="leLongTermKeyRequestReply",
            fields=[F("connection_handle", "handle", "handle"),
                    F("long_term_key", "longTermKey", "key", optional=True)],
            returns="L.handle",
            doc="HCI_LE_Long_Term_Key_Request_Reply (7.8.25, 0x201A): Connection_Handle, Long_Term_Key.\n"
                "Decodes from the handle on: `longTermKey` is nil when the parameters end before the key\n"
                "(a controller cannot use such a reply's key)."),
    Command(0x08, 0x01B, "HCI_LE_Long_Term_Key_Request_Negative_Reply", "7.8.26",
            "leLongTermKeyRequestNegativeReply", type="HCIConnectionHandleCommand",
            name="LE Long Term Key Request Negative Reply", layout="handle", fields=HANDLE, returns="L.handle"),
    Command(0x08, 0x01C, "HCI_LE_Read_Supported_States", "7.8.27", "leReadSupportedStates"),
    Command(0x08, 0x022, "HCI_LE_Set_Data_Length", "7.8.33", "leSetDataLength", type="HCILESetDataLength",
            name="LE Set Data Length", layout="leSetDataLength",
            fields=[
                F("connection_handle", "handle", "handle"),
                F("tx_octets", "txOctets", "uint16"),
                F("tx_time", "txTime", "duration16(unit: 1)"),
            ], returns="L.handle",
            doc="HCI_LE_Set_Data_Length (7.8.33, 0x2022): Connection_Handle, TX_Octets, TX_Time."),
    Command(0x08, 0x023, "HCI_LE_Read_Suggested_Default_Data_Length", "7.8.34", "leReadSuggestedDefaultDataLength"),
    Command(0x08, 0x024, "HCI_LE_Write_Suggested_Default_Data_Length", "7.8.35",
            "leWriteSuggestedDefaultDataLength", type="HCILEWriteSuggestedDefaultDataLength",
            name="LE Write Suggested Default Data Length", layout="suggestedDefaultDataLength",
            fields=[
                F("suggested_max_tx_octets", "maxTxOctets", "uint16"),
                F("suggested_max_tx_time", "maxTxTime", "duration16(unit: 1)"),
            ], returns="[]",
            doc="HCI_LE_Write_Suggested_Default_Data_Length (7.8.35, 0x2024): Suggested_Max_TX_Octets,\n"
                "Suggested_Max_TX_Time."),
    Command(0x08, 0x027, "HCI_LE_Add_Device_To_Resolving_List", "7.8.38", "leAddDeviceToResolvingList",
            type="HCILEAddDeviceToResolvingList", name="LE Add Device to Resolving List",
            layout="leAddDeviceToResolvingList",
            fields=[
                F("peer_identity_address_type", "peerIdentityAddressType", ADDRESS_TYPE),
                F("peer_identity_address", "peerIdentityAddress", "address"),
                F("peer_irk", "peerIRK", "key"),
                F("local_irk", "localIRK", "key"),
            ], returns="[]",
            doc="HCI_LE_Add_Device_To_Resolving_List (7.8.38, 0x2027): Peer_Identity_Address_Type,\n"
                "Peer_Identity_Address, Peer_IRK (16), Local_IRK (16)."),
    Command(0x08, 0x028, "HCI_LE_Remove_Device_From_Resolving_List", "7.8.39", "leRemoveDeviceFromResolvingList"),
    Command(0x08, 0x029, "HCI_LE_Clear_Resolving_List", "7.8.40", "leClearResolvingList"),
    Command(0x08, 0x02A, "HCI_LE_Read_Resolving_List_Size", "7.8.41", "leReadResolvingListSize"),
    Command(0x08, 0x02D, "HCI_LE_Set_Address_Resolution_Enable", "7.8.44", "leSetAddressResolutionEnable"),
    Command(0x08, 0x02E, "HCI_LE_Set_Resolvable_Private_Address_Timeout", "7.8.45",
            "leSetResolvablePrivateAddressTimeout"),
    Command(0x08, 0x02F, "HCI_LE_Read_Maximum_Data_Length", "7.8.46", "leReadMaximumDataLength"),
    Command(0x08, 0x030, "HCI_LE_Read_PHY", "7.8.47", "leReadPHY", type="HCIConnectionHandleCommand",
            name="LE Read PHY", layout="handle", fields=HANDLE, returns="L.leReadPHYReturn"),
    Command(0x08, 0x031, "HCI_LE_Set_Default_PHY", "7.8.48", "leSetDefaultPHY"),
    Command(0x08, 0x032, "HCI_LE_Set_PHY", "7.8.49", "leSetPHY", type="HCILESetPHY", name="LE Set PHY",
            layout="leSetPHY",
            fields=[
                F("connection_handle", "handle", "handle"),
                F("all_phys", "allPHYs", "flags8(HCIValueNames.allPHYsBits)",
                  doc="Bit 0: no TX preference, bit 1: no RX preference."),
                F("tx_phys", "txPHYs", "flags8(HCIValueNames.phyBits)", doc="Bit 0 LE 1M, bit 1 LE 2M, bit 2 LE Coded."),
                F("rx_phys", "rxPHYs", "flags8(HCIValueNames.phyBits)"),
                F("phy_options", "phyOptions", "hex16"),
            ],
            doc="HCI_LE_Set_PHY (7.8.49, 0x2032): Connection_Handle, All_PHYs, TX_PHYs, RX_PHYs,\nPHY_Options."),
    Command(0x08, 0x035, "HCI_LE_Set_Advertising_Set_Random_Address", "7.8.52", "leSetAdvertisingSetRandomAddress",
            type="HCILESetAdvertisingSetRandomAddress", name="LE Set Advertising Set Random Address",
            layout="leSetAdvertisingSetRandomAddress", partial=True, returns="[]",
            fields=[
                F("advertising_handle", "advertisingHandle", "hex8"),
                F("random_address", "randomAddress", "address",
                  doc="Random_Address, nil when the parameters end before its six octets."),
            ],
            doc="HCI_LE_Set_Advertising_Set_Random_Address (7.8.52, 0x2035), read as far as the\n"
                "parameters reach, and written back up to the first missing field."),
    Command(0x08, 0x036, "HCI_LE_Set_Extended_Advertising_Parameters [v1]", "7.8.53",
            "leSetExtendedAdvertisingParameters", type="HCILESetExtendedAdvertisingParameters",
            name="LE Set Extended Advertising Parameters", layout="leSetExtendedAdvertisingParameters",
            partial=True, init=False, returns="L.selectedTxPowerReturn",
            fields=[
                F("advertising_handle", "advertisingHandle", "hex8"),
                F("advertising_event_properties", "eventProperties",
                  "flags16(HCIValueNames.advertisingEventPropertyBits)"),
                F("primary_advertising_interval_min", "intervalMin", "duration24(unit: HCIFields.slot625)",
                  doc="Primary_Advertising_Interval_Min and _Max, three octets each, units of 0.625 ms."),
                F("primary_advertising_interval_max", "intervalMax", "duration24(unit: HCIFields.slot625)"),
                F("primary_advertising_channel_map", "channelMap", "flags8(HCIValueNames.channelMapBits)"),
                F("own_address_type", "ownAddressType", OWN_ADDRESS_TYPE),
                F("peer_address_type", "peerAddressType", ADDRESS_TYPE),
                F("peer_address", "peerAddress", "address"),
                F("advertising_filter_policy", "filterPolicy", "code8(HCIValueNames.advertisingFilterPolicy)"),
                F("advertising_tx_power", "txPower", "dBm"),
                F("primary_advertising_phy", "primaryPHY", "code8(HCIValueNames.phy)",
                  doc="Primary_Advertising_PHY (1 LE 1M, 3 LE Coded) and Secondary_Advertising_PHY (1 LE 1M,\n"
                      "2 LE 2M, 3 LE Coded)."),
                F("secondary_advertising_max_skip", "secondaryMaxSkip", "uint8"),
                F("secondary_advertising_phy", "secondaryPHY", "code8(HCIValueNames.phy)"),
                F("advertising_sid", "sid", "hex8"),
                F("scan_request_notification_enable", "scanRequestNotification", ENABLE),
            ],
            doc="HCI_LE_Set_Extended_Advertising_Parameters [v1] (7.8.53, 0x2036),\n" + PARTIAL_DOC),
    Command(0x08, 0x037, "HCI_LE_Set_Extended_Advertising_Data", "7.8.54", "leSetExtendedAdvertisingData",
            type="HCILESetExtendedAdvertisingData", name="LE Set Extended Advertising Data",
            layout="extendedAdvertisingDataHeader", init=False, describe="D.extendedAdvertisingData", returns="[]",
            fields=[
                F("advertising_handle", "advertisingHandle", "hex8"),
                F("operation", "operation", "code8(HCIValueNames.dataOperation)"),
                F("fragment_preference", "fragmentPreference", "hex8",
                  doc="0: the controller may fragment the data; 1: it should not."),
            ],
            trailer=Data("data_length", "data"), doc=EXTENDED_DATA_DOC),
    Command(0x08, 0x038, "HCI_LE_Set_Extended_Scan_Response_Data", "7.8.55", "leSetExtendedScanResponseData",
            type="HCILESetExtendedAdvertisingData", name="LE Set Extended Scan Response Data",
            layout="extendedAdvertisingDataHeader", init=False, describe="D.extendedAdvertisingData", returns="[]",
            fields=[
                F("advertising_handle", "advertisingHandle", "hex8"),
                F("operation", "operation", "code8(HCIValueNames.dataOperation)"),
                F("fragment_preference", "fragmentPreference", "hex8",
                  doc="0: the controller may fragment the data; 1: it should not."),
            ],
            trailer=Data("data_length", "data")),
    Command(0x08, 0x039, "HCI_LE_Set_Extended_Advertising_Enable", "7.8.56", "leSetExtendedAdvertisingEnable",
            type="HCILESetExtendedAdvertisingEnable", name="LE Set Extended Advertising Enable",
            layout="extendedAdvertisingEnableHeader", returns="[]",
            fields=[F("enable", "enable", ENABLE), F("num_sets", "numSets", "uint8")],
            repeat=Repeat("sets", "HCILESetExtendedAdvertisingEnable.Set", "set", "extendedAdvertisingEnableSet",
                          fields=[
                              F("advertising_handle", "advertisingHandle", "hex8"),
                              F("duration", "duration", "duration16(unit: HCIFields.unit10ms)",
                                doc="10 ms units; 0: no limit."),
                              F("max_extended_advertising_events", "maxExtendedAdvertisingEvents", "uint8"),
                          ],
                          doc="One advertising set of HCI_LE_Set_Extended_Advertising_Enable (7.8.56)."),
            doc="HCI_LE_Set_Extended_Advertising_Enable (7.8.56, 0x2039): Enable, Num_Sets, then per set\n"
                "Advertising_Handle, Duration, Max_Extended_Advertising_Events. Nil when the parameters\n"
                "are shorter than the sets they announce."),
    Command(0x08, 0x03A, "HCI_LE_Read_Maximum_Advertising_Data_Length", "7.8.57",
            "leReadMaximumAdvertisingDataLength"),
    Command(0x08, 0x03B, "HCI_LE_Read_Number_of_Supported_Advertising_Sets", "7.8.58",
            "leReadNumberOfSupportedAdvertisingSets"),
    Command(0x08, 0x03C, "HCI_LE_Remove_Advertising_Set", "7.8.59", "leRemoveAdvertisingSet",
            type="HCILERemoveAdvertisingSet", name="LE Remove Advertising Set", layout="removeAdvertisingSet",
            fields=[F("advertising_handle", "advertisingHandle", "hex8")], returns="[]",
            doc="HCI_LE_Remove_Advertising_Set (7.8.59, 0x203C): Advertising_Handle (the timeline forgets the set)."),
    Command(0x08, 0x03D, "HCI_LE_Clear_Advertising_Sets", "7.8.60", "leClearAdvertisingSets"),
    Command(0x08, 0x041, "HCI_LE_Set_Extended_Scan_Parameters", "7.8.64", "leSetExtendedScanParameters",
            type="HCILESetExtendedScanParameters", name="LE Set Extended Scan Parameters",
            layout="extendedScanParametersHeader", returns="[]",
            fields=[
                F("own_address_type", "ownAddressType", OWN_ADDRESS_TYPE),
                F("scanning_filter_policy", "filterPolicy", "code8(HCIValueNames.scanningFilterPolicy)"),
                F("scanning_phys", "scanningPHYs", "flags8(HCIValueNames.phyBits)",
                  doc="Scanning_PHYs: bit 0 LE 1M, bit 2 LE Coded (bit 1 is reserved: no scanning on\n"
                      "LE 2M); one entry per known bit set."),
            ],
            repeat=Repeat("entries", "HCILESetExtendedScanParameters.Entry", "phy", "extendedScanParametersPHY",
                          phys=0b101,
                          fields=[
                              F("scan_type", "scanType", "code8(HCIValueNames.scanType)", doc="0 passive, 1 active."),
                              F("scan_interval", "interval", SLOTS, doc="Units of 0.625 ms."),
                              F("scan_window", "window", SLOTS),
                          ],
                          doc="One scanning PHY's block of HCI_LE_Set_Extended_Scan_Parameters (7.8.64)."),
            doc="HCI_LE_Set_Extended_Scan_Parameters (7.8.64), opcode 0x2041: Own_Address_Type,\n"
                "Scanning_Filter_Policy, Scanning_PHYs, then one block per PHY bit. Nil when the parameters\n"
                "are shorter than the blocks the PHYs announce."),
    Command(0x08, 0x042, "HCI_LE_Set_Extended_Scan_Enable", "7.8.65", "leSetExtendedScanEnable",
            type="HCILESetExtendedScanEnable", name="LE Set Extended Scan Enable", layout="leSetExtendedScanEnable",
            init=False, returns="[]",
            fields=[
                F("enable", "enableValue", ENABLE, doc="Enable as sent (0x00 disabled, 0x01 enabled)."),
                F("filter_duplicates", "filterDuplicates", "code8(HCIValueNames.filterDuplicates)"),
                F("duration", "duration", "duration16(unit: HCIFields.unit10ms)",
                  doc="Units of 10 ms; 0 = until disabled."),
                F("period", "period", "duration16(unit: HCIFields.unit1280ms)", doc="Units of 1.28 s; 0 = not periodic."),
            ],
            doc="HCI_LE_Set_Extended_Scan_Enable (7.8.65), opcode 0x2042."),
    Command(0x08, 0x043, "HCI_LE_Extended_Create_Connection [v1]", "7.8.66", "leExtendedCreateConnection",
            type="HCILEExtendedCreateConnection", name="LE Extended Create Connection",
            layout="extendedCreateConnectionHeader", fields=EXTENDED_CONNECTION_HEADER,
            repeat=EXTENDED_CONNECTION_PHY,
            doc="HCI_LE_Extended_Create_Connection [v1] (7.8.66), opcode 0x2043: one 16-octet block per bit\n"
                "of `initiatingPHYs`. Nil when the parameters are shorter than the blocks it announces."),
    Command(0x08, 0x04B, "HCI_LE_Read_Transmit_Power", "7.8.74", "leReadTransmitPower"),
    Command(0x08, 0x04E, "HCI_LE_Set_Privacy_Mode", "7.8.77", "leSetPrivacyMode"),
    Command(0x08, 0x060, "HCI_LE_Read_Buffer_Size [v2]", "7.8.2", "leReadBufferSizeV2"),
    Command(0x08, 0x085, "HCI_LE_Extended_Create_Connection [v2]", "7.8.66", "leExtendedCreateConnectionV2",
            type="HCILEExtendedCreateConnectionV2", name="LE Extended Create Connection [v2]",
            layout="extendedCreateConnectionV2Header",
            fields=[F("advertising_handle", "advertisingHandle", "hex8",
                      doc="Advertising_Handle and Subevent of a PAwR train (0xFF: not used)."),
                    F("subevent", "subevent", "uint8")] + EXTENDED_CONNECTION_HEADER,
            repeat=EXTENDED_CONNECTION_PHY,
            doc="HCI_LE_Extended_Create_Connection [v2] (7.8.66), opcode 0x2085: [v1]'s parameters after\n"
                "Advertising_Handle and Subevent (PAwR). Nil when the parameters are shorter than the\n"
                "blocks it announces."),
]
