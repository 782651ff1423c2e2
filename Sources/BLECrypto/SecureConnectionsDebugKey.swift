import BLEBytes

/// The LE Secure Connections debug key pair (Core 5.4 Vol 3 Part H 2.3.5.6.1). A device in debug
/// mode sends this public key in its Pairing Public Key PDU; since the private key is public
/// too, such a pairing is as open to a listener as a legacy one. Recognising it is what this
/// does; deriving the LTK from it (P-256 ECDH, then f5) is not implemented.
public enum SecureConnectionsDebugKey {
    /// The private key and the public key's coordinates, as numbers, most significant octet first.
    public static let privateKey: [UInt8] = Hex.bytes(
        "3f49f6d4a3c55f3874c9b3e3d2103f504aff607beb40b7995899b8a6cd3c1abd")!
    public static let publicKeyX: [UInt8] = Hex.bytes(
        "20b003d2f297be2c5e2c83a7e9f9a5b9eff49111acf4fddbcc0301480e359de6")!
    public static let publicKeyY: [UInt8] = Hex.bytes(
        "dc809c49652aeb6d63329abf5a52155c766345c28fed3024741c8ed01589d28b")!

    /// Whether an SMP Pairing Public Key PDU (code 0x0C, then X and Y, 32 octets each, least
    /// significant first) carries the debug public key.
    public static func isDebugKey(pairingPublicKey pdu: ByteView) -> Bool {
        guard pdu.count == 65, pdu.u8(0) == 0x0C else { return false }
        for i in 0..<32 {
            guard pdu.u8(1 + i) == publicKeyX[31 - i], pdu.u8(33 + i) == publicKeyY[31 - i] else { return false }
        }
        return true
    }
}
