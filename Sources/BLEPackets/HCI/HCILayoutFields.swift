import BLEBytes

/// A command's parameters read through its layout in `HCICommandLayouts`, the same layout
/// `blecap packets` describes them with: each fixed field by its spec name, at the offset the
/// fields before it add up to, nil when the parameters end before it (or the layout has no
/// such field): return parameters (HCIReturnParameters.swift), and a value taken from a
/// command whose typed struct needs more of it
/// (`HCILEWriteSuggestedDefaultDataLength.Fields`, `HCILESetScanEnable.enableValue(of:)`).
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

// HCI_LE_Set_Advertising_Parameters (7.8.5), HCI_LE_Set_Extended_Advertising_Parameters
// (7.8.53) and HCI_LE_Set_Advertising_Set_Random_Address (7.8.52) are read as far as the
// parameters reach (`partial` rows of scripts/pdu/hci_commands.py, HCICommands+Generated.swift);
// here the inits a host writes them with.

extension HCILESetAdvertisingParameters {
    public init(
        intervalMin: UInt16, intervalMax: UInt16, advertisingType: UInt8, ownAddressType: UInt8,
        peerAddressType: UInt8 = 0, peerAddress: BDAddr = BDAddr(rawValue: 0), channelMap: UInt8 = 0x07,
        filterPolicy: UInt8 = 0
    ) {
        (self.intervalMin, self.intervalMax, self.advertisingType) = (intervalMin, intervalMax, advertisingType)
        (self.ownAddressType, self.peerAddressType, self.peerAddress) = (ownAddressType, peerAddressType, peerAddress)
        (self.channelMap, self.filterPolicy) = (channelMap, filterPolicy)
    }
}

extension HCILESetExtendedAdvertisingParameters {
    /// Advertising_Event_Properties bits (7.8.53): connectable, scannable, directed, high duty
    /// cycle directed, legacy PDUs, anonymous, include TX power.
    public static let connectableBit: UInt16 = 0x0001
    public static let scannableBit: UInt16 = 0x0002
    public static let directedBit: UInt16 = 0x0004
    public static let legacyBit: UInt16 = 0x0010
    /// Advertising_TX_Power 0x7F: the host has no preference.
    public static let noTxPowerPreference: Int8 = 127

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
}
