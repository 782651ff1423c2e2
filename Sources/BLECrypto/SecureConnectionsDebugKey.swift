import BLEBytes

/// The LE Secure Connections debug key pair (Core 5.4 Vol 3 Part H 2.3.5.6.1). A device in debug
/// mode sends this public key in its Pairing Public Key PDU; since the private key is public
/// too, such a pairing is as open to a listener as a legacy one: `ltk(…)` derives its key from
/// what the air shows (P-256 ECDH with the published private key, then f5).
public enum SecureConnectionsDebugKey {
    /// The private key and the public key's coordinates, as numbers, most significant octet first.
    public static let privateKey: [UInt8] = Hex.bytes(
        "3f49f6d4a3c55f3874c9b3e3d2103f504aff607beb40b7995899b8a6cd3c1abd")!
    public static let publicKeyX: [UInt8] = Hex.bytes(
        "20b003d2f297be2c5e2c83a7e9f9a5b9eff49111acf4fddbcc0301480e359de6")!
    public static let publicKeyY: [UInt8] = Hex.bytes(
        "dc809c49652aeb6d63329abf5a52155c766345c28fed3024741c8ed01589d28b")!

    /// The LTK of an LE Secure Connections pairing in which one side sent the debug public key:
    /// DHKey = debug private key · the other side's public key, then f5's LTK (Vol 3 Part H
    /// 2.3.5.6.1, 2.2.7). Public keys as their Pairing Public Key PDUs carry them (X then Y, 32
    /// octets each, least significant first); Na, Nb the initiator's and responder's Pairing
    /// Random; a1, a2 their addresses with the type (0 public, 1 random) in the top octet. Nil when
    /// neither key is the debug key or the other is not a point on P-256.
    public static func ltk(
        initiatorPublicKey pka: ByteView, responderPublicKey pkb: ByteView, na: UInt128, nb: UInt128, a1: UInt64,
        a2: UInt64
    ) -> UInt128? {
        func point(_ v: ByteView) -> (P256.Number, P256.Number)? {
            guard v.count == 64 else { return nil }
            let x = P256.Number(bigEndian: (0..<32).map { v.base[31 - $0] })
            let y = P256.Number(bigEndian: (0..<32).map { v.base[63 - $0] })
            return x.flatMap { x in y.map { (x, $0) } }
        }
        guard let a = point(pka), let b = point(pkb), let key = P256.Number(bigEndian: privateKey),
            let debugX = P256.Number(bigEndian: publicKeyX)
        else { return nil }
        let peer: (P256.Number, P256.Number)
        if a.0 == debugX {
            peer = b
        } else if b.0 == debugX {
            peer = a
        } else {
            return nil
        }
        guard let dhKey = P256.dhKey(privateKey: key, peerX: peer.0, peerY: peer.1) else { return nil }
        return SecurityFunction.f5(w: dhKey.bigEndianOctets, n1: na, n2: nb, a1: a1, a2: a2).ltk
    }

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
