import BLEBytes
import BLEPackets
import BLEReplay
import BLETimeline

/// LE legacy pairing, Just Works, as the captured peripheral answers it (Vol 3 Part H 2.3.5):
/// the PDUs both sides sent, the confirm and random values, and the STK once phase 2 is
/// through. The virtual link carries no ciphertext, so what is checked is what a radio would
/// check: that the host computed the same keys as the peer.
struct LegacyPairing {
    /// The Pairing Request and Response as sent, code first (c1's preq and pres).
    var preq: [UInt8]
    var pres: [UInt8]
    /// Octets of key (Maximum Encryption Key Size, the smaller of the two).
    var keySize: Int
    /// Keys the peer distributes in phase 3 (`SMPKeyDistribution` bits).
    var responderKeys: UInt8
    var mconfirm: UInt128?
    var srand: UInt128
    var stk: UInt128?
}

/// A key the captured peer holds for its central: an LTK and the EDIV and Rand that name it
/// (Vol 3 Part H 2.4.2.1).
struct PeerKey: Equatable {
    var ltk: UInt128
    var ediv: UInt16
    var rand: UInt64
}

/// What LE Enable Encryption comes to, one connection event later (Vol 6 Part B 5.1.3).
enum EncryptionOutcome {
    /// Both sides hold the key: Encryption Change (or Key Refresh Complete on an encrypted
    /// link); `distribute`: phase 3 of a pairing follows (the STK was the key).
    case started(distribute: Bool)
    /// The peer has no key for that EDIV and Rand: LL_REJECT_EXT_IND, PIN or Key Missing.
    case keyMissing
    /// The peer's key differs: its first encrypted packet fails the MIC and the link ends.
    case micFailure
}

extension VirtualController {
    // MARK: SMP from the host (role peripheral: the peer is the responder)

    /// SMP from the host. The peer pairs as an LE legacy Just Works peripheral (no P-256 here:
    /// it answers an SC request the way a peripheral without SC does, 2.3.5.1), unless the
    /// capture shows it refusing, in which case it refuses with the captured reason.
    func smp(_ c: LiveConnection, _ payload: ByteView) {
        guard let code = payload.u8(0) else { return reject("empty SMP PDU: dropped") }
        guard configuration.role == .peripheral else {
            return log("SMP code 0x\(String(code, radix: 16)) from the host (peripheral): not played")
        }
        switch code {
        case SMPCode.pairingRequest: pairingRequest(c, payload)
        case SMPCode.pairingConfirm: pairingConfirm(c, payload)
        case SMPCode.pairingRandom: pairingRandom(c, payload)
        case SMPCode.pairingFailed:
            log("SMP Pairing Failed from the host (reason \(payload.u8(1).map { String($0) } ?? "none"))")
            c.pairing = nil
        case SMPCode.encryptionInformation, SMPCode.centralIdentification, SMPCode.identityInformation,
            SMPCode.identityAddressInformation, SMPCode.signingInformation:
            // The host's own keys (phase 3): the peer has no later use for them here.
            log("SMP key distribution from the host (code 0x\(String(code, radix: 16))): taken")
        default:
            // Pairing Public Key, DHKey Check (LE Secure Connections) and anything else: not
            // supported by this peer (3.5.5, Command Not Supported).
            if c.pairing != nil || code == SMPCode.pairingPublicKey || code == SMPCode.pairingDHKeyCheck {
                failPairing(c, SMPPairingFailedReason.commandNotSupported, "SMP code 0x\(String(code, radix: 16))")
            } else {
                log("SMP code 0x\(String(code, radix: 16)) outside a pairing: ignored")
            }
        }
    }

    private func sendSMP(_ c: LiveConnection, _ bytes: [UInt8]) {
        sendL2CAP(c, channel: L2CAPChannel.smp, bytes)
    }

    private func failPairing(_ c: LiveConnection, _ reason: UInt8, _ why: String) {
        log("SMP: \(why): Pairing Failed 0x\(String(reason, radix: 16))")
        c.pairing = nil
        sendSMP(c, [SMPCode.pairingFailed, reason])
    }

    private func pairingRequest(_ c: LiveConnection, _ payload: ByteView) {
        let security = replay.models[c.model].connection.security
        if let reason = security.peripheralPairingFailed, !security.encrypted {
            // The captured peripheral refused to pair: so does this one, with its reason.
            log("SMP Pairing Request: refused as captured (Pairing Failed 0x\(String(reason, radix: 16)))")
            c.pairing = nil
            return sendSMP(c, [SMPCode.pairingFailed, reason])
        }
        guard payload.count == 7, let request = SMPPairingRequest(pdu: payload) else {
            return failPairing(
                c, SMPPairingFailedReason.invalidParameters, "Pairing Request of \(payload.count) octets")
        }
        let f = request.features
        guard (7...16).contains(f.maximumEncryptionKeySize) else {
            return failPairing(
                c, SMPPairingFailedReason.encryptionKeySize, "Maximum Encryption Key Size \(f.maximumEncryptionKeySize)"
            )
        }
        if !security.pairingRequested {
            c.unmodelled.append("SMP Pairing Request: the capture never paired (answered with LE legacy Just Works)")
        } else if security.secureConnections {
            c.unmodelled.append(
                "SMP Pairing Request: the capture paired with LE Secure Connections (answered as a peripheral "
                    + "without SC: LE legacy Just Works)")
        }
        // NoInputNoOutput, no OOB: Just Works whatever the host can do (2.3.5.1, Table 2.8).
        // Bonding when the host bonds; no MITM, no SC. The host may send what it offers; the
        // peer sends its LTK (with EDIV and Rand) when asked.
        let authReq = f.authReq.bonding ? SMPAuthReq.bondingFlag : 0
        let keys = SMPKeyDistribution.encKey | SMPKeyDistribution.idKey | SMPKeyDistribution.signKey
        let pres: [UInt8] = [
            SMPCode.pairingResponse, SMPIOCapability.noInputNoOutput, 0, authReq, 16,
            f.initiatorKeyDistribution.rawValue & keys,
            f.responderKeyDistribution.rawValue & SMPKeyDistribution.encKey,
        ]
        c.pairing = LegacyPairing(
            preq: payload.toArray(), pres: pres, keySize: Int(f.maximumEncryptionKeySize),
            responderKeys: pres[6], mconfirm: nil, srand: random128(), stk: nil)
        log("SMP Pairing Request: LE legacy Just Works")
        sendSMP(c, pres)
    }

    /// c1 with TK 0 (Just Works) over this connection's pairing PDUs and addresses (2.2.3).
    private func confirm(_ c: LiveConnection, _ p: LegacyPairing, random r: UInt128) -> UInt128? {
        guard let preq = p.preq.withByteView({ $0.littleEndianUInt56(at: 0) }),
            let pres = p.pres.withByteView({ $0.littleEndianUInt56(at: 0) })
        else { return nil }
        return SecurityFunction.c1(
            k: 0, r: r, preq: preq, pres: pres, iat: c.initiator.type & 1, ia: c.initiator.address.rawValue,
            rat: c.responder.type & 1, ra: c.responder.address.rawValue)
    }

    private func pairingConfirm(_ c: LiveConnection, _ payload: ByteView) {
        guard var p = c.pairing, p.mconfirm == nil, payload.count == 17,
            let mconfirm = payload.littleEndianUInt128(at: 1), let sconfirm = confirm(c, p, random: p.srand)
        else {
            return failPairing(c, SMPPairingFailedReason.unspecifiedReason, "Pairing Confirm out of turn")
        }
        p.mconfirm = mconfirm
        c.pairing = p
        sendSMP(c, [SMPCode.pairingConfirm] + sconfirm.littleEndianOctets)
    }

    private func pairingRandom(_ c: LiveConnection, _ payload: ByteView) {
        guard var p = c.pairing, let mconfirm = p.mconfirm, p.stk == nil, payload.count == 17,
            let mrand = payload.littleEndianUInt128(at: 1)
        else {
            return failPairing(c, SMPPairingFailedReason.unspecifiedReason, "Pairing Random out of turn")
        }
        guard confirm(c, p, random: mrand) == mconfirm else {
            return failPairing(c, SMPPairingFailedReason.confirmValueFailed, "Mconfirm does not match Mrand")
        }
        // STK = s1(TK, Srand, Mrand), cut to the key size (2.3.4: the most significant
        // octets zeroed).
        let stk = SecurityFunction.s1(k: 0, r1: p.srand, r2: mrand)
        p.stk = p.keySize >= 16 ? stk : stk & ((UInt128(1) << (8 * p.keySize)) - 1)
        c.pairing = p
        sendSMP(c, [SMPCode.pairingRandom] + p.srand.littleEndianOctets)
    }

    func random128() -> UInt128 { UInt128(rng.next()) << 64 | UInt128(rng.next()) }

    // MARK: LE Enable Encryption (role peripheral: the host is the central)

    /// What the peer's host would answer its LE Long Term Key Request with (EDIV and Rand 0:
    /// the STK of the pairing in progress; else the LTK it distributed with that EDIV and Rand),
    /// against the key the host gives.
    func encryptionOutcome(_ c: LiveConnection, rand: UInt64, ediv: UInt16, key: UInt128) -> EncryptionOutcome {
        if rand == 0, ediv == 0, let stk = c.pairing?.stk {
            return stk == key ? .started(distribute: true) : .micFailure
        }
        guard let held = bonds[c.responder.address], held.ediv == ediv, held.rand == rand else { return .keyMissing }
        return held.ltk == key ? .started(distribute: false) : .micFailure
    }

    /// LE Enable Encryption has come to `outcome` (one connection event after the command).
    func encryptionDone(_ id: Int, _ outcome: EncryptionOutcome) {
        guard let c = connection(id), !c.silent else { return }
        switch outcome {
        case .started(let distribute):
            if c.encrypted {
                // 7.7.39: encryption restarted with a new key on an encrypted link.
                let e = [HCIError.success] + c.handle.leBytes
                send(
                    e.withByteView {
                        HCIEventPacket(code: HCIEventCode.encryptionKeyRefreshComplete, parameters: $0).h4Encoded()
                    })
            } else {
                c.encrypted = true
                let e = [HCIError.success] + c.handle.leBytes + [1]
                send(e.withByteView { HCIEventPacket(code: HCIEventCode.encryptionChange, parameters: $0).h4Encoded() })
            }
            if distribute { distributeKeys(c) }
        case .keyMissing:
            c.unmodelled.append("LE Enable Encryption with a key the captured peer does not hold (PIN or Key Missing)")
            let e = [HCIError.pinOrKeyMissing] + c.handle.leBytes + [c.encrypted ? 1 : 0]
            send(e.withByteView { HCIEventPacket(code: HCIEventCode.encryptionChange, parameters: $0).h4Encoded() })
        case .micFailure:
            c.unmodelled.append("LE Enable Encryption with another key than the captured peer's (MIC failure)")
            end(c, reason: HCIError.connectionTerminatedDueToMICFailure, side: .linkLoss)
        }
    }

    /// Phase 3 (3.6.1): the peer, the responder, distributes first; an LTK with its EDIV and
    /// Rand when EncKey was agreed, remembered for the next encryption with them.
    private func distributeKeys(_ c: LiveConnection) {
        guard let p = c.pairing else { return }
        c.pairing = nil
        guard p.responderKeys & SMPKeyDistribution.encKey != 0 else { return }
        var ltk = random128()
        if p.keySize < 16 { ltk &= (UInt128(1) << (8 * p.keySize)) - 1 }
        let key = PeerKey(ltk: ltk, ediv: UInt16(truncatingIfNeeded: rng.next()), rand: rng.next())
        bonds[c.responder.address] = key
        sendSMP(c, [SMPCode.encryptionInformation] + key.ltk.littleEndianOctets)
        var w = ByteWriter()
        w.appendUInt8(SMPCode.centralIdentification)
        w.appendUInt16LE(key.ediv)
        w.appendUInt64LE(key.rand)
        sendSMP(c, w.bytes)
        log("SMP: LTK distributed (EDIV 0x\(String(key.ediv, radix: 16)))")
    }
}
