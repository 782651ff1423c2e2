// HCI command opcodes a controller answers (Core 5.4 Vol 4 Part E 7), named for the virtual
// controller (BLEController) and anyone else who needs them beyond the ones in HCICodes.swift.

extension HCIOpcode {
    /// 7.1.23.
    public static let readRemoteVersionInformation: UInt16 = 0x041D
    /// 7.3.1.
    public static let setEventMask: UInt16 = 0x0C01
    /// 7.3.69.
    public static let setEventMaskPage2: UInt16 = 0x0C63
    /// 7.3.78.
    public static let readLEHostSupport: UInt16 = 0x0C6C
    /// 7.3.79.
    public static let writeLEHostSupport: UInt16 = 0x0C6D
    /// 7.4.2.
    public static let readLocalSupportedCommands: UInt16 = 0x1002
    /// 7.4.3.
    public static let readLocalSupportedFeatures: UInt16 = 0x1003
    /// 7.5.4.
    public static let readRSSI: UInt16 = 0x1405
    /// 7.8.1.
    public static let leSetEventMask: UInt16 = 0x2001
    /// 7.8.6.
    public static let leReadAdvertisingPhysicalChannelTxPower: UInt16 = 0x2007
    /// 7.8.7.
    public static let leSetAdvertisingData: UInt16 = 0x2008
    /// 7.8.8.
    public static let leSetScanResponseData: UInt16 = 0x2009
    /// 7.8.14.
    public static let leReadFilterAcceptListSize: UInt16 = 0x200F
    /// 7.8.15.
    public static let leClearFilterAcceptList: UInt16 = 0x2010
    /// 7.8.16.
    public static let leAddDeviceToFilterAcceptList: UInt16 = 0x2011
    /// 7.8.17.
    public static let leRemoveDeviceFromFilterAcceptList: UInt16 = 0x2012
    /// 7.8.21.
    public static let leReadRemoteFeatures: UInt16 = 0x2016
    /// 7.8.23.
    public static let leRand: UInt16 = 0x2018
    /// 7.8.24.
    public static let leEnableEncryption: UInt16 = 0x2019
    /// 7.8.25.
    public static let leLongTermKeyRequestReply: UInt16 = 0x201A
    /// 7.8.26.
    public static let leLongTermKeyRequestNegativeReply: UInt16 = 0x201B
    /// 7.8.27.
    public static let leReadSupportedStates: UInt16 = 0x201C
    /// 7.8.33.
    public static let leSetDataLength: UInt16 = 0x2022
    /// 7.8.34.
    public static let leReadSuggestedDefaultDataLength: UInt16 = 0x2023
    /// 7.8.38.
    public static let leAddDeviceToResolvingList: UInt16 = 0x2027
    /// 7.8.39.
    public static let leRemoveDeviceFromResolvingList: UInt16 = 0x2028
    /// 7.8.40.
    public static let leClearResolvingList: UInt16 = 0x2029
    /// 7.8.41.
    public static let leReadResolvingListSize: UInt16 = 0x202A
    /// 7.8.44.
    public static let leSetAddressResolutionEnable: UInt16 = 0x202D
    /// 7.8.45.
    public static let leSetResolvablePrivateAddressTimeout: UInt16 = 0x202E
    /// 7.8.46.
    public static let leReadMaximumDataLength: UInt16 = 0x202F
    /// 7.8.47.
    public static let leReadPHY: UInt16 = 0x2030
    /// 7.8.48.
    public static let leSetDefaultPHY: UInt16 = 0x2031
    /// 7.8.49.
    public static let leSetPHY: UInt16 = 0x2032
    /// 7.8.52.
    public static let leSetAdvertisingSetRandomAddress: UInt16 = 0x2035
    /// 7.8.54.
    public static let leSetExtendedAdvertisingData: UInt16 = 0x2037
    /// 7.8.55.
    public static let leSetExtendedScanResponseData: UInt16 = 0x2038
    /// 7.8.57.
    public static let leReadMaximumAdvertisingDataLength: UInt16 = 0x203A
    /// 7.8.58.
    public static let leReadNumberOfSupportedAdvertisingSets: UInt16 = 0x203B
    /// 7.8.59.
    public static let leRemoveAdvertisingSet: UInt16 = 0x203C
    /// 7.8.60.
    public static let leClearAdvertisingSets: UInt16 = 0x203D
    /// 7.8.74.
    public static let leReadTransmitPower: UInt16 = 0x204B
    /// 7.8.77.
    public static let leSetPrivacyMode: UInt16 = 0x204E
}

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

extension SMPCode {
    /// 3.5.5.
    public static let pairingFailed: UInt8 = 0x05
}
