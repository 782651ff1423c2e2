/// An ATT opcode byte (Core 5.4 Vol 3 Part F 3.3.1: bits 0–5 method, bit 6 command flag, bit 7
/// authentication signature flag). The constants and their direction are generated from the
/// ATT PDU table (scripts/pdu/att_pdus.py) into ATTOpcode+Generated.swift; BLEPackets adds
/// its table entry (name, method, decoder).
public struct ATTOpcode: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// Bit 6: a command (no response expected).
    public var isCommand: Bool { rawValue & 0x40 != 0 }
    /// Bit 7: a 12-byte Authentication Signature ends the PDU.
    public var hasSignature: Bool { rawValue & 0x80 != 0 }
}
