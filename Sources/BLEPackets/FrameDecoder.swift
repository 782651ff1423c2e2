import BLEBytes
import CaptureIO

/// One capture record decoded as far as its layers go. Every part is a view into the record's
/// payload (or the reassembler's buffer), valid until the next record is read.
public struct DecodedFrame: @unchecked Sendable {
    public let record: CaptureRecord
    public let layer: Layer
    /// For an ACL record, the L2CAP PDU its fragment completed or salvaged (`l2cap`), kept
    /// flat beside the layer: a `switch` on the 218-byte layer copies it whole first (one
    /// `memcpy` per consumer per frame, ~55 instructions), so the timeline builder and `info`
    /// take an ACL frame's PDU from here (`info` on 100 k frames: 188.7 -> 178.8 M instructions).
    public let aclPDU: L2CAPPDU?
    /// `aclPDU` is a whole PDU (`.complete`), not one salvaged from a malformed fragment.
    public let aclPDUIsComplete: Bool

    init(record: CaptureRecord, layer: Layer, aclPDU: L2CAPPDU? = nil, aclPDUIsComplete: Bool = false) {
        self.record = record
        self.layer = layer
        self.aclPDU = aclPDU
        self.aclPDUIsComplete = aclPDUIsComplete
    }

    public enum Layer: @unchecked Sendable {
        case command(HCICommandPacket)
        case event(HCIEventPacket)
        /// An ACL packet and what it did to its L2CAP stream.
        case acl(HCIACLPacket, L2CAPReassemblyResult?)
        /// SCO/ISO data, container metadata and text records: the record payload as it is.
        case other
        /// An HCI packet too short for its own header.
        case malformed(StaticString)
        /// An over-the-air Link Layer packet (sniffer capture) and, for data PDUs, what it did
        /// to its connection's L2CAP stream.
        case linkLayer(LinkLayerFrame)
    }

    /// The L2CAP PDU this frame completed, if any (also a salvaged PDU from a malformed
    /// fragment, so its upper layer is still decoded).
    public var l2cap: L2CAPPDU? {
        // The PDU bound straight out of the layer: going through a copy of the whole
        // reassembly result first was three `memcpy` calls per frame for each caller.
        // Only a Link Layer record's layer holds a PDU besides `aclPDU`.
        guard record.kind == .linkLayer else { return aclPDU }
        switch layer {
        case .linkLayer(let ll):
            switch ll.l2cap {
            case .complete(let pdu)?: return pdu
            case .malformed(_, _, let salvaged)?: return salvaged
            case .incomplete?, nil: return nil
            }
        default: return nil
        }
    }

    /// The ATT PDU bytes (opcode first) this frame completed, if any.
    public var attPayload: ByteView? {
        guard let pdu = l2cap, pdu.channel == L2CAPChannel.att else { return nil }
        return pdu.payload
    }

    /// A BlueZ management command (Linux monitor control command record).
    public var managementCommand: BlueZManagementCommand? {
        record.kind == .controlCommand ? BlueZManagementCommand(record.payload) : nil
    }

    /// A BlueZ management event (Linux monitor control event record).
    public var managementEvent: BlueZManagementEvent? {
        record.kind == .controlEvent ? BlueZManagementEvent(record.payload) : nil
    }

    /// The decoded Link Layer packet of a sniffer record.
    public var linkLayer: LinkLayerFrame? {
        if case .linkLayer(let ll) = layer { return ll }
        return nil
    }

    public var connectionHandle: UInt16? {
        if case .acl(let acl, _) = layer { return acl.handle }
        if case .linkLayer(let ll) = layer, ll.connection != 0 { return ll.connection }
        if record.kind == .scoData || record.kind == .isoData, let h = record.payload.u16le(0) {
            return h & 0x0FFF
        }
        return nil
    }
}

/// Turns records into `DecodedFrame`s: HCI headers, and ACL through L2CAP reassembly. Keeps
/// only bounded per-connection reassembly state; no allocation per frame.
public final class FrameDecoder {
    public let reassembler: L2CAPReassembler
    /// Link Layer state (access addresses, CRCInit, sequence numbers) for sniffer captures.
    public let linkLayer: LinkLayerDecoder

    /// `keys`: Long Term Keys for encrypted links of over-the-air captures (`--ltk`).
    public init(reassembler: L2CAPReassembler = L2CAPReassembler(), keys: LinkLayerKeys = LinkLayerKeys()) {
        self.reassembler = reassembler
        self.linkLayer = LinkLayerDecoder(reassembler: reassembler, keys: keys)
    }

    public func decode(_ record: CaptureRecord) -> DecodedFrame {
        switch record.kind {
        case .hciCommand:
            guard let command = HCICommandPacket(record.payload) else {
                return DecodedFrame(record: record, layer: .malformed("HCI command shorter than its 3-byte header"))
            }
            return DecodedFrame(record: record, layer: .command(command))
        case .hciEvent:
            guard let event = HCIEventPacket(record.payload) else {
                return DecodedFrame(record: record, layer: .malformed("HCI event shorter than its 2-byte header"))
            }
            // A handle is reused after Disconnection Complete (Bumble hands out 0x0001 again):
            // drop any half-reassembled PDU so it cannot be glued to the next connection's data.
            if event.code == 0x05, event.parameters.u8(0) == 0, let handle = event.parameters.u16le(1) {
                _ = reassembler.reset(handle: handle & 0x0FFF, controllerIndex: record.controllerIndex)
            }
            return DecodedFrame(record: record, layer: .event(event))
        case .aclData:
            guard let acl = HCIACLPacket(record.payload) else {
                return DecodedFrame(record: record, layer: .malformed("ACL packet shorter than its 4-byte header"))
            }
            if record.isTruncated, let cut = truncatedPDU(acl, record) {
                return DecodedFrame(record: record, layer: .acl(acl, cut), aclPDU: cut.pdu)
            }
            let result = reassembler.feed(
                acl, frame: record.frame, direction: record.direction, controllerIndex: record.controllerIndex)
            return DecodedFrame(
                record: record, layer: .acl(acl, result), aclPDU: result.pdu,
                aclPDUIsComplete: result.isComplete)
        case .linkLayer:
            return DecodedFrame(record: record, layer: .linkLayer(linkLayer.decode(record)))
        default:
            return DecodedFrame(record: record, layer: .other)
        }
    }

    /// A start fragment the capture cut (btsnooz and filtered Android logs keep the first bytes
    /// of each ACL packet): no continuation will ever complete it, so the bytes there are the
    /// PDU as far as it can be known: `L2CAPPDU.isTruncated`, its `length` the declared one.
    /// Its upper layers decode as far as they go; consumers judge nothing past the cut.
    func truncatedPDU(_ acl: HCIACLPacket, _ record: CaptureRecord) -> L2CAPReassemblyResult? {
        let data = acl.data
        if !acl.boundary.isStart {
            // The rest of a PDU whose start was cut too: there is nothing to join it to.
            _ = reassembler.reset(handle: acl.handle, controllerIndex: record.controllerIndex)
            return .malformed(note: "continuation the capture cut", raw: data, salvaged: nil)
        }
        guard let length = data.u16le(0), let channel = data.u16le(2),
            data.count < 4 + Int(length)
        else { return nil }
        // A PDU of this stream still waiting for continuations cannot get them any more.
        _ = reassembler.reset(handle: acl.handle, controllerIndex: record.controllerIndex)
        let pdu = L2CAPPDU(
            controllerIndex: record.controllerIndex, handle: acl.handle, direction: record.direction,
            length: length, channel: channel, payload: data.suffix(from: 4) ?? .empty, firstFrame: record.frame,
            lastFrame: record.frame, fragmentCount: 1)
        return .malformed(note: "truncated by the capture", raw: data, salvaged: pdu)
    }
}
