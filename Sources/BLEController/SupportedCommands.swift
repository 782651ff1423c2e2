import BLEPackets

/// What the virtual controller does with a command, and where the command sits in the
/// Supported_Commands bitmap (Core 5.4 Vol 4 Part E 6.27): the one table both the bitmap
/// (`Read Local Supported Commands`) and the dispatcher read, so the controller claims exactly
/// what it answers.
struct ControllerCommand {
    /// How the controller answers (Vol 4 Part E 4.4, 7: each command's "Event(s) generated").
    enum Reply {
        /// Command Complete with these return parameters (status first).
        case complete
        /// Command Status, then events of its own.
        case status
    }
    let opcode: UInt16
    /// Octet and bit in Supported_Commands; nil for the commands that have none (Read Local
    /// Supported Commands itself).
    let octet: Int?
    let bit: Int
    let reply: Reply

    init(_ opcode: UInt16, _ octet: Int?, _ bit: Int, _ reply: Reply = .complete) {
        (self.opcode, self.octet, self.bit, self.reply) = (opcode, octet, bit, reply)
    }

    /// The LE-only controller's commands: initialisation (what Bumble's host and the Linux
    /// kernel send), scanning, initiating, connection management, data length and PHY, the
    /// accept and resolving lists and advertising (accepted and kept; nothing scans them).
    static let table: [ControllerCommand] = [
        .init(HCIOpcode.disconnect, 0, 5, .status),
        .init(HCIOpcode.readRemoteVersionInformation, 2, 7, .status),
        .init(HCIOpcode.setEventMask, 5, 6),
        .init(HCIOpcode.reset, 5, 7),
        .init(HCIOpcode.setEventMaskPage2, 22, 2),
        .init(HCIOpcode.readLEHostSupport, 24, 5),
        .init(HCIOpcode.writeLEHostSupport, 24, 6),
        .init(HCIOpcode.readLocalVersionInformation, 14, 3),
        .init(HCIOpcode.readLocalSupportedCommands, nil, 0),
        .init(HCIOpcode.readLocalSupportedFeatures, 14, 5),
        .init(HCIOpcode.readBufferSize, 14, 7),
        .init(HCIOpcode.readBDADDR, 15, 1),
        .init(HCIOpcode.readRSSI, 15, 5),
        .init(HCIOpcode.leSetEventMask, 25, 0),
        .init(HCIOpcode.leReadBufferSize, 25, 1),
        .init(HCIOpcode.leReadLocalSupportedFeatures, 25, 2),
        .init(HCIOpcode.leSetRandomAddress, 25, 4),
        .init(HCIOpcode.leSetAdvertisingParameters, 25, 5),
        .init(HCIOpcode.leReadAdvertisingPhysicalChannelTxPower, 25, 6),
        .init(HCIOpcode.leSetAdvertisingData, 25, 7),
        .init(HCIOpcode.leSetScanResponseData, 26, 0),
        .init(HCIOpcode.leSetAdvertisingEnable, 26, 1),
        .init(HCIOpcode.leSetScanParameters, 26, 2),
        .init(HCIOpcode.leSetScanEnable, 26, 3),
        .init(HCIOpcode.leCreateConnection, 26, 4, .status),
        .init(HCIOpcode.leCreateConnectionCancel, 26, 5),
        .init(HCIOpcode.leReadFilterAcceptListSize, 26, 6),
        .init(HCIOpcode.leClearFilterAcceptList, 26, 7),
        .init(HCIOpcode.leAddDeviceToFilterAcceptList, 27, 0),
        .init(HCIOpcode.leRemoveDeviceFromFilterAcceptList, 27, 1),
        .init(HCIOpcode.leConnectionUpdate, 27, 2, .status),
        .init(HCIOpcode.leReadRemoteFeatures, 27, 5, .status),
        .init(HCIOpcode.leRand, 27, 7),
        .init(HCIOpcode.leEnableEncryption, 28, 0, .status),
        .init(HCIOpcode.leLongTermKeyRequestReply, 28, 1),
        .init(HCIOpcode.leLongTermKeyRequestNegativeReply, 28, 2),
        .init(HCIOpcode.leReadSupportedStates, 28, 3),
        .init(HCIOpcode.leSetDataLength, 33, 6),
        .init(HCIOpcode.leReadSuggestedDefaultDataLength, 33, 7),
        .init(HCIOpcode.leWriteSuggestedDefaultDataLength, 34, 0),
        .init(HCIOpcode.leAddDeviceToResolvingList, 34, 3),
        .init(HCIOpcode.leRemoveDeviceFromResolvingList, 34, 4),
        .init(HCIOpcode.leClearResolvingList, 34, 5),
        .init(HCIOpcode.leReadResolvingListSize, 34, 6),
        .init(HCIOpcode.leSetAddressResolutionEnable, 35, 1),
        .init(HCIOpcode.leSetResolvablePrivateAddressTimeout, 35, 2),
        .init(HCIOpcode.leReadMaximumDataLength, 35, 3),
        .init(HCIOpcode.leReadPHY, 35, 4),
        .init(HCIOpcode.leSetDefaultPHY, 35, 5),
        .init(HCIOpcode.leSetPHY, 35, 6, .status),
        .init(HCIOpcode.leSetAdvertisingSetRandomAddress, 36, 1),
        .init(HCIOpcode.leSetExtendedAdvertisingParameters, 36, 2),
        .init(HCIOpcode.leSetExtendedAdvertisingData, 36, 3),
        .init(HCIOpcode.leSetExtendedScanResponseData, 36, 4),
        .init(HCIOpcode.leSetExtendedAdvertisingEnable, 36, 5),
        .init(HCIOpcode.leReadMaximumAdvertisingDataLength, 36, 6),
        .init(HCIOpcode.leReadNumberOfSupportedAdvertisingSets, 36, 7),
        .init(HCIOpcode.leRemoveAdvertisingSet, 37, 0),
        .init(HCIOpcode.leClearAdvertisingSets, 37, 1),
        .init(HCIOpcode.leSetExtendedScanParameters, 37, 5),
        .init(HCIOpcode.leSetExtendedScanEnable, 37, 6),
        .init(HCIOpcode.leExtendedCreateConnection, 37, 7, .status),
        .init(HCIOpcode.leReadTransmitPower, 38, 7),
        .init(HCIOpcode.leSetPrivacyMode, 39, 2),
        .init(HCIOpcode.leReadBufferSizeV2, 41, 5),
    ]

    static let byOpcode: [UInt16: ControllerCommand] = Dictionary(
        table.map { ($0.opcode, $0) }, uniquingKeysWith: { a, _ in a })

    /// The 64-octet Supported_Commands parameter for `table`.
    static let supportedCommands: [UInt8] = {
        var bits = [UInt8](repeating: 0, count: 64)
        for c in table { if let o = c.octet { bits[o] |= 1 << UInt8(c.bit) } }
        return bits
    }()

    /// Whether the bitmap claims (`octet`, `bit`).
    static func isClaimed(octet: Int, bit: Int) -> Bool {
        octet >= 0 && octet < 64 && bit >= 0 && bit < 8 && supportedCommands[octet] & (1 << UInt8(bit)) != 0
    }
}
