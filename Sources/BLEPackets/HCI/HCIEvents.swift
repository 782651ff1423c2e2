import BLEBytes

/// HCI_Command_Complete (Core 5.4 Vol 4 Part E 7.7.14), event 0x0E.
public struct HCICommandComplete: HCIEventEncodable, @unchecked Sendable {
    public static let code: UInt8 = HCIEventCode.commandComplete
    /// Num_HCI_Command_Packets: how many commands the host may send now.
    public let numPackets: UInt8
    /// 0x0000 (No Operation) only updates `numPackets`.
    public let opcode: UInt16
    /// Return parameters, status first for almost every command.
    public let returnParameters: ByteView

    public init?(parameters p: ByteView) {
        guard let n = p.u8(0), let op = p.u16le(1) else { return nil }
        numPackets = n
        opcode = op
        returnParameters = p.suffix(from: 3) ?? .empty
    }

    /// The first return parameter, which is `Status` for every command that returns anything.
    public var status: UInt8? { returnParameters.u8(0) }

    public init(numPackets: UInt8, opcode: UInt16, returnParameters: ByteView) {
        (self.numPackets, self.opcode, self.returnParameters) = (numPackets, opcode, returnParameters)
    }

    public var eventCode: UInt8 { Self.code }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt8(numPackets)
        w.appendUInt16LE(opcode)
        w.appendBytes(returnParameters)
    }

    /// The whole H4 packet, return parameters kept as an array (`[status]` for most commands).
    public static func h4Encoded(numPackets: UInt8 = 1, opcode: UInt16, returnParameters: [UInt8] = [HCIError.success])
        -> [UInt8]
    {
        returnParameters.withByteView { Self(numPackets: numPackets, opcode: opcode, returnParameters: $0).h4Encoded() }
    }
}

/// HCI_Command_Status (7.7.15), event 0x0F.
public struct HCICommandStatus: HCIEventEncodable, Sendable {
    public static let code: UInt8 = HCIEventCode.commandStatus
    public let status: UInt8
    public let numPackets: UInt8
    public let opcode: UInt16

    public init(status: UInt8, numPackets: UInt8, opcode: UInt16) {
        (self.status, self.numPackets, self.opcode) = (status, numPackets, opcode)
    }

    public var eventCode: UInt8 { Self.code }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt8(status)
        w.appendUInt8(numPackets)
        w.appendUInt16LE(opcode)
    }

    public init?(parameters p: ByteView) {
        guard let s = p.u8(0), let n = p.u8(1), let op = p.u16le(2) else { return nil }
        (status, numPackets, opcode) = (s, n, op)
    }
}

/// The Status and Connection_Handle that Connection Complete (7.7.3), LE Connection Complete
/// (7.7.65.1), LE Enhanced Connection Complete [v1] and [v2] (7.7.65.10) and LE Read Remote
/// Features Complete (7.7.65.4) begin with, for a reader that needs only them: nil when even
/// Status is missing, `handle` nil when the parameters end before it.
public struct HCIStatusAndConnectionHandle: Sendable, Equatable {
    public let status: UInt8
    /// The 12-bit Connection_Handle (flag bits cleared).
    public let handle: UInt16?

    public init?(parameters p: ByteView) {
        guard let s = p.u8(0) else { return nil }
        (status, handle) = (s, p.u16le(1).map { $0 & HCIConnectionHandle.mask })
    }
}

extension HCIConnectionComplete {
    /// Link_Type 0x01: an ACL link (0x00 is an SCO one).
    public static let aclLink: UInt8 = 0x01
}

/// HCI_Number_Of_Completed_Packets (7.7.19), event 0x13; also the shape of the Host Number
/// Of Completed Packets command (7.3.40). Pairs are interleaved (handle, count) on the wire.
public struct HCINumberOfCompletedPackets: HCIEventEncodable, @unchecked Sendable {
    public static let code: UInt8 = HCIEventCode.numberOfCompletedPackets
    /// Num_Handles as declared.
    public let declaredCount: UInt8
    /// The pairs actually present, whole pairs only.
    public let pairs: ByteView

    public init?(parameters p: ByteView) {
        guard let n = p.u8(0) else { return nil }
        declaredCount = n
        let body = p.suffix(from: 1) ?? .empty
        pairs = body.prefix(Swift.min(Int(n), body.count / 4) * 4)
    }

    /// True when every declared pair is present.
    public var isComplete: Bool { pairs.count == Int(declaredCount) * 4 }

    /// `pairs`: (handle u16, count u16) pairs as they go on the wire.
    public init(declaredCount: UInt8, pairs: ByteView) { (self.declaredCount, self.pairs) = (declaredCount, pairs) }

    public var eventCode: UInt8 { Self.code }
    public func appendParameters(to w: inout ByteWriter) {
        w.appendUInt8(declaredCount)
        w.appendBytes(pairs)
    }

    /// The whole H4 packet for `entries`.
    public static func h4Encoded(_ entries: [Entry]) -> [UInt8] {
        var pairs = ByteWriter()
        for e in entries {
            pairs.appendUInt16LE(e.handle)
            pairs.appendUInt16LE(e.count)
        }
        return pairs.bytes.withByteView {
            Self(declaredCount: UInt8(truncatingIfNeeded: entries.count), pairs: $0).h4Encoded()
        }
    }

    public struct Entry: Equatable, Sendable {
        public let handle: UInt16
        public let count: UInt16
        public init(handle: UInt16, count: UInt16) {
            self.handle = handle
            self.count = count
        }
    }

    public var entries: Entries { Entries(pairs: pairs) }

    public struct Entries: Sequence, IteratorProtocol {
        let pairs: ByteView
        var offset = 0
        public mutating func next() -> Entry? {
            guard let h = pairs.u16le(offset), let c = pairs.u16le(offset + 2) else { return nil }
            offset += 4
            return Entry(handle: h & 0x0FFF, count: c)
        }
    }
}

/// Return parameters of HCI_Read_Buffer_Size (7.4.5), opcode 0x1005.
public struct HCIReadBufferSize: Sendable {
    public static let opcode: UInt16 = HCIOpcode.readBufferSize
    public let status: UInt8
    public let aclDataPacketLength: UInt16
    public let synchronousDataPacketLength: UInt8
    public let totalNumACLDataPackets: UInt16
    public let totalNumSynchronousDataPackets: UInt16

    /// Nil unless every return parameter is there (`Fields` reads them as far as they reach).
    public init?(returnParameters p: ByteView) {
        let f = Fields(returnParameters: p)
        guard let s = f.status, let a = f.aclDataPacketLength, let b = f.synchronousDataPacketLength,
            let c = f.totalNumACLDataPackets, let d = f.totalNumSynchronousDataPackets
        else { return nil }
        (
            status, aclDataPacketLength, synchronousDataPacketLength, totalNumACLDataPackets,
            totalNumSynchronousDataPackets
        ) = (s, a, b, c, d)
    }
}

/// Return parameters of HCI_LE_Read_Buffer_Size [v1] (7.8.2, opcode 0x2002) and [v2]
/// (opcode 0x2060, adding the ISO buffers). A zero LE ACL length means "use the BR/EDR
/// buffers of Read Buffer Size".
public struct HCILEReadBufferSize: Sendable {
    public static let opcodeV1: UInt16 = HCIOpcode.leReadBufferSize
    public static let opcodeV2: UInt16 = HCIOpcode.leReadBufferSizeV2
    public let status: UInt8
    public let leACLDataPacketLength: UInt16
    public let totalNumLEACLDataPackets: UInt8
    /// v2 only.
    public let isoDataPacketLength: UInt16?
    public let totalNumISODataPackets: UInt8?

    /// Nil unless every return parameter of `version` is there (`Fields` reads them as far as
    /// they reach).
    public init?(returnParameters p: ByteView, version: Int = 1) {
        let f = Fields(returnParameters: p, version: version)
        guard let s = f.status, let a = f.leACLDataPacketLength, let b = f.totalNumLEACLDataPackets else { return nil }
        if version == 2 {
            guard let c = f.isoDataPacketLength, let d = f.totalNumISODataPackets else { return nil }
            (isoDataPacketLength, totalNumISODataPackets) = (c, d)
        } else {
            (isoDataPacketLength, totalNumISODataPackets) = (nil, nil)
        }
        (status, leACLDataPacketLength, totalNumLEACLDataPackets) = (s, a, b)
    }

    /// [v1] return parameters; [v2] when both ISO fields are given.
    public init(
        status: UInt8, leACLDataPacketLength: UInt16, totalNumLEACLDataPackets: UInt8,
        isoDataPacketLength: UInt16? = nil, totalNumISODataPackets: UInt8? = nil
    ) {
        (self.status, self.leACLDataPacketLength, self.totalNumLEACLDataPackets) =
            (status, leACLDataPacketLength, totalNumLEACLDataPackets)
        (self.isoDataPacketLength, self.totalNumISODataPackets) = (isoDataPacketLength, totalNumISODataPackets)
    }

    /// The return parameters, as Command Complete carries them.
    public func appendReturnParameters(to w: inout ByteWriter) {
        w.appendUInt8(status)
        w.appendUInt16LE(leACLDataPacketLength)
        w.appendUInt8(totalNumLEACLDataPackets)
        if let isoDataPacketLength, let totalNumISODataPackets {
            w.appendUInt16LE(isoDataPacketLength)
            w.appendUInt8(totalNumISODataPackets)
        }
    }
}

private typealias P = HCIParameter

/// Fixed layouts of events (7.7): the table rows' layouts are generated from
/// scripts/pdu/hci_events.py (HCIEvents+Generated.swift); the pieces of the hand-written
/// describers are here.
enum HCIEventLayouts {
    static let commandStatusHead = [P("status", .status), P("num_hci_command_packets", .uint8)]
}

/// Hand-written describers for events that are not one fixed layout.
enum HCIEventDecoders {
    static func commandOpcode(_ opcode: UInt16, _ sink: FieldSink) {
        let name: StaticString? =
            HCICommands.descriptor(for: opcode)?.name
            ?? (opcode >> 10 == 0x3F ? HCICommands.vendorName : nil)
        sink.field("command_opcode", .code(UInt64(opcode), digits: 4, name: name))
    }

    /// Command Complete: the return parameters go to the command's own return decoder.
    static func commandComplete(_ p: ByteView, _ sink: FieldSink) {
        guard let e = HCICommandComplete(parameters: p) else {
            var r = ByteReader(p)
            return HCIFields.truncated(&r, sink)
        }
        sink.field("num_hci_command_packets", .uint(UInt64(e.numPackets)))
        commandOpcode(e.opcode, sink)
        let ret = e.returnParameters
        if let describe = HCICommands.descriptor(for: e.opcode)?.describeReturn {
            describe(ret, sink)
        } else if let status = ret.u8(0) {
            sink.field("status", HCIFields.status(status))
            if ret.count > 1 { sink.field("return_parameters", .bytes(ret.suffix(from: 1) ?? .empty)) }
        }
    }

    static func commandStatus(_ p: ByteView, _ sink: FieldSink) {
        var r = ByteReader(p)
        guard HCIFields.describe(HCIEventLayouts.commandStatusHead, reader: &r, into: sink) else { return }
        guard let opcode = r.u16le() else { return HCIFields.truncated(&r, sink) }
        commandOpcode(opcode, sink)
        HCIFields.trailing(&r, sink)
    }

    static func numberOfCompletedPackets(_ p: ByteView, _ sink: FieldSink) {
        guard let e = HCINumberOfCompletedPackets(parameters: p) else { return sink.note("truncated parameters") }
        sink.field("num_handles", .uint(UInt64(e.declaredCount)))
        for entry in e.entries {
            sink.begin("handle")
            sink.field("connection_handle", .hex(UInt64(entry.handle), digits: 4))
            sink.field("num_completed_packets", .uint(UInt64(entry.count)))
            sink.end()
        }
        let rest = p.suffix(from: 1 + e.pairs.count) ?? .empty
        if !e.isComplete {
            sink.note("fewer handles than num_handles")
            if !rest.isEmpty { sink.field("remaining", .bytes(rest)) }
        } else if !rest.isEmpty {
            sink.note("unexpected trailing bytes")
            sink.field("trailing", .bytes(rest))
        }
    }

    /// LE Meta (7.7.65): subevent code, then the subevent's own parameters.
    static func leMeta(_ p: ByteView, _ sink: FieldSink) {
        guard let sub = p.u8(0) else { return sink.note("missing subevent code") }
        let d = HCIEvents.leSubeventDescriptor(for: sub)
        sink.field("subevent_code", .code(UInt64(sub), digits: 2, name: d?.name))
        let params = p.suffix(from: 1) ?? .empty
        if let describe = d?.describe {
            describe(params, sink)
        } else if !params.isEmpty {
            sink.field("parameters", .bytes(params))
        }
    }

    static func raw(_ p: ByteView, _ sink: FieldSink) {
        if !p.isEmpty { sink.field("parameters", .bytes(p)) }
    }
}
