// The SMP codes, the event and the LE Meta subevent of pairing and encryption that the
// virtual controller's captured peer (BLEController) sends and reads, beside the ones
// L2CAPCodes.swift, HCIControllerOpcodes.swift and HCICodes.swift name.

extension SMPCode {
    /// 3.5.3.
    public static let pairingConfirm: UInt8 = 0x03
    /// 3.5.4.
    public static let pairingRandom: UInt8 = 0x04
    /// 3.6.2: the LTK of LE legacy pairing.
    public static let encryptionInformation: UInt8 = 0x06
    /// 3.6.3: EDIV and Rand, which name that LTK.
    public static let centralIdentification: UInt8 = 0x07
    /// 3.6.4.
    public static let identityInformation: UInt8 = 0x08
    /// 3.6.5.
    public static let identityAddressInformation: UInt8 = 0x09
    /// 3.6.6.
    public static let signingInformation: UInt8 = 0x0A
    /// 3.5.6: LE Secure Connections only.
    public static let pairingPublicKey: UInt8 = 0x0C
    /// 3.5.7: LE Secure Connections only.
    public static let pairingDHKeyCheck: UInt8 = 0x0D
}

extension HCIEventCode {
    /// Vol 4 Part E 7.7.39: encryption restarted on an encrypted link (LE: a new key).
    public static let encryptionKeyRefreshComplete: UInt8 = 0x30
}

extension HCILESubeventCode {
    /// Vol 4 Part E 7.7.65.5: the peripheral's controller asks its host for the LTK.
    public static let longTermKeyRequest: UInt8 = 0x05
}
