import Foundation

/// `CBCentral`: a remote central as a peripheral manager sees it (Core Bluetooth's `CBPeer`
/// subclass, equal by identity). Its `identifier` is stable per central manager in the world
/// (Core Bluetooth's is stable per remote device).
public final class CBCentral: CBPeer, CustomStringConvertible {
    /// The longest value one notification or indication to this central carries: ATT_MTU − 3
    /// (Core Vol 3 Part F 3.4.7.1), 20 until the central's MTU exchange completes.
    public var maximumUpdateValueLength: Int { Int(link?.mtu ?? lastMTU) - 3 }

    weak var link: SimulatedLink?
    /// ATT_MTU when the link closed (the value stays readable afterwards).
    var lastMTU: UInt16 = 23

    init(link: SimulatedLink) {
        self.link = link
        super.init(identifier: CBCentral.identifier(forCentral: link.central.traceID))
    }

    /// A fixed UUID per central manager number, so traces do not depend on the run.
    static func identifier(forCentral n: Int) -> UUID {
        let v = UInt32(truncatingIfNeeded: n)
        return UUID(
            uuid: (
                0xCE, 0x27, 0xA1, 0x00, 0, 0, 0x40, 0, 0x80, 0, 0, 0,
                UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)
            ))
    }

    public var description: String { "<CBCentral \(identifier.uuidString)>" }
}

/// `CBATTRequest`: one read or write a central made on a published characteristic.
///
/// For a read the app sets `value` (from `offset` on) before answering; for a write `value` is
/// what the central wrote at `offset`. Each `didReceiveRead` request, and each
/// `didReceiveWrite` array through its first request, is answered exactly once with
/// `CBPeripheralManager.respond(to:withResult:)`.
public final class CBATTRequest: CustomStringConvertible {
    public let central: CBCentral
    public let characteristic: CBCharacteristic
    public let offset: Int
    public var value: Data?

    init(central: CBCentral, characteristic: CBCharacteristic, offset: Int, value: Data?) {
        self.central = central
        self.characteristic = characteristic
        self.offset = offset
        self.value = value
    }

    public var description: String {
        "<CBATTRequest \(characteristic.uuid) offset \(offset) value \(value.map { "\($0.count) bytes" } ?? "nil")>"
    }
}
