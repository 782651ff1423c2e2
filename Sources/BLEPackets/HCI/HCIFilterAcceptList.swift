import BLEBytes

/// HCI_LE_Add_Device_To_Filter_Accept_List (Core 5.4 Vol 4 Part E 7.8.16, opcode 0x2011) and
/// HCI_LE_Remove_Device_From_Filter_Accept_List (7.8.17, opcode 0x2012): both carry one device,
/// Address_Type then Address. HCI_LE_Clear_Filter_Accept_List (7.8.15, 0x2010) has no
/// parameters. All three are answered by a Command Complete holding only Status.
public struct HCILEFilterAcceptListDevice: HCICommandEncodable, Sendable {
    public static let addOpcode: UInt16 = HCIOpcode.leAddDeviceToFilterAcceptList
    public static let removeOpcode: UInt16 = HCIOpcode.leRemoveDeviceFromFilterAcceptList
    public static let clearOpcode: UInt16 = HCIOpcode.leClearFilterAcceptList

    public let add: Bool
    /// 0x00 public, 0x01 random, 0xFF devices sending anonymous advertisements (no address).
    public let addressType: UInt8
    public let address: BDAddr

    public init(add: Bool, addressType: UInt8, address: BDAddr) {
        (self.add, self.addressType, self.address) = (add, addressType, address)
    }

    /// Nil when the parameters are too short for the 7 bytes both commands carry.
    public init?(add: Bool, parameters p: ByteView) {
        guard let t = p.u8(0), let a = BDAddr(littleEndian: p, at: 1) else { return nil }
        (self.add, addressType, address) = (add, t, a)
    }

    /// 0xFF: the entry stands for every anonymous advertiser, not for an address.
    public var isAnonymous: Bool { addressType == 0xFF }

    public var commandOpcode: UInt16 { add ? Self.addOpcode : Self.removeOpcode }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt8(addressType)
        w.appendAddress(address)
    }
}
