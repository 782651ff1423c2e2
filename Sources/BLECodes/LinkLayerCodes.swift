/// Link Layer constants (Core 5.4 Vol 6 Part B) the capture readers and the decoders share;
/// BLEPackets adds the name tables and the PDU types.
public enum LLAccessAddress {
    /// The advertising physical channel's access address (2.1.2): 0x8E89BED6.
    public static let advertising: UInt32 = 0x8E89_BED6
}

/// CRC initial values (3.1.1).
public enum LLCRCInit {
    /// Advertising physical channel PDUs always use 0x555555.
    public static let advertising: UInt32 = 0x55_5555
}

/// Advertising physical channel PDU types (2.3, Table 2.3), the header's 4-bit PDU Type.
public enum LLAdvertisingPDUType {
    public static let advInd: UInt8 = 0b0000
    public static let advDirectInd: UInt8 = 0b0001
    public static let advNonconnInd: UInt8 = 0b0010
    /// SCAN_REQ on the primary channels, AUX_SCAN_REQ on the secondary ones.
    public static let scanReq: UInt8 = 0b0011
    public static let scanRsp: UInt8 = 0b0100
    /// CONNECT_IND on the primary channels, AUX_CONNECT_REQ on the secondary ones.
    public static let connectInd: UInt8 = 0b0101
    public static let advScanInd: UInt8 = 0b0110
    /// ADV_EXT_IND on the primary channels; AUX_ADV_IND, AUX_SCAN_RSP, AUX_SYNC_IND and
    /// AUX_CHAIN_IND on the secondary ones (one PDU type, told apart by context).
    public static let advExtInd: UInt8 = 0b0111
    public static let auxConnectRsp: UInt8 = 0b1000
}

/// LLID of a data physical channel PDU (2.4, Table 2.17).
public enum LLID {
    /// LL Data PDU: continuation fragment of an L2CAP message, or an empty PDU.
    public static let continuation: UInt8 = 0b01
    /// LL Data PDU: start of an L2CAP message, or a complete one with no fragmentation.
    public static let start: UInt8 = 0b10
    /// LL Control PDU.
    public static let control: UInt8 = 0b11
}

/// LL Control PDU opcodes (2.4.2, Table 2.18). BLEPackets adds the table of all of them
/// (name, CtrData size).
public enum LLControlOpcode {
    public static let connectionUpdateInd: UInt8 = 0x00
    public static let channelMapInd: UInt8 = 0x01
    public static let terminateInd: UInt8 = 0x02
    public static let encReq: UInt8 = 0x03
    public static let encRsp: UInt8 = 0x04
    public static let startEncReq: UInt8 = 0x05
    public static let startEncRsp: UInt8 = 0x06
    public static let unknownRsp: UInt8 = 0x07
    public static let featureReq: UInt8 = 0x08
    public static let featureRsp: UInt8 = 0x09
    public static let pauseEncReq: UInt8 = 0x0A
    public static let pauseEncRsp: UInt8 = 0x0B
    public static let versionInd: UInt8 = 0x0C
    public static let rejectInd: UInt8 = 0x0D
    public static let peripheralFeatureReq: UInt8 = 0x0E
    public static let connectionParamReq: UInt8 = 0x0F
    public static let connectionParamRsp: UInt8 = 0x10
    public static let rejectExtInd: UInt8 = 0x11
    public static let pingReq: UInt8 = 0x12
    public static let pingRsp: UInt8 = 0x13
    public static let lengthReq: UInt8 = 0x14
    public static let lengthRsp: UInt8 = 0x15
    public static let phyReq: UInt8 = 0x16
    public static let phyRsp: UInt8 = 0x17
    public static let phyUpdateInd: UInt8 = 0x18
    public static let minUsedChannelsInd: UInt8 = 0x19
}
