import BLEBytes
import BLECrypto

// Typed HCI commands a controller acts on (Core 5.4 Vol 4 Part E 7): the ones whose
// parameters the virtual controller (BLEController) reads. Each decodes what a controller must
// see before acting (nil when the parameters are too short for it) and encodes back to the same
// parameters. The fields, decoders and encoders of most are generated from the HCI command
// table (scripts/pdu/hci_commands.py, HCICommands+Generated.swift) with the layout their
// descriptions (`blecap packets`) come from; here is what they add, and the commands whose
// parameters are not a fixed sequence of fields (a parameterless command, a list of sets).

extension UInt128 {
    fileprivate var hciLow64: UInt64 { UInt64(truncatingIfNeeded: self) }
    fileprivate var hciHigh64: UInt64 { UInt64(truncatingIfNeeded: self >> 64) }
}

extension ByteWriter {
    /// 16 octets, least significant first (a key as HCI carries it).
    mutating func appendHCIKey(_ v: UInt128) {
        appendUInt64LE(v.hciLow64)
        appendUInt64LE(v.hciHigh64)
    }
}

/// A command without parameters: HCI_Reset (7.3.2), HCI_Read_Local_Supported_Commands
/// (7.4.2), _Features (7.4.3), HCI_Read_Buffer_Size (7.4.5), HCI_Read_BD_ADDR (7.4.6),
/// HCI_LE_Read_Buffer_Size (7.8.2) and their kin: what a host sends to initialise a controller.
public struct HCIParameterlessCommand: HCICommandEncodable, Sendable {
    public let commandOpcode: UInt16
    public init(opcode: UInt16) { commandOpcode = opcode }
    public func appendParameters(to w: inout ByteWriter) {}
}

extension HCILESetAdvertisingData {
    /// At most 31 octets of `data` are kept (a legacy advertising PDU holds no more).
    public init(opcode: UInt16, data: [UInt8]) {
        (commandOpcode, self.data) = (opcode, Array(data.prefix(Self.maximumLength)))
    }
}

extension HCILESetExtendedAdvertisingData {
    /// The data one command carries.
    public static let maximumFragment = 251
    /// Operation (7.8.54): an intermediate, the first or the last fragment, or the whole data.
    public static let intermediateFragment: UInt8 = 0x00
    public static let firstFragment: UInt8 = 0x01
    public static let lastFragment: UInt8 = 0x02
    public static let completeData: UInt8 = 0x03

    /// At most `maximumFragment` octets of `data` are kept.
    public init(
        opcode: UInt16, advertisingHandle: UInt8, operation: UInt8, fragmentPreference: UInt8 = 1, data: [UInt8]
    ) {
        (commandOpcode, self.advertisingHandle, self.operation) = (opcode, advertisingHandle, operation)
        (self.fragmentPreference, self.data) = (fragmentPreference, Array(data.prefix(Self.maximumFragment)))
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
