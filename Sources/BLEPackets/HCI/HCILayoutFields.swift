import BLEBytes

/// A command's parameters read through its layout in `HCICommandLayouts`, the same layout
/// `blecap packets` describes them with: each fixed field by its spec name, at the offset the
/// fields before it add up to, nil when the parameters end before it (or the layout has no
/// such field). One decoder for those bytes: the typed values below derive from the layout
/// instead of restating its offsets.
struct HCILayoutFields {
    let layout: [HCIParameter]
    let parameters: ByteView

    /// The field named `name` and where it starts.
    private func field(_ name: StaticString) -> (offset: Int, parameter: HCIParameter)? {
        var offset = 0
        for p in layout {
            if Self.same(p.name, name) { return (offset, p) }
            offset += p.size
        }
        return nil
    }

    private static func same(_ a: StaticString, _ b: StaticString) -> Bool {
        a.withUTF8Buffer { x in b.withUTF8Buffer { y in x.elementsEqual(y) } }
    }

    /// A one-octet field's value.
    func uint8(_ name: StaticString) -> UInt8? {
        guard let f = field(name), f.parameter.size == 1 else { return nil }
        return parameters.u8(f.offset)
    }

    /// A two-octet field's value (little-endian).
    func uint16(_ name: StaticString) -> UInt16? {
        guard let f = field(name), f.parameter.size == 2 else { return nil }
        return parameters.u16le(f.offset)
    }

    /// A three-octet field's value (little-endian).
    func uint24(_ name: StaticString) -> UInt32? {
        guard let f = field(name), f.parameter.size == 3 else { return nil }
        return parameters.u24le(f.offset)
    }

    /// An eight-octet field's value (little-endian).
    func uint64(_ name: StaticString) -> UInt64? {
        guard let f = field(name), f.parameter.size == 8 else { return nil }
        return parameters.u64le(f.offset)
    }

    /// A one-octet signed field's value (dBm).
    func int8(_ name: StaticString) -> Int8? {
        guard let f = field(name), f.parameter.size == 1 else { return nil }
        return parameters.i8(f.offset)
    }

    /// An address field's value.
    func address(_ name: StaticString) -> BDAddr? {
        guard let f = field(name), f.parameter.size == 6 else { return nil }
        return BDAddr(littleEndian: parameters, at: f.offset)
    }
}

/// HCI_LE_Set_Advertising_Parameters (Core 5.4 Vol 4 Part E 7.8.5, 0x2006), read through the
/// command's layout as far as the parameters reach (a field is nil when they end before it),
/// and written back field by field up to the first missing one: a controller reads
/// `ownAddressType`, a host (`blecap replay --controller`) writes them all.
public struct HCILESetAdvertisingParameters: HCICommandEncodable, Sendable {
    public static let opcode: UInt16 = HCIOpcode.leSetAdvertisingParameters
    /// Advertising_Interval_Min and _Max, units of 0.625 ms.
    public let intervalMin: UInt16?
    public let intervalMax: UInt16?
    /// Advertising_Type: 0 ADV_IND, 1 ADV_DIRECT_IND (high duty), 2 ADV_SCAN_IND,
    /// 3 ADV_NONCONN_IND, 4 ADV_DIRECT_IND (low duty).
    public let advertisingType: UInt8?
    /// Own_Address_Type, nil when the parameters end before it.
    public let ownAddressType: UInt8?
    public let peerAddressType: UInt8?
    public let peerAddress: BDAddr?
    public let channelMap: UInt8?
    public let filterPolicy: UInt8?

    public init(parameters p: ByteView) {
        let f = HCILayoutFields(layout: HCICommandLayouts.leSetAdvertisingParameters, parameters: p)
        (intervalMin, intervalMax) = (f.uint16("advertising_interval_min"), f.uint16("advertising_interval_max"))
        (advertisingType, ownAddressType) = (f.uint8("advertising_type"), f.uint8("own_address_type"))
        (peerAddressType, peerAddress) = (f.uint8("peer_address_type"), f.address("peer_address"))
        (channelMap, filterPolicy) = (f.uint8("advertising_channel_map"), f.uint8("advertising_filter_policy"))
    }

    public init(
        intervalMin: UInt16, intervalMax: UInt16, advertisingType: UInt8, ownAddressType: UInt8,
        peerAddressType: UInt8 = 0, peerAddress: BDAddr = BDAddr(rawValue: 0), channelMap: UInt8 = 0x07,
        filterPolicy: UInt8 = 0
    ) {
        (self.intervalMin, self.intervalMax, self.advertisingType) = (intervalMin, intervalMax, advertisingType)
        (self.ownAddressType, self.peerAddressType, self.peerAddress) = (ownAddressType, peerAddressType, peerAddress)
        (self.channelMap, self.filterPolicy) = (channelMap, filterPolicy)
    }

    public var commandOpcode: UInt16 { Self.opcode }
    public func appendParameters(to w: inout ByteWriter) {
        guard let intervalMin else { return }
        w.appendUInt16LE(intervalMin)
        guard let intervalMax else { return }
        w.appendUInt16LE(intervalMax)
        guard let advertisingType else { return }
        w.appendUInt8(advertisingType)
        guard let ownAddressType else { return }
        w.appendUInt8(ownAddressType)
        guard let peerAddressType else { return }
        w.appendUInt8(peerAddressType)
        guard let peerAddress else { return }
        w.appendAddress(peerAddress)
        guard let channelMap else { return }
        w.appendUInt8(channelMap)
        guard let filterPolicy else { return }
        w.appendUInt8(filterPolicy)
    }
}

/// HCI_LE_Set_Extended_Advertising_Parameters [v1] (7.8.53, 0x2036), read through the
/// command's layout as far as the parameters reach (a field is nil when they end before it),
/// and written back field by field up to the first missing one: a controller reads
/// `ownAddressType`, a host (`blecap replay --controller`) writes them all.
public struct HCILESetExtendedAdvertisingParameters: HCICommandEncodable, Sendable {
    public static let opcode: UInt16 = HCIOpcode.leSetExtendedAdvertisingParameters
    /// Advertising_Event_Properties bits (7.8.53): connectable, scannable, directed, high duty
    /// cycle directed, legacy PDUs, anonymous, include TX power.
    public static let connectableBit: UInt16 = 0x0001
    public static let scannableBit: UInt16 = 0x0002
    public static let directedBit: UInt16 = 0x0004
    public static let legacyBit: UInt16 = 0x0010
    /// Advertising_TX_Power 0x7F: the host has no preference.
    public static let noTxPowerPreference: Int8 = 127

    public let advertisingHandle: UInt8?
    public let eventProperties: UInt16?
    /// Primary_Advertising_Interval_Min and _Max, three octets each, units of 0.625 ms.
    public let intervalMin: UInt32?
    public let intervalMax: UInt32?
    public let channelMap: UInt8?
    /// Own_Address_Type, nil when the parameters end before it.
    public let ownAddressType: UInt8?
    public let peerAddressType: UInt8?
    public let peerAddress: BDAddr?
    public let filterPolicy: UInt8?
    public let txPower: Int8?
    /// Primary_Advertising_PHY (1 LE 1M, 3 LE Coded) and Secondary_Advertising_PHY (1 LE 1M,
    /// 2 LE 2M, 3 LE Coded).
    public let primaryPHY: UInt8?
    public let secondaryMaxSkip: UInt8?
    public let secondaryPHY: UInt8?
    public let sid: UInt8?
    public let scanRequestNotification: UInt8?

    public init(parameters p: ByteView) {
        let f = HCILayoutFields(layout: HCICommandLayouts.leSetExtendedAdvertisingParameters, parameters: p)
        (advertisingHandle, eventProperties) = (f.uint8("advertising_handle"), f.uint16("advertising_event_properties"))
        intervalMin = f.uint24("primary_advertising_interval_min")
        intervalMax = f.uint24("primary_advertising_interval_max")
        (channelMap, ownAddressType) = (f.uint8("primary_advertising_channel_map"), f.uint8("own_address_type"))
        (peerAddressType, peerAddress) = (f.uint8("peer_address_type"), f.address("peer_address"))
        filterPolicy = f.uint8("advertising_filter_policy")
        txPower = f.uint8("advertising_tx_power").map { Int8(bitPattern: $0) }
        (primaryPHY, secondaryMaxSkip) = (f.uint8("primary_advertising_phy"), f.uint8("secondary_advertising_max_skip"))
        (secondaryPHY, sid) = (f.uint8("secondary_advertising_phy"), f.uint8("advertising_sid"))
        scanRequestNotification = f.uint8("scan_request_notification_enable")
    }

    public init(
        advertisingHandle: UInt8, eventProperties: UInt16, intervalMin: UInt32, intervalMax: UInt32,
        ownAddressType: UInt8, primaryPHY: UInt8, secondaryPHY: UInt8, channelMap: UInt8 = 0x07,
        peerAddressType: UInt8 = 0, peerAddress: BDAddr = BDAddr(rawValue: 0), filterPolicy: UInt8 = 0,
        txPower: Int8 = Self.noTxPowerPreference, secondaryMaxSkip: UInt8 = 0, sid: UInt8 = 0,
        scanRequestNotification: UInt8 = 0
    ) {
        (self.advertisingHandle, self.eventProperties) = (advertisingHandle, eventProperties)
        (self.intervalMin, self.intervalMax, self.channelMap) = (intervalMin, intervalMax, channelMap)
        (self.ownAddressType, self.peerAddressType, self.peerAddress) = (ownAddressType, peerAddressType, peerAddress)
        (self.filterPolicy, self.txPower, self.primaryPHY) = (filterPolicy, txPower, primaryPHY)
        (self.secondaryMaxSkip, self.secondaryPHY, self.sid) = (secondaryMaxSkip, secondaryPHY, sid)
        self.scanRequestNotification = scanRequestNotification
    }

    public var commandOpcode: UInt16 { Self.opcode }
    public func appendParameters(to w: inout ByteWriter) {
        guard let advertisingHandle else { return }
        w.appendUInt8(advertisingHandle)
        guard let eventProperties else { return }
        w.appendUInt16LE(eventProperties)
        guard let intervalMin else { return }
        w.appendUInt24LE(intervalMin)
        guard let intervalMax else { return }
        w.appendUInt24LE(intervalMax)
        guard let channelMap else { return }
        w.appendUInt8(channelMap)
        guard let ownAddressType else { return }
        w.appendUInt8(ownAddressType)
        guard let peerAddressType else { return }
        w.appendUInt8(peerAddressType)
        guard let peerAddress else { return }
        w.appendAddress(peerAddress)
        guard let filterPolicy else { return }
        w.appendUInt8(filterPolicy)
        guard let txPower else { return }
        w.appendInt8(txPower)
        guard let primaryPHY else { return }
        w.appendUInt8(primaryPHY)
        guard let secondaryMaxSkip else { return }
        w.appendUInt8(secondaryMaxSkip)
        guard let secondaryPHY else { return }
        w.appendUInt8(secondaryPHY)
        guard let sid else { return }
        w.appendUInt8(sid)
        guard let scanRequestNotification else { return }
        w.appendUInt8(scanRequestNotification)
    }
}

/// HCI_LE_Set_Advertising_Set_Random_Address (7.8.52, 0x2035), read through the command's
/// layout as far as the parameters reach, and written back up to the first missing field.
public struct HCILESetAdvertisingSetRandomAddress: HCICommandEncodable, Sendable {
    public static let opcode: UInt16 = HCIOpcode.leSetAdvertisingSetRandomAddress
    public let advertisingHandle: UInt8?
    /// Random_Address, nil when the parameters end before its six octets.
    public let randomAddress: BDAddr?

    public init(parameters p: ByteView) {
        let f = HCILayoutFields(layout: HCICommandLayouts.leSetAdvertisingSetRandomAddress, parameters: p)
        (advertisingHandle, randomAddress) = (f.uint8("advertising_handle"), f.address("random_address"))
    }

    public init(advertisingHandle: UInt8, randomAddress: BDAddr) {
        (self.advertisingHandle, self.randomAddress) = (advertisingHandle, randomAddress)
    }

    public var commandOpcode: UInt16 { Self.opcode }
    public func appendParameters(to w: inout ByteWriter) {
        guard let advertisingHandle else { return }
        w.appendUInt8(advertisingHandle)
        guard let randomAddress else { return }
        w.appendAddress(randomAddress)
    }
}
