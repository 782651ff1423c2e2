// HCI opcodes, event codes and LE subevent codes that code refers to by name. They live below
// both the capture readers (CaptureIO, whose link type 187 reader infers directions from HCI
// events) and the decoders (BLEPackets, which re-exports this module), so the protocol has one
// vocabulary in both directions.

/// HCI command opcodes blecap decodes specially or produces (Core 5.4 Vol 4 Part E 7: OGF in
/// bits 10–15, OCF in bits 0–9). Every opcode's name is in `HCICommands.table`; these are the
/// ones code refers to by name.
public enum HCIOpcode {
    /// 7.1.1 (BR/EDR discovery).
    public static let inquiry: UInt16 = 0x0401
    /// 7.1.5 (BR/EDR).
    public static let createConnection: UInt16 = 0x0405
    /// 7.1.6.
    public static let disconnect: UInt16 = 0x0406
    /// 7.3.2.
    public static let reset: UInt16 = 0x0C03
    /// 7.3.12.
    public static let readLocalName: UInt16 = 0x0C14
    /// 7.3.39.
    public static let hostBufferSize: UInt16 = 0x0C33
    /// 7.4.1.
    public static let readLocalVersionInformation: UInt16 = 0x1001
    /// 7.4.5.
    public static let readBufferSize: UInt16 = 0x1005
    /// 7.4.6.
    public static let readBDADDR: UInt16 = 0x1009
    /// 7.8.2 [v1].
    public static let leReadBufferSize: UInt16 = 0x2002
    /// 7.8.2 [v2].
    public static let leReadBufferSizeV2: UInt16 = 0x2060
    /// 7.8.3.
    public static let leReadLocalSupportedFeatures: UInt16 = 0x2003
    /// 7.8.4.
    public static let leSetRandomAddress: UInt16 = 0x2005
    /// 7.8.5.
    public static let leSetAdvertisingParameters: UInt16 = 0x2006
    /// 7.8.9.
    public static let leSetAdvertisingEnable: UInt16 = 0x200A
    /// 7.8.10.
    public static let leSetScanParameters: UInt16 = 0x200B
    /// 7.8.11.
    public static let leSetScanEnable: UInt16 = 0x200C
    /// 7.8.12.
    public static let leCreateConnection: UInt16 = 0x200D
    /// 7.8.13.
    public static let leCreateConnectionCancel: UInt16 = 0x200E
    /// 7.8.18.
    public static let leConnectionUpdate: UInt16 = 0x2013
    /// 7.8.35.
    public static let leWriteSuggestedDefaultDataLength: UInt16 = 0x2024
    /// 7.8.53.
    public static let leSetExtendedAdvertisingParameters: UInt16 = 0x2036
    /// 7.8.56.
    public static let leSetExtendedAdvertisingEnable: UInt16 = 0x2039
    /// 7.8.64.
    public static let leSetExtendedScanParameters: UInt16 = 0x2041
    /// 7.8.65.
    public static let leSetExtendedScanEnable: UInt16 = 0x2042
    /// 7.8.66 [v1].
    public static let leExtendedCreateConnection: UInt16 = 0x2043
    /// 7.8.66 [v2].
    public static let leExtendedCreateConnectionV2: UInt16 = 0x2085
}

/// HCI event codes blecap refers to by name (Core 5.4 Vol 4 Part E 7.7; names of all in
/// `HCIEvents`).
public enum HCIEventCode {
    /// 7.7.3 (BR/EDR).
    public static let connectionComplete: UInt8 = 0x03
    /// 7.7.5.
    public static let disconnectionComplete: UInt8 = 0x05
    /// 7.7.8 [v1].
    public static let encryptionChange: UInt8 = 0x08
    /// 7.7.14.
    public static let commandComplete: UInt8 = 0x0E
    /// 7.7.15.
    public static let commandStatus: UInt8 = 0x0F
    /// 7.7.16.
    public static let hardwareError: UInt8 = 0x10
    /// 7.7.19.
    public static let numberOfCompletedPackets: UInt8 = 0x13
    /// 7.7.65.
    public static let leMeta: UInt8 = 0x3E
    /// 7.7.8 [v2].
    public static let encryptionChangeV2: UInt8 = 0x59
}

/// LE Meta subevent codes blecap refers to by name (Vol 4 Part E 7.7.65).
public enum HCILESubeventCode {
    /// 7.7.65.1.
    public static let connectionComplete: UInt8 = 0x01
    /// 7.7.65.2.
    public static let advertisingReport: UInt8 = 0x02
    /// 7.7.65.3.
    public static let connectionUpdateComplete: UInt8 = 0x03
    /// 7.7.65.10 [v1].
    public static let enhancedConnectionComplete: UInt8 = 0x0A
    /// 7.7.65.13.
    public static let extendedAdvertisingReport: UInt8 = 0x0D
    /// 7.7.65.10 [v2].
    public static let enhancedConnectionCompleteV2: UInt8 = 0x29
}
