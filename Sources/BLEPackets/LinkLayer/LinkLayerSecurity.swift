import BLEBytes

/// What blecap could do with a link's ciphertext, said once per encryption start, at the PDU
/// where it was decided (the first encrypted PDU, or the last one tried). Plain data, not
/// `indirect`: every frame and timeline event that can carry one is then copied with `memcpy`
/// (the box made `DecodedFrame` and `TimelineEvent` reference-holding, and every copy and
/// destroy of either went through its value witness; docs/performance.md).
public enum LinkLayerDecryptionNote: Sendable, Equatable {
    /// From this PDU on the link is decrypted with the key named.
    case decrypting(LinkLayerKeySource)
    case notDecryptable(LinkLayerUndecryptableReason)
}

/// Where the key that decrypts a link came from.
public enum LinkLayerKeySource: Sendable, Equatable {
    /// LE legacy pairing on this link, TK found from the captured exchange (crackle's method):
    /// the STK encrypts the link until the distributed LTK takes over. The 16-byte keys come
    /// first so that no padding follows the method: a `LinkLayerFrame` holding this note stays
    /// under the 128 bytes past which moving a frame's layer is a `memcpy` call.
    case recoveredFromPairing(tk: UInt128, stk: UInt128, attempts: Int, method: LegacyPairingMethod)
    /// A key given with `--ltk`.
    case given(ltk: UInt128)
    /// An LTK an earlier pairing in this capture distributed (SMP Encryption Information, read
    /// from that pairing's decrypted key distribution at `frame`).
    case distributed(ltk: UInt128, frame: Int)
    /// LE Secure Connections on this link with the debug key (Vol 3 Part H 2.3.5.6.1): the LTK
    /// follows from the published private key, the other public key, Na, Nb and the addresses.
    case secureConnectionsDebugKey(ltk: UInt128)

    public var key: UInt128 {
        switch self {
        case .recoveredFromPairing(_, let stk, _, _): stk
        case .given(let ltk), .distributed(let ltk, _), .secureConnectionsDebugKey(let ltk): ltk
        }
    }
}

public enum LinkLayerUndecryptableReason: Sendable, Equatable, CustomStringConvertible {
    /// LE Secure Connections pairing on this link: the key comes from ECDH and nothing on the
    /// air gives it. `debugKey`: a side sent the debug public key (Vol 3 Part H 2.3.5.6.1), but
    /// the values its LTK needs (both public keys, both Pairing Random values) were not all
    /// captured, or the LTK did not verify.
    case secureConnections(debugKey: Bool)
    /// Encrypted with a key from a pairing before the capture, and no `--ltk` was given.
    case noKey
    /// A legacy pairing on this link whose TK was not found.
    case pairingNotRecovered(LegacyPairingCrackFailure, attempts: Int)
    /// LL_ENC_REQ or LL_ENC_RSP (SKD and IV) is not in the capture.
    case noEncryptionParameters
    /// Keys were there, but none verified the MIC of the first encrypted PDUs.
    case noKeyVerifies(tried: Int)
    /// The capture's earlier pairings spent the time blecap gives key recovery
    /// (`LinkTable.crackBudget`): the brute force stopped after `attempts` TKs.
    case crackBudgetSpent(attempts: Int)

    /// Why, as a clause about the link ("it was paired with …").
    public var description: String {
        switch self {
        case .secureConnections(let debugKey):
            "it was paired with LE Secure Connections, whose key cannot be recovered from the air; give the LTK with --ltk"
                + (debugKey
                    ? " (a side sent the SC debug public key, but the public keys and Pairing Random values its LTK needs were not all captured, or it did not verify)"
                    : "")
        case .noKey: "its key comes from a pairing before the capture; give the LTK with --ltk"
        case .pairingNotRecovered(let why, let attempts):
            "the TK of its legacy pairing was not recovered after \(attempts) attempts: \(why)"
        case .noEncryptionParameters: "LL_ENC_REQ or LL_ENC_RSP is not in the capture, so no session key can be derived"
        case .noKeyVerifies(let tried):
            "none of the \(tried) key\(tried == 1 ? "" : "s") blecap tried verifies its MIC"
        case .crackBudgetSpent(let attempts):
            "its legacy pairing's TK was not found in the \(attempts) tries left after the capture's earlier pairings; give the LTK with --ltk"
        }
    }
}

/// One link's encryption bookkeeping for the decoder: the addresses (for c1), the pairing PDUs
/// (for crackle's method), LL_ENC_REQ/RSP (for the session key) and, once encryption starts,
/// which key decrypts it. Touched only by SMP, LL_ENC_*, LL_START_ENC_REQ and encrypted PDUs:
/// plaintext traffic never reaches it.
struct LinkSecurity {
    /// CONNECT_IND's InitA/TxAdd and AdvA/RxAdd.
    var central: BDAddr?
    var centralRandom = false
    var peripheral: BDAddr?
    var peripheralRandom = false
    /// The pairing seen on this link since its last encryption start (nil: none).
    var pairing: LegacyPairingObserver?
    var encReq: (rand: UInt64, ediv: UInt16, skdm: UInt64, ivm: UInt32)?
    var encRsp: (skds: UInt64, ivs: UInt32)?
    var state = State.plaintext
    /// Non-empty PDUs per direction (central, peripheral) the sniffer decrypted itself since
    /// encryption started, before blecap had a decryptor: their packet counters are used up.
    var sniffedPlaintext: (central: UInt64, peripheral: UInt64) = (0, 0)
    /// The key that decrypted this link's previous encryption: a key refresh (LL_PAUSE_ENC, then
    /// LL_ENC_REQ again) usually keeps it, and it may be one no other source offers (the debug
    /// key's LTK).
    var lastKey: (key: UInt128, source: LinkLayerKeySource)?

    /// How many encrypted PDUs a key search may spend before the link is called undecryptable:
    /// the first one can be damaged beyond what the CRC caught, or sent by a side whose
    /// direction the sniffer got wrong.
    static let searchPDUs = 8

    enum State {
        case plaintext
        /// LL_START_ENC_REQ seen; the key is chosen on the first encrypted PDU.
        case started
        case searching(candidates: [(key: UInt128, source: LinkLayerKeySource)], tries: Int)
        case decrypting(LinkLayerDecryptor)
        case undecryptable
    }

    enum Outcome {
        /// `plaintext` holds the payload; `match` the counter and direction the MIC confirmed.
        case decrypted(LinkLayerDecryptor.Match)
        /// The link's key did not verify this PDU (damaged, or a counter beyond the search).
        case micFailure
        /// No key (yet, or at all).
        case unreadable
    }

    /// What the decoder knows beyond this link.
    struct Context {
        let accessAddress: UInt32
        let keys: LinkLayerKeys
        /// LTKs distributed earlier in this capture, with the frame that carried each.
        let distributed: [(ltk: UInt128, frame: Int)]
        /// TK tries the whole capture may still spend (a `crackWithoutConfirm` try costs five):
        /// a hostile capture full of pairings must not keep blecap busy for minutes.
        var crackBudget: Int
    }

    mutating func observeSMP(_ pdu: ByteView, direction: LinkLayerDirection?) {
        if pdu.u8(0) == 0x01 { pairing = LegacyPairingObserver() }
        pairing?.observe(smp: pdu, direction: direction)
    }

    mutating func observeControl(_ payload: ByteView) {
        switch payload.u8(0) {
        case LLControlOpcode.encReq:
            guard let rand = payload.u64le(1), let ediv = payload.u16le(9), let skdm = payload.u64le(11),
                let ivm = payload.u32le(19)
            else { return }
            encReq = (rand, ediv, skdm, ivm)
            encRsp = nil
        case LLControlOpcode.encRsp:
            guard let skds = payload.u64le(1), let ivs = payload.u32le(9) else { return }
            encRsp = (skds, ivs)
        default:
            break
        }
    }

    /// LL_START_ENC_REQ: what follows is ciphertext under a new session key.
    mutating func startEncryption() {
        state = .started
        sniffedPlaintext = (0, 0)
    }

    var isDecrypting: Bool {
        if case .decrypting = state { return true }
        return false
    }

    /// A non-empty PDU of the encrypted link that the sniffer decrypted itself: the next one in
    /// that direction carries the following packet counter.
    mutating func sniffedPlaintextPDU(_ direction: LinkLayerDirection?) {
        guard let direction else { return }
        switch state {
        case .decrypting(var decryptor):
            decryptor.advance(direction)
            state = .decrypting(decryptor)
        case .plaintext, .undecryptable:
            break
        default:
            if direction == .centralToPeripheral {
                sniffedPlaintext.central += 1
            } else {
                sniffedPlaintext.peripheral += 1
            }
        }
    }

    /// LL_PAUSE_ENC_RSP (the central's, in the clear): plaintext again until the next start.
    mutating func pauseEncryption() {
        state = .plaintext
        encReq = nil
        encRsp = nil
    }

    var parameters: LinkLayerEncryptionParameters? {
        guard let encReq, let encRsp else { return nil }
        return LinkLayerEncryptionParameters(
            rand: encReq.rand, ediv: encReq.ediv, skdm: encReq.skdm, ivm: encReq.ivm, skds: encRsp.skds,
            ivs: encRsp.ivs)
    }

    /// One encrypted PDU (`payload` = ciphertext ‖ MIC). `note` is set where the link's
    /// decryptability was decided.
    /// `retransmission`: the SN check already knows this is a copy, so its counter is the
    /// direction's previous one: tried first, which spares the forward search.
    mutating func decrypt(
        _ payload: ByteView, header: UInt8, direction: LinkLayerDirection?, retransmission: Bool,
        context: inout Context, into plaintext: inout [UInt8], note: inout LinkLayerDecryptionNote?
    ) -> Outcome {
        switch state {
        case .plaintext, .undecryptable:
            return .unreadable
        case .decrypting(var decryptor):
            if retransmission, let direction, decryptor.nextCounter(direction) > 0,
                let match = decryptor.decrypt(
                    pdu: payload, header: header, direction: direction, counter: decryptor.nextCounter(direction) - 1,
                    into: &plaintext)
            {
                state = .decrypting(decryptor)
                return .decrypted(match)
            }
            let match = decryptor.decrypt(pdu: payload, header: header, direction: direction, into: &plaintext)
            state = .decrypting(decryptor)
            return match.map { .decrypted($0) } ?? .micFailure
        case .started:
            guard let parameters else {
                state = .undecryptable
                note = .notDecryptable(.noEncryptionParameters)
                return .unreadable
            }
            let (candidates, failure) = chooseCandidates(parameters, payload, header, direction, &context)
            guard !candidates.isEmpty else {
                state = .undecryptable
                note = .notDecryptable(failure ?? .noKey)
                return .unreadable
            }
            state = .searching(candidates: candidates, tries: 0)
            return search(parameters, payload, header, direction, &plaintext, &note)
        case .searching:
            guard let parameters else { return .unreadable }
            return search(parameters, payload, header, direction, &plaintext, &note)
        }
    }

    /// Each candidate key on this PDU: the first whose MIC verifies decrypts the link from now on.
    private mutating func search(
        _ parameters: LinkLayerEncryptionParameters, _ payload: ByteView, _ header: UInt8,
        _ direction: LinkLayerDirection?, _ plaintext: inout [UInt8], _ note: inout LinkLayerDecryptionNote?
    ) -> Outcome {
        guard case .searching(let candidates, let tries) = state else { return .unreadable }
        for c in candidates {
            var decryptor = LinkLayerDecryptor(cipher: LinkLayerCipher(ltk: c.key, parameters: parameters))
            decryptor.advance(.centralToPeripheral, by: sniffedPlaintext.central)
            decryptor.advance(.peripheralToCentral, by: sniffedPlaintext.peripheral)
            if let match = decryptor.decrypt(pdu: payload, header: header, direction: direction, into: &plaintext) {
                state = .decrypting(decryptor)
                lastKey = c
                note = .decrypting(c.source)
                return .decrypted(match)
            }
        }
        if tries + 1 >= Self.searchPDUs {
            state = .undecryptable
            note = .notDecryptable(.noKeyVerifies(tried: candidates.count))
        } else {
            state = .searching(candidates: candidates, tries: tries + 1)
        }
        return .unreadable
    }

    /// Whether a legacy pairing's IO capabilities choose Passkey Entry (Vol 3 Part H 2.3.5.1,
    /// Table 2.8): MITM asked by either side, no OOB on both, neither NoInputNoOutput, and one
    /// side with a keyboard (KeyboardOnly or KeyboardDisplay).
    static func selectsPasskeyEntry(_ exchange: LegacyPairingExchange) -> Bool {
        let (q, s) = (exchange.pairingRequest, exchange.pairingResponse)
        guard q.count >= 4, s.count >= 4 else { return false }
        if q[2] == 1 && s[2] == 1 { return false }
        guard (q[3] | s[3]) & 0x04 != 0 else { return false }
        let (i, r) = (q[1], s[1])
        guard i <= 4, r <= 4, i != 3, r != 3 else { return false }
        return i == 2 || i == 4 || r == 2 || r == 4
    }

    /// The passkeys a brute force may try with `budget` tries left (TK 0 always).
    static func passkeys(_ budget: Int) -> ClosedRange<UInt32> {
        0...UInt32(max(0, min(Int(LegacyPairingCracker.maximumPasskey), budget - 1)))
    }

    /// The keys worth trying, the likeliest first: a legacy pairing on this link (its STK is
    /// what the first encryption after it uses), then the user's keys, then LTKs distributed
    /// earlier in the capture. With none, why.
    private mutating func chooseCandidates(
        _ parameters: LinkLayerEncryptionParameters, _ payload: ByteView, _ header: UInt8,
        _ direction: LinkLayerDirection?, _ context: inout Context
    ) -> ([(key: UInt128, source: LinkLayerKeySource)], LinkLayerUndecryptableReason?) {
        var candidates: [(key: UInt128, source: LinkLayerKeySource)] = []
        var failure: LinkLayerUndecryptableReason? = nil
        if let pairing, pairing.pairingRequest != nil {
            if pairing.usesSecureConnections {
                failure = .secureConnections(debugKey: pairing.sawDebugKey)
                if let ltk = pairing.secureConnectionsDebugKeyLTK(
                    initiatorAddress: central ?? BDAddr(rawValue: 0), initiatorAddressIsRandom: centralRandom,
                    responderAddress: peripheral ?? BDAddr(rawValue: 0), responderAddressIsRandom: peripheralRandom)
                {
                    candidates.append((ltk, .secureConnectionsDebugKey(ltk: ltk)))
                }
            } else if let exchange = pairing.exchange(
                initiatorAddress: central ?? BDAddr(rawValue: 0), initiatorAddressIsRandom: centralRandom,
                responderAddress: peripheral ?? BDAddr(rawValue: 0), responderAddressIsRandom: peripheralRandom)
            {
                let budget = context.crackBudget
                var passkeys = Self.passkeys(budget)
                var report = LegacyPairingCracker.crack(exchange, passkeys: passkeys)
                var spent = report.attempts
                if case .failed(.missingConfirm) = report.result {
                    let first = EncryptedDataPDU(header: header, payload: payload.toArray(), direction: direction)
                    passkeys = Self.passkeys(budget / 5)
                    report = LegacyPairingCracker.crackWithoutConfirm(
                        exchange, parameters: parameters, firstEncrypted: first, passkeys: passkeys)
                    spent = report.attempts * 5
                }
                context.crackBudget = max(0, budget - spent)
                let cutShort = passkeys.upperBound < LegacyPairingCracker.maximumPasskey
                switch report.result {
                case .recovered(let tk, var method, let stk):
                    // TK 0 is Just Works, or Passkey Entry with the passkey 000000: the Pairing
                    // Request and Response say which (the timeline's smp.pairing_response names
                    // the same method).
                    if case .justWorks = method, Self.selectsPasskeyEntry(exchange) {
                        method = .passkeyEntry(passkey: 0)
                    }
                    candidates.append(
                        (
                            stk,
                            .recoveredFromPairing(
                                tk: tk, stk: stk, attempts: report.attempts, method: method)
                        ))
                case .secureConnections:
                    failure = .secureConnections(debugKey: pairing.sawDebugKey)
                case .failed(.noPasskeyMatches) where cutShort:
                    failure = .crackBudgetSpent(attempts: report.attempts)
                case .failed(let why):
                    failure = .pairingNotRecovered(why, attempts: report.attempts)
                }
            }
        }
        // The pairing's keys are for this encryption only; a later one uses the LTK.
        self.pairing = nil
        for key in context.keys.candidates(
            accessAddress: context.accessAddress, central: central, peripheral: peripheral)
        where !candidates.contains(where: { $0.key == key }) {
            candidates.append((key, .given(ltk: key)))
        }
        for d in context.distributed where !candidates.contains(where: { $0.key == d.ltk }) {
            candidates.append((d.ltk, .distributed(ltk: d.ltk, frame: d.frame)))
        }
        if let lastKey, !candidates.contains(where: { $0.key == lastKey.key }) { candidates.append(lastKey) }
        return (candidates, failure)
    }
}
