// Status and reason codes the virtual controller (BLEController) answers with, beside the
// ones HCICodes.swift names.

extension HCIError {
    /// Vol 1 Part F 1.3: a command the controller does not implement.
    public static let unknownHCICommand: UInt8 = 0x01
    /// A buffer or table is full.
    public static let memoryCapacityExceeded: UInt8 = 0x07
    /// A connection to this address already exists.
    public static let connectionAlreadyExists: UInt8 = 0x0B
    public static let unsupportedFeatureOrParameterValue: UInt8 = 0x11
    public static let invalidHCICommandParameters: UInt8 = 0x12
}

/// SMP Pairing Failed reasons (Core 5.4 Vol 3 Part H 3.5.5, Table 3.7).
public enum SMPPairingFailedReason {
    public static let pairingNotSupported: UInt8 = 0x05
}

/// L2CAP Command Reject reasons (Vol 3 Part A 4.1) and LE credit based connection results
/// (4.23).
public enum L2CAPRejectReason {
    public static let commandNotUnderstood: UInt16 = 0x0000
    /// LE_PSM not supported (4.23, Result).
    public static let psmNotSupported: UInt16 = 0x0002
}
