// The event and the LE Meta subevent of encryption that the virtual controller's captured peer
// (BLEController) reads, beside the ones HCIControllerOpcodes.swift and HCICodes.swift name
// (the SMP codes are in SMPCode+Generated.swift).

extension HCIEventCode {
    /// Vol 4 Part E 7.7.39: encryption restarted on an encrypted link (LE: a new key).
    public static let encryptionKeyRefreshComplete: UInt8 = 0x30
}

extension HCILESubeventCode {
    /// Vol 4 Part E 7.7.65.5: the peripheral's controller asks its host for the LTK.
    public static let longTermKeyRequest: UInt8 = 0x05
}
