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

    /// An address field's value.
    func address(_ name: StaticString) -> BDAddr? {
        guard let f = field(name), f.parameter.size == 6 else { return nil }
        return BDAddr(littleEndian: parameters, at: f.offset)
    }
}

/// HCI_LE_Set_Advertising_Parameters (Core 5.4 Vol 4 Part E 7.8.5, 0x2006), the field a
/// controller acts on, read through the command's layout as far as the parameters reach.
public struct HCILESetAdvertisingParameters: Sendable {
    public static let opcode: UInt16 = HCIOpcode.leSetAdvertisingParameters
    /// Own_Address_Type, nil when the parameters end before it.
    public let ownAddressType: UInt8?

    public init(parameters p: ByteView) {
        ownAddressType = HCILayoutFields(layout: HCICommandLayouts.leSetAdvertisingParameters, parameters: p)
            .uint8("own_address_type")
    }
}

/// HCI_LE_Set_Extended_Advertising_Parameters [v1] (7.8.53, 0x2036), the field a controller
/// acts on, read through the command's layout as far as the parameters reach.
public struct HCILESetExtendedAdvertisingParameters: Sendable {
    public static let opcode: UInt16 = HCIOpcode.leSetExtendedAdvertisingParameters
    /// Own_Address_Type, nil when the parameters end before it.
    public let ownAddressType: UInt8?

    public init(parameters p: ByteView) {
        ownAddressType = HCILayoutFields(layout: HCICommandLayouts.leSetExtendedAdvertisingParameters, parameters: p)
            .uint8("own_address_type")
    }
}

/// HCI_LE_Set_Advertising_Set_Random_Address (7.8.52, 0x2035), read through the command's
/// layout as far as the parameters reach.
public struct HCILESetAdvertisingSetRandomAddress: Sendable {
    public static let opcode: UInt16 = HCIOpcode.leSetAdvertisingSetRandomAddress
    public let advertisingHandle: UInt8?
    /// Random_Address, nil when the parameters end before its six octets.
    public let randomAddress: BDAddr?

    public init(parameters p: ByteView) {
        let f = HCILayoutFields(layout: HCICommandLayouts.leSetAdvertisingSetRandomAddress, parameters: p)
        (advertisingHandle, randomAddress) = (f.uint8("advertising_handle"), f.address("random_address"))
    }
}
