import BLEBytes

// BlueZ's management interface (doc/mgmt-api.txt), as the Linux monitor records it: a control
// command record carries `cookie u32, opcode u16, parameters`, a control event record
// `cookie u32, event code u16, parameters` (BlueZ monitor/control.c). The cookie names the
// management socket (bluetoothd, btmgmt …) that a Control Open record introduced.
//
// Lint needs these: "scan without a service filter" and "scan before powered on" are visible
// on Linux only as Start Discovery vs Start Service Discovery and a Not Powered status.

/// A management command sent by a user-space client (control command record).
public struct BlueZManagementCommand: Sendable {
    public let cookie: UInt32
    public let opcode: UInt16
    public let parameters: ByteView

    public init?(_ payload: ByteView) {
        guard let cookie = payload.u32le(0), let opcode = payload.u16le(4) else { return nil }
        self.cookie = cookie
        self.opcode = opcode
        parameters = payload.suffix(from: 6) ?? .empty
    }

    public var name: StaticString { BlueZManagementNames.command(opcode) ?? "Unknown" }

    public func describe(into sink: FieldSink) {
        sink.field("cookie", .hex(UInt64(cookie), digits: 8))
        sink.field("opcode", .code(UInt64(opcode), digits: 4, name: BlueZManagementNames.command(opcode)))
        switch opcode {
        case BlueZManagementOpcode.setPowered:
            if let v = BlueZSetPowered(parameters) { sink.field("powered", .bool(v.powered)) }
        case BlueZManagementOpcode.startDiscovery, BlueZManagementOpcode.stopDiscovery,
            BlueZManagementOpcode.startLimitedDiscovery:
            if let d = BlueZDiscoveryAddressTypes(parameters) {
                sink.field(
                    "address_types",
                    .flags(UInt64(d.addressTypes), digits: 2, names: BlueZManagementNames.addressTypeBits))
            }
        case BlueZManagementOpcode.startServiceDiscovery:
            if let d = BlueZStartServiceDiscovery(parameters) {
                sink.field(
                    "address_types",
                    .flags(UInt64(d.addressTypes), digits: 2, names: BlueZManagementNames.addressTypeBits))
                sink.field("rssi_threshold", .dBm(d.rssiThreshold))
                sink.field("uuid_count", .uint(UInt64(d.uuidCount)))
                for uuid in d.uuids { sink.field("uuid", .uuid(uuid)) }
                if !d.isComplete { sink.note("fewer UUIDs than UUID_Count") }
            } else {
                sink.note("Start Service Discovery parameters too short")
                sink.field("parameters", .bytes(parameters))
            }
        default:
            if !parameters.isEmpty { sink.field("parameters", .bytes(parameters)) }
        }
    }
}

/// A management event sent to a client (control event record).
public struct BlueZManagementEvent: Sendable {
    public let cookie: UInt32
    public let code: UInt16
    public let parameters: ByteView

    public init?(_ payload: ByteView) {
        guard let cookie = payload.u32le(0), let code = payload.u16le(4) else { return nil }
        self.cookie = cookie
        self.code = code
        parameters = payload.suffix(from: 6) ?? .empty
    }

    public var name: StaticString { BlueZManagementNames.event(code) ?? "Unknown" }

    /// For Command Complete (0x0001) and Command Status (0x0002): the command answered and its
    /// management status.
    public var answered: (opcode: UInt16, status: UInt8)? {
        guard code == BlueZManagementEventCode.commandComplete || code == BlueZManagementEventCode.commandStatus,
            let op = parameters.u16le(0), let status = parameters.u8(2)
        else {
            return nil
        }
        return (op, status)
    }

    public func describe(into sink: FieldSink) {
        sink.field("cookie", .hex(UInt64(cookie), digits: 8))
        sink.field("event", .code(UInt64(code), digits: 4, name: BlueZManagementNames.event(code)))
        if let (op, status) = answered {
            sink.field("command", .code(UInt64(op), digits: 4, name: BlueZManagementNames.command(op)))
            sink.field("status", .code(UInt64(status), digits: 2, name: BlueZManagementNames.status(status)))
            if let rest = parameters.suffix(from: 3), !rest.isEmpty { sink.field("return_parameters", .bytes(rest)) }
            return
        }
        switch code {
        case BlueZDiscovering.code:
            if let d = BlueZDiscovering(parameters) {
                sink.field(
                    "address_types",
                    .flags(UInt64(d.addressTypes), digits: 2, names: BlueZManagementNames.addressTypeBits))
                sink.field("discovering", .bool(d.discovering))
                return
            }
        case BlueZNewSettings.code:
            if let n = BlueZNewSettings(parameters) {
                sink.field(
                    "settings", .flags(UInt64(n.currentSettings), digits: 8, names: BlueZManagementNames.settingsBits))
                return
            }
        default: break
        }
        if !parameters.isEmpty { sink.field("parameters", .bytes(parameters)) }
    }
}

/// MGMT_OP_START_SERVICE_DISCOVERY: address types u8, RSSI threshold s8, UUID count u16,
/// then 128-bit UUIDs (little-endian).
public struct BlueZStartServiceDiscovery: Sendable {
    public let addressTypes: UInt8
    public let rssiThreshold: Int8
    public let uuidCount: UInt16
    let list: ByteView

    public init?(_ parameters: ByteView) {
        guard let t = parameters.u8(0), let r = parameters.i8(1), let n = parameters.u16le(2) else { return nil }
        addressTypes = t
        rssiThreshold = r
        uuidCount = n
        list = parameters.suffix(from: 4) ?? .empty
    }

    public var isComplete: Bool { list.count >= Int(uuidCount) * 16 }

    /// The filter's UUIDs that are present (at most `uuidCount`).
    public var uuids: some Sequence<BluetoothUUID> {
        let n = min(Int(uuidCount), list.count / 16)
        let list = self.list
        return (0..<n).lazy.compactMap { i in list.slice(i * 16, 16).flatMap(BluetoothUUID.init(littleEndian:)) }
    }
}

/// MGMT_OP_SET_POWERED: Powered u8 (0 off, 1 on).
public struct BlueZSetPowered: Sendable, Equatable {
    public let poweredValue: UInt8
    public var powered: Bool { poweredValue != 0 }

    public init?(_ parameters: ByteView) {
        guard let v = parameters.u8(0) else { return nil }
        poweredValue = v
    }
}

/// The Address_Type bits (BR/EDR, LE Public, LE Random) that MGMT_OP_START_DISCOVERY,
/// MGMT_OP_STOP_DISCOVERY, MGMT_OP_START_LIMITED_DISCOVERY and MGMT_OP_START_SERVICE_DISCOVERY
/// all begin with; the last three of Start Service Discovery's fields are
/// `BlueZStartServiceDiscovery`'s.
public struct BlueZDiscoveryAddressTypes: Sendable, Equatable {
    public let addressTypes: UInt8

    public init?(_ parameters: ByteView) {
        guard let t = parameters.u8(0) else { return nil }
        addressTypes = t
    }
}

/// MGMT_EV_NEW_SETTINGS (event 0x0006): Current_Settings u32.
public struct BlueZNewSettings: Sendable, Equatable {
    public static let code: UInt16 = BlueZManagementEventCode.newSettings
    public let currentSettings: UInt32

    public init?(_ parameters: ByteView) {
        guard let s = parameters.u32le(0) else { return nil }
        currentSettings = s
    }
}

/// MGMT_EV_DISCOVERING (event 0x0013): Address_Type u8, Discovering u8.
public struct BlueZDiscovering: Sendable, Equatable {
    public static let code: UInt16 = BlueZManagementEventCode.discovering
    public let addressTypes: UInt8
    public let discoveringValue: UInt8
    public var discovering: Bool { discoveringValue != 0 }

    public init?(_ parameters: ByteView) {
        guard let t = parameters.u8(0), let on = parameters.u8(1) else { return nil }
        (addressTypes, discoveringValue) = (t, on)
    }
}

/// Event codes blecap's later stages look for (mgmt-api.txt).
public enum BlueZManagementEventCode {
    public static let commandComplete: UInt16 = 0x0001
    public static let commandStatus: UInt16 = 0x0002
    public static let newSettings: UInt16 = 0x0006
    public static let discovering: UInt16 = 0x0013
}

/// Opcodes blecap's later stages look for.
public enum BlueZManagementOpcode {
    public static let setPowered: UInt16 = 0x0005
    public static let startDiscovery: UInt16 = 0x0023
    public static let stopDiscovery: UInt16 = 0x0024
    public static let startServiceDiscovery: UInt16 = 0x003A
    public static let startLimitedDiscovery: UInt16 = 0x0041
}

/// Names from BlueZ doc/mgmt-api.txt (checked against btmon's decoding of the public captures).
public enum BlueZManagementNames {
    static let commands: [StaticString] = [
        "Read Management Version Information", "Read Management Supported Commands",
        "Read Controller Index List", "Read Controller Information", "Set Powered", "Set Discoverable",
        "Set Connectable", "Set Fast Connectable", "Set Bondable", "Set Link Security",
        "Set Secure Simple Pairing", "Set High Speed", "Set Low Energy", "Set Device Class",
        "Set Local Name", "Add UUID", "Remove UUID", "Load Link Keys", "Load Long Term Keys",
        "Disconnect", "Get Connections", "PIN Code Reply", "PIN Code Negative Reply",
        "Set IO Capability", "Pair Device", "Cancel Pair Device", "Unpair Device",
        "User Confirmation Reply", "User Confirmation Negative Reply", "User Passkey Reply",
        "User Passkey Negative Reply", "Read Local Out Of Band Data", "Add Remote Out Of Band Data",
        "Remove Remote Out Of Band Data", "Start Discovery", "Stop Discovery", "Confirm Name",
        "Block Device", "Unblock Device", "Set Device ID", "Set Advertising", "Set BR/EDR",
        "Set Static Address", "Set Scan Parameters", "Set Secure Connections", "Set Debug Keys",
        "Set Privacy", "Load Identity Resolving Keys", "Get Connection Information",
        "Get Clock Information", "Add Device", "Remove Device", "Load Connection Parameters",
        "Read Unconfigured Controller Index List", "Read Controller Configuration Information",
        "Set External Configuration", "Set Public Address", "Start Service Discovery",
        "Read Local Out Of Band Extended Data", "Read Extended Controller Index List",
        "Read Advertising Features", "Add Advertising", "Remove Advertising",
        "Get Advertising Size Information", "Start Limited Discovery",
        "Read Extended Controller Information", "Set Appearance",
    ]

    static let events: [StaticString] = [
        "Command Complete", "Command Status", "Controller Error", "Index Added", "Index Removed",
        "New Settings", "Class Of Device Changed", "Local Name Changed", "New Link Key",
        "New Long Term Key", "Device Connected", "Device Disconnected", "Connect Failed",
        "PIN Code Request", "User Confirmation Request", "User Passkey Request",
        "Authentication Failed", "Device Found", "Discovering", "Device Blocked", "Device Unblocked",
        "Device Unpaired", "Passkey Notify", "New Identity Resolving Key",
        "New Signature Resolving Key", "Device Added", "Device Removed", "New Connection Parameter",
        "Unconfigured Index Added", "Unconfigured Index Removed", "New Configuration Options",
        "Extended Index Added", "Extended Index Removed", "Local Out Of Band Extended Data Updated",
        "Advertising Added", "Advertising Removed", "Extended Controller Information Changed",
    ]

    static let statuses: [StaticString] = [
        "Success", "Unknown Command", "Not Connected", "Failed", "Connect Failed",
        "Authentication Failed", "Not Paired", "No Resources", "Timeout", "Already Connected",
        "Busy", "Rejected", "Not Supported", "Invalid Parameters", "Disconnected", "Not Powered",
        "Cancelled", "Invalid Index", "RFKilled", "Already Paired", "Permission Denied",
    ]

    /// Bits of the discovery "Address_Type" parameter.
    public static let addressTypeBits = FlagNames(["BR/EDR", "LE Public", "LE Random"])

    /// Bits of the controller settings (Read Controller Information, New Settings).
    public static let settingsBits = FlagNames([
        "Powered", "Connectable", "Fast Connectable", "Discoverable", "Bondable", "Link Security",
        "Secure Simple Pairing", "BR/EDR", "High Speed", "Low Energy", "Advertising",
        "Secure Connections", "Debug Keys", "Privacy", "Controller Configuration", "Static Address",
        "PHY Configuration", "Wideband Speech",
    ])

    /// 1-based tables: opcode/code 0 is reserved.
    public static func command(_ opcode: UInt16) -> StaticString? { entry(commands, Int(opcode) - 1) }
    public static func event(_ code: UInt16) -> StaticString? { entry(events, Int(code) - 1) }
    public static func status(_ code: UInt8) -> StaticString? { entry(statuses, Int(code)) }

    private static func entry(_ table: [StaticString], _ i: Int) -> StaticString? {
        i >= 0 && i < table.count ? table[i] : nil
    }
}
