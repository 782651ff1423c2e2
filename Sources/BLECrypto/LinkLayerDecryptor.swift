import BLEBytes

/// Decrypts one encrypted connection's data PDUs in capture order, keeping the two packet
/// counters itself.
///
/// Each side counts the non-empty PDUs it sends from 0 after encryption starts (Vol 6 Part E
/// 2.2: LL_START_ENC_RSP is packet 0 in each direction); empty PDUs are never encrypted and
/// do not count. A sniffer misses packets, though, and a retransmission repeats its counter, so
/// when no counter is given the decryptor tries its expected counter, then up to
/// `searchWindow - 1` counters beyond it (missed PDUs), then the previous one (a
/// retransmission), and lets the MIC decide — as crackle does. With no direction (a capture
/// format that does not record it), both directions are tried; with one, the other is tried
/// after it (`correctsDirection`), because sniffers do mislabel a PDU's direction now and then
/// and the MIC, which covers the directionBit, is the better witness (`Match.directionCorrected`
/// says so). A PDU that matches nothing leaves the counters alone.
public struct LinkLayerDecryptor: Sendable {
    public let cipher: LinkLayerCipher
    /// How many counters from the expected one on are tried.
    public var searchWindow: Int
    /// Whether a PDU that does not verify in its stated direction is tried in the other one.
    public var correctsDirection = true
    /// The counter the next new PDU in each direction is expected to carry.
    public private(set) var nextCentralCounter: UInt64 = 0
    public private(set) var nextPeripheralCounter: UInt64 = 0

    /// What a successful decryption used.
    public struct Match: Sendable, Hashable {
        public var direction: LinkLayerDirection
        public var counter: UInt64
        /// The counter was one already used in that direction: a retransmitted PDU.
        public var isRetransmission: Bool
        /// The PDU verified only in the direction opposite to the one it was given with.
        public var directionCorrected: Bool

        public init(
            direction: LinkLayerDirection, counter: UInt64, isRetransmission: Bool, directionCorrected: Bool = false
        ) {
            self.direction = direction
            self.counter = counter
            self.isRetransmission = isRetransmission
            self.directionCorrected = directionCorrected
        }
    }

    public init(cipher: LinkLayerCipher, searchWindow: Int = 16) {
        self.cipher = cipher
        self.searchWindow = max(1, searchWindow)
    }

    /// From the LTK (or, right after legacy pairing, the STK) and LL_ENC_REQ/LL_ENC_RSP's fields.
    public init(ltk: UInt128, skdm: UInt64, ivm: UInt32, skds: UInt64, ivs: UInt32, searchWindow: Int = 16) {
        self.init(
            cipher: LinkLayerCipher(ltk: ltk, parameters: .init(skdm: skdm, ivm: ivm, skds: skds, ivs: ivs)),
            searchWindow: searchWindow)
    }

    public func nextCounter(_ direction: LinkLayerDirection) -> UInt64 {
        direction == .centralToPeripheral ? nextCentralCounter : nextPeripheralCounter
    }

    /// `count` PDUs in `direction` went by without this decryptor (a sniffer decrypted them
    /// itself): their counters are used up.
    public mutating func advance(_ direction: LinkLayerDirection, by count: UInt64 = 1) {
        setNextCounter(direction, nextCounter(direction) + count)
    }

    private mutating func setNextCounter(_ direction: LinkLayerDirection, _ value: UInt64) {
        if direction == .centralToPeripheral { nextCentralCounter = value } else { nextPeripheralCounter = value }
    }

    /// Decrypts `pdu` (the data PDU's payload: ciphertext ‖ MIC) into `plaintext` (replaced).
    /// `header` is the PDU header's first octet. With `counter` given, only that counter is
    /// tried; otherwise the search above. On success the direction's counter moves past the one
    /// used (unless it was a retransmission); nil when no key/counter/direction verifies the MIC.
    public mutating func decrypt(
        pdu: ByteView, header: UInt8, direction: LinkLayerDirection?, counter: UInt64? = nil,
        into plaintext: inout [UInt8]
    ) -> Match? {
        if let match = search(pdu: pdu, header: header, direction: direction, counter: counter, into: &plaintext) {
            return match
        }
        guard correctsDirection, let direction else { return nil }
        let other: LinkLayerDirection = direction == .centralToPeripheral ? .peripheralToCentral : .centralToPeripheral
        guard var match = search(pdu: pdu, header: header, direction: other, counter: counter, into: &plaintext) else {
            return nil
        }
        match.directionCorrected = true
        return match
    }

    private mutating func search(
        pdu: ByteView, header: UInt8, direction: LinkLayerDirection?, counter: UInt64?, into plaintext: inout [UInt8]
    ) -> Match? {
        // The candidate directions, without an array per call.
        let directions = DirectionCandidates(direction)
        // Too short or too long to be an encrypted PDU: no AES work at all.
        guard pdu.count > LinkLayerCipher.micLength,
            pdu.count - LinkLayerCipher.micLength <= LinkLayerCipher.maximumPlaintextLength
        else {
            plaintext.removeAll(keepingCapacity: true)
            return nil
        }
        if let counter {
            for d in directions
            where cipher.decrypt(pdu, header: header, counter: counter, direction: d, into: &plaintext) {
                let next = nextCounter(d)
                if counter >= next { setNextCounter(d, counter + 1) }
                return Match(direction: d, counter: counter, isRetransmission: counter < next)
            }
            return nil
        }
        for step in 0..<searchWindow {
            for d in directions {
                let c = nextCounter(d) + UInt64(step)
                if cipher.decrypt(pdu, header: header, counter: c, direction: d, into: &plaintext) {
                    setNextCounter(d, c + 1)
                    return Match(direction: d, counter: c, isRetransmission: false)
                }
            }
        }
        for d in directions where nextCounter(d) > 0 {
            let c = nextCounter(d) - 1
            if cipher.decrypt(pdu, header: header, counter: c, direction: d, into: &plaintext) {
                return Match(direction: d, counter: c, isRetransmission: true)
            }
        }
        return nil
    }

    /// Convenience (allocates): the plaintext, or nil.
    public mutating func decrypt(pdu: [UInt8], header: UInt8, direction: LinkLayerDirection?, counter: UInt64? = nil)
        -> (plaintext: [UInt8], match: Match)?
    {
        var out: [UInt8] = []
        let match = pdu.withByteView {
            decrypt(pdu: $0, header: header, direction: direction, counter: counter, into: &out)
        }
        return match.map { (out, $0) }
    }
}

/// One given direction, or both: a tiny sequence that does not allocate.
struct DirectionCandidates: Sequence, IteratorProtocol {
    private var remaining: UInt8

    init(_ direction: LinkLayerDirection?) {
        switch direction {
        case .centralToPeripheral: remaining = 0b01
        case .peripheralToCentral: remaining = 0b10
        case nil: remaining = 0b11
        }
    }

    mutating func next() -> LinkLayerDirection? {
        if remaining & 0b01 != 0 {
            remaining &= ~0b01
            return .centralToPeripheral
        }
        if remaining & 0b10 != 0 {
            remaining = 0
            return .peripheralToCentral
        }
        return nil
    }
}
