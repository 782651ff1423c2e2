import BLEBytes
import BLEPackets
import BLEReplay

/// Role central over a real radio (`blecap replay --role central --controller`): the captured
/// central pairs and encrypts with the real peripheral where and as the capture did. The real
/// controller encrypts (`radioEncrypt`, LE Enable Encryption); the pairing is `SMPInitiator`'s.
extension VirtualController {
    /// A divergence of the device's security from the captured peripheral's, for the report.
    func radioFinding(_ c: LiveConnection, _ text: String) {
        let line = "#\(replay.models[c.model].number): \(text)"
        if radioFindings.count < 256, !radioFindings.contains(line) { radioFindings.append(line) }
    }

    /// The initiator's side of link `c`: its PDUs to the real peripheral, its divergences to the
    /// report, random numbers fresh per run.
    func initiatorIO(_ c: LiveConnection) -> SMPResponderIO {
        SMPResponderIO(
            send: { [unowned self] in sendL2CAP(c, channel: L2CAPChannel.smp, $0) },
            log: { [unowned self] in log($0) }, note: { [unowned self] in radioFinding(c, $0) },
            random: { [unowned self] in securityRandom?() ?? rng.next() })
    }

    // MARK: security in the captured central's order

    /// Offsets from the connection's start of the captured central's security: when it
    /// started (its Pairing Request, else its encryption) and when the link was encrypted.
    private func capturedSecurity(_ c: LiveConnection) -> (start: Int64, encrypted: Int64?)? {
        let captured = replay.models[c.model].connection
        let s = captured.security
        let start = s.pairingRequested ? s.pairingRequestTime : s.encrypted ? s.encryptionTime : nil
        guard let start else { return nil }
        return (start &- captured.summary.startTime, s.encryptionTime.map { $0 &- captured.summary.startTime })
    }

    /// Whether the captured central's security comes before script step `step` on a radio
    /// link: a pairing or encryption due once the steps captured before it are done starts
    /// now; a step captured after the encryption waits until the security has settled.
    /// True: the step is held (security calls `schedulePeerClientStep` again when it may go).
    func radioSecurityHolds(_ c: LiveConnection, beforeStep step: Int) -> Bool {
        let model = replay.models[c.model]
        let offset = step < model.steps.count ? model.capturedOffset(ofPDU: model.steps[step].capturedIndex) : .max
        if c.radioSecurityDue, let t = capturedSecurity(c), offset >= t.start {
            c.radioSecurityDue = false
            startRadioSecurity(c)
        }
        guard c.radioSecurityPending != nil || c.radioSecurityDue else { return false }
        guard let t = capturedSecurity(c), let encrypted = t.encrypted else { return false }
        return offset > encrypted
    }

    /// The pairing or encryption timer: it starts once the script's steps captured before it
    /// have gone and been answered.
    func radioSecurityFellDue(_ c: LiveConnection) {
        let model = replay.models[c.model]
        guard let t = capturedSecurity(c) else { return }
        var step = c.peerStep
        while step < model.steps.count,
            !model.steps[step].hostIsClient
                || model.steps[step].opcode
                    == ATTOpcode.handleValueConfirmation.rawValue
        {
            step += 1
        }
        let behind =
            c.peerRequestOutstanding
            || (step < model.steps.count && model.capturedOffset(ofPDU: model.steps[step].capturedIndex) < t.start)
        if behind {
            c.radioSecurityDue = true
        } else {
            startRadioSecurity(c)
        }
    }

    private func startRadioSecurity(_ c: LiveConnection) {
        c.radioSecurityPending = now
        if replay.models[c.model].connection.security.pairingRequested {
            startRadioPairing(c)
        } else {
            startRadioEncryption(c)
        }
    }

    /// The security started has settled: the held steps may go.
    private func radioSecuritySettled(_ c: LiveConnection) {
        guard c.radioSecurityPending != nil else { return }
        c.radioSecurityPending = nil
        schedulePeerClientStep(c)
    }

    /// Since when the captured central's pairing or encryption on `handle` has waited to
    /// settle (µs on this controller's clock); nil when none waits.
    public func outstandingSecurity(handle: UInt16) -> Int64? {
        connections[handle]?.radioSecurityPending
    }

    /// The captured central's Pairing Request, at its captured offset.
    func startRadioPairing(_ c: LiveConnection) {
        guard c.initiatorSMP == nil else { return }
        var initiator = SMPInitiator(
            initiator: c.initiator, responder: c.responder, security: replay.models[c.model].connection.security)
        initiator.start(initiatorIO(c))
        c.initiatorSMP = initiator
    }

    // MARK: the peripheral's Security Request (Vol 3 Part H 3.6.7)

    /// Role peripheral: the captured peripheral's Security Request at its captured offset.
    func scheduleSecurityRequest(_ c: LiveConnection) {
        let captured = replay.models[c.model].connection
        guard let t = captured.security.securityRequestTime else { return }
        schedule(after: delay(max(0, t &- captured.summary.startTime)), .securityRequest(connection: c.id))
    }

    /// Sent with the captured AuthReq, unless the link is already encrypted or pairing.
    func sendSecurityRequest(_ id: Int) {
        guard let c = connection(id), !c.silent, c.overRadio, !c.encrypted, c.responderSMP?.pairing == nil,
            let authReq = replay.models[c.model].connection.security.securityRequestAuthReq
        else { return }
        log("SMP: the captured peripheral sends its Security Request (AuthReq 0x\(String(authReq, radix: 16)))")
        sendL2CAP(c, channel: L2CAPChannel.smp, SMPSecurityRequest(authReq: SMPAuthReq(rawValue: authReq)).encoded())
    }

    /// SMP from the real peripheral.
    func radioSMP(_ c: LiveConnection, _ payload: ByteView) {
        if SMPCode.code(of: payload) == SMPCode.securityRequest { return securityRequestFromDevice(c, payload) }
        guard var initiator = c.initiatorSMP else {
            let code = SMPCode.code(of: payload) ?? 0
            if code == SMPCode.pairingFailed || code == SMPCode.pairingResponse {
                radioFinding(c, "pairing: the peripheral sent SMP code 0x\(String(code, radix: 16)) unasked")
            }
            log("SMP code 0x\(String(code, radix: 16)) from the peripheral outside a pairing: ignored")
            return
        }
        let io = initiatorIO(c)
        let step = initiator.receive(payload, io) { secureConnectionsKeyPair() }
        c.initiatorSMP = initiator
        if case .encrypt(let key) = step { encryptRadio(c, rand: 0, ediv: 0, key: key) }
        keepBond(c)
    }

    /// Role central: the device's Security Request is answered as the captured central
    /// answered the captured one: its pairing or encryption, if it did either, comes where it
    /// came in the capture, else nothing (ignored, as captured). One the captured peripheral
    /// did not send is a divergence.
    private func securityRequestFromDevice(_ c: LiveConnection, _ payload: ByteView) {
        let s = replay.models[c.model].connection.security
        let authReq = SMPSecurityRequest(pdu: payload)?.authReq.rawValue
        let text = authReq.map { "AuthReq 0x\(String($0, radix: 16))" } ?? "no AuthReq"
        log("SMP: Security Request from the peripheral (\(text))")
        c.deviceSentSecurityRequest = true
        if s.securityRequestTime == nil {
            radioFinding(c, "security: the peripheral sent a Security Request (\(text)); the captured one did not")
        }
    }

    /// The link ended (or the run did) and the device never sent the Security Request the
    /// captured peripheral sent on it: a divergence, whether the link went on unencrypted or
    /// the captured central's own pairing came first.
    func securityRequestOwed(_ c: LiveConnection) {
        let s = replay.models[c.model].connection.security
        guard s.securityRequestTime != nil, !c.deviceSentSecurityRequest else { return }
        let text = s.securityRequestAuthReq.map { "AuthReq 0x\(String($0, radix: 16))" } ?? "no AuthReq"
        radioFinding(c, "security: the captured peripheral sent a Security Request (\(text)); the device did not")
    }

    /// A later connection the capture shows encrypted without pairing: with the key this
    /// run's pairing left with the peripheral (the capture's own key is not this run's).
    func startRadioEncryption(_ c: LiveConnection) {
        guard let key = hostKeys[c.responder.address] else {
            radioFinding(
                c,
                "encryption: the captured central encrypted with a key from before; this run has no key with "
                    + "\(c.responder.address) (the link stays unencrypted)")
            return radioSecuritySettled(c)
        }
        log("the captured central encrypts with this run's key (EDIV 0x\(String(key.ediv, radix: 16)))")
        encryptRadio(c, rand: key.rand, ediv: key.ediv, key: key.ltk)
    }

    private func encryptRadio(_ c: LiveConnection, rand: UInt64, ediv: UInt16, key: UInt128) {
        guard let radioEncrypt else {
            note(c, "encryption: no controller to encrypt the link with")
            return radioSecuritySettled(c)
        }
        radioEncrypt(c.handle, rand, ediv, key)
    }

    /// Encryption Change (success) on the real link: phase 3 of a pairing follows.
    func radioEncryptionChangedAsCentral(_ c: LiveConnection, enabled: Bool) {
        guard var initiator = c.initiatorSMP else { return radioSecuritySettled(c) }
        initiator.encryptionChanged(enabled: enabled, initiatorIO(c))
        c.initiatorSMP = initiator
        keepBond(c)
    }

    /// Encryption failed on the real link (the peripheral had no such key, or another one).
    func radioEncryptionFailed(_ c: LiveConnection, status: UInt8) {
        let name = HCIError.name(status).map { "\($0)" } ?? "status 0x\(String(status, radix: 16))"
        radioFinding(c, "encryption: the link did not encrypt (\(name)); the captured one did")
        c.initiatorSMP = nil
        radioSecuritySettled(c)
    }

    /// The pairing's key, once there is one (the LTK the peer distributed, or an LE Secure
    /// Connections LTK), is this peripheral's for later connections; a finished pairing is
    /// dropped (a serve host or device that never sends its other keys still leaves its LTK).
    func keepBond(_ c: LiveConnection) {
        guard let initiator = c.initiatorSMP else { return }
        if let bond = initiator.bond, hostKeys[c.responder.address] != bond {
            hostKeys[c.responder.address] = bond
            log("SMP: the key with \(c.responder.address) kept for this run (EDIV 0x\(String(bond.ediv, radix: 16)))")
        }
        guard initiator.finished else { return }
        c.initiatorSMP = nil
        radioSecuritySettled(c)
    }
}
