// HCI opcodes, event codes and LE subevent codes that code refers to by name. They live below
// both the capture readers (CaptureIO, whose link type 187 reader infers directions from HCI
// events) and the decoders (BLEPackets, which re-exports this module), so the protocol has one
// vocabulary in both directions.

/// HCI command opcodes blecap decodes specially or produces (Core 5.4 Vol 4 Part E 7: OGF in
/// bits 10–15, OCF in bits 0–9). Every opcode's name is in `HCICommands.table`; the ones code
/// refers to by name are constants in HCIOpcode+Generated.swift, generated from the HCI command
/// table (scripts/pdu/hci_commands.py).
public enum HCIOpcode {}

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
