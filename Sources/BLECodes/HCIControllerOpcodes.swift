// L2CAP codes the virtual controller (BLEController) names (its command opcodes are in
// HCIOpcode+Generated.swift, its event and subevent codes in HCIEventCode+Generated.swift).

extension L2CAPSignalingCode {
    /// 4.1.
    public static let commandReject: UInt8 = 0x01
    /// 4.22.
    public static let leCreditBasedConnectionRequest: UInt8 = 0x14
    /// 4.23.
    public static let leCreditBasedConnectionResponse: UInt8 = 0x15
    /// 4.25.
    public static let creditBasedConnectionRequest: UInt8 = 0x17
    /// 4.26.
    public static let creditBasedConnectionResponse: UInt8 = 0x18
}
