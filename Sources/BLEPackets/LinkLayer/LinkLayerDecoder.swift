import BLEBytes
import CaptureIO

/// One over-the-air packet decoded: the PDU, its CRC status and what it did to its connection.
/// Views into the record's payload (or the reassembler's buffer), valid until the next record.
public struct LinkLayerFrame: @unchecked Sendable {
    public enum CRCStatus: UInt8, Sendable {
        case valid
        case invalid
        /// Neither the sniffer nor blecap could check it (data PDU of a connection whose
        /// CONNECT_IND is not in the capture, or a packet cut before its CRC).
        case unchecked
    }

    public enum PDU: @unchecked Sendable {
        case advertising(LLAdvertisingPDU)
        case data(LLDataPDU)
        /// Shorter than its own 2-byte header.
        case truncated
    }

    public let pdu: PDU
    /// The PDU's bytes (header and payload, no CRC).
    public let bytes: ByteView
    public let crc: CRCStatus
    /// The connection number the decoder gave the access address (1, 2, …; doubles as the
    /// L2CAP reassembler's handle): for a CONNECT_IND the connection it opens, 0 for other
    /// advertising channel PDUs.
    public let connection: UInt16
    /// A copy of the same side's previous PDU (Vol 6 Part B 4.5.9): the same SN, LLID and
    /// payload.
    /// Kept out of reassembly and counts.
    public let isRetransmission: Bool
    /// The payload is ciphertext: sent after the peripheral's LL_START_ENC_REQ (4.6.8.2
    /// step 3) and not decrypted by the sniffer. Not decoded further.
    public let isEncrypted: Bool
    /// The payload was ciphertext and blecap decrypted it: `pdu` and `bytes` are the
    /// plaintext PDU (Length without the MIC), as a sniffer that decrypts hands it over.
    public var isDecrypted = false
    /// Ciphertext whose MIC the link's key did not verify (damaged, or a packet counter beyond
    /// what the decryptor searches): still ciphertext, also `isEncrypted`.
    public var micFailure = false
    /// Where the link's decryptability was decided (once per encryption start).
    public var decryption: LinkLayerDecryptionNote?
    /// The sender the MIC verified, where the capture gives none or the other one: the nonce's
    /// directionBit is authenticated, so a decrypted PDU's direction is known for certain, and
    /// L2CAP, ATT and the timeline take the PDU in that direction. Nil where the capture was
    /// right (or the PDU was not decrypted).
    public var senderPerMIC: LinkLayerRadio.Sender?

    /// The sender to believe: the MIC's where it spoke, else the capture's.
    public func sender(_ radio: LinkLayerRadio) -> LinkLayerRadio.Sender { senderPerMIC ?? radio.sender }

    public var advertising: LLAdvertisingPDU? {
        if case .advertising(let a) = pdu { return a }
        return nil
    }

    public var data: LLDataPDU? {
        if case .data(let d) = pdu { return d }
        return nil
    }

    /// The LL Control PDU, when this is one and it is readable.
    public var control: LLControlPDU? {
        guard !isEncrypted, let d = data, d.isControl else { return nil }
        return LLControlPDU(d.payload)
    }
}

/// Decodes `.linkLayer` records: advertising and data channel PDUs, CRC, per-connection state
/// (CRCInit from CONNECT_IND, sequence numbers, encryption) and L2CAP reassembly from LL
/// fragments (LLID 10 start, 01 continuation: the ACL Packet_Boundary_Flag's meanings) through
/// the same `L2CAPReassembler` HCI captures use.
///
/// State is bounded: at most `maximumConnections` access addresses, the stalest forgotten
/// first; a new one costs one slot in a fixed table, a packet nothing.
///
/// Encrypted links are decrypted where a key is at hand (`LinkSecurity`): recovered from a
/// legacy pairing on the link, given with `keys`, or distributed by an earlier pairing in the
/// capture. Decrypted PDUs continue as plaintext through the same path.
public final class LinkLayerDecoder {
    public static let maximumConnections = 64

    struct Link {
        var accessAddress: UInt32
        var number: UInt16
        var crcInit: UInt32?
        /// Each side's previous SN and content fingerprint, once it has one (index 0 central,
        /// 1 peripheral).
        var previousSN: (Bool, Bool) = (false, false)
        var hasPrevious: (Bool, Bool) = (false, false)
        var previousContent: (UInt32, UInt32) = (0, 0)
        /// The peripheral's LL_START_ENC_REQ was seen: later non-empty PDUs are encrypted.
        var encrypted = false
        var stamp: UInt64 = 0
    }

    /// All mutable state in one value, changed by one mutating call per record: a class's
    /// stored properties each cost a dynamic exclusivity check per access, a struct's fields
    /// inside a mutating method none. That one access is unchecked too: a decoder is confined
    /// to the thread that feeds it, and `LinkTable.decode` calls out only to the reassembler,
    /// which cannot reach the decoder.
    @exclusivity(unchecked) var table: LinkTable
    let reassembler: L2CAPReassembler

    public init(reassembler: L2CAPReassembler, keys: LinkLayerKeys = LinkLayerKeys()) {
        self.reassembler = reassembler
        table = LinkTable(keys: keys)
    }

    deinit { table.plainBuffer.deallocate() }

    /// The `--ltk` keys whose MIC verified on no link so far (none: every key given was used).
    public var keysMatchingNoLink: [LinkLayerKeys.Key] {
        table.keys.keys.filter { !table.matchedKeys.contains($0.ltk) }
    }

    /// The connection number of `accessAddress`, if the decoder knows it.
    public func connectionNumber(accessAddress: UInt32) -> UInt16? {
        table.index(of: accessAddress).map { table.links[$0].number }
    }

    /// `l2cap`: for an LLID 1/2 data PDU that reached the reassembler, what the fragment did
    /// (else nil). Kept out of `LinkLayerFrame` for the reason `DecodedFrame.reassembly` gives.
    public func decode(_ record: CaptureRecord, l2cap: inout L2CAPReassemblyResult?) -> LinkLayerFrame {
        table.decode(record, reassembler, l2cap: &l2cap)
    }

    /// FNV-1a over LLID, Length and payload: what a retransmitted copy repeats.
    static func fingerprint(_ pdu: LLDataPDU) -> UInt32 {
        var h: UInt32 = 0x811C_9DC5
        h = (h ^ UInt32(pdu.llid)) &* 0x0100_0193
        h = (h ^ UInt32(pdu.length)) &* 0x0100_0193
        for b in pdu.payload.base { h = (h ^ UInt32(b)) &* 0x0100_0193 }
        return h
    }

    /// CRC status: the sniffer's verdict when it gives one, else computed when the CRCInit is
    /// known and the three CRC bytes are there.
    static func status(_ radio: LinkLayerRadio, _ raw: ByteView, pduLength: Int, crcInit: UInt32?)
        -> LinkLayerFrame.CRCStatus
    {
        if radio.flags.contains(.crcChecked) { return radio.flags.contains(.crcValid) ? .valid : .invalid }
        guard let crcInit, let pdu = raw.slice(0, pduLength), let received = raw.u24le(pduLength) else {
            return .unchecked
        }
        return LinkLayerCRC.compute(pdu, crcInit: crcInit) == received ? .valid : .invalid
    }
}

/// The decoder's links (at most `LinkLayerDecoder.maximumConnections`) and counters.
struct LinkTable {
    typealias Link = LinkLayerDecoder.Link

    var links: [Link] = []
    /// `links[i]`'s encryption bookkeeping, slot for slot.
    var security: [LinkSecurity] = []
    let keys: LinkLayerKeys
    /// LTKs the capture's pairings distributed (SMP Encryption Information), with their frame:
    /// a later connection of the same devices encrypts with one of them. A few at most.
    var distributed: [(ltk: UInt128, frame: Int)] = []
    static let maximumDistributedKeys = 16
    /// TK tries for the whole capture: three worst-case legacy pairings (about 1 s in a release
    /// build, docs/link-layer-encryption.md), then later ones say the budget is spent.
    var crackBudget = 3 * (Int(LegacyPairingCracker.maximumPasskey) + 1)
    /// Keys that decrypted a link (`keysMatchingNoLink`).
    var matchedKeys: Set<UInt128> = []
    /// The decryptor's output, reused.
    var plaintext: [UInt8] = []
    /// A decrypted PDU (header and plaintext) for the frame's views: it stays valid until the
    /// next record, as the record's own payload does. Owned by `LinkLayerDecoder`.
    let plainBuffer: UnsafeMutableRawBufferPointer
    var nextNumber: UInt16 = 1
    var clock: UInt64 = 0
    /// The slot the previous data PDU used: consecutive PDUs are mostly on one link.
    var recent = 0

    init(keys: LinkLayerKeys) {
        self.keys = keys
        links.reserveCapacity(LinkLayerDecoder.maximumConnections)
        security.reserveCapacity(LinkLayerDecoder.maximumConnections)
        plaintext.reserveCapacity(LinkLayerCipher.maximumPlaintextLength)
        plainBuffer = .allocate(byteCount: 3 + 255, alignment: 1)
    }

    mutating func decode(
        _ record: CaptureRecord, _ reassembler: L2CAPReassembler, l2cap result: inout L2CAPReassemblyResult?
    ) -> LinkLayerFrame {
        result = nil
        let radio = record.radio
        let raw = record.payload
        guard let h1 = raw.u8(1) else {
            return LinkLayerFrame(
                pdu: .truncated, bytes: raw, crc: .unchecked, connection: 0, isRetransmission: false,
                isEncrypted: false)
        }
        if radio.isAdvertising {
            let bytes = raw.prefix(2 + Int(h1))
            let crc = LinkLayerDecoder.status(radio, raw, pduLength: bytes.count, crcInit: LLCRCInit.advertising)
            let adv = LLAdvertisingPDU(bytes)!
            // A CONNECT_IND opens a connection on its access address with a known CRCInit.
            var opened: UInt16 = 0
            if adv.pduType == LLAdvertisingPDUType.connectInd, crc != .invalid, let ci = adv.connectIndication {
                let i = startLink(ci.accessAddress, reassembler)
                links[i].crcInit = ci.crcInit
                opened = links[i].number
                (security[i].central, security[i].centralRandom) = (adv.scanOrInitA, adv.txAdd)
                (security[i].peripheral, security[i].peripheralRandom) = (adv.advA, adv.rxAdd)
            }
            return LinkLayerFrame(
                pdu: .advertising(adv), bytes: bytes, crc: crc, connection: opened, isRetransmission: false,
                isEncrypted: false)
        }

        let cp = (raw.u8(0) ?? 0) & 0x20 != 0
        var bytes = raw.prefix(2 + (cp ? 1 : 0) + Int(h1))
        let i = link(radio.accessAddress, reassembler)
        recent = i
        clock &+= 1
        links[i].stamp = clock
        let crc = LinkLayerDecoder.status(radio, raw, pduLength: bytes.count, crcInit: links[i].crcInit)
        guard var pdu = LLDataPDU(bytes) else {
            return LinkLayerFrame(
                pdu: .truncated, bytes: bytes, crc: crc, connection: links[i].number, isRetransmission: false,
                isEncrypted: false)
        }
        let number = links[i].number
        // A PDU whose CRC failed is noise: it neither acknowledges nor carries anything.
        guard crc != .invalid else {
            return LinkLayerFrame(
                pdu: .data(pdu), bytes: bytes, crc: crc, connection: number, isRetransmission: false,
                isEncrypted: false)
        }
        // Retransmission (4.5.9): a side whose PDU was not acknowledged (or that did not hear
        // the acknowledgement) sends the same PDU again: same SN, same LLID and payload (the
        // NESN, and so the CRC, may differ). The same SN with other content means the sniffer
        // missed a PDU in between (or a sniffer logged its own queued PDU that never went out):
        // new data. Wireshark looks at SN alone and calls those retransmissions too.
        var retransmission = false
        if radio.sender != .unknown {
            let content = LinkLayerDecoder.fingerprint(pdu)
            if radio.sender == .central {
                retransmission =
                    links[i].hasPrevious.0 && links[i].previousSN.0 == pdu.sn && links[i].previousContent.0 == content
                (links[i].previousSN.0, links[i].hasPrevious.0, links[i].previousContent.0) = (pdu.sn, true, content)
            } else {
                retransmission =
                    links[i].hasPrevious.1 && links[i].previousSN.1 == pdu.sn && links[i].previousContent.1 == content
                (links[i].previousSN.1, links[i].hasPrevious.1, links[i].previousContent.1) = (pdu.sn, true, content)
            }
        }
        // Ciphertext unless the sniffer decrypted it (256 "decrypted", 272 MIC OK). The nRF
        // Sniffer says per PDU whether the link is encrypted; elsewhere blecap's own
        // LL_START_ENC_REQ bookkeeping decides. Empty PDUs carry no MIC and stay readable.
        let sniffedPlaintext =
            radio.flags.contains(.decrypted)
            || (radio.flags.contains(.micChecked) && radio.flags.contains(.micValid))
        let linkEncrypted =
            radio.flags.contains(.encryptionKnown) ? radio.flags.contains(.encrypted) : links[i].encrypted
        var encrypted = linkEncrypted && pdu.length > 0 && !sniffedPlaintext
        var decrypted = false
        var micFailure = false
        var senderPerMIC: LinkLayerRadio.Sender? = nil
        var note: LinkLayerDecryptionNote? = nil
        if sniffedPlaintext, links[i].encrypted, pdu.length > 0, !retransmission {
            security[i].sniffedPlaintextPDU(Self.direction(radio.sender))
        }
        // The sniffer calls a PDU plaintext although blecap's own LL bookkeeping has the link
        // encrypted: a sniffer that lost the link's encryption state (bsniffhub's nRF capture
        // flags the peripheral's ciphertext "not encrypted" from frame 504 on). The MIC decides.
        let disputed =
            !encrypted && !sniffedPlaintext && links[i].encrypted && pdu.length > 0 && security[i].isDecrypting
        if encrypted || disputed {
            switch decrypt(i, pdu, bytes, radio.sender, retransmission: retransmission, &note) {
            case .decrypted(let plain, let match):
                (pdu, bytes) = plain
                (encrypted, decrypted) = (false, true)
                // Without a direction there was no SN check: the packet counter tells.
                retransmission = retransmission || match.isRetransmission
                let verified: LinkLayerRadio.Sender = match.direction == .centralToPeripheral ? .central : .peripheral
                if verified != radio.sender { senderPerMIC = verified }
            case .micFailure: micFailure = encrypted
            case .unreadable: break
            }
        }
        if retransmission || encrypted {
            return LinkLayerFrame(
                pdu: .data(pdu), bytes: bytes, crc: crc, connection: number, isRetransmission: retransmission,
                isEncrypted: encrypted, isDecrypted: decrypted, micFailure: micFailure, decryption: note,
                senderPerMIC: senderPerMIC)
        }
        // A sniffer that decrypted hands over the plaintext with Length counting it alone (the
        // nRF Sniffer drops the MIC), so the payload is used as it is.
        let payload = pdu.payload
        switch pdu.llid {
        case LLID.control:
            let opcode = payload.u8(0)
            if opcode == LLControlOpcode.startEncReq, radio.sender != .central {
                links[i].encrypted = true
                security[i].startEncryption()
            } else if opcode == LLControlOpcode.pauseEncRsp, radio.sender != .peripheral, !decrypted {
                // The central's, in the clear (the peripheral's is encrypted: 5.1.3.2).
                links[i].encrypted = false
                security[i].pauseEncryption()
            } else if opcode == LLControlOpcode.encReq || opcode == LLControlOpcode.encRsp {
                security[i].observeControl(payload)
            }
        case LLID.start, LLID.continuation:
            guard pdu.length > 0 else { break }
            let acl = HCIACLPacket(
                handle: number, boundary: pdu.llid == LLID.start ? .firstFlushable : .continuing, data: payload)
            var direction = record.direction
            if let s = senderPerMIC { direction = s == .central ? .sent : .received }
            result = reassembler.feed(acl, frame: record.frame, direction: direction)
            if case .complete(let l2)? = result, l2.channel == L2CAPChannel.smp {
                observeSMP(i, l2.payload, senderPerMIC ?? radio.sender, frame: record.frame)
            }
        default: break
        }
        return LinkLayerFrame(
            pdu: .data(pdu), bytes: bytes, crc: crc, connection: number, isRetransmission: false,
            isEncrypted: false, isDecrypted: decrypted, micFailure: micFailure, decryption: note,
            senderPerMIC: senderPerMIC)
    }

    enum Decryption {
        case decrypted((LLDataPDU, ByteView), LinkLayerDecryptor.Match)
        case micFailure
        case unreadable
    }

    static func direction(_ sender: LinkLayerRadio.Sender) -> LinkLayerDirection? {
        switch sender {
        case .central: .centralToPeripheral
        case .peripheral: .peripheralToCentral
        default: nil
        }
    }

    /// An encrypted data PDU through its link's key: on success the plaintext PDU (the header
    /// with Length counting the plaintext, CTEInfo kept) in `plainBuffer`.
    mutating func decrypt(
        _ i: Int, _ pdu: LLDataPDU, _ bytes: ByteView, _ sender: LinkLayerRadio.Sender, retransmission: Bool,
        _ note: inout LinkLayerDecryptionNote?
    ) -> Decryption {
        guard let header = bytes.u8(0) else { return .unreadable }
        var context = LinkSecurity.Context(
            accessAddress: links[i].accessAddress, keys: keys, distributed: distributed, crackBudget: crackBudget)
        let outcome = security[i].decrypt(
            pdu.payload, header: header, direction: Self.direction(sender), retransmission: retransmission,
            context: &context, into: &plaintext, note: &note)
        crackBudget = context.crackBudget
        if case .decrypting(let source)? = note { matchedKeys.insert(source.key) }
        switch outcome {
        case .unreadable: return .unreadable
        case .micFailure: return .micFailure
        case .decrypted(let match):
            let headerLength = pdu.cp ? 3 : 2
            guard plaintext.count <= plainBuffer.count - headerLength else { return .micFailure }
            UnsafeMutableRawBufferPointer(rebasing: plainBuffer[..<headerLength])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.base[..<headerLength]))
            plainBuffer[1] = UInt8(plaintext.count)
            UnsafeMutableRawBufferPointer(rebasing: plainBuffer[headerLength...]).copyBytes(from: plaintext)
            let view = ByteView(UnsafeRawBufferPointer(rebasing: plainBuffer[0..<(headerLength + plaintext.count)]))
            guard let plain = LLDataPDU(view) else { return .micFailure }
            return .decrypted((plain, view), match)
        }
    }

    /// An SMP PDU completed on link `i`: the pairing's values for key recovery, and an LTK the
    /// key distribution sends (Encryption Information, Vol 3 Part H 3.6.2), which a later
    /// connection of the same devices will use.
    mutating func observeSMP(_ i: Int, _ smp: ByteView, _ sender: LinkLayerRadio.Sender, frame: Int) {
        security[i].observeSMP(smp, direction: Self.direction(sender))
        guard smp.u8(0) == 0x06, smp.count == 17, let ltk = smp.littleEndianUInt128(at: 1),
            !distributed.contains(where: { $0.ltk == ltk })
        else { return }
        if distributed.count >= Self.maximumDistributedKeys { distributed.removeFirst() }
        distributed.append((ltk, frame))
    }

    /// A plain loop: the generic `firstIndex(where:)` copies the element through a heap box
    /// when unspecialized (debug builds), once per packet.
    func index(of accessAddress: UInt32) -> Int? {
        if recent < links.count, links[recent].accessAddress == accessAddress { return recent }
        var i = 0
        while i < links.count {
            if links[i].accessAddress == accessAddress { return i }
            i += 1
        }
        return nil
    }

    /// The slot of `accessAddress`, created (a connection that started before the capture)
    /// when unknown.
    mutating func link(_ accessAddress: UInt32, _ reassembler: L2CAPReassembler) -> Int {
        if let i = index(of: accessAddress) { return i }
        return startLink(accessAddress, reassembler)
    }

    /// A fresh slot for `accessAddress` (a CONNECT_IND reusing an address starts over).
    @discardableResult
    mutating func startLink(_ accessAddress: UInt32, _ reassembler: L2CAPReassembler) -> Int {
        clock &+= 1
        let fresh = Link(accessAddress: accessAddress, number: nextNumber, stamp: clock)
        nextNumber = nextNumber >= 0x0EFF ? 1 : nextNumber + 1
        if let i = index(of: accessAddress) {
            _ = reassembler.reset(handle: links[i].number, controllerIndex: 0)
            links[i] = fresh
            security[i] = LinkSecurity()
            return i
        }
        if links.count < LinkLayerDecoder.maximumConnections {
            links.append(fresh)
            security.append(LinkSecurity())
            return links.count - 1
        }
        var stalest = 0
        for i in links.indices where links[i].stamp < links[stalest].stamp { stalest = i }
        _ = reassembler.reset(handle: links[stalest].number, controllerIndex: 0)
        links[stalest] = fresh
        security[stalest] = LinkSecurity()
        return stalest
    }
}
