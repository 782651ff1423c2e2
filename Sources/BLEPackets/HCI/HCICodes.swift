import BLEBytes
import CaptureIO

extension HCIError {
    public static let unknownConnectionIdentifier: UInt8 = 0x02
    /// BR/EDR: the device did not answer paging.
    public static let pageTimeout: UInt8 = 0x04
    public static let connectionTimeout: UInt8 = 0x08
    public static let commandDisallowed: UInt8 = 0x0C
    public static let remoteUserTerminatedConnection: UInt8 = 0x13
    public static let remoteDeviceTerminatedLowResources: UInt8 = 0x14
    public static let remoteDeviceTerminatedPowerOff: UInt8 = 0x15
    public static let connectionTerminatedByLocalHost: UInt8 = 0x16
    public static let llResponseTimeout: UInt8 = 0x22
    /// Directed advertising ended with no central connecting.
    public static let advertisingTimeout: UInt8 = 0x3C
    public static let connectionTerminatedMICFailure: UInt8 = 0x3D
    public static let connectionFailedToBeEstablished: UInt8 = 0x3E
}

// MARK: - Encoding

/// An HCI packet that writes itself; `h4Encoded()` puts its H4 packet-type byte (Vol 4
/// Part A 2) first, as btsnoop 1002 and pcap 201 records carry it.
public protocol HCIPacketEncodable: ByteEncodable {
    var h4Type: UInt8 { get }
}

extension HCIPacketEncodable {
    public func h4Encoded() -> [UInt8] {
        var w = ByteWriter()
        w.appendUInt8(h4Type)
        append(to: &w)
        return w.bytes
    }
}

/// A command's parameters (Vol 4 Part E 5.4.1): `append(to:)` writes opcode,
/// Parameter_Total_Length and the parameters.
public protocol HCICommandEncodable: HCIPacketEncodable {
    var commandOpcode: UInt16 { get }
    func appendParameters(to writer: inout ByteWriter)
}

extension HCICommandEncodable {
    public var h4Type: UInt8 { H4PacketType.command }
    public func append(to w: inout ByteWriter) {
        w.appendUInt16LE(commandOpcode)
        let lengthAt = w.count
        w.appendUInt8(0)
        appendParameters(to: &w)
        w.setUInt8(UInt8(truncatingIfNeeded: w.count - lengthAt - 1), at: lengthAt)
    }
}

/// An event's parameters (Vol 4 Part E 5.4.4): `append(to:)` writes event code,
/// Parameter_Total_Length and the parameters.
public protocol HCIEventEncodable: HCIPacketEncodable {
    var eventCode: UInt8 { get }
    func appendParameters(to writer: inout ByteWriter)
}

extension HCIEventEncodable {
    public var h4Type: UInt8 { H4PacketType.event }
    public func append(to w: inout ByteWriter) {
        w.appendUInt8(eventCode)
        let lengthAt = w.count
        w.appendUInt8(0)
        appendParameters(to: &w)
        w.setUInt8(UInt8(truncatingIfNeeded: w.count - lengthAt - 1), at: lengthAt)
    }
}

/// An LE Meta subevent (7.7.65): event 0x3E whose first parameter is the subevent code.
public protocol HCILESubeventEncodable: HCIEventEncodable {
    var subeventCode: UInt8 { get }
    /// The subevent's parameters (after the subevent code), what `init?(parameters:)` reads.
    func appendSubeventParameters(to writer: inout ByteWriter)
}

extension HCILESubeventEncodable {
    public var eventCode: UInt8 { HCIEventCode.leMeta }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt8(subeventCode)
        appendSubeventParameters(to: &w)
    }
}

/// Connection_Handle (Vol 4 Part E 5.4.2, 7.7): 12 bits; the ACL header's top 4 bits are the
/// PB and BC flags.
public enum HCIConnectionHandle {
    public static let mask: UInt16 = 0x0FFF
}
