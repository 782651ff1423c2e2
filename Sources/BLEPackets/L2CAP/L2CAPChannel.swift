import BLEBytes

/// Which decoder applies to an L2CAP payload, chosen by its channel.
///
/// Dynamic channels (LE credit-based) carry an SDU that only the channel's SPSM explains; they
/// are kept raw, like any fixed channel without a decoder here.
public enum L2CAPPayload: @unchecked Sendable {
    case att(ATTPDU)
    case smp(SMPPDU)
    /// CID 0x0005 (LE) or 0x0001 (BR/EDR) signaling commands.
    case signaling(L2CAPSignalingCommands)
    case other(channel: UInt16, payload: ByteView)

    public init(channel: UInt16, payload: ByteView) {
        switch channel {
        case L2CAPChannel.att: self = .att(ATTPDU(payload))
        case L2CAPChannel.smp, L2CAPChannel.brEdrSMP: self = .smp(SMPPDU(payload))
        case L2CAPChannel.leSignaling, L2CAPChannel.signaling:
            self = .signaling(L2CAPSignalingCommands(payload, le: channel == L2CAPChannel.leSignaling))
        default: self = .other(channel: channel, payload: payload)
        }
    }

    public init(_ pdu: L2CAPPDU) { self.init(channel: pdu.channel, payload: pdu.payload) }

    /// Describes the L2CAP header and the payload, through the channel's decoder, into `sink`.
    public static func describe(_ pdu: L2CAPPDU, into sink: FieldSink) {
        sink.field("length", .uint(UInt64(pdu.length)))
        sink.field("cid", .code(UInt64(pdu.channel), digits: 4, name: L2CAPChannel.name(pdu.channel)))
        if pdu.fragmentCount > 1 {
            sink.field("fragments", .uint(UInt64(pdu.fragmentCount)))
            sink.field("first_frame", .uint(UInt64(pdu.firstFrame)))
        }
        describe(channel: pdu.channel, payload: pdu.payload, into: sink)
    }

    /// Describes an L2CAP information payload by its channel.
    public static func describe(channel: UInt16, payload: ByteView, into sink: FieldSink) {
        switch channel {
        case L2CAPChannel.att:
            sink.begin("att")
            ATTPDU.describe(payload, into: sink)
            sink.end()
        case L2CAPChannel.smp, L2CAPChannel.brEdrSMP:
            sink.begin("smp")
            SMPPDU.describe(payload, into: sink)
            sink.end()
        case L2CAPChannel.leSignaling, L2CAPChannel.signaling:
            sink.begin("signaling")
            L2CAPSignalingCommands(payload, le: channel == L2CAPChannel.leSignaling).describe(into: sink)
            sink.end()
        default:
            sink.field("payload", .bytes(payload))
        }
    }
}
