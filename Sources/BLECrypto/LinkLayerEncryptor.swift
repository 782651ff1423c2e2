import BLEBytes

/// The transmitting side of an encrypted connection, for generators and tests: encrypts each
/// new non-empty PDU with the next packet counter of its direction (Vol 6 Part E 2.2), the
/// mirror of `LinkLayerDecryptor`.
public struct LinkLayerEncryptor: Sendable {
    public let cipher: LinkLayerCipher
    public private(set) var nextCentralCounter: UInt64 = 0
    public private(set) var nextPeripheralCounter: UInt64 = 0

    public init(cipher: LinkLayerCipher) { self.cipher = cipher }

    /// From the LTK (or STK) and LL_ENC_REQ/LL_ENC_RSP's fields.
    public init(ltk: UInt128, skdm: UInt64, ivm: UInt32, skds: UInt64, ivs: UInt32) {
        self.init(cipher: LinkLayerCipher(ltk: ltk, parameters: .init(skdm: skdm, ivm: ivm, skds: skds, ivs: ivs)))
    }

    public func nextCounter(_ direction: LinkLayerDirection) -> UInt64 {
        direction == .centralToPeripheral ? nextCentralCounter : nextPeripheralCounter
    }

    /// Appends what goes on the air for a new PDU's `plaintext` payload: ciphertext ‖ MIC, with
    /// the direction's counter, which then advances. An empty payload is appended as is (empty
    /// PDUs are not encrypted and do not count). Returns the counter used, nil for an empty
    /// payload, or nil with nothing appended for one longer than 251 octets.
    @discardableResult
    public mutating func encrypt(
        _ plaintext: ByteView, header: UInt8, direction: LinkLayerDirection, appendingTo output: inout [UInt8]
    ) -> UInt64? {
        guard !plaintext.isEmpty else { return nil }
        let counter = nextCounter(direction)
        guard cipher.encrypt(plaintext, header: header, counter: counter, direction: direction, appendingTo: &output)
        else { return nil }
        if direction == .centralToPeripheral { nextCentralCounter += 1 } else { nextPeripheralCounter += 1 }
        return counter
    }

    /// Convenience (allocates): the air payload.
    public mutating func encrypt(_ plaintext: [UInt8], header: UInt8, direction: LinkLayerDirection) -> [UInt8] {
        var out: [UInt8] = []
        plaintext.withByteView { _ = encrypt($0, header: header, direction: direction, appendingTo: &out) }
        return out
    }
}
