// Event and subevent codes and L2CAP codes the virtual controller (BLEController) names
// beyond the ones in HCICodes.swift (its command opcodes are in HCIOpcode+Generated.swift).

extension HCIEventCode {
    /// 7.7.12.
    public static let readRemoteVersionInformationComplete: UInt8 = 0x0C
}

extension HCILESubeventCode {
    /// 7.7.65.4.
    public static let readRemoteFeaturesComplete: UInt8 = 0x04
    /// 7.7.65.7.
    public static let dataLengthChange: UInt8 = 0x07
    /// 7.7.65.12.
    public static let phyUpdateComplete: UInt8 = 0x0C
    /// 7.7.65.18.
    public static let advertisingSetTerminated: UInt8 = 0x12
}

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
