import BLEBytes

/// Collects a legacy pairing's values from SMP PDUs as a connection carries them, for
/// `LegacyPairingCracker`: Pairing Request/Response (codes 0x01/0x02), Pairing Confirm (0x03)
/// and Pairing Random (0x04) (Core 5.4 Vol 3 Part H 3.5). With a direction, a confirm or random
/// from the central is Mconfirm/Mrand and one from the peripheral Sconfirm/Srand; without one
/// (PPI files), the order decides: the central sends each first (Vol 3 Part H 2.3.5.5). A new
/// Pairing Request starts over. Feed it the SMP PDU (code first, after the L2CAP header; a
/// Pairing Public Key of LE Secure Connections only counts for `sawDebugKey`).
public struct LegacyPairingObserver: Sendable {
    public private(set) var pairingRequest: [UInt8]?
    public private(set) var pairingResponse: [UInt8]?
    public private(set) var mconfirm: UInt128?
    public private(set) var sconfirm: UInt128?
    public private(set) var mrand: UInt128?
    public private(set) var srand: UInt128?
    /// An LE Secure Connections pairing in which a side sent the debug public key.
    public private(set) var sawDebugKey = false
    /// LE Secure Connections: the initiator's and responder's Pairing Public Key (X ‖ Y, as sent).
    public private(set) var initiatorPublicKey: [UInt8]?
    public private(set) var responderPublicKey: [UInt8]?

    public init() {}

    public mutating func observe(smp pdu: ByteView, direction: LinkLayerDirection?) {
        guard let code = pdu.u8(0) else { return }
        switch code {
        case 0x01 where pdu.count == 7:
            self = LegacyPairingObserver()
            pairingRequest = pdu.toArray()
        case 0x02 where pdu.count == 7:
            pairingResponse = pdu.toArray()
        case 0x03 where pdu.count == 17:
            guard let value = pdu.littleEndianUInt128(at: 1) else { return }
            if isCentral(direction, firstTaken: mconfirm != nil) { mconfirm = value } else { sconfirm = value }
        case 0x04 where pdu.count == 17:
            guard let value = pdu.littleEndianUInt128(at: 1) else { return }
            if isCentral(direction, firstTaken: mrand != nil) { mrand = value } else { srand = value }
        case 0x0C where pdu.count == 65:
            if SecureConnectionsDebugKey.isDebugKey(pairingPublicKey: pdu) { sawDebugKey = true }
            // The initiator sends its public key first (Vol 3 Part H 2.3.5.6.1).
            let key = pdu.suffix(from: 1)?.toArray()
            if isCentral(direction, firstTaken: initiatorPublicKey != nil) {
                initiatorPublicKey = key
            } else {
                responderPublicKey = key
            }
        default:
            break
        }
    }

    private func isCentral(_ direction: LinkLayerDirection?, firstTaken: Bool) -> Bool {
        direction.map { $0 == .centralToPeripheral } ?? !firstTaken
    }

    /// Whether both pairing PDUs said LE Secure Connections (nothing to crack).
    public var usesSecureConnections: Bool {
        guard let req = pairingRequest, let rsp = pairingResponse else { return false }
        return req.withByteView { r in
            rsp.withByteView { LegacyPairingExchange.usesSecureConnections(pairingRequest: r, pairingResponse: $0) }
        }
    }

    /// An LE Secure Connections pairing made with the debug key: its LTK, from the public keys,
    /// the Pairing Random values (Na, Nb: the central sends first, as in legacy pairing) and the
    /// connection's addresses. Nil for any other pairing.
    public func secureConnectionsDebugKeyLTK(
        initiatorAddress: BDAddr, initiatorAddressIsRandom: Bool, responderAddress: BDAddr,
        responderAddressIsRandom: Bool
    ) -> UInt128? {
        guard usesSecureConnections, sawDebugKey, let pka = initiatorPublicKey, let pkb = responderPublicKey,
            let na = mrand, let nb = srand
        else { return nil }
        let a1 = UInt64(initiatorAddressIsRandom ? 1 : 0) << 48 | initiatorAddress.rawValue
        let a2 = UInt64(responderAddressIsRandom ? 1 : 0) << 48 | responderAddress.rawValue
        return pka.withByteView { a in
            pkb.withByteView {
                SecureConnectionsDebugKey.ltk(
                    initiatorPublicKey: a, responderPublicKey: $0, na: na, nb: nb, a1: a1, a2: a2)
            }
        }
    }

    /// The exchange, once the pairing PDUs and both randoms are in (the confirms may be missing:
    /// `crackWithoutConfirm` then). Addresses and types come from the connection (CONNECT_IND's
    /// InitA/TxAdd and AdvA/RxAdd).
    public func exchange(
        initiatorAddress: BDAddr, initiatorAddressIsRandom: Bool, responderAddress: BDAddr,
        responderAddressIsRandom: Bool
    ) -> LegacyPairingExchange? {
        guard let pairingRequest, let pairingResponse, let mrand, let srand else { return nil }
        return LegacyPairingExchange(
            pairingRequest: pairingRequest, pairingResponse: pairingResponse, initiatorAddress: initiatorAddress,
            initiatorAddressIsRandom: initiatorAddressIsRandom, responderAddress: responderAddress,
            responderAddressIsRandom: responderAddressIsRandom, mconfirm: mconfirm, sconfirm: sconfirm, mrand: mrand,
            srand: srand)
    }
}
