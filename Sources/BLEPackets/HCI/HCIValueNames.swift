/// Names of the small enumerated HCI parameter values (Core 5.4 Vol 4 Part E 7.7.65 and 7.8).
/// Switches over a byte compile to jump tables; flag tables are built once.
public enum HCIValueNames {
    /// Peer/advertiser address type in LE events (7.7.65.1, 7.7.65.13): 0xFF = anonymous.
    public static func addressType(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "Public"
        case 0x01: "Random"
        case 0x02: "Public Identity"
        case 0x03: "Random (static) Identity"
        case 0xFF: "Anonymous"
        default: nil
        }
    }

    /// `Own_Address_Type` of LE commands (7.8.5): 2/3 use an RPA when the resolving list has one.
    public static func ownAddressType(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "Public"
        case 0x01: "Random"
        case 0x02: "Resolvable or Public"
        case 0x03: "Resolvable or Random"
        default: nil
        }
    }

    public static func role(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "Central"
        case 0x01: "Peripheral"
        default: nil
        }
    }

    /// `Central_Clock_Accuracy` (7.7.65.1).
    public static func clockAccuracy(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "500 ppm"
        case 0x01: "250 ppm"
        case 0x02: "150 ppm"
        case 0x03: "100 ppm"
        case 0x04: "75 ppm"
        case 0x05: "50 ppm"
        case 0x06: "30 ppm"
        case 0x07: "20 ppm"
        default: nil
        }
    }

    /// A PHY value (7.7.65.12; also primary/secondary PHY in extended reports, 0 = none).
    public static func phy(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "None"
        case 0x01: "LE 1M"
        case 0x02: "LE 2M"
        case 0x03: "LE Coded"
        default: nil
        }
    }

    /// Legacy advertising report `Event_Type` (7.7.65.2).
    public static func legacyReportEventType(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "ADV_IND"
        case 0x01: "ADV_DIRECT_IND"
        case 0x02: "ADV_SCAN_IND"
        case 0x03: "ADV_NONCONN_IND"
        case 0x04: "SCAN_RSP"
        default: nil
        }
    }

    /// `Advertising_Type` of LE Set Advertising Parameters (7.8.5).
    public static func advertisingType(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "ADV_IND"
        case 0x01: "ADV_DIRECT_IND (high duty cycle)"
        case 0x02: "ADV_SCAN_IND"
        case 0x03: "ADV_NONCONN_IND"
        case 0x04: "ADV_DIRECT_IND (low duty cycle)"
        default: nil
        }
    }

    public static func scanType(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "Passive"
        case 0x01: "Active"
        default: nil
        }
    }

    /// `Scanning_Filter_Policy` (7.8.10).
    public static func scanningFilterPolicy(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "Basic unfiltered"
        case 0x01: "Basic filtered"
        case 0x02: "Extended unfiltered"
        case 0x03: "Extended filtered"
        default: nil
        }
    }

    /// `Initiator_Filter_Policy` (7.8.12).
    public static func initiatorFilterPolicy(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "Peer address"
        case 0x01: "Filter Accept List"
        default: nil
        }
    }

    /// `Advertising_Filter_Policy` (7.8.5).
    public static func advertisingFilterPolicy(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "Any scan, any connect"
        case 0x01: "Filtered scan, any connect"
        case 0x02: "Any scan, filtered connect"
        case 0x03: "Filtered scan, filtered connect"
        default: nil
        }
    }

    public static func enable(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "Disabled"
        case 0x01: "Enabled"
        default: nil
        }
    }

    /// `Filter_Duplicates` (7.8.11, 7.8.65: 2 = reset each period).
    public static func filterDuplicates(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "Disabled"
        case 0x01: "Enabled"
        case 0x02: "Enabled, reset each period"
        default: nil
        }
    }

    /// `Operation` of LE Set Extended Advertising/Scan Response Data (7.8.54).
    public static func dataOperation(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "Intermediate fragment"
        case 0x01: "First fragment"
        case 0x02: "Last fragment"
        case 0x03: "Complete data"
        case 0x04: "Unchanged data"
        default: nil
        }
    }

    /// Extended advertising report data status, bits 5–6 of `Event_Type` (7.7.65.13).
    public static func dataStatus(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "Complete"
        case 0x01: "Incomplete, more data to come"
        case 0x02: "Incomplete, truncated"
        default: nil
        }
    }

    public static func channelSelectionAlgorithm(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "#1"
        case 0x01: "#2"
        default: nil
        }
    }

    /// `Link_Type` of Data Buffer Overflow (7.7.26).
    public static func linkType(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "Synchronous"
        case 0x01: "ACL"
        default: nil
        }
    }

    /// `Encryption_Enabled` (7.7.8): on LE, 0x01 means AES-CCM.
    public static func encryptionEnabled(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "Off"
        case 0x01: "On (E0 for BR/EDR, AES-CCM for LE)"
        case 0x02: "On (AES-CCM for BR/EDR)"
        default: nil
        }
    }

    /// HCI/LMP/LL version numbers (Assigned Numbers 2.1, "Core Specification versions").
    public static func coreVersion(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "1.0b"
        case 0x01: "1.1"
        case 0x02: "1.2"
        case 0x03: "2.0+EDR"
        case 0x04: "2.1+EDR"
        case 0x05: "3.0+HS"
        case 0x06: "4.0"
        case 0x07: "4.1"
        case 0x08: "4.2"
        case 0x09: "5.0"
        case 0x0A: "5.1"
        case 0x0B: "5.2"
        case 0x0C: "5.3"
        case 0x0D: "5.4"
        case 0x0E: "6.0"
        default: nil
        }
    }

    /// `Privacy_Mode` of LE Set Privacy Mode (7.8.77).
    public static func privacyMode(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "Network"
        case 0x01: "Device"
        default: nil
        }
    }

    /// Bits of an extended advertising report `Event_Type` (7.7.65.13); bits 5–6 are the data
    /// status, reported separately.
    public static let extendedReportEventTypeBits = FlagNames([
        "Connectable", "Scannable", "Directed", "Scan Response", "Legacy",
    ])

    /// `Advertising_Event_Properties` (7.8.53).
    public static let advertisingEventPropertyBits = FlagNames([
        "Connectable", "Scannable", "Directed", "High Duty Cycle Directed", "Legacy",
        "Anonymous", "Include TxPower",
    ])

    /// PHY bit fields: `Scanning_PHYs`, `Initiating_PHYs`, `TX_PHYs`, `RX_PHYs` (7.8.48, 7.8.64).
    public static let phyBits = FlagNames(["LE 1M", "LE 2M", "LE Coded"])

    /// `All_PHYs` (7.8.48).
    public static let allPHYsBits = FlagNames(["No TX preference", "No RX preference"])

    /// Advertising channel map (7.8.5).
    public static let channelMapBits = FlagNames(["Channel 37", "Channel 38", "Channel 39"])
}
