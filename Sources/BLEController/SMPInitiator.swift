import BLEBytes
import BLEPackets
import BLEReplay
import BLETimeline

/// The captured central's host starting pairing over a real radio (Vol 3 Part H 2.3, 3.5;
/// `blecap replay --role central --controller`): beside `SMPResponder`, with the same PDUs and
/// the same crypto steps (`SMPResponder.justWorksConfirm`, `address56`, `ioCap`, BLECrypto's
/// c1, s1, f4, f5, f6), the other way round. It sends the captured Pairing Request (its IO
/// capability, AuthReq, key size and key distribution), checks the peer's values (a confirm
/// or DHKey check that does not match fails the pairing with the spec's reason), hands the
/// key phase 2 gives to the controller (`Step.encrypt`), and after encryption takes the
/// peer's keys and distributes its own. Just Works only, LE legacy (c1, s1) or LE Secure
/// Connections (P-256, f4, f5, f6): a peer that selects Passkey Entry, Numeric Comparison
/// or OOB is refused. Where the peer answers otherwise than the captured peripheral did
/// (refuses, another method, other keys), `io.note` says so.
///
/// `blecap serve --role central` pairs its virtual link with the same initiator
/// (`Policy.legacyJustWorks`): a fixed LE legacy Just Works request, and no comparison with the
/// captured peripheral (the host under test is not the device the capture recorded).
struct SMPInitiator {
    /// How the captured central pairs.
    enum Policy: Equatable {
        /// Over a real radio: the captured Pairing Request, LE legacy or Secure Connections Just
        /// Works as the peer picks, each way the peer differs from the captured peripheral noted.
        case asCaptured
        /// `blecap serve`: NoInputNoOutput, bonding, no SC (no P-256 on the virtual link), the
        /// host's LTK and identity asked and nothing distributed, Mrand drawn as the request
        /// goes out; the caller files its own notes.
        case legacyJustWorks
    }

    /// What the link must do after a PDU.
    enum Step: Equatable {
        case none
        /// Start encryption with this key, EDIV 0 and Rand 0 (phase 2's STK or LTK).
        case encrypt(UInt128)
    }

    /// Phase 2 in progress.
    enum Phase {
        /// Pairing Request sent, waiting for the Pairing Response.
        case requested
        /// LE legacy Just Works: Mrand, the peer's Sconfirm once it came.
        case legacy(mrand: UInt128, sconfirm: UInt128?)
        /// LE Secure Connections Just Works: the DHKey once the peer's public key came, its
        /// Cb, Na once sent, MacKey and LTK once Nb checked out.
        case secureConnections(
            dhKey: [UInt8]?, peerX: [UInt8]?, cb: UInt128?, na: UInt128?, nb: UInt128?, macKey: UInt128?,
            ltk: UInt128?)
        /// Encryption requested with phase 2's key: waiting for it, then for the peer's keys.
        case keyDistribution
    }

    let initiator: (type: UInt8, address: BDAddr)
    let responder: (type: UInt8, address: BDAddr)
    let security: CapturedSecurity
    let policy: Policy
    private(set) var phase: Phase?
    private(set) var preq: SMPPairingFeatures
    private(set) var pres: SMPPairingFeatures?
    private var preqPDU: [UInt8] = []
    private var presPDU: [UInt8] = []
    /// Octets of key agreed (the smaller maximum).
    private(set) var keySize = 16
    private var secureConnections = false
    /// Phase 2's key, and the link encrypted with it.
    private(set) var key: UInt128?
    private(set) var encrypted = false
    /// Phase 3: the peer's key PDUs still to come (SMP codes), the peer's LTK as it comes.
    private var awaitedKeys: [UInt8] = []
    private var peerLTK: UInt128?
    /// `Policy.legacyJustWorks`: Mrand, drawn when the Pairing Request goes out.
    private var presetMrand: UInt128?
    /// The key this pairing leaves for later encryption with this peer (SC: the derived LTK,
    /// EDIV and Rand 0; legacy: the LTK the peer distributed), set when pairing is done.
    private(set) var bond: PeerKey?
    /// Pairing ended (done or failed).
    private(set) var finished = false

    init(
        initiator: (type: UInt8, address: BDAddr), responder: (type: UInt8, address: BDAddr),
        security: CapturedSecurity, policy: Policy = .asCaptured
    ) {
        (self.initiator, self.responder, self.security, self.policy) = (initiator, responder, security, policy)
        guard policy == .asCaptured else {
            preq = SMPPairingFeatures(
                ioCapability: SMPIOCapability.noInputNoOutput, oobDataFlag: 0,
                authReq: SMPAuthReq(rawValue: SMPAuthReq.bondingFlag), maximumEncryptionKeySize: 16,
                initiatorKeyDistribution: SMPKeyDistribution(rawValue: 0),
                responderKeyDistribution: SMPKeyDistribution(
                    rawValue: SMPKeyDistribution.encKey | SMPKeyDistribution.idKey))
            return
        }
        // The captured central's Pairing Request; when the capture does not show it, a
        // Just Works one as SC as the capture's pairing was.
        preq =
            security.pairingRequestFeatures
            ?? SMPPairingFeatures(
                ioCapability: SMPIOCapability.noInputNoOutput, oobDataFlag: 0,
                authReq: SMPAuthReq(
                    rawValue: SMPAuthReq.bondingFlag
                        | (security.secureConnections ? SMPAuthReq.secureConnectionsFlag : 0)),
                maximumEncryptionKeySize: 16,
                initiatorKeyDistribution: SMPKeyDistribution(
                    rawValue: SMPKeyDistribution.encKey | SMPKeyDistribution.idKey),
                responderKeyDistribution: SMPKeyDistribution(
                    rawValue: SMPKeyDistribution.encKey | SMPKeyDistribution.idKey))
    }

    /// Sends the Pairing Request.
    mutating func start(_ io: SMPResponderIO) {
        if policy == .legacyJustWorks { presetMrand = io.random128() }
        preqPDU = SMPPairingRequest(features: preq).encoded()
        phase = .requested
        io.log("SMP: the captured central sends its Pairing Request")
        io.send(preqPDU)
    }

    var inPairing: Bool { phase != nil }

    /// An SMP PDU from the peer (not empty).
    mutating func receive(_ payload: ByteView, _ io: SMPResponderIO, keyPair: () -> SecureConnectionsKeyPair) -> Step {
        guard let code = SMPCode.code(of: payload) else { return .none }
        switch code {
        case SMPCode.pairingResponse: return pairingResponse(payload, io, keyPair)
        case SMPCode.pairingConfirm: pairingConfirm(payload, io)
        case SMPCode.pairingRandom: return pairingRandom(payload, io, keyPair)
        case _
        where (code == SMPCode.pairingPublicKey || code == SMPCode.pairingDHKeyCheck)
            && !preq.authReq.secureConnections:
            // LE Secure Connections, which this Pairing Request did not ask for.
            fail(SMPPairingFailedReason.commandNotSupported, "SMP code 0x\(String(code, radix: 16))", io)
        case SMPCode.pairingPublicKey: publicKey(payload, io, keyPair())
        case SMPCode.pairingDHKeyCheck: return dhKeyCheck(payload, io)
        case SMPCode.pairingFailed: peerFailed(payload, io)
        case SMPCode.encryptionInformation, SMPCode.centralIdentification, SMPCode.identityInformation,
            SMPCode.identityAddressInformation, SMPCode.signingInformation:
            peerKey(code, payload, io)
        default:
            if phase != nil {
                fail(SMPPairingFailedReason.commandNotSupported, "SMP code 0x\(String(code, radix: 16))", io)
            } else {
                io.log("SMP code 0x\(String(code, radix: 16)) from the peripheral outside a pairing: ignored")
            }
        }
        return .none
    }

    private mutating func fail(_ reason: UInt8, _ why: String, _ io: SMPResponderIO) {
        io.log("SMP: \(why): Pairing Failed 0x\(String(reason, radix: 16))")
        (phase, finished) = (nil, true)
        io.send(SMPPairingFailed(reason: reason).encoded())
    }

    /// A check of the peer's values that failed: a divergence the report names.
    private mutating func mismatch(_ reason: UInt8, _ why: String, _ io: SMPResponderIO) {
        divergence("pairing: \(why): blecap failed the pairing (Pairing Failed 0x\(String(reason, radix: 16)))", io)
        fail(reason, why, io)
    }

    /// How the peer differed from the captured peripheral, noted over a real radio only.
    private func divergence(_ text: String, _ io: SMPResponderIO) {
        if policy == .asCaptured { io.note(text) }
    }

    private mutating func peerFailed(_ payload: ByteView, _ io: SMPResponderIO) {
        let reason = SMPPairingFailed(pdu: payload)?.reason
        let text = reason.map { "0x\(String($0, radix: 16))" } ?? "no reason"
        io.log("SMP: the peripheral sent Pairing Failed (\(text))")
        let wasPairing = phase != nil
        (phase, finished) = (nil, true)
        guard wasPairing else { return }
        if let captured = security.peripheralPairingFailed, !security.encrypted {
            if captured != reason {
                divergence(
                    "pairing: the peripheral refused with Pairing Failed \(text); the captured one with "
                        + "0x\(String(captured, radix: 16))", io)
            }
        } else {
            divergence("pairing: the peripheral refused (Pairing Failed \(text)); the captured peripheral paired", io)
        }
    }

    // MARK: phase 1 (2.3.1, 2.3.5.1)

    private mutating func pairingResponse(
        _ payload: ByteView, _ io: SMPResponderIO, _ keyPair: () -> SecureConnectionsKeyPair
    ) -> Step {
        guard case .requested? = phase, let r = SMPPairingResponse(exactPDU: payload) else {
            fail(SMPPairingFailedReason.unspecifiedReason, "Pairing Response out of turn", io)
            return .none
        }
        let f = r.features
        pres = f
        presPDU = payload.toArray()
        if let reason = security.peripheralPairingFailed, !security.encrypted {
            divergence(
                "pairing: the peripheral answered the Pairing Request; the captured one refused it (Pairing Failed "
                    + "0x\(String(reason, radix: 16)))", io)
        }
        guard (7...16).contains(f.maximumEncryptionKeySize) else {
            mismatch(
                SMPPairingFailedReason.encryptionKeySize,
                "the peripheral's Maximum Encryption Key Size is \(f.maximumEncryptionKeySize)", io)
            return .none
        }
        keySize = Int(min(preq.maximumEncryptionKeySize, f.maximumEncryptionKeySize))
        secureConnections = preq.authReq.secureConnections && f.authReq.secureConnections
        let method = PairingMethod.select(initiator: preq, responder: f)
        if policy == .asCaptured, let captured = security.pairingResponseFeatures {
            let capturedSC = preq.authReq.secureConnections && captured.authReq.secureConnections
            let capturedMethod = PairingMethod.select(initiator: preq, responder: captured)
            if capturedSC != secureConnections || capturedMethod != method {
                io.note(
                    "pairing: the peripheral pairs with \(Self.describe(secureConnections, method)); the captured one "
                        + "with \(Self.describe(capturedSC, capturedMethod))")
            }
            if captured.initiatorKeyDistribution != f.initiatorKeyDistribution
                || captured.responderKeyDistribution != f.responderKeyDistribution
            {
                io.note(
                    "pairing: the peripheral agrees to other keys (initiator \(Self.keys(f.initiatorKeyDistribution)), "
                        + "responder \(Self.keys(f.responderKeyDistribution))) than the captured one (initiator "
                        + "\(Self.keys(captured.initiatorKeyDistribution)), responder "
                        + "\(Self.keys(captured.responderKeyDistribution)))")
            }
        }
        switch method {
        case .justWorks?: break
        case .passkeyEntry?:
            fail(SMPPairingFailedReason.passkeyEntryFailed, "Passkey Entry (blecap pairs Just Works only)", io)
            return .none
        case .numericComparison?:
            fail(
                SMPPairingFailedReason.numericComparisonFailed, "Numeric Comparison (blecap pairs Just Works only)", io)
            return .none
        case .outOfBand?:
            fail(SMPPairingFailedReason.oobNotAvailable, "OOB (blecap has no OOB data)", io)
            return .none
        case nil:
            fail(SMPPairingFailedReason.invalidParameters, "a reserved IO capability", io)
            return .none
        }
        if secureConnections {
            // 2.3.5.6.1: the initiator's public key first.
            let own = keyPair()
            phase = .secureConnections(dhKey: nil, peerX: nil, cb: nil, na: nil, nb: nil, macKey: nil, ltk: nil)
            io.log("SMP: LE Secure Connections Just Works")
            io.send(SMPPairingPublicKey.pdu(xBigEndian: own.x, yBigEndian: own.y))
            return .none
        }
        // 2.3.5.5: Mconfirm = c1(TK 0, Mrand, …).
        let mrand = presetMrand ?? io.random128()
        guard let mconfirm = confirm(random: mrand) else {
            fail(SMPPairingFailedReason.unspecifiedReason, "Pairing Response", io)
            return .none
        }
        phase = .legacy(mrand: mrand, sconfirm: nil)
        io.log("SMP: LE legacy Just Works")
        io.send(SMPPairingConfirm.pdu(confirm: mconfirm))
        return .none
    }

    static func describe(_ sc: Bool, _ method: PairingMethod?) -> String {
        let m: String =
            switch method {
            case .justWorks?: "Just Works"
            case .passkeyEntry?: "Passkey Entry"
            case .numericComparison?: "Numeric Comparison"
            case .outOfBand?: "OOB"
            case nil: "no method (reserved IO capability)"
            }
        return (sc ? "LE Secure Connections " : "LE legacy ") + m
    }

    static func keys(_ k: SMPKeyDistribution) -> String {
        let names = [
            (k.encryptionKey, "EncKey"), (k.identityKey, "IdKey"), (k.signingKey, "SignKey"), (k.linkKey, "LinkKey"),
        ]
        let on = names.filter { $0.0 }.map { $0.1 }
        return on.isEmpty ? "none" : on.joined(separator: "+")
    }

    // MARK: LE legacy (2.3.5.5)

    private func confirm(random r: UInt128) -> UInt128? {
        SMPResponder.justWorksConfirm(
            preq: preqPDU, pres: presPDU, initiator: initiator, responder: responder, random: r)
    }

    private mutating func pairingConfirm(_ payload: ByteView, _ io: SMPResponderIO) {
        guard let value = SMPPairingConfirm(exactPDU: payload)?.confirm else {
            return fail(SMPPairingFailedReason.invalidParameters, "Pairing Confirm of \(payload.count) octets", io)
        }
        switch phase {
        case .legacy(let mrand, nil)?:
            phase = .legacy(mrand: mrand, sconfirm: value)
            io.send(SMPPairingRandom.pdu(random: mrand))
        case .secureConnections(let dhKey?, let peerX, nil, nil, nil, nil, nil)?:
            // Just Works: Cb came, Na goes (2.3.5.6.2).
            let na = io.random128()
            phase = .secureConnections(dhKey: dhKey, peerX: peerX, cb: value, na: na, nb: nil, macKey: nil, ltk: nil)
            io.send(SMPPairingRandom.pdu(random: na))
        default:
            fail(SMPPairingFailedReason.unspecifiedReason, "Pairing Confirm out of turn", io)
        }
    }

    private mutating func pairingRandom(
        _ payload: ByteView, _ io: SMPResponderIO, _ keyPair: () -> SecureConnectionsKeyPair
    ) -> Step {
        guard let value = SMPPairingRandom(exactPDU: payload)?.random else {
            fail(SMPPairingFailedReason.invalidParameters, "Pairing Random of \(payload.count) octets", io)
            return .none
        }
        switch phase {
        case .legacy(let mrand, let sconfirm?)?:
            guard confirm(random: value) == sconfirm else {
                mismatch(
                    SMPPairingFailedReason.confirmValueFailed,
                    "the peripheral's Sconfirm does not match its Srand (c1)", io)
                return .none
            }
            let stk = SecurityFunction.shortTermKey(tk: 0, srand: value, mrand: mrand, keySize: keySize)
            return phase2Done(stk, io)
        case .secureConnections(let dhKey?, let peerX?, let cb?, let na?, nil, nil, nil)?:
            let own = keyPair()
            // Cb = f4(PKbx, PKax, Nb, 0).
            guard SecurityFunction.f4(u: peerX, v: own.x, x: value, z: 0) == cb else {
                mismatch(
                    SMPPairingFailedReason.confirmValueFailed, "the peripheral's Cb does not match its Nb (f4)",
                    io)
                return .none
            }
            let a = SMPResponder.address56(initiator)
            let b = SMPResponder.address56(responder)
            let keys = SecurityFunction.f5(w: dhKey, n1: na, n2: value, a1: a, a2: b)
            phase = .secureConnections(
                dhKey: dhKey, peerX: peerX, cb: cb, na: na, nb: value, macKey: keys.macKey, ltk: keys.ltk)
            // Ea = f6(MacKey, Na, Nb, 0, IOcapA, A, B).
            let ea = SecurityFunction.f6(
                w: keys.macKey, n1: na, n2: value, r: 0, ioCap: SMPResponder.ioCap(preq), a1: a, a2: b)
            io.send(SMPPairingDHKeyCheck.pdu(check: ea))
            return .none
        default:
            fail(SMPPairingFailedReason.unspecifiedReason, "Pairing Random out of turn", io)
            return .none
        }
    }

    // MARK: LE Secure Connections (2.3.5.6.1, 2.3.5.6.2, 2.3.5.6.5)

    private mutating func publicKey(_ payload: ByteView, _ io: SMPResponderIO, _ own: SecureConnectionsKeyPair) {
        guard case .secureConnections(nil, nil, nil, nil, nil, nil, nil)? = phase,
            let key = SMPPairingPublicKey(exactPDU: payload)
        else {
            return fail(SMPPairingFailedReason.unspecifiedReason, "Pairing Public Key out of turn", io)
        }
        let x = key.xBigEndian
        guard x != own.x, let px = P256.Number(bigEndian: x), let py = P256.Number(bigEndian: key.yBigEndian),
            let dhKey = P256.dhKey(privateKey: own.privateKey, peerX: px, peerY: py)
        else {
            // A point off the curve, or this central's own key sent back (2.3.5.6.1).
            return mismatch(
                SMPPairingFailedReason.dhKeyCheckFailed, "the peripheral's public key is not a valid P-256 key", io)
        }
        phase = .secureConnections(
            dhKey: dhKey.bigEndianOctets, peerX: x, cb: nil, na: nil, nb: nil, macKey: nil, ltk: nil)
    }

    private mutating func dhKeyCheck(_ payload: ByteView, _ io: SMPResponderIO) -> Step {
        guard case .secureConnections(_, _, _, let na?, let nb?, let macKey?, let ltk?)? = phase,
            let eb = SMPPairingDHKeyCheck(exactPDU: payload)?.value
        else {
            fail(SMPPairingFailedReason.unspecifiedReason, "Pairing DHKey Check out of turn", io)
            return .none
        }
        let a = SMPResponder.address56(initiator)
        let b = SMPResponder.address56(responder)
        // Eb = f6(MacKey, Nb, Na, 0, IOcapB, B, A).
        guard let pres,
            SecurityFunction.f6(w: macKey, n1: nb, n2: na, r: 0, ioCap: SMPResponder.ioCap(pres), a1: b, a2: a) == eb
        else {
            mismatch(
                SMPPairingFailedReason.dhKeyCheckFailed, "the peripheral's DHKey Check (Eb, f6) does not match", io)
            return .none
        }
        return phase2Done(keySize < 16 ? ltk & ((UInt128(1) << (8 * keySize)) - 1) : ltk, io)
    }

    // MARK: encryption and phase 3 (3.6.1)

    private mutating func phase2Done(_ key: UInt128, _ io: SMPResponderIO) -> Step {
        self.key = key
        phase = .keyDistribution
        guard let pres else { return .none }
        // The keys the responder distributes first (under SC the LTK is derived, not sent).
        let r = pres.responderKeyDistribution
        awaitedKeys = []
        if r.encryptionKey, !secureConnections {
            awaitedKeys += [SMPCode.encryptionInformation, SMPCode.centralIdentification]
        }
        if r.identityKey { awaitedKeys += [SMPCode.identityInformation, SMPCode.identityAddressInformation] }
        if r.signingKey { awaitedKeys.append(SMPCode.signingInformation) }
        io.log("SMP: phase 2 done: encrypting with its key")
        return .encrypt(key)
    }

    /// Encryption Change on the link: with phase 2's key on, the peer's keys come, then this
    /// central's.
    mutating func encryptionChanged(enabled: Bool, _ io: SMPResponderIO) {
        guard case .keyDistribution? = phase, enabled else { return }
        encrypted = true
        if awaitedKeys.isEmpty { distributeOwnKeys(io) }
    }

    private mutating func peerKey(_ code: UInt8, _ payload: ByteView, _ io: SMPResponderIO) {
        guard case .keyDistribution? = phase, encrypted, let next = awaitedKeys.first, next == code else {
            io.log("SMP key distribution from the peripheral (code 0x\(String(code, radix: 16))) out of turn: ignored")
            return
        }
        awaitedKeys.removeFirst()
        switch code {
        case SMPCode.encryptionInformation: peerLTK = SMPEncryptionInformation(pdu: payload)?.key
        case SMPCode.centralIdentification:
            if let ltk = peerLTK, let id = SMPCentralIdentification(pdu: payload) {
                bond = PeerKey(ltk: ltk, ediv: id.ediv, rand: id.rand)
            }
        default: break
        }
        io.log("SMP key distribution from the peripheral (code 0x\(String(code, radix: 16))): taken")
        if awaitedKeys.isEmpty { distributeOwnKeys(io) }
    }

    /// This central's keys as agreed (3.6.1): legacy EncKey an LTK with EDIV and Rand, IdKey
    /// an IRK and the address it connected from, SignKey a CSRK; each made for this run.
    private mutating func distributeOwnKeys(_ io: SMPResponderIO) {
        guard let pres else { return }
        let i = pres.initiatorKeyDistribution
        if i.encryptionKey, !secureConnections {
            var ltk = io.random128()
            if keySize < 16 { ltk &= (UInt128(1) << (8 * keySize)) - 1 }
            io.send(SMPEncryptionInformation.pdu(longTermKey: ltk))
            io.send(
                SMPCentralIdentification(ediv: UInt16(truncatingIfNeeded: io.random()), rand: io.random()).encoded())
        }
        if i.identityKey {
            io.send(SMPIdentityInformation.pdu(identityResolvingKey: io.random128()))
            io.send(
                SMPIdentityAddressInformation(addressType: initiator.type & 1, address: initiator.address).encoded())
        }
        if i.signingKey { io.send(SMPSigningInformation.pdu(signatureKey: io.random128())) }
        if secureConnections, let key { bond = PeerKey(ltk: key, ediv: 0, rand: 0) }
        io.log("SMP: pairing done")
        (phase, finished) = (nil, true)
    }
}
