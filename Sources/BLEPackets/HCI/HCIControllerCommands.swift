import BLEBytes
import BLECrypto

// Typed HCI commands a controller acts on (Core 5.4 Vol 4 Part E 7): the ones whose
// parameters the virtual controller (BLEController) reads. Each decodes what a controller must
// see before acting (nil when the parameters are too short for it) and encodes back to the same
// parameters. Their descriptions (`blecap packets`) come from the layout table
// (HCICommandLayouts), which names every field and notes truncation.

extension UInt128 {
    fileprivate var hciLow64: UInt64 { UInt64(truncatingIfNeeded: self) }
    fileprivate var hciHigh64: UInt64 { UInt64(truncatingIfNeeded: self >> 64) }
}

extension ByteWriter {
    /// 16 octets, least significant first (a key as HCI carries it).
    fileprivate mutating func appendHCIKey(_ v: UInt128) {
        appendUInt64LE(v.hciLow64)
        appendUInt64LE(v.hciHigh64)
    }
}

/// A command whose parameters start with a Connection_Handle and hold nothing else the
/// controller reads: HCI_Read_Remote_Version_Information (7.1.23), HCI_Read_RSSI (7.5.4),
/// HCI_LE_Read_Remote_Features (7.8.21), HCI_LE_Long_Term_Key_Request_Negative_Reply (7.8.26),
/// HCI_LE_Read_PHY (7.8.47). `handle` is the 12-bit handle (flag bits cleared).
public struct HCIConnectionHandleCommand: HCICommandEncodable, Sendable {
    public let commandOpcode: UInt16
    public let handle: UInt16

    public init(opcode: UInt16, handle: UInt16) { (commandOpcode, self.handle) = (opcode, handle) }
    public init?(opcode: UInt16, parameters p: ByteView) {
        guard let h = p.u16le(0) else { return nil }
        (commandOpcode, handle) = (opcode, h & HCIConnectionHandle.mask)
    }
    public func appendParameters(to w: inout ByteWriter) { w.appendUInt16LE(handle) }
}

/// A command without parameters: HCI_Reset (7.3.2), HCI_Read_Local_Supported_Commands
/// (7.4.2), _Features (7.4.3), HCI_Read_Buffer_Size (7.4.5), HCI_Read_BD_ADDR (7.4.6),
/// HCI_LE_Read_Buffer_Size (7.8.2) and their kin: what a host sends to initialise a controller.
public struct HCIParameterlessCommand: HCICommandEncodable, Sendable {
    public let commandOpcode: UInt16
    public init(opcode: UInt16) { commandOpcode = opcode }
    public func appendParameters(to w: inout ByteWriter) {}
}

/// HCI_Set_Event_Mask (7.3.1, 0x0C01) and HCI_LE_Set_Event_Mask (7.8.1, 0x2001): one 64-bit mask.
public struct HCISetEventMask: HCICommandEncodable, Sendable {
    public let commandOpcode: UInt16
    public let mask: UInt64

    public init(opcode: UInt16, mask: UInt64) { (commandOpcode, self.mask) = (opcode, mask) }
    public init?(opcode: UInt16, parameters p: ByteView) {
        guard let m = p.u64le(0) else { return nil }
        (commandOpcode, mask) = (opcode, m)
    }
    public func appendParameters(to w: inout ByteWriter) { w.appendUInt64LE(mask) }
}

/// HCI_LE_Set_Random_Address (7.8.4, 0x2005): Random_Address.
public struct HCILESetRandomAddress: HCICommandEncodable, Sendable {
    public static let opcode: UInt16 = HCIOpcode.leSetRandomAddress
    public let address: BDAddr

    public init(address: BDAddr) { self.address = address }
    public init?(parameters p: ByteView) {
        guard let a = BDAddr(littleEndian: p) else { return nil }
        address = a
    }
    public var commandOpcode: UInt16 { Self.opcode }
    public func appendParameters(to w: inout ByteWriter) { w.appendAddress(address) }
}

/// HCI_LE_Set_Advertising_Data (7.8.7, 0x2008) and HCI_LE_Set_Scan_Response_Data (7.8.8,
/// 0x2009): a length octet, then 31 octets of which the first `length` are the data (the rest
/// zero). Nil when the parameters end before the data they announce.
public struct HCILESetAdvertisingData: HCICommandEncodable, Sendable {
    public static let maximumLength = 31
    public let commandOpcode: UInt16
    public let data: [UInt8]

    /// At most 31 octets of `data` are kept (a legacy advertising PDU holds no more).
    public init(opcode: UInt16, data: [UInt8]) { (commandOpcode, self.data) = (opcode, Array(data.prefix(31))) }
    public init?(opcode: UInt16, parameters p: ByteView) {
        guard let n = p.u8(0), n <= 31, let d = p.slice(1, Int(n)) else { return nil }
        (commandOpcode, data) = (opcode, d.toArray())
    }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt8(UInt8(data.count))
        w.appendBytes(data)
        w.appendZeros(Self.maximumLength - data.count)
    }
}

/// HCI_LE_Set_Extended_Advertising_Data (7.8.54, 0x2037) and HCI_LE_Set_Extended_Scan_Response_Data
/// (7.8.55, 0x2038): Advertising_Handle, Operation, Fragment_Preference, then a length octet
/// and that many octets of data (at most 251 in one command; longer data goes in fragments).
/// Nil when the parameters end before the data they announce.
public struct HCILESetExtendedAdvertisingData: HCICommandEncodable, Sendable {
    /// The data one command carries.
    public static let maximumFragment = 251
    /// Operation (7.8.54): an intermediate, the first or the last fragment, or the whole data.
    public static let intermediateFragment: UInt8 = 0x00
    public static let firstFragment: UInt8 = 0x01
    public static let lastFragment: UInt8 = 0x02
    public static let completeData: UInt8 = 0x03
    public let commandOpcode: UInt16
    public let advertisingHandle: UInt8
    public let operation: UInt8
    /// 0: the controller may fragment the data; 1: it should not.
    public let fragmentPreference: UInt8
    public let data: [UInt8]

    /// At most `maximumFragment` octets of `data` are kept.
    public init(
        opcode: UInt16, advertisingHandle: UInt8, operation: UInt8, fragmentPreference: UInt8 = 1, data: [UInt8]
    ) {
        (commandOpcode, self.advertisingHandle, self.operation) = (opcode, advertisingHandle, operation)
        (self.fragmentPreference, self.data) = (fragmentPreference, Array(data.prefix(Self.maximumFragment)))
    }

    public init?(opcode: UInt16, parameters p: ByteView) {
        guard let h = p.u8(0), let o = p.u8(1), let f = p.u8(2), let n = p.u8(3), let d = p.slice(4, Int(n)) else {
            return nil
        }
        (commandOpcode, advertisingHandle, operation, fragmentPreference, data) = (opcode, h, o, f, d.toArray())
    }

    /// `data` as the commands that set it on `advertisingHandle`: one with Operation
    /// "complete" when it fits (also when empty), else first, intermediate … last fragments.
    public static func commands(opcode: UInt16, advertisingHandle: UInt8, data: [UInt8]) -> [Self] {
        guard data.count > maximumFragment else {
            return [Self(opcode: opcode, advertisingHandle: advertisingHandle, operation: completeData, data: data)]
        }
        return stride(from: 0, to: data.count, by: maximumFragment).map { start in
            let end = min(start + maximumFragment, data.count)
            let operation =
                start == 0 ? firstFragment : end == data.count ? lastFragment : intermediateFragment
            return Self(
                opcode: opcode, advertisingHandle: advertisingHandle, operation: operation,
                data: Array(data[start..<end]))
        }
    }

    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt8(advertisingHandle)
        w.appendUInt8(operation)
        w.appendUInt8(fragmentPreference)
        w.appendUInt8(UInt8(data.count))
        w.appendBytes(data)
    }
}

/// HCI_LE_Set_Advertising_Enable (7.8.9, 0x200A): Advertising_Enable.
public struct HCILESetAdvertisingEnable: HCICommandEncodable, Sendable {
    public static let opcode: UInt16 = HCIOpcode.leSetAdvertisingEnable
    public let enable: UInt8

    public init(enable: UInt8) { self.enable = enable }
    public init?(parameters p: ByteView) {
        guard let e = p.u8(0) else { return nil }
        enable = e
    }
    public var commandOpcode: UInt16 { Self.opcode }
    public func appendParameters(to w: inout ByteWriter) { w.appendUInt8(enable) }
}

/// HCI_LE_Set_Extended_Advertising_Enable (7.8.56, 0x2039): Enable, Num_Sets, then per set
/// Advertising_Handle, Duration, Max_Extended_Advertising_Events. Nil when the parameters
/// are shorter than the sets they announce.
public struct HCILESetExtendedAdvertisingEnable: HCICommandEncodable, Sendable {
    public struct Set: Equatable, Sendable {
        public let advertisingHandle: UInt8
        /// 10 ms units; 0: no limit.
        public let duration: UInt16
        public let maxExtendedAdvertisingEvents: UInt8
        public init(advertisingHandle: UInt8, duration: UInt16, maxExtendedAdvertisingEvents: UInt8) {
            (self.advertisingHandle, self.duration, self.maxExtendedAdvertisingEvents) = (
                advertisingHandle, duration, maxExtendedAdvertisingEvents
            )
        }
    }
    public static let opcode: UInt16 = HCIOpcode.leSetExtendedAdvertisingEnable
    public let enable: UInt8
    public let sets: [Set]

    public init(enable: UInt8, sets: [Set]) { (self.enable, self.sets) = (enable, sets) }
    public init?(parameters p: ByteView) {
        guard let e = p.u8(0), let n = p.u8(1), p.count >= 2 + 4 * Int(n) else { return nil }
        enable = e
        sets = (0..<Int(n)).map { i in
            Set(
                advertisingHandle: p.u8(2 + 4 * i)!, duration: p.u16le(3 + 4 * i)!,
                maxExtendedAdvertisingEvents: p.u8(5 + 4 * i)!)
        }
    }
    public var commandOpcode: UInt16 { Self.opcode }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt8(enable)
        w.appendUInt8(UInt8(truncatingIfNeeded: sets.count))
        for s in sets {
            w.appendUInt8(s.advertisingHandle)
            w.appendUInt16LE(s.duration)
            w.appendUInt8(s.maxExtendedAdvertisingEvents)
        }
    }
}

/// HCI_LE_Set_Data_Length (7.8.33, 0x2022): Connection_Handle, TX_Octets, TX_Time.
public struct HCILESetDataLength: HCICommandEncodable, Sendable {
    public static let opcode: UInt16 = HCIOpcode.leSetDataLength
    public let handle: UInt16
    public let txOctets: UInt16
    public let txTime: UInt16

    public init(handle: UInt16, txOctets: UInt16, txTime: UInt16) {
        (self.handle, self.txOctets, self.txTime) = (handle, txOctets, txTime)
    }
    public init?(parameters p: ByteView) {
        guard let h = p.u16le(0), let o = p.u16le(2), let t = p.u16le(4) else { return nil }
        (handle, txOctets, txTime) = (h & HCIConnectionHandle.mask, o, t)
    }
    public var commandOpcode: UInt16 { Self.opcode }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt16LE(handle)
        w.appendUInt16LE(txOctets)
        w.appendUInt16LE(txTime)
    }
}

/// HCI_LE_Write_Suggested_Default_Data_Length (7.8.35, 0x2024): Suggested_Max_TX_Octets,
/// Suggested_Max_TX_Time.
public struct HCILEWriteSuggestedDefaultDataLength: HCICommandEncodable, Sendable {
    public static let opcode: UInt16 = HCIOpcode.leWriteSuggestedDefaultDataLength
    public let maxTxOctets: UInt16
    public let maxTxTime: UInt16

    public init(maxTxOctets: UInt16, maxTxTime: UInt16) {
        (self.maxTxOctets, self.maxTxTime) = (maxTxOctets, maxTxTime)
    }
    public init?(parameters p: ByteView) {
        guard let o = p.u16le(0), let t = p.u16le(2) else { return nil }
        (maxTxOctets, maxTxTime) = (o, t)
    }
    public var commandOpcode: UInt16 { Self.opcode }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt16LE(maxTxOctets)
        w.appendUInt16LE(maxTxTime)
    }
}

extension HCILEWriteSuggestedDefaultDataLength {
    /// Its parameters each as far as they reach, read through the command's layout (the
    /// struct itself needs both).
    public struct Fields: Sendable, Equatable {
        public let maxTxOctets: UInt16?
        public let maxTxTime: UInt16?

        public init(parameters p: ByteView) {
            let f = HCILayoutFields(layout: HCICommandLayouts.suggestedDefaultDataLength, parameters: p)
            (maxTxOctets, maxTxTime) = (f.uint16("suggested_max_tx_octets"), f.uint16("suggested_max_tx_time"))
        }
    }
}

/// HCI_LE_Enable_Encryption (7.8.24, 0x2019): Connection_Handle, Random_Number (8),
/// Encrypted_Diversifier (2), Long_Term_Key (16).
public struct HCILEEnableEncryption: HCICommandEncodable, Sendable {
    public static let opcode: UInt16 = HCIOpcode.leEnableEncryption
    public let handle: UInt16
    public let randomNumber: UInt64
    public let encryptedDiversifier: UInt16
    public let longTermKey: UInt128

    public init(handle: UInt16, randomNumber: UInt64, encryptedDiversifier: UInt16, longTermKey: UInt128) {
        (self.handle, self.randomNumber, self.encryptedDiversifier, self.longTermKey) = (
            handle, randomNumber, encryptedDiversifier, longTermKey
        )
    }
    public init?(parameters p: ByteView) {
        guard let h = p.u16le(0), let r = p.u64le(2), let e = p.u16le(10), let k = p.littleEndianUInt128(at: 12) else {
            return nil
        }
        (handle, randomNumber, encryptedDiversifier, longTermKey) = (h & HCIConnectionHandle.mask, r, e, k)
    }
    public var commandOpcode: UInt16 { Self.opcode }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt16LE(handle)
        w.appendUInt64LE(randomNumber)
        w.appendUInt16LE(encryptedDiversifier)
        w.appendHCIKey(longTermKey)
    }
}

/// HCI_LE_Long_Term_Key_Request_Reply (7.8.25, 0x201A): Connection_Handle, Long_Term_Key.
/// Decodes from the handle on: `longTermKey` is nil when the parameters end before the key
/// (a controller cannot use such a reply's key).
public struct HCILELongTermKeyRequestReply: HCICommandEncodable, Sendable {
    public static let opcode: UInt16 = HCIOpcode.leLongTermKeyRequestReply
    public let handle: UInt16
    public let longTermKey: UInt128?

    public init(handle: UInt16, longTermKey: UInt128?) { (self.handle, self.longTermKey) = (handle, longTermKey) }
    public init?(parameters p: ByteView) {
        guard let h = p.u16le(0) else { return nil }
        (handle, longTermKey) = (h & HCIConnectionHandle.mask, p.littleEndianUInt128(at: 2))
    }
    public var commandOpcode: UInt16 { Self.opcode }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt16LE(handle)
        if let longTermKey { w.appendHCIKey(longTermKey) }
    }
}

/// HCI_LE_Set_PHY (7.8.49, 0x2032): Connection_Handle, All_PHYs, TX_PHYs, RX_PHYs,
/// PHY_Options.
public struct HCILESetPHY: HCICommandEncodable, Sendable {
    public static let opcode: UInt16 = HCIOpcode.leSetPHY
    public let handle: UInt16
    /// Bit 0: no TX preference, bit 1: no RX preference.
    public let allPHYs: UInt8
    /// Bit 0 LE 1M, bit 1 LE 2M, bit 2 LE Coded.
    public let txPHYs: UInt8
    public let rxPHYs: UInt8
    public let phyOptions: UInt16

    public init(handle: UInt16, allPHYs: UInt8, txPHYs: UInt8, rxPHYs: UInt8, phyOptions: UInt16) {
        (self.handle, self.allPHYs, self.txPHYs, self.rxPHYs, self.phyOptions) = (
            handle, allPHYs, txPHYs, rxPHYs, phyOptions
        )
    }
    public init?(parameters p: ByteView) {
        guard let h = p.u16le(0), let a = p.u8(2), let t = p.u8(3), let r = p.u8(4), let o = p.u16le(5) else {
            return nil
        }
        (handle, allPHYs, txPHYs, rxPHYs, phyOptions) = (h & HCIConnectionHandle.mask, a, t, r, o)
    }
    public var commandOpcode: UInt16 { Self.opcode }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt16LE(handle)
        w.appendUInt8(allPHYs)
        w.appendUInt8(txPHYs)
        w.appendUInt8(rxPHYs)
        w.appendUInt16LE(phyOptions)
    }
}

/// HCI_LE_Add_Device_To_Resolving_List (7.8.38, 0x2027): Peer_Identity_Address_Type,
/// Peer_Identity_Address, Peer_IRK (16), Local_IRK (16).
public struct HCILEAddDeviceToResolvingList: HCICommandEncodable, Sendable {
    public static let opcode: UInt16 = HCIOpcode.leAddDeviceToResolvingList
    public let peerIdentityAddressType: UInt8
    public let peerIdentityAddress: BDAddr
    public let peerIRK: UInt128
    public let localIRK: UInt128

    public init(peerIdentityAddressType: UInt8, peerIdentityAddress: BDAddr, peerIRK: UInt128, localIRK: UInt128) {
        (self.peerIdentityAddressType, self.peerIdentityAddress, self.peerIRK, self.localIRK) = (
            peerIdentityAddressType, peerIdentityAddress, peerIRK, localIRK
        )
    }
    public init?(parameters p: ByteView) {
        guard let t = p.u8(0), let a = BDAddr(littleEndian: p, at: 1), let peer = p.littleEndianUInt128(at: 7),
            let local = p.littleEndianUInt128(at: 23)
        else { return nil }
        (peerIdentityAddressType, peerIdentityAddress, peerIRK, localIRK) = (t, a, peer, local)
    }
    public var commandOpcode: UInt16 { Self.opcode }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt8(peerIdentityAddressType)
        w.appendAddress(peerIdentityAddress)
        w.appendHCIKey(peerIRK)
        w.appendHCIKey(localIRK)
    }
}
