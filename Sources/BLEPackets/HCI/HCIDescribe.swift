import BLEBytes

extension HCICommandPacket {
    public var descriptor: HCICommandDescriptor? { HCICommands.descriptor(for: opcode) }
    /// "Unknown" or "Vendor Command" when not in the table.
    public var name: StaticString { HCICommands.name(for: opcode) }

    /// Describes the header, then the parameters through the opcode's decoder (raw when there
    /// is none). A declared length that disagrees with the bytes present is noted, and the
    /// bytes are decoded as far as they go.
    public func describe(into sink: FieldSink) {
        let known: StaticString? = descriptor?.name ?? (isVendorSpecific ? HCICommands.vendorName : nil)
        sink.field("opcode", .code(UInt64(opcode), digits: 4, name: known))
        sink.field("ogf", .hex(UInt64(ogf), digits: 2))
        sink.field("ocf", .hex(UInt64(ocf), digits: 4))
        sink.field("parameter_total_length", .uint(UInt64(declaredLength)))
        HCIPacketDescribing.body(parameters, declaredLength, trailing, descriptor?.describeParameters, sink)
    }
}

extension HCIEventPacket {
    public var descriptor: HCIEventDescriptor? { HCIEvents.descriptor(for: code) }
    public var name: StaticString { HCIEvents.name(for: code) }

    public func describe(into sink: FieldSink) {
        sink.field("event_code", .code(UInt64(code), digits: 2, name: descriptor?.name))
        sink.field("parameter_total_length", .uint(UInt64(declaredLength)))
        HCIPacketDescribing.body(parameters, declaredLength, trailing, descriptor?.describe, sink)
    }
}

enum HCIPacketDescribing {
    static func body(
        _ parameters: ByteView, _ declared: Int, _ trailing: ByteView,
        _ describe: HCIDescribeFunction?, _ sink: FieldSink
    ) {
        if parameters.count < declared { sink.note("packet shorter than parameter total length") }
        if let describe {
            describe(parameters, sink)
        } else if !parameters.isEmpty {
            sink.field("parameters", .bytes(parameters))
        }
        if !trailing.isEmpty {
            sink.note("bytes beyond parameter total length")
            sink.field("beyond_length", .bytes(trailing))
        }
    }
}

/// One-line names for `blecap packets`, as `StaticString`s so the writer composes the line
/// (e.g. "Command Complete (LE Set Extended Scan Enable)", tshark's Info) without allocating.
public enum HCISummary {
    /// The command's name ("Unknown", "Vendor Command" when not in the table).
    public static func command(_ packet: HCICommandPacket) -> StaticString { packet.name }

    /// The event's name and, for Command Complete/Status, the command's name, for LE Meta the
    /// subevent's; `detail` is nil when there is none or the parameters are too short to say.
    public static func event(_ packet: HCIEventPacket) -> (name: StaticString, detail: StaticString?) {
        let p = packet.parameters
        let detail: StaticString?
        switch packet.code {
        case HCICommandComplete.code: detail = p.u16le(1).map(HCICommands.name(for:))
        case HCICommandStatus.code: detail = p.u16le(2).map(HCICommands.name(for:))
        case HCIEventPacket.leMetaCode: detail = p.u8(0).map(HCIEvents.leSubeventName(for:))
        default: detail = nil
        }
        return (packet.name, detail)
    }
}
