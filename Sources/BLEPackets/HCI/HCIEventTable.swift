import BLEBytes

/// Event code and LE Meta subevent code → descriptor (Core 5.4 Vol 4 Part E 7.7, 7.7.65).
/// Names follow tshark 4.0's Info column ("Disconnect Complete", "Number of Completed
/// Packets", "LE Meta") so `blecap packets` lines up with it; codes tshark 4.0 does not know
/// use the Core 5.4 name with its "[v2]" convention. Lookup indexes a 256-entry array.
public enum HCIEvents {
    typealias E = HCIEventLayouts
    typealias S = HCILEEventLayouts
    typealias D = HCIEventDecoders
    typealias R = HCIAdvertisingReportDecoders

    public static let unknownName: StaticString = "Unknown"

    public static func descriptor(for code: UInt8) -> HCIEventDescriptor? { eventsByCode[Int(code)] }

    public static func leSubeventDescriptor(for code: UInt8) -> HCIEventDescriptor? { subeventsByCode[Int(code)] }

    public static func name(for code: UInt8) -> StaticString { descriptor(for: code)?.name ?? unknownName }

    public static func leSubeventName(for code: UInt8) -> StaticString {
        leSubeventDescriptor(for: code)?.name ?? unknownName
    }

    /// Every named event, sorted by code.
    public static let eventTable: [HCIEventDescriptor] = [
        .init(0x01, "Inquiry Complete"),
        .init(0x02, "Inquiry Result"),
        .init(0x03, "Connect Complete"),
        .init(0x04, "Connect Request"),
        .init(0x05, "Disconnect Complete", E.disconnectionComplete),
        .init(0x06, "Authentication Complete"),
        .init(0x07, "Remote Name Request Complete"),
        .init(0x08, "Encryption Change", E.encryptionChangeV1),
        .init(0x09, "Change Connection Link Key Complete"),
        .init(0x0A, "Master Link Key Complete"),
        .init(0x0B, "Read Remote Supported Features"),
        .init(0x0C, "Read Remote Version Information Complete", E.readRemoteVersionInformationComplete),
        .init(0x0D, "QoS Setup Complete"),
        .init(0x0E, "Command Complete", custom: D.commandComplete),
        .init(0x0F, "Command Status", custom: D.commandStatus),
        .init(0x10, "Hardware Error", E.hardwareError),
        .init(0x11, "Flush Occurred"),
        .init(0x12, "Role Change"),
        .init(0x13, "Number of Completed Packets", custom: D.numberOfCompletedPackets),
        .init(0x14, "Mode Change"),
        .init(0x15, "Return Link Keys"),
        .init(0x16, "PIN Code Request"),
        .init(0x17, "Link Key Request"),
        .init(0x18, "Link Key Notification"),
        .init(0x19, "Loopback Command"),
        .init(0x1A, "Data Buffer Overflow", E.dataBufferOverflow),
        .init(0x1B, "Max Slots Change"),
        .init(0x1C, "Read Clock Offset Complete"),
        .init(0x1D, "Connection Packet Type Changed"),
        .init(0x1E, "QoS Violation"),
        .init(0x1F, "Page Scan Mode Change"),
        .init(0x20, "Page Scan Repetition Mode Change"),
        .init(0x21, "Flow Specification Complete"),
        .init(0x22, "Inquiry Result With RSSI"),
        .init(0x23, "Read Remote Extended Features Complete"),
        .init(0x2C, "Synchronous Connection Complete"),
        .init(0x2D, "Synchronous Connection Changed"),
        .init(0x2E, "Sniff Subrating"),
        .init(0x2F, "Extended Inquiry Result"),
        .init(0x30, "Encryption Key Refresh Complete", E.statusAndHandle),
        .init(0x31, "IO Capability Request"),
        .init(0x32, "IO Capability Response"),
        .init(0x33, "User Confirmation Request"),
        .init(0x34, "User Passkey Request"),
        .init(0x35, "Remote OOB Data Request"),
        .init(0x36, "Simple Pairing Complete"),
        .init(0x38, "Link Supervision Timeout Changed"),
        .init(0x39, "Enhanced Flush Complete"),
        .init(0x3B, "User Passkey Notification"),
        .init(0x3C, "Keypress Notification"),
        .init(0x3D, "Remote Host Supported Features Notification"),
        .init(0x3E, "LE Meta", custom: D.leMeta),
        .init(0x40, "Physical Link Complete"),
        .init(0x41, "Channel Selected"),
        .init(0x42, "Disconnect Physical Link Complete"),
        .init(0x43, "Physical Link Loss Early Warning"),
        .init(0x44, "Physical Link Recovery"),
        .init(0x45, "Logical Link Complete"),
        .init(0x46, "Disconnect Logical Link Complete"),
        .init(0x47, "Flow Spec Modify Complete"),
        .init(0x48, "Number Of Completed Data Blocks"),
        .init(0x49, "AMP Start Test"),
        .init(0x4A, "AMP Test End"),
        .init(0x4B, "AMP Receiver Report"),
        .init(0x4C, "Short Range Mode Change Complete"),
        .init(0x4D, "AMP Status Change"),
        .init(0x4E, "Triggered Clock Capture"),
        .init(0x4F, "Synchronization Train Complete"),
        .init(0x50, "Synchronization Train Received"),
        .init(0x51, "Connectionless Slave Broadcast Receive"),
        .init(0x52, "Connectionless Slave Broadcast Timeout"),
        .init(0x53, "Truncated Page Complete"),
        .init(0x54, "Slave Page Response Timeout"),
        .init(0x55, "Connectionless Slave Broadcast Channel Map Change"),
        .init(0x56, "Inquiry Response Notification"),
        .init(0x57, "Authenticated Payload Timeout Expired", E.handle),
        .init(0x58, "SAM Status Change"),
        .init(0x59, "Encryption Change [v2]", E.encryptionChangeV2),
        .init(0xFF, "Vendor-Specific", custom: HCIAndroidBQRDecoders.vendorSpecific),
    ]

    /// Every named LE Meta subevent, sorted by code.
    public static let leSubeventTable: [HCIEventDescriptor] = [
        .init(0x01, "LE Connection Complete", S.connectionComplete),
        .init(0x02, "LE Advertising Report", custom: R.legacy),
        .init(0x03, "LE Connection Update Complete", S.connectionUpdateComplete),
        .init(0x04, "LE Read Remote Features Complete", S.readRemoteFeaturesComplete),
        .init(0x05, "LE Long Term Key Request", S.longTermKeyRequest),
        .init(0x06, "LE Remote Connection Parameter Request", S.remoteConnectionParameterRequest),
        .init(0x07, "LE Data Length Change", S.dataLengthChange),
        .init(0x08, "LE Read Local P-256 Public Key Complete", S.readLocalP256PublicKeyComplete),
        .init(0x09, "LE Generate DHKey Complete", S.generateDHKeyComplete),
        .init(0x0A, "LE Enhanced Connection Complete", S.enhancedConnectionCompleteV1),
        .init(0x0B, "LE Direct Advertising Report", custom: R.directed),
        .init(0x0C, "LE PHY Update Complete", S.phyUpdateComplete),
        .init(0x0D, "LE Extended Advertising Report", custom: R.extended),
        .init(0x0E, "LE Periodic Advertising Sync Established"),
        .init(0x0F, "LE Periodic Advertising Report"),
        .init(0x10, "LE Periodic Advertising Sync Lost"),
        .init(0x11, "LE Scan Timeout", S.scanTimeout),
        .init(0x12, "LE Advertising Set Terminated", S.advertisingSetTerminated),
        .init(0x13, "LE Scan Request Received", S.scanRequestReceived),
        .init(0x14, "LE Channel Selection Algorithm", S.channelSelectionAlgorithm),
        .init(0x15, "LE Connectionless IQ Report"),
        .init(0x16, "LE Connection IQ Report"),
        .init(0x17, "LE CTE Request Failed"),
        .init(0x18, "LE Periodic Advertising Sync Transfer Received"),
        .init(0x19, "LE CIS Established"),
        .init(0x1A, "LE CIS Request"),
        .init(0x1B, "LE Create BIG Complete"),
        .init(0x1C, "LE Terminate BIG Complete"),
        .init(0x1D, "LE BIG Sync Established"),
        .init(0x1E, "LE BIG Sync Lost"),
        .init(0x1F, "LE Request Peer SCA Complete"),
        .init(0x20, "LE Path Loss Threshold"),
        .init(0x21, "LE Transmit Power Reporting"),
        .init(0x22, "LE BIGInfo Advertising Report"),
        .init(0x23, "LE Subrate Change"),
        .init(0x24, "LE Periodic Advertising Sync Established [v2]"),
        .init(0x25, "LE Periodic Advertising Report [v2]"),
        .init(0x26, "LE Periodic Advertising Sync Transfer Received [v2]"),
        .init(0x27, "LE Periodic Advertising Subevent Data Request"),
        .init(0x28, "LE Periodic Advertising Response Report"),
        .init(0x29, "LE Enhanced Connection Complete [v2]", S.enhancedConnectionCompleteV2),
    ]

    static let eventsByCode = index(eventTable)
    static let subeventsByCode = index(leSubeventTable)

    static func index(_ table: [HCIEventDescriptor]) -> [HCIEventDescriptor?] {
        var byCode = [HCIEventDescriptor?](repeating: nil, count: 256)
        for d in table { byCode[Int(d.code)] = d }
        return byCode
    }
}
