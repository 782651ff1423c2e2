// Pairing Failed reasons, IO capabilities and HCI statuses the virtual controller's captured
// peer (BLEController) answers with, beside the ones SMPPairing.swift and
// HCIControllerCodes.swift name.

extension SMPPairingFailedReason {
    /// Vol 3 Part H 3.5.5, Table 3.7.
    public static let passkeyEntryFailed: UInt8 = 0x01
    public static let oobNotAvailable: UInt8 = 0x02
    public static let authenticationRequirements: UInt8 = 0x03
    public static let confirmValueFailed: UInt8 = 0x04
    public static let encryptionKeySize: UInt8 = 0x06
    public static let commandNotSupported: UInt8 = 0x07
    public static let unspecifiedReason: UInt8 = 0x08
    public static let invalidParameters: UInt8 = 0x0A
    public static let dhKeyCheckFailed: UInt8 = 0x0B
    public static let numericComparisonFailed: UInt8 = 0x0C
}

extension SMPIOCapability {
    /// Vol 3 Part H 2.3.2: no input, no output (Just Works only).
    public static let noInputNoOutput: UInt8 = 0x03
}

extension SMPAuthReq {
    /// Vol 3 Part H 3.5.1: Bonding_Flags 0b01.
    public static let bondingFlag: UInt8 = 0x01
    /// Vol 3 Part H 3.5.1: SC, LE Secure Connections pairing supported and asked for.
    public static let secureConnectionsFlag: UInt8 = 0x08
}

extension SMPKeyDistribution {
    /// Vol 3 Part H 3.6.1: EncKey (LTK, EDIV, Rand), IdKey (IRK, identity address), SignKey.
    public static let encKey: UInt8 = 0x01
    public static let idKey: UInt8 = 0x02
    public static let signKey: UInt8 = 0x04
}

extension HCIError {
    /// Vol 1 Part F 1.3: the peer has no key for the EDIV and Rand asked (LL_REJECT_EXT_IND).
    public static let pinOrKeyMissing: UInt8 = 0x06
}
