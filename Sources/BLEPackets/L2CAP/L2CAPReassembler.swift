import BLEBytes
import CaptureIO

/// One L2CAP basic-frame PDU (Core 5.4 Vol 3 Part A 3.1): Length (u16), Channel ID (u16),
/// Information payload, with where it came from.
///
/// `payload` is a view into the ACL packet that was fed when the PDU fitted in one packet,
/// or into the reassembler's buffer when it was fragmented. Either way it is valid only until
/// the next `feed`/`reset` call (and, for the first case, while the record's bytes are).
public struct L2CAPPDU: @unchecked Sendable {
    public let controllerIndex: UInt16
    public let handle: UInt16
    public let direction: Direction
    /// The basic header's Length field (payload bytes, header excluded).
    public let length: UInt16
    public let channel: UInt16
    public let payload: ByteView
    /// Frames of the first and last ACL fragments. Upper layers belong to `lastFrame`, which
    /// is where tshark shows a reassembled PDU.
    public let firstFrame: Int
    public let lastFrame: Int
    public let fragmentCount: Int

    /// The capture cut this PDU: `payload` holds fewer bytes than `length` says.
    @inlinable public var isTruncated: Bool { payload.count < Int(length) }
}

/// A partial PDU thrown away because a new start fragment arrived on its stream, its stream
/// was evicted to make room, or its connection was reset. Only metadata: its bytes are gone.
public struct L2CAPAbandoned: Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        /// A start fragment arrived while this PDU still waited for continuations.
        case restarted
        /// More streams had pending PDUs than the reassembler keeps; this was the stalest.
        case evicted
    }
    public let reason: Reason
    public let controllerIndex: UInt16
    public let handle: UInt16
    public let direction: Direction
    public let firstFrame: Int
    public let lastFrame: Int
    public let fragmentCount: Int
    /// Bytes collected, L2CAP header included.
    public let collected: Int
    /// 4 + the L2CAP Length, when the header had arrived.
    public let expected: Int?
}

/// What one ACL fragment did to its stream.
public enum L2CAPReassemblyResult: @unchecked Sendable {
    /// A whole PDU ends in this fragment.
    case complete(L2CAPPDU)
    /// Buffered; more fragments are expected.
    case incomplete
    /// The fragment does not fit the protocol. `raw` is the fragment's data; `salvaged` is the
    /// PDU that could still be delimited (e.g. the first `Length` bytes when a fragment carries
    /// more than the L2CAP length), so its upper layer can be decoded.
    case malformed(note: StaticString, raw: ByteView, salvaged: L2CAPPDU?)

    @inlinable public var isComplete: Bool {
        if case .complete = self { return true }
        return false
    }

    /// The PDU completed, or salvaged from a malformed fragment.
    @inlinable public var pdu: L2CAPPDU? {
        switch self {
        case .complete(let pdu): pdu
        case .malformed(_, _, let salvaged): salvaged
        case .incomplete: nil
        }
    }
}

/// Reassembles L2CAP PDUs from HCI ACL fragments (Core 5.4 Vol 3 Part A 7.2), one stream per
/// (controller index, connection handle, direction).
///
/// Allocation: a PDU contained in one ACL packet is returned as a view into that packet. Only
/// fragmented PDUs are copied, into one of at most `maximumStreams` slot buffers of
/// 65535 + 4 bytes each, allocated the first time a slot is needed and reused afterwards.
/// Streams hold a slot only while a PDU is pending, so thousands of connections over a capture
/// cost nothing; when more are pending at once the stalest is evicted (and reported through
/// `abandoned`).
public final class L2CAPReassembler {
    /// Largest L2CAP basic frame: 4-byte header + 65535-byte payload.
    public static let maximumPDUSize = 65535 + 4

    struct Key: Equatable {
        var controllerIndex: UInt16
        var handle: UInt16
        var direction: Direction
    }

    /// Unchecked like the reassembler's own state (see `slots`).
    final class Slot {
        @exclusivity(unchecked) var key = Key(controllerIndex: 0, handle: 0, direction: .unknown)
        @exclusivity(unchecked) var inUse = false
        let buffer: UnsafeMutableRawBufferPointer
        var count = 0
        var firstFrame = 0
        var lastFrame = 0
        var fragments = 0
        var stamp: UInt64 = 0

        init() {
            buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: L2CAPReassembler.maximumPDUSize, alignment: 8)
        }
        deinit { buffer.deallocate() }

        /// 4 + L2CAP Length once the header is in, else nil.
        var expected: Int? {
            guard count >= 4 else { return nil }
            return 4 + Int(UInt16(buffer[0]) | UInt16(buffer[1]) << 8)
        }

        func append(_ data: ByteView, upTo limit: Int) -> Int {
            let n = min(data.count, max(0, limit - count))
            if n > 0, let src = data.base.baseAddress {
                (buffer.baseAddress! + count).copyMemory(from: src, byteCount: n)
                count += n
            }
            return n
        }

        var view: ByteView { ByteView(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) }
    }

    public let maximumStreams: Int
    // `@exclusivity(unchecked)` on what every ACL packet touches: a checked access to a class's
    // stored `var` is a `swift_beginAccess` call, three or more per packet here, 4 % of `blecap
    // lint` on the bench capture. A reassembler is confined to the thread that feeds it and no
    // access spans a call out of it, so no check could fire.
    @exclusivity(unchecked) var slots: [Slot] = []
    @exclusivity(unchecked) var clock: UInt64 = 0

    /// The partial PDU discarded by the last `feed` call, if it discarded one (nil otherwise).
    @exclusivity(unchecked) public private(set) var abandoned: L2CAPAbandoned?

    /// - Parameter maximumStreams: how many streams may have a PDU pending at once (1…4096).
    public init(maximumStreams: Int = 16) {
        self.maximumStreams = min(max(maximumStreams, 1), 4096)
    }

    /// Number of streams with a pending (incomplete) PDU.
    public var pendingCount: Int { slots.reduce(0) { $0 + ($1.inUse ? 1 : 0) } }

    /// Feeds an ACL record; nil when the record is not ACL data.
    public func feed(_ record: CaptureRecord) -> L2CAPReassemblyResult? {
        guard record.kind == .aclData else { return nil }
        guard let acl = HCIACLPacket(record.payload) else {
            abandoned = nil
            return .malformed(note: "ACL header truncated", raw: record.payload, salvaged: nil)
        }
        return feed(acl, frame: record.frame, direction: record.direction, controllerIndex: record.controllerIndex)
    }

    public func feed(
        _ acl: HCIACLPacket, frame: Int, direction: Direction, controllerIndex: UInt16 = 0
    ) -> L2CAPReassemblyResult {
        abandoned = nil
        clock &+= 1
        let key = Key(controllerIndex: controllerIndex, handle: acl.handle, direction: direction)
        let pending = slots.firstIndex { $0.inUse && $0.key == key }
        let data = acl.data

        if acl.boundary.isStart {
            if let i = pending {
                abandoned = abandon(slots[i], reason: .restarted)
            }
            if let len = data.u16le(0), let cid = data.u16le(2) {
                let total = 4 + Int(len)
                if data.count >= total {
                    let pdu = L2CAPPDU(
                        controllerIndex: controllerIndex, handle: acl.handle, direction: direction,
                        length: len, channel: cid, payload: data.slice(4, Int(len))!,
                        firstFrame: frame, lastFrame: frame, fragmentCount: 1)
                    if data.count == total { return .complete(pdu) }
                    return .malformed(note: "more bytes than the L2CAP length", raw: data, salvaged: pdu)
                }
            }
            // Fragmented (or even the header split): copy into a slot.
            let slot = pending.map { slots[$0] } ?? takeSlot()
            slot.key = key
            slot.inUse = true
            slot.count = 0
            slot.firstFrame = frame
            slot.lastFrame = frame
            slot.fragments = 1
            slot.stamp = clock
            _ = slot.append(data, upTo: L2CAPReassembler.maximumPDUSize)
            return .incomplete
        }

        guard let i = pending else {
            return .malformed(note: "continuation without start", raw: data, salvaged: nil)
        }
        let slot = slots[i]
        slot.lastFrame = frame
        slot.fragments += 1
        slot.stamp = clock
        // While the header is incomplete the slot takes everything (it always fits: < 4 bytes
        // plus at most 65535); afterwards only up to the declared length.
        let taken = slot.append(data, upTo: slot.expected ?? L2CAPReassembler.maximumPDUSize)
        guard let expected = slot.expected else { return .incomplete }
        if slot.count < expected { return .incomplete }
        slot.inUse = false
        let pdu = makePDU(slot, count: expected)
        if taken < data.count || slot.count > expected {
            return .malformed(note: "more bytes than the L2CAP length", raw: data, salvaged: pdu)
        }
        return .complete(pdu)
    }

    /// Forgets pending PDUs of a connection (call on Disconnection Complete: handles are
    /// reused). Returns how many partial PDUs were dropped.
    @discardableResult
    public func reset(handle: UInt16, controllerIndex: UInt16 = 0) -> Int {
        var dropped = 0
        for s in slots where s.inUse && s.key.handle == handle && s.key.controllerIndex == controllerIndex {
            s.inUse = false
            dropped += 1
        }
        return dropped
    }

    /// Forgets every pending PDU (keeps the buffers).
    public func reset() {
        for s in slots { s.inUse = false }
    }

    func makePDU(_ slot: Slot, count: Int) -> L2CAPPDU {
        let view = slot.view
        return L2CAPPDU(
            controllerIndex: slot.key.controllerIndex, handle: slot.key.handle, direction: slot.key.direction,
            length: view.u16le(0)!, channel: view.u16le(2)!, payload: view.slice(4, count - 4)!,
            firstFrame: slot.firstFrame, lastFrame: slot.lastFrame, fragmentCount: slot.fragments)
    }

    func abandon(_ slot: Slot, reason: L2CAPAbandoned.Reason) -> L2CAPAbandoned {
        slot.inUse = false
        return L2CAPAbandoned(
            reason: reason, controllerIndex: slot.key.controllerIndex, handle: slot.key.handle,
            direction: slot.key.direction, firstFrame: slot.firstFrame, lastFrame: slot.lastFrame,
            fragmentCount: slot.fragments, collected: slot.count, expected: slot.expected)
    }

    /// A free slot: an idle one, a new one while under the cap, else the stalest pending one.
    func takeSlot() -> Slot {
        if let free = slots.first(where: { !$0.inUse }) { return free }
        if slots.count < maximumStreams {
            let s = Slot()
            slots.append(s)
            return s
        }
        var victim = slots[0]
        for s in slots where s.stamp < victim.stamp { victim = s }
        abandoned = abandon(victim, reason: .evicted)
        return victim
    }
}
