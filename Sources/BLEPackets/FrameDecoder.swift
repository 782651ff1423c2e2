import BLEBytes
import CaptureIO

/// One capture record decoded as far as its layers go. Every part is a view into the record's
/// payload (or the reassembler's buffer), valid until the next record is read.
public struct DecodedFrame: @unchecked Sendable {
    public let record: CaptureRecord
    /// For an ACL packet or a Link Layer data PDU: what it did to its connection's L2CAP
    /// stream (nil for every other frame, and for retransmitted or still encrypted PDUs).
    ///
    /// Beside the layer, not in it, to keep the layer small: a `DecodedFrame` is built and
    /// handed on once per record, and each move of a part past 128 bytes was a `memcpy` call
    /// whose wide loads stall on the narrow stores that had just built it (`perf`: 17 % of
    /// `blecap info` in `memmove` with a 218-byte layer holding this result; with the parts
    /// under 128 bytes, `info` on the benchmark capture went from 0.172 to 0.152 s).
    public let reassembly: L2CAPReassemblyResult?
    /// The L2CAP PDU this frame completed, or salvaged from a malformed fragment so its upper
    /// layer is still decoded (`reassembly?.pdu`). Stored flat so that consumers, which mostly
    /// want only this, do not switch on (and copy) `reassembly`.
    public let l2cap: L2CAPPDU?
    /// Declared after the reassembly so that it and the record are not adjacent: the
    /// optimiser moved the two together as one 224-byte `memcpy` into the returned frame.
    /// `PlainDataTests` keeps each part at most 128 bytes.
    public let layer: Layer

    init(record: CaptureRecord, layer: Layer, reassembly: L2CAPReassemblyResult? = nil) {
        self.record = record
        self.layer = layer
        self.reassembly = reassembly
        self.l2cap = reassembly?.pdu
    }

    public enum Layer: @unchecked Sendable {
        case command(HCICommandPacket)
        case event(HCIEventPacket)
        /// An ACL packet; what it did to its L2CAP stream is the frame's `reassembly`.
        case acl(HCIACLPacket)
        /// SCO/ISO data, container metadata and text records: the record payload as it is.
        case other
        /// An HCI packet too short for its own header.
        case malformed(StaticString)
        /// An over-the-air Link Layer packet (sniffer capture); for a data PDU, what it did to
        /// its connection's L2CAP stream is the frame's `reassembly`.
        case linkLayer(LinkLayerFrame)
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
        if case .acl(let acl) = layer { return acl.handle }
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
        // One construction at the end rather than a `return` per case: the optimiser merged
        // those into one tail that moved the frame through two 224-byte `memcpy` calls.
        let layer: DecodedFrame.Layer
        var reassembly: L2CAPReassemblyResult? = nil
        switch record.kind {
        case .hciCommand:
            if let command = HCICommandPacket(record.payload) {
                layer = .command(command)
            } else {
                layer = .malformed("HCI command shorter than its 3-byte header")
            }
        case .hciEvent:
            if let event = HCIEventPacket(record.payload) {
                // A handle is reused after Disconnection Complete (Bumble hands out 0x0001
                // again): drop any half-reassembled PDU so it cannot be glued to the next
                // connection's data.
                if event.code == 0x05, event.parameters.u8(0) == 0, let handle = event.parameters.u16le(1) {
                    _ = reassembler.reset(handle: handle & 0x0FFF, controllerIndex: record.controllerIndex)
                }
                layer = .event(event)
            } else {
                layer = .malformed("HCI event shorter than its 2-byte header")
            }
        case .aclData:
            if let acl = HCIACLPacket(record.payload) {
                if record.isTruncated, let cut = truncatedPDU(acl, record) {
                    reassembly = cut
                } else {
                    reassembly = reassembler.feed(
                        acl, frame: record.frame, direction: record.direction,
                        controllerIndex: record.controllerIndex)
                }
                layer = .acl(acl)
            } else {
                layer = .malformed("ACL packet shorter than its 4-byte header")
            }
        case .linkLayer:
            layer = .linkLayer(linkLayer.decode(record, l2cap: &reassembly))
        default:
            layer = .other
        }
        return DecodedFrame(record: record, layer: layer, reassembly: reassembly)
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
