import BLEBytes

/// Names of GATT attribute types: the SIG's 16-bit UUIDs (Assigned Numbers section 3) and a
/// few well-known vendor 128-bit UUIDs.
///
/// The 16-bit ranges do not overlap (declarations 0x2800–0x2803, descriptors 0x29xx, services
/// 0x18xx, characteristics 0x2Axx–0x2Cxx, units 0x27xx, member UUIDs 0xFCxx–0xFFxx), so
/// `name(for:)` can try every table without ambiguity.
public enum GATTAssignedNumbers {
    /// GATT attribute-type declarations (Core 5.4 Vol 3 Part G 3.1–3.3).
    public static func declarationName(_ uuid16: UInt16) -> StaticString? {
        switch uuid16 {
        case 0x2800: "Primary Service"
        case 0x2801: "Secondary Service"
        case 0x2802: "Include"
        case 0x2803: "Characteristic"
        default: nil
        }
    }

    /// A SIG-assigned service, e.g. 0x180D "Heart Rate".
    public static func serviceName(_ uuid16: UInt16) -> StaticString? { services.name(uuid16) }

    /// A SIG-assigned characteristic, e.g. 0x2A37 "Heart Rate Measurement".
    public static func characteristicName(_ uuid16: UInt16) -> StaticString? { characteristics.name(uuid16) }

    /// A SIG-assigned descriptor, e.g. 0x2902 "Client Characteristic Configuration".
    public static func descriptorName(_ uuid16: UInt16) -> StaticString? { descriptors.name(uuid16) }

    /// A unit of the Characteristic Presentation Format descriptor, e.g. 0x272F
    /// "Celsius temperature (degree Celsius)".
    public static func unitName(_ uuid16: UInt16) -> StaticString? { units.name(uuid16) }

    /// A 16-bit UUID the SIG assigned to a member company or SDO (advertised in service data and
    /// UUID lists), e.g. 0xFE59 for Nordic Semiconductor's DFU service.
    public static func memberName(_ uuid16: UInt16) -> StaticString? { members.name(uuid16) }

    /// Any name for a 16-bit UUID, trying each table.
    public static func name(_ uuid16: UInt16) -> StaticString? {
        attributeTypeName(uuid16) ?? memberName(uuid16)
    }

    /// A name from the tables of what an attribute *is* (declarations, services,
    /// characteristics, descriptors, units), not who registered it.
    static func attributeTypeName(_ uuid16: UInt16) -> StaticString? {
        declarationName(uuid16) ?? serviceName(uuid16) ?? characteristicName(uuid16)
            ?? descriptorName(uuid16) ?? unitName(uuid16)
    }

    /// The name of any UUID: a 16-bit alias through the SIG tables, otherwise a known vendor
    /// 128-bit UUID.
    public static func name(for uuid: BluetoothUUID) -> StaticString? {
        if let short = uuid.uuid16 { return name(short) }
        return vendorName(uuid)
    }

    /// What a UUID names in a GATT database: member UUIDs name a company's service only.
    public enum AttributeKind: Sendable {
        case service, characteristic, descriptor
    }

    /// The name of `uuid` as the type of a `kind` attribute. A 16-bit member UUID (Assigned
    /// Numbers 3.11, 3.12) names the company that registered it for a *service*; on a
    /// characteristic or descriptor it says nothing about what the attribute is (FFF3 is
    /// "FiRa Consortium" as a service, a vendor-defined characteristic under it), so those get
    /// no name (see `memberNote(for:)` for a verbose note).
    public static func name(for uuid: BluetoothUUID, as kind: AttributeKind) -> StaticString? {
        guard kind != .service, let short = uuid.uuid16 else { return name(for: uuid) }
        return attributeTypeName(short)
    }

    /// "member UUID of FiRa Consortium" for a characteristic or descriptor whose 16-bit UUID is
    /// a member UUID (and no SIG attribute type): who registered it, not what it is.
    public static func memberNote(for uuid: BluetoothUUID, as kind: AttributeKind) -> String? {
        guard kind != .service, let short = uuid.uuid16, name(for: uuid, as: kind) == nil,
            let m = memberName(short)
        else { return nil }
        return "member UUID of \(m)"
    }

    /// Well-known vendor 128-bit UUIDs seen in captures of common devices.
    public static func vendorName(_ uuid: BluetoothUUID) -> StaticString? {
        for entry in vendorUUIDs where entry.high == uuid.high && entry.low == uuid.low {
            return entry.name
        }
        return nil
    }

    struct VendorUUID: Sendable {
        let high: UInt64
        let low: UInt64
        let name: StaticString
    }

    static let vendorUUIDs: [VendorUUID] = [
        // Nordic UART Service (nRF Connect SDK / nRF5 SDK "NUS").
        VendorUUID(high: 0x6E40_0001_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E, name: "Nordic UART Service"),
        VendorUUID(high: 0x6E40_0002_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E, name: "Nordic UART RX"),
        VendorUUID(high: 0x6E40_0003_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E, name: "Nordic UART TX"),
        // Nordic LED Button Service and the legacy (pre-0xFE59) DFU service share a base UUID.
        VendorUUID(high: 0x0000_1523_1212_EFDE, low: 0x1523_785F_EABC_D123, name: "Nordic LED Button Service"),
        VendorUUID(high: 0x0000_1524_1212_EFDE, low: 0x1523_785F_EABC_D123, name: "Nordic LBS Button"),
        VendorUUID(high: 0x0000_1525_1212_EFDE, low: 0x1523_785F_EABC_D123, name: "Nordic LBS LED"),
        VendorUUID(high: 0x0000_1530_1212_EFDE, low: 0x1523_785F_EABC_D123, name: "Nordic Legacy DFU Service"),
        VendorUUID(high: 0x0000_1531_1212_EFDE, low: 0x1523_785F_EABC_D123, name: "Nordic Legacy DFU Control Point"),
        VendorUUID(high: 0x0000_1532_1212_EFDE, low: 0x1523_785F_EABC_D123, name: "Nordic Legacy DFU Packet"),
        // Apple Notification Center Service and Apple Media Service (Apple accessory specs).
        VendorUUID(high: 0x7905_F431_B5CE_4E99, low: 0xA40F_4B1E_122D_00D0, name: "Apple Notification Center Service"),
        VendorUUID(high: 0x9FBF_120D_6301_42D9, low: 0x8C58_25E6_99A2_1DBD, name: "ANCS Notification Source"),
        VendorUUID(high: 0x69D1_D8F3_45E1_49A8, low: 0x9821_9BBD_FDAA_D9D9, name: "ANCS Control Point"),
        VendorUUID(high: 0x22EA_C6E9_24D6_4BB5, low: 0xBE44_B36A_CE7C_7BFB, name: "ANCS Data Source"),
        VendorUUID(high: 0x89D3_502B_0F36_433A, low: 0x8EF4_C502_AD55_F8DC, name: "Apple Media Service"),
        // Microchip (ISSC) Transparent UART service.
        VendorUUID(high: 0x4953_5343_FE7D_4AE5, low: 0x8FA9_9FAF_D205_E455, name: "Microchip Transparent UART Service"),
    ]
}

/// Attribute types of GATT declarations (Core 5.4 Vol 3 Part G 3.1–3.3), what discovery
/// requests ask for.
public enum GATTDeclaration {
    public static let primaryService: UInt16 = 0x2800
    public static let secondaryService: UInt16 = 0x2801
    public static let include: UInt16 = 0x2802
    public static let characteristic: UInt16 = 0x2803
}

/// Characteristic Properties bits of a characteristic declaration (Vol 3 Part G 3.3.1.1).
public enum GATTCharacteristicProperty {
    public static let broadcast: UInt8 = 0x01
    public static let read: UInt8 = 0x02
    public static let writeWithoutResponse: UInt8 = 0x04
    public static let write: UInt8 = 0x08
    public static let notify: UInt8 = 0x10
    public static let indicate: UInt8 = 0x20
    public static let authenticatedSignedWrites: UInt8 = 0x40
    public static let extendedProperties: UInt8 = 0x80
}

/// Client Characteristic Configuration bits (Vol 3 Part G 3.3.3.3).
public enum GATTClientConfiguration {
    public static let notification: UInt16 = 0x0001
    public static let indication: UInt16 = 0x0002
}

/// Descriptor types blecap refers to by name (Vol 3 Part G 3.3.3).
public enum GATTDescriptorType {
    public static let clientCharacteristicConfiguration: UInt16 = 0x2902
}
