import BLEBytes
import BLECodes

/// What a sniffer's pseudo-header says about one over-the-air packet (record kind
/// `.linkLayer`). The record's payload is the PDU (header, payload, CRC); the access address
/// and anything the radio measured are here, so the payload view stays contiguous even when
/// the container puts a Coded PHY coding indicator between the access address and the header.
public struct LinkLayerRadio: Sendable, Equatable {
    /// Which side sent a data channel PDU.
    public enum Sender: UInt8, Sendable {
        case unknown
        case central
        case peripheral
    }

    /// What the container says the PDU is (256 flags, 272 packet id / access address).
    public enum Channel: UInt8, Sendable {
        case unknown
        case advertising
        case data
    }

    /// The flags are computed and inlinable, not stored `static let`s: a stored one is read
    /// from another module through an accessor call, several per PDU (docs/performance.md).
    public struct Flags: OptionSet, Sendable, Equatable {
        public let rawValue: UInt16
        @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }
        /// The sniffer checked the CRC; `crcValid` then says the outcome.
        @inlinable public static var crcChecked: Flags { Flags(rawValue: 1 << 0) }
        @inlinable public static var crcValid: Flags { Flags(rawValue: 1 << 1) }
        /// The sniffer decrypted the payload and checked the MIC (`micValid`: outcome).
        @inlinable public static var micChecked: Flags { Flags(rawValue: 1 << 2) }
        @inlinable public static var micValid: Flags { Flags(rawValue: 1 << 3) }
        /// The sniffer says the link was encrypted when this PDU went by (272 flag).
        @inlinable public static var encrypted: Flags { Flags(rawValue: 1 << 4) }
        @inlinable public static var rssiValid: Flags { Flags(rawValue: 1 << 5) }
        @inlinable public static var eventCounterValid: Flags { Flags(rawValue: 1 << 6) }
        /// `sender` was inferred by blecap (timing), not read from the pseudo-header.
        @inlinable public static var senderInferred: Flags { Flags(rawValue: 1 << 7) }
        /// The payload was dewhitened (256; sniffers that cannot dewhiten say so here).
        @inlinable public static var dewhitened: Flags { Flags(rawValue: 1 << 8) }
        /// The payload is already the decrypted plaintext (256 flag "decrypted").
        @inlinable public static var decrypted: Flags { Flags(rawValue: 1 << 9) }
        /// The sniffer tracks the link's encryption itself (272): `encrypted` is its verdict
        /// for this PDU, better than blecap's own LL_START_ENC bookkeeping.
        @inlinable public static var encryptionKnown: Flags { Flags(rawValue: 1 << 10) }
    }

    public var accessAddress: UInt32 = 0
    /// Channel index 0–39 (37, 38, 39 the primary advertising channels); 0xFF unknown.
    public var channel: UInt8 = 0xFF
    public var rssi: Int8 = 0
    /// 0 LE 1M, 1 LE 2M, 2 LE Coded.
    public var phy: UInt8 = 0
    /// Coded PHY coding indicator (0 S=8, 1 S=2), 0xFF when not coded or not given.
    public var codingIndicator: UInt8 = 0xFF
    public var sender: Sender = .unknown
    public var channelType: Channel = .unknown
    public var flags: Flags = []
    /// nRF Sniffer's connection event counter (valid when `eventCounterValid`).
    public var eventCounter: UInt16 = 0

    public init() {}

    /// Whether the access address is the advertising one (or the container says so).
    @inlinable public var isAdvertising: Bool {
        channelType == .advertising || (channelType == .unknown && accessAddress == LLAccessAddress.advertising)
    }

    /// Channel index of an RF channel number (0–39, 2402 + 2k MHz), as 256's pseudo-header gives it
    /// (Core 5.4 Vol 6 Part A 2: RF 0, 12, 39 are advertising channels 37, 38, 39).
    @inlinable public static func channelIndex(rfChannel rf: UInt8) -> UInt8 {
        switch rf {
        case 0: 37
        case 12: 38
        case 39: 39
        case 1...11: rf - 1
        case 13...38: rf - 2
        default: 0xFF
        }
    }
}

/// The over-the-air pseudo-headers (libpcap's LINKTYPE_ registry, Wireshark's dissectors as
/// the reference for field meanings). Each parse returns the PDU (from its 2-byte header on)
/// and fills `radio`, or nil when the record is too short for its own header.
enum LinkLayerPseudoHeader {
    /// 251 BLUETOOTH_LE_LL: access address (LE), PDU, CRC. Nothing else.
    static func bare(_ raw: ByteView, _ radio: inout LinkLayerRadio) -> ByteView? {
        guard let aa = raw.u32le(0), let pdu = raw.suffix(from: 4) else { return nil }
        radio.accessAddress = aa
        return pdu
    }

    /// 256 BLUETOOTH_LE_LL_WITH_PHDR: rf_channel u8, signal i8, noise i8, AA offenses u8,
    /// reference AA u32 LE, flags u16 LE, then the 251 packet.
    /// Flags: 0x0001 dewhitened, 0x0002 signal valid, 0x0004 noise valid, 0x0008 decrypted,
    /// 0x0010 reference AA valid, 0x0020 offenses valid, 0x0040 channel aliased, 0x0380 PDU type
    /// (0 advertising or data without direction, 1 auxiliary advertising, 2 data C→P, 3 data P→C),
    /// 0x0400 CRC checked, 0x0800 CRC valid, 0x1000 MIC checked, 0x2000 MIC valid, 0xC000 PHY.
    ///
    /// Some writers (WHAD) put the channel *index* where the RF channel belongs; a legacy
    /// advertising PDU on "RF channel" 37 or 38 (2476/2478 MHz, data channels) or a data PDU
    /// on "RF channel" 0, 12 or 39 (advertising channels) gives them away, and `channelIsIndex`
    /// stays set for the rest of the file (records before the first such one keep the RF
    /// reading).
    static func withPHDR(_ raw: ByteView, _ radio: inout LinkLayerRadio, channelIsIndex: inout Bool) -> ByteView? {
        guard let rf = raw.u8(0), let signal = raw.i8(1), let flags = raw.u16le(8),
            let packet = raw.suffix(from: 10)
        else { return nil }
        if !channelIsIndex, rf == 37 || rf == 38, packet.u32le(0) == LLAccessAddress.advertising,
            let type = packet.u8(4).map({ $0 & 0x0F }), type <= LLAdvertisingPDUType.advScanInd,
            type != LLAdvertisingPDUType.connectInd, type != LLAdvertisingPDUType.scanReq
        {
            channelIsIndex = true
        }
        // So does a PDU the sniffer followed on a connection (PDU type 2 or 3: with its
        // direction) on RF channel 0, 12 or 39 (the advertising channels).
        if !channelIsIndex, rf == 0 || rf == 12 || rf == 39, let aa = packet.u32le(0),
            aa != LLAccessAddress.advertising,
            (flags >> 7) & 0b111 == 2 || (flags >> 7) & 0b111 == 3
        {
            channelIsIndex = true
        }
        radio.channel = channelIsIndex ? (rf <= 39 ? rf : 0xFF) : LinkLayerRadio.channelIndex(rfChannel: rf)
        radio.rssi = signal
        if flags & 0x0002 != 0 { radio.flags.insert(.rssiValid) }
        if flags & 0x0001 != 0 { radio.flags.insert(.dewhitened) }
        if flags & 0x0008 != 0 { radio.flags.insert(.decrypted) }
        if flags & 0x0400 != 0 { radio.flags.insert(.crcChecked) }
        if flags & 0x0800 != 0 { radio.flags.insert(.crcValid) }
        if flags & 0x1000 != 0 { radio.flags.insert(.micChecked) }
        if flags & 0x2000 != 0 { radio.flags.insert(.micValid) }
        radio.phy = UInt8(truncatingIfNeeded: flags >> 14)
        switch (flags >> 7) & 0b111 {
        case 1: radio.channelType = .advertising
        case 2:
            radio.channelType = .data
            radio.sender = .central
        case 3:
            radio.channelType = .data
            radio.sender = .peripheral
        default: break
        }
        guard let aa = packet.u32le(0) else { return nil }
        radio.accessAddress = aa
        // On LE Coded the packet carries the coding indicator between AA and header.
        if radio.phy == 2 {
            radio.codingIndicator = packet.u8(4) ?? 0xFF
            return packet.suffix(from: 5)
        }
        return packet.suffix(from: 4)
    }

    /// 272 NORDIC_BLE (and 157 USER10, which the nRF Sniffer's first releases used):
    /// board id u8, then a header that depends on the protocol version —
    /// 0 (legacy, starts 0xBEEF instead of the board id): marker u16, packet id, counter u16,
    ///   2 unused, payload length u8;
    /// 1: header length u8, payload length u8, version u8, counter u16 LE, packet id u8;
    /// 2 and 3: payload length u16 LE, version u8, counter u16 LE, packet id u8 —
    /// then the event packet: length u8 (absent in version 0, where it is 10), flags u8,
    /// channel u8, RSSI u8 (negated dBm), event counter u16 LE, and 4 bytes of time (versions
    /// < 3: µs from the end of the previous packet; version 3: firmware µs timestamp), then AA.
    /// Flags: bit 0 CRC OK, bit 1 direction (1 = central → peripheral), bit 2 encrypted,
    /// bit 3 MIC OK, bits 4–6 PHY. Version 3 tells advertising (packet id 2) from data (6);
    /// earlier ones only by the access address.
    static func nordic(_ raw: ByteView, _ radio: inout LinkLayerRadio) -> ByteView? {
        var offset: Int
        var version: UInt8
        var packetID: UInt8
        var eventLength = 10
        if raw.u16be(0) == 0xBEEF {
            version = 0
            guard let id = raw.u8(2) else { return nil }
            packetID = id
            offset = 8
        } else {
            guard let v = raw.u8(3) else { return nil }
            version = v
            if version == 1 {
                guard let id = raw.u8(6) else { return nil }
                packetID = id
            } else {
                guard let id = raw.u8(6) else { return nil }
                packetID = id
            }
            offset = 7
        }
        if version != 0 {
            guard let length = raw.u8(offset), length >= 10 else { return nil }
            eventLength = Int(length)
            offset += 1
        }
        guard let flags = raw.u8(offset), let channel = raw.u8(offset + 1), let rssi = raw.u8(offset + 2),
            let counter = raw.u16le(offset + 3)
        else { return nil }
        let aaOffset = version == 0 ? offset + 9 : offset - 1 + eventLength
        guard let aa = raw.u32le(aaOffset) else { return nil }
        radio.accessAddress = aa
        radio.channel = channel
        radio.rssi = Int8(clamping: -Int(rssi))
        radio.eventCounter = counter
        // (Flags built without array literals: no allocation per record, even unoptimized.)
        radio.flags.insert(.crcChecked)
        radio.flags.insert(.rssiValid)
        if flags & 0x01 != 0 { radio.flags.insert(.crcValid) }
        radio.phy = (flags >> 4) & 0b111
        let isData: Bool
        if version >= 3 {
            isData = packetID == 0x06
        } else {
            isData = aa != LLAccessAddress.advertising
        }
        if isData {
            radio.channelType = .data
            radio.flags.insert(.eventCounterValid)
            radio.sender = flags & 0x02 != 0 ? .central : .peripheral
            radio.flags.insert(.encryptionKnown)
            if flags & 0x04 != 0 {
                radio.flags.insert(.encrypted)
                radio.flags.insert(.micChecked)
                if flags & 0x08 != 0 { radio.flags.insert(.micValid) }
            }
        } else {
            radio.channelType = .advertising
        }
        var start = aaOffset + 4
        if radio.phy == 2 {
            radio.codingIndicator = raw.u8(start) ?? 0xFF
            start += 1
        }
        return raw.suffix(from: start)
    }

    /// PPI (192) with a BTLE field: PPI header version u8, flags u8, length u16 LE, inner DLT
    /// u32 LE, then fields (type u16 LE, length u16 LE, data). Field 30006 (BTLE, Ubertooth):
    /// version u8, channel u16 LE (MHz), clkn_high u8, clk_100ns u32 LE, RSSI max, min, avg
    /// (i8), count u8. The packet after the PPI header is a 251 packet (inner DLT 251, or 147
    /// USER0 as Ubertooth wrote it). Other inner DLTs are not link layer: nil.
    static func ppi(_ raw: ByteView, _ radio: inout LinkLayerRadio) -> ByteView? {
        guard let headerLength = raw.u16le(2), let dlt = raw.u32le(4), headerLength >= 8,
            let packet = raw.suffix(from: Int(headerLength))
        else { return nil }
        guard dlt == 251 || dlt == 147 else { return nil }
        var offset = 8
        while offset + 4 <= Int(headerLength) {
            guard let type = raw.u16le(offset), let length = raw.u16le(offset + 2) else { break }
            if type == 30006, length >= 8, let mhz = raw.u16le(offset + 5) {
                if mhz >= 2402, mhz <= 2480, mhz % 2 == 0 {
                    radio.channel = LinkLayerRadio.channelIndex(rfChannel: UInt8((mhz - 2402) / 2))
                }
                if length >= 11, let avg = raw.i8(offset + 4 + 10) {
                    radio.rssi = avg
                    radio.flags.insert(.rssiValid)
                }
            }
            offset += 4 + Int(length)
        }
        return bare(packet, &radio)
    }
}

/// Infers which side sent a data channel PDU when the container does not say (251, PPI):
/// within a connection event the central transmits first at the anchor and the two sides then
/// alternate, T_IFS (150 µs) after the end of each other's packet (Core 5.4 Vol 6 Part B
/// 4.5.1). A packet that follows the previous one on the same access address within its air
/// time plus T_IFS and a margin is the other side's answer; anything later opens a new event
/// and is the central's. Fixed state (the last packet), no allocation.
struct LinkLayerSenderInference {
    private var lastAccessAddress: UInt32 = 0
    private var lastStart: Int64 = .max
    private var lastEnd: Int64 = .min
    private var lastSender: LinkLayerRadio.Sender = .unknown
    /// Slack for the capturing host's timestamp jitter (µs): sniffers seen so far stamp
    /// answers up to ~450 µs after the start of a short packet.
    static let margin: Int64 = 1000
    /// A record of this capture gave the sender: stop guessing for the others.
    private(set) var sawExplicitSender = false

    mutating func infer(_ radio: inout LinkLayerRadio, pduLength: Int, timestamp: Int64) {
        guard !radio.isAdvertising else { return }
        if radio.sender != .unknown { sawExplicitSender = true }
        guard radio.sender == .unknown, !sawExplicitSender else { return }
        // 1M PHY: 8 µs per byte, preamble + AA + header + payload + CRC.
        let airTime = Int64(8 * (1 + 4 + pduLength))
        let sender: LinkLayerRadio.Sender
        if radio.accessAddress == lastAccessAddress, lastSender != .unknown, timestamp >= lastStart,
            timestamp &- lastEnd <= 150 &+ Self.margin
        {
            sender = lastSender == .central ? .peripheral : .central
        } else {
            sender = .central
        }
        radio.sender = sender
        radio.flags.insert(.senderInferred)
        lastAccessAddress = radio.accessAddress
        lastSender = sender
        // The timestamp is taken at the start of the packet on the sniffers seen so far.
        lastStart = timestamp
        lastEnd = timestamp &+ airTime
    }
}
