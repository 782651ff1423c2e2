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
    /// Files a security note for the report once (a host repeating a refused request must not
    /// grow the report without bound).
    func note(_ c: LiveConnection, _ text: String) {
        if c.unmodelled.count < 1024, !c.unmodelled.contains(text) { c.unmodelled.append(text) }
    }

    // MARK: SMP from the host (role peripheral: the peer is the responder)

    /// SMP from the host: the link's `SMPResponder`. For `blecap serve` the peer pairs as an
    /// LE legacy Just Works peripheral (it answers an SC request the way a peripheral without
    /// SC does, 2.3.5.1) unless the capture shows it refusing; over a real radio
    /// (`RadioHost`) as the capture shows it.
    func smp(_ c: LiveConnection, _ payload: ByteView) {
        guard SMPCode.code(of: payload) != nil else { return reject("empty SMP PDU: dropped") }
        guard configuration.role == .peripheral else { return smpAsCentral(c, payload) }
        var responder =
            c.responderSMP
            ?? SMPResponder(
                initiator: c.initiator, responder: c.responder, security: replay.models[c.model].connection.security,
                policy: c.overRadio ? .asCaptured : .legacyAlways)
        responder.receive(payload, smpIO(c)) { secureConnectionsKeyPair() }
        c.responderSMP = responder
    }

    /// The responder's side of link `c`.
    func smpIO(_ c: LiveConnection) -> SMPResponderIO {
        SMPResponderIO(
            send: { [unowned self] in sendL2CAP(c, channel: L2CAPChannel.smp, $0) },
            log: { [unowned self] in log($0) }, note: { [unowned self] in note(c, $0) },
            random: { [unowned self] in securityRandom?() ?? rng.next() })
    }

    /// This run's LE Secure Connections key pair, made on first use.
    func secureConnectionsKeyPair() -> SecureConnectionsKeyPair {
        if let k = keyPair { return k }
        let k = SecureConnectionsKeyPair.make { securityRandom?() ?? rng.next() }
        keyPair = k
        return k
    }

    func random128() -> UInt128 { UInt128(rng.next()) << 64 | UInt128(rng.next()) }

    // MARK: LE Enable Encryption (role peripheral: the host is the central)

    /// What the peer's host would answer its LE Long Term Key Request with (EDIV and Rand 0:
    /// the STK of the pairing in progress; else the LTK it distributed with that EDIV and Rand),
    /// against the key the host gives.
    func encryptionOutcome(_ c: LiveConnection, rand: UInt64, ediv: UInt16, key: UInt128) -> EncryptionOutcome {
        if rand == 0, ediv == 0, let stk = c.responderSMP?.pairing?.key {
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
                send(HCIEncryptionKeyRefreshComplete(status: HCIError.success, handle: c.handle).h4Encoded())
            } else {
                c.encrypted = true
                send(HCIEncryptionChange(status: HCIError.success, handle: c.handle, encryptionEnabled: 1).h4Encoded())
            }
            if distribute { distributeKeys(c) }
            centralEncrypted(c)
        case .keyMissing:
            guard configuration.role == .peripheral else { return }
            note(c, "LE Enable Encryption with a key the captured peer does not hold (PIN or Key Missing)")
            let e = HCIEncryptionChange(
                status: HCIError.pinOrKeyMissing, handle: c.handle, encryptionEnabled: c.encrypted ? 1 : 0)
            send(e.h4Encoded())
        case .micFailure:
            note(c, "LE Enable Encryption with another key than the captured peer's (MIC failure)")
            end(c, reason: HCIError.connectionTerminatedMICFailure, side: .linkLoss)
        }
    }

    /// Phase 3 (3.6.1), the responder's: the key the peer holds afterwards is remembered for
    /// the next encryption with its EDIV and Rand.
    func distributeKeys(_ c: LiveConnection) {
        guard var responder = c.responderSMP else { return }
        let size = responder.pairing?.keySize ?? 16
        let key = responder.distributeKeys(smpIO(c)) {
            var ltk = random128()
            if size < 16 { ltk &= (UInt128(1) << (8 * size)) - 1 }
            return PeerKey(ltk: ltk, ediv: UInt16(truncatingIfNeeded: rng.next()), rand: rng.next())
        }
        c.responderSMP = responder
        if let key { bonds[c.responder.address] = key }
    }
}

extension VirtualController {
    // MARK: role central: the captured central pairs and encrypts

    /// When the capture shows its central pairing (or encrypting with a key from before), the
    /// same happens at the same offset from the connection's start.
    func scheduleCentralSecurity(_ c: LiveConnection) {
        let captured = replay.models[c.model].connection
        let s = captured.security
        if s.pairingRequested, let t = s.pairingRequestTime {
            schedule(after: delay(max(0, t &- captured.summary.startTime)), .centralPairing(connection: c.id))
        } else if s.encrypted, let t = s.encryptionTime {
            schedule(after: delay(max(0, t &- captured.summary.startTime)), .centralEncryption(connection: c.id))
        }
    }

    /// The captured central's Pairing Request: `SMPInitiator`'s LE legacy Just Works one
    /// (NoInputNoOutput, bonding, no MITM, no SC: no P-256 here, the captured one may have asked
    /// for SC), asking for the host's LTK and identity and distributing nothing itself.
    func startCentralPairing(_ id: Int) {
        guard let c = connection(id), !c.silent, c.initiatorSMP == nil, !c.encrypted else { return }
        if c.overRadio { return radioSecurityFellDue(c) }
        if replay.models[c.model].connection.security.secureConnections {
            note(
                c,
                "the captured central paired with LE Secure Connections (played as LE legacy Just Works)")
        }
        var initiator = SMPInitiator(
            initiator: c.initiator, responder: c.responder, security: replay.models[c.model].connection.security,
            policy: .legacyJustWorks)
        initiator.start(smpIO(c))
        c.initiatorSMP = initiator
    }

    /// A later connection the capture shows encrypted without pairing: with the LTK the host
    /// distributed in an earlier one.
    func startCentralEncryption(_ id: Int) {
        guard let c = connection(id), !c.silent, !c.encrypted else { return }
        if c.overRadio { return radioSecurityFellDue(c) }
        guard let key = hostKeys[c.responder.address] else {
            note(c, "the captured central encrypted with a key from before the capture: none to use")
            return
        }
        requestLTK(c, rand: key.rand, ediv: key.ediv, expected: key.ltk)
    }

    /// The peripheral's controller asks its host for the key (LE Long Term Key Request,
    /// 7.7.65.5) when the central starts encryption; the reply is checked in `ltkReply`.
    private func requestLTK(_ c: LiveConnection, rand: UInt64, ediv: UInt16, expected: UInt128) {
        guard leEventEnabled(HCILESubeventCode.longTermKeyRequest) else {
            note(c, "LE Long Term Key Request masked by the host: encryption not started")
            return
        }
        c.awaitedLTK = expected
        send(HCILELongTermKeyRequest(handle: c.handle, randomNumber: rand, encryptedDiversifier: ediv).h4Encoded())
    }

    /// LE Long Term Key Request Reply (`key`) or Negative Reply (`key` nil; a reply too short
    /// for its key counts as one) from the host (role central).
    func ltkReply(handle: UInt16, key: UInt128?) {
        guard configuration.role == .central, let c = connections[handle], let expected = c.awaitedLTK else { return }
        c.awaitedLTK = nil
        guard let key else {
            // LL_REJECT_EXT_IND to the central: the link stays up, unencrypted.
            note(c, "the host had no key for the captured central's encryption (negative reply)")
            return
        }
        schedule(
            after: delay(replay.models[c.model].connection.intervalMicros),
            .encryption(connection: c.id, outcome: key == expected ? .started(distribute: false) : .micFailure))
    }

    /// SMP from the host as peripheral, answering the captured central's pairing: the link's
    /// `SMPInitiator` checks the host's values and, after phase 2, asks the host for the key it
    /// computed (LE Long Term Key Request, checked in `ltkReply`).
    func smpAsCentral(_ c: LiveConnection, _ payload: ByteView) {
        guard let code = SMPCode.code(of: payload) else { return }
        if c.overRadio { return radioSMP(c, payload) }
        if code == SMPCode.pairingFailed {
            let reason = SMPPairingFailed(pdu: payload)?.reason ?? 0
            log("SMP: the host refused the captured central's pairing (Pairing Failed 0x\(String(reason, radix: 16)))")
            if replay.models[c.model].connection.security.encrypted {
                note(
                    c,
                    "the host refused pairing (Pairing Failed 0x\(String(reason, radix: 16))); the captured peripheral paired"
                )
            }
        }
        guard var initiator = c.initiatorSMP else {
            // No pairing under way: phase 1 and 2 PDUs are out of turn, the rest taken.
            if code == SMPCode.pairingResponse || code == SMPCode.pairingConfirm || code == SMPCode.pairingRandom {
                let reason = SMPPairingFailedReason.unspecifiedReason
                log("SMP code 0x\(String(code, radix: 16)) out of turn: Pairing Failed 0x\(String(reason, radix: 16))")
                sendL2CAP(c, channel: L2CAPChannel.smp, SMPPairingFailed(reason: reason).encoded())
            } else if code != SMPCode.pairingFailed {
                log("SMP code 0x\(String(code, radix: 16)) from the host (peripheral): taken")
            }
            return
        }
        let step = initiator.receive(payload, smpIO(c)) { secureConnectionsKeyPair() }
        c.initiatorSMP = initiator
        if case .encrypt(let stk) = step { requestLTK(c, rand: 0, ediv: 0, expected: stk) }
        keepBond(c)
    }

    /// Encryption Change on the virtual link with the pairing's key: the host's keys come,
    /// then the captured central's (none asked for).
    func centralEncrypted(_ c: LiveConnection) {
        guard configuration.role == .central, !c.overRadio, var initiator = c.initiatorSMP else { return }
        initiator.encryptionChanged(enabled: true, smpIO(c))
        c.initiatorSMP = initiator
        keepBond(c)
    }
}
