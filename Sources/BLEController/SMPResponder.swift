import BLEBytes
import BLEPackets
import BLEReplay

/// What the responder (the captured peripheral's host) needs from its side of a link: its SMP
/// PDUs out, its log, a note for the report, random numbers.
struct SMPResponderIO {
    var send: ([UInt8]) -> Void
    var log: (String) -> Void
    var note: (String) -> Void
    var random: () -> UInt64

    func random128() -> UInt128 { UInt128(random()) << 64 | UInt128(random()) }
}

/// An LE Secure Connections key pair (Vol 3 Part H 2.3.5.6.1): the private key and the public
/// key's coordinates, most significant octet first. One per run, made on first use.
struct SecureConnectionsKeyPair {
    var privateKey: P256.Number
    var x: [UInt8]
    var y: [UInt8]

    /// A private key from `random` (below 2^255, so below the curve's order, and not 0) and
    /// its public key, private key · G.
    static func make(_ random: () -> UInt64) -> SecureConnectionsKeyPair {
        while true {
            let k = P256.Number(random(), random(), random(), random() & 0x7FFF_FFFF_FFFF_FFFF)
            if k == P256.Number(0, 0, 0, 0) { continue }
            guard let p = P256.multiply(k, x: P256.gx, y: P256.gy) else { continue }
            return SecureConnectionsKeyPair(privateKey: k, x: p.x.bigEndianOctets, y: p.y.bigEndianOctets)
        }
    }
}

/// LE Secure Connections Just Works as the responder answers it (Vol 3 Part H 2.3.5.6.2): the
/// PDUs, the initiator's public key and the DHKey, Nb and Na, and the LTK once the initiator's
/// DHKey Check (Ea) matched.
struct SecureConnectionsPairing {
    var preq: SMPPairingFeatures
    var pres: SMPPairingFeatures
    var keySize: Int
    var dhKey: [UInt8]?
    var initiatorX: [UInt8]?
    var nb: UInt128
    var na: UInt128?
    var macKey: UInt128?
    var ltk: UInt128?
}

/// A pairing the responder is in.
enum ResponderPairing {
    case legacy(LegacyPairing)
    case secureConnections(SecureConnectionsPairing)

    /// The key the initiator encrypts with once phase 2 is through (EDIV and Rand 0): the STK
    /// of a legacy pairing, the LTK of an LE Secure Connections one.
    var key: UInt128? {
        switch self {
        case .legacy(let p): p.stk
        case .secureConnections(let p): p.ltk
        }
    }

    var keySize: Int {
        switch self {
        case .legacy(let p): p.keySize
        case .secureConnections(let p): p.keySize
        }
    }
}

/// The captured peripheral's host answering pairing (Vol 3 Part H 2.3, 3.5): the one SMP
/// responder of both hosts blecap plays a peripheral for, `blecap serve`'s virtual controller
/// (its host is the central) and `RadioHost` (a real controller's central, whose SMP reaches
/// the same virtual controller). Just Works only (NoInputNoOutput, no OOB): LE legacy
/// (c1, s1) and LE Secure Connections (P-256, f4, f5, f6). One per link; the keys it derives
/// stay in memory for the run.
struct SMPResponder {
    /// What the captured peripheral does with a Pairing Request.
    enum Policy: Equatable {
        /// `blecap serve`: LE legacy Just Works to any request (the report notes where the
        /// capture differs), refused only when the capture shows the peripheral refusing.
        case legacyAlways
        /// Over a real radio: as the capture shows it, Just Works of the captured kind, refused
        /// with the captured reason, or Pairing Not Supported when the capture shows no pairing
        /// or cannot tell.
        case asCaptured
    }

    let initiator: (type: UInt8, address: BDAddr)
    let responder: (type: UInt8, address: BDAddr)
    let security: CapturedSecurity
    let policy: Policy
    private(set) var pairing: ResponderPairing?
    /// The key phase 2 gave was handed to the controller (LE Long Term Key Request): phase 3
    /// follows its Encryption Change.
    var keyInUse = false

    init(
        initiator: (type: UInt8, address: BDAddr), responder: (type: UInt8, address: BDAddr),
        security: CapturedSecurity, policy: Policy
    ) {
        (self.initiator, self.responder, self.security, self.policy) = (initiator, responder, security, policy)
    }

    /// An SMP PDU from the initiator (not empty).
    mutating func receive(_ payload: ByteView, _ io: SMPResponderIO, keyPair: () -> SecureConnectionsKeyPair) {
        guard let code = SMPCode.code(of: payload) else { return }
        switch code {
        case SMPCode.pairingRequest: pairingRequest(payload, io)
        case SMPCode.pairingConfirm: pairingConfirm(payload, io)
        case SMPCode.pairingRandom: pairingRandom(payload, io)
        case SMPCode.pairingPublicKey where isSecureConnections: publicKey(payload, io, keyPair())
        case SMPCode.pairingDHKeyCheck where isSecureConnections: dhKeyCheck(payload, io)
        case SMPCode.pairingFailed:
            io.log(
                "SMP Pairing Failed from the host (reason \(SMPPairingFailed(pdu: payload).map { String($0.reason) } ?? "none"))"
            )
            pairing = nil
        case SMPCode.encryptionInformation, SMPCode.centralIdentification, SMPCode.identityInformation,
            SMPCode.identityAddressInformation, SMPCode.signingInformation:
            // The host's own keys (phase 3): the peer has no later use for them here.
            io.log("SMP key distribution from the host (code 0x\(String(code, radix: 16))): taken")
        default:
            // Pairing Public Key and DHKey Check outside an LE Secure Connections pairing,
            // and anything else: not supported by this peer (3.5.5, Command Not Supported).
            if pairing != nil || code == SMPCode.pairingPublicKey || code == SMPCode.pairingDHKeyCheck {
                fail(SMPPairingFailedReason.commandNotSupported, "SMP code 0x\(String(code, radix: 16))", io)
            } else {
                io.log("SMP code 0x\(String(code, radix: 16)) outside a pairing: ignored")
            }
        }
    }

    private var isSecureConnections: Bool {
        if case .secureConnections = pairing { true } else { false }
    }

    private mutating func fail(_ reason: UInt8, _ why: String, _ io: SMPResponderIO) {
        io.log("SMP: \(why): Pairing Failed 0x\(String(reason, radix: 16))")
        pairing = nil
        io.send(SMPPairingFailed(reason: reason).encoded())
    }

    /// Whether the captured peripheral pairs, and with LE Secure Connections (`asCaptured`),
    /// or the reason it refuses with.
    private func capturedAnswer(_ io: SMPResponderIO) -> (refusal: UInt8?, secureConnections: Bool) {
        let s = security
        if let reason = s.peripheralPairingFailed, !s.encrypted {
            // The captured peripheral refused to pair: so does this one, with its reason.
            let what = "SMP Pairing Request: refused as captured (Pairing Failed 0x\(String(reason, radix: 16)))"
            io.log(what)
            // Over a radio the report says so (serve's report never did).
            if policy == .asCaptured { io.note(what) }
            return (reason, false)
        }
        guard policy == .asCaptured else { return (nil, false) }
        let notSupported = SMPPairingFailedReason.pairingNotSupported
        if !s.pairingRequested {
            io.note(
                s.encrypted
                    ? "SMP Pairing Request: the capture shows no pairing, only encryption with a key from before it: "
                        + "how its peripheral pairs cannot be told (refused: Pairing Not Supported)"
                    : "SMP Pairing Request: the capture has no pairing (refused: Pairing Not Supported)")
            return (notSupported, false)
        }
        guard s.pairingResponded || s.encrypted else {
            io.note(
                "SMP Pairing Request: the capture shows the central's Pairing Request but not the peripheral's "
                    + "answer: whether it pairs cannot be told (refused: Pairing Not Supported)")
            return (notSupported, false)
        }
        if !s.pairingResponded {
            io.note(
                "SMP Pairing Request: the capture shows the pairing's encryption but not its Pairing Response: "
                    + "LE Secure Connections or legacy cannot be told (answered with LE legacy Just Works)")
        }
        return (nil, s.secureConnections)
    }

    private mutating func pairingRequest(_ payload: ByteView, _ io: SMPResponderIO) {
        let (refusal, capturedSC) = capturedAnswer(io)
        if let reason = refusal {
            pairing = nil
            return io.send(SMPPairingFailed(reason: reason).encoded())
        }
        guard let request = SMPPairingRequest(exactPDU: payload) else {
            return fail(SMPPairingFailedReason.invalidParameters, "Pairing Request of \(payload.count) octets", io)
        }
        let f = request.features
        guard (7...16).contains(f.maximumEncryptionKeySize) else {
            return fail(
                SMPPairingFailedReason.encryptionKeySize, "Maximum Encryption Key Size \(f.maximumEncryptionKeySize)",
                io)
        }
        if policy == .legacyAlways {
            if !security.pairingRequested {
                io.note("SMP Pairing Request: the capture never paired (answered with LE legacy Just Works)")
            } else if security.secureConnections {
                io.note(
                    "SMP Pairing Request: the capture paired with LE Secure Connections (answered as a peripheral "
                        + "without SC: LE legacy Just Works)")
            }
        } else if capturedSC, !f.authReq.secureConnections {
            io.note(
                "SMP Pairing Request: the capture paired with LE Secure Connections; this central does not ask for "
                    + "SC (paired with LE legacy Just Works)")
        }
        // LE Secure Connections when both ask for it (2.3.5.6), else legacy.
        let sc = capturedSC && f.authReq.secureConnections
        // NoInputNoOutput, no OOB: Just Works whatever the host can do (2.3.5.1, Table 2.8).
        // Bonding when the host bonds; no MITM. The host may send what it offers; the peer
        // sends its LTK (with EDIV and Rand) when asked (under SC the LTK is derived, 3.6.1).
        let authReq = (f.authReq.bonding ? SMPAuthReq.bondingFlag : 0) | (sc ? SMPAuthReq.secureConnectionsFlag : 0)
        let keys = SMPKeyDistribution.encKey | SMPKeyDistribution.idKey | SMPKeyDistribution.signKey
        let features = SMPPairingFeatures(
            ioCapability: SMPIOCapability.noInputNoOutput, oobDataFlag: 0, authReq: SMPAuthReq(rawValue: authReq),
            maximumEncryptionKeySize: 16,
            initiatorKeyDistribution: SMPKeyDistribution(rawValue: f.initiatorKeyDistribution.rawValue & keys),
            responderKeyDistribution: SMPKeyDistribution(
                rawValue: f.responderKeyDistribution.rawValue & SMPKeyDistribution.encKey))
        let pres = SMPPairingResponse(features: features).encoded()
        if sc {
            pairing = .secureConnections(
                SecureConnectionsPairing(
                    preq: f, pres: features, keySize: Int(f.maximumEncryptionKeySize), nb: io.random128()))
            io.log("SMP Pairing Request: LE Secure Connections Just Works")
        } else {
            pairing = .legacy(
                LegacyPairing(
                    preq: payload.toArray(), pres: pres, keySize: Int(f.maximumEncryptionKeySize),
                    responderKeys: features.responderKeyDistribution.rawValue, mconfirm: nil, srand: io.random128(),
                    stk: nil))
            io.log("SMP Pairing Request: LE legacy Just Works")
        }
        io.send(pres)
    }

    // MARK: LE legacy (2.3.5.5)

    /// c1 with TK 0 (Just Works) over this link's pairing PDUs and addresses (2.2.3).
    private func confirm(_ p: LegacyPairing, random r: UInt128) -> UInt128? {
        Self.justWorksConfirm(preq: p.preq, pres: p.pres, initiator: initiator, responder: responder, random: r)
    }

    /// c1 with TK 0 over the Pairing Request and Response as sent (code first) and the link's
    /// initiator (ia) and responder (ra).
    static func justWorksConfirm(
        preq: [UInt8], pres: [UInt8], initiator: (type: UInt8, address: BDAddr),
        responder: (type: UInt8, address: BDAddr), random r: UInt128
    ) -> UInt128? {
        guard let q = preq.withByteView({ $0.littleEndianUInt56(at: 0) }),
            let s = pres.withByteView({ $0.littleEndianUInt56(at: 0) })
        else { return nil }
        return SecurityFunction.c1(
            k: 0, r: r, preq: q, pres: s, iat: initiator.type & 1, ia: initiator.address.rawValue,
            rat: responder.type & 1, ra: responder.address.rawValue)
    }

    private mutating func pairingConfirm(_ payload: ByteView, _ io: SMPResponderIO) {
        guard case .legacy(var p)? = pairing, p.mconfirm == nil,
            let mconfirm = SMPPairingConfirm(exactPDU: payload)?.confirm,
            let sconfirm = confirm(p, random: p.srand)
        else {
            return fail(SMPPairingFailedReason.unspecifiedReason, "Pairing Confirm out of turn", io)
        }
        p.mconfirm = mconfirm
        pairing = .legacy(p)
        io.send(SMPPairingConfirm.pdu(confirm: sconfirm))
    }

    private mutating func pairingRandom(_ payload: ByteView, _ io: SMPResponderIO) {
        if case .secureConnections(var p)? = pairing {
            // Just Works: Na after the responder's confirm; Nb back, then MacKey and LTK (f5).
            guard let dhKey = p.dhKey, p.na == nil, let na = SMPPairingRandom(exactPDU: payload)?.random else {
                return fail(SMPPairingFailedReason.unspecifiedReason, "Pairing Random out of turn", io)
            }
            p.na = na
            let keys = SecurityFunction.f5(
                w: dhKey, n1: na, n2: p.nb, a1: Self.address56(initiator), a2: Self.address56(responder))
            p.macKey = keys.macKey
            pairing = .secureConnections(p)
            keyLTK = keys.ltk
            return io.send(SMPPairingRandom.pdu(random: p.nb))
        }
        guard case .legacy(var p)? = pairing, let mconfirm = p.mconfirm, p.stk == nil,
            let mrand = SMPPairingRandom(exactPDU: payload)?.random
        else {
            return fail(SMPPairingFailedReason.unspecifiedReason, "Pairing Random out of turn", io)
        }
        guard confirm(p, random: mrand) == mconfirm else {
            return fail(SMPPairingFailedReason.confirmValueFailed, "Mconfirm does not match Mrand", io)
        }
        p.stk = SecurityFunction.shortTermKey(tk: 0, srand: p.srand, mrand: mrand, keySize: p.keySize)
        pairing = .legacy(p)
        io.send(SMPPairingRandom.pdu(random: p.srand))
    }

    // MARK: LE Secure Connections (2.3.5.6.1, 2.3.5.6.2, 2.3.5.6.5)

    /// f5's LTK, held back until the initiator's DHKey Check proves the same.
    private var keyLTK: UInt128?

    /// The address with its type (0 public, 1 random) in the top octet of 56 bits (f5, f6).
    static func address56(_ a: (type: UInt8, address: BDAddr)) -> UInt64 {
        UInt64(a.type & 1) << 48 | a.address.rawValue
    }

    /// IOcap of f6: AuthReq, OOB data flag, IO capability.
    static func ioCap(_ f: SMPPairingFeatures) -> UInt32 {
        UInt32(f.authReq.rawValue) << 16 | UInt32(f.oobDataFlag) << 8 | UInt32(f.ioCapability)
    }

    private mutating func publicKey(_ payload: ByteView, _ io: SMPResponderIO, _ own: SecureConnectionsKeyPair) {
        guard case .secureConnections(var p)? = pairing, p.dhKey == nil,
            let key = SMPPairingPublicKey(exactPDU: payload)
        else {
            return fail(SMPPairingFailedReason.unspecifiedReason, "Pairing Public Key out of turn", io)
        }
        let x = key.xBigEndian
        guard let px = P256.Number(bigEndian: x), let py = P256.Number(bigEndian: key.yBigEndian),
            let dhKey = P256.dhKey(privateKey: own.privateKey, peerX: px, peerY: py)
        else {
            // A point off the curve (2.3.5.6.1): no DHKey.
            return fail(SMPPairingFailedReason.dhKeyCheckFailed, "the central's public key is not on P-256", io)
        }
        if x == own.x {
            io.note("SMP: the central sent this peripheral's own public key (its pairing cannot be trusted)")
        }
        p.dhKey = dhKey.bigEndianOctets
        p.initiatorX = x
        pairing = .secureConnections(p)
        io.send(SMPPairingPublicKey.pdu(xBigEndian: own.x, yBigEndian: own.y))
        // Just Works: the responder commits to Nb at once, Cb = f4(PKbx, PKax, Nb, 0).
        io.send(SMPPairingConfirm.pdu(confirm: SecurityFunction.f4(u: own.x, v: x, x: p.nb, z: 0)))
    }

    private mutating func dhKeyCheck(_ payload: ByteView, _ io: SMPResponderIO) {
        guard case .secureConnections(var p)? = pairing, let na = p.na, let macKey = p.macKey, p.ltk == nil,
            let ltk = keyLTK, let ea = SMPPairingDHKeyCheck(exactPDU: payload)?.value
        else {
            return fail(SMPPairingFailedReason.unspecifiedReason, "Pairing DHKey Check out of turn", io)
        }
        let a = Self.address56(initiator)
        let b = Self.address56(responder)
        guard SecurityFunction.f6(w: macKey, n1: na, n2: p.nb, r: 0, ioCap: Self.ioCap(p.preq), a1: a, a2: b) == ea
        else {
            return fail(SMPPairingFailedReason.dhKeyCheckFailed, "Ea does not match", io)
        }
        // The key is used at the size agreed (2.3.4).
        p.ltk = p.keySize < 16 ? ltk & ((UInt128(1) << (8 * p.keySize)) - 1) : ltk
        pairing = .secureConnections(p)
        io.send(
            SMPPairingDHKeyCheck.pdu(
                check: SecurityFunction.f6(w: macKey, n1: p.nb, n2: na, r: 0, ioCap: Self.ioCap(p.pres), a1: b, a2: a)))
    }

    // MARK: phase 3 (3.6.1)

    /// Once encrypted with phase 2's key: the responder distributes first. A legacy pairing's
    /// LTK with its EDIV and Rand when EncKey was agreed (`make` gives them); an LE Secure
    /// Connections pairing's LTK is the one derived (EDIV and Rand 0), nothing to send. The
    /// key the peer holds from now on, nil when none.
    mutating func distributeKeys(_ io: SMPResponderIO, make: () -> PeerKey) -> PeerKey? {
        guard let p = pairing else { return nil }
        pairing = nil
        keyInUse = false
        switch p {
        case .secureConnections(let sc):
            guard let ltk = sc.ltk else { return nil }
            io.log("SMP: LE Secure Connections LTK derived (EDIV 0, Rand 0)")
            return PeerKey(ltk: ltk, ediv: 0, rand: 0)
        case .legacy(let l):
            guard l.responderKeys & SMPKeyDistribution.encKey != 0 else { return nil }
            let key = make()
            io.send(SMPEncryptionInformation.pdu(longTermKey: key.ltk))
            io.send(SMPCentralIdentification(ediv: key.ediv, rand: key.rand).encoded())
            io.log("SMP: LTK distributed (EDIV 0x\(String(key.ediv, radix: 16)))")
            return key
        }
    }
}
