import BLEBytes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The packets of an ordinary pcapng file read straight from a `FileByteSource`, without
/// libpcap: one section, one interface, Enhanced Packet Blocks, any other block skipped.
///
/// Why: libpcap's `pcap_next_ex` reads every block through stdio into its own buffer (a
/// `fread` and a copy per block) and converts the timestamp with a division per packet
/// (docs/performance.md gives the cost). Here a packet is a view into the source's buffer.
///
/// It gives exactly what `PcapReader`'s libpcap path gives for the files it takes on, and
/// nothing else: anything it does not know to be ordinary (another Section Header or Interface
/// Description Block, a Simple or obsolete Packet Block, a packet on another interface, a block
/// whose lengths disagree or that the source cannot hold, a capture length over the snapshot
/// length, the end of the file inside a block) makes `next` return `.unusual`, and
/// `PcapReader` hands the rest of the file to libpcap, which reports it as it always did.
/// The Section Header and the first Interface Description Block are libpcap's to check when
/// it opens the file; `init` reads them again only for what libpcap does not tell (the
/// timestamp resolution) and returns nil unless it agrees with libpcap on where the packets
/// begin.
struct PcapngPacketBlocks {
    let source: FileByteSource
    let bigEndian: Bool
    /// Timestamp units per second (if_tsresol): 10^6 or 10^9.
    private(set) var unitsPerSecond: UInt64 = 1_000_000
    /// libpcap's snapshot length for the file: a longer capture length is its error to report.
    let snapshot: Int
    /// End of the last packet block (file offset), where the next span starts.
    private(set) var position: Int64 = 0
    /// What the source has buffered, walked block by block with `cursor`, and consumed from
    /// the source only when it is refilled: each access to the source's state is a dynamic
    /// exclusivity check (peek, consume and offset per block cost more than libpcap's whole
    /// read did; docs/performance.md).
    private var window = ByteView.empty
    private var cursor = 0
    /// File offset of `window`'s first byte.
    private var windowOffset: Int64 = 0

    /// A packet: its data, capture and original length, timestamp, and the block as
    /// `PcapReader` reports it.
    struct Packet {
        var data: ByteView
        var originalLength: Int
        var timestamp: timeval
        var recordStart: Int64
        var recordLength: Int
    }

    enum Step {
        case packet(Packet)
        /// The file ended cleanly after the last block.
        case end
        /// Something libpcap should judge, from this block on.
        case unusual
    }

    static let sectionHeader: UInt32 = 0x0A0D_0D0A
    static let interfaceDescription: UInt32 = 1
    static let simplePacket: UInt32 = 3
    static let obsoletePacket: UInt32 = 2
    static let enhancedPacket: UInt32 = 6
    /// EPB fixed part: type, length, interface, timestamp high/low, captured and original
    /// length (7 × 4), and the trailing length (4).
    static let enhancedPacketOverhead = 32
    /// libpcap's largest capture length for these link types (MAXIMUM_SNAPLEN): beyond it, its
    /// error.
    static let maximumSnapshot = 262_144

    /// Reads the Section Header Block and the blocks up to the first Interface Description
    /// Block from `source` (at the file's first byte). Nil unless this is a one-section file in
    /// µs or ns whose packets start at `packetsStart`, where libpcap's stream stands after
    /// opening it.
    init?(source: FileByteSource, bigEndian: Bool, snapshot: Int, packetsStart: Int64) {
        self.source = source
        self.bigEndian = bigEndian
        self.snapshot = snapshot
        guard source.offset == 0, case .block(let shb)? = nextBlock(), u32(shb, 0) == Self.sectionHeader else {
            return nil
        }
        // Blocks before the first interface (libpcap skips them too), then the interface.
        while true {
            guard case .block(let b)? = nextBlock() else { return nil }
            let type = u32(b, 0)
            guard type != Self.sectionHeader, !Self.isPacket(type) else { return nil }
            if type == Self.interfaceDescription {
                guard let r = timestampResolution(b) else { return nil }
                unitsPerSecond = r
                break
            }
        }
        position = windowOffset + Int64(cursor)
        guard position == packetsStart else { return nil }
    }

    /// The next packet, the clean end, or `.unusual`.
    mutating func next() -> Step {
        // libpcap reads skipped blocks on its way to the packet: the span starts after the
        // previous packet block.
        let spanStart = position
        while true {
            switch nextBlock() {
            case nil: return .unusual
            case .end?: return .end
            case .block(let b)?:
                let type = u32(b, 0)
                if type == Self.enhancedPacket {
                    guard let p = packet(b, spanStart: spanStart) else { return .unusual }
                    position = windowOffset + Int64(cursor)
                    return .packet(p)
                }
                // Interfaces, sections and the other packet blocks are libpcap's; anything else
                // (statistics, name resolution, custom blocks) it skips, and so does this.
                if type == Self.interfaceDescription || type == Self.sectionHeader || Self.isPacket(type) {
                    return .unusual
                }
            }
        }
    }

    private enum Block {
        case block(ByteView)
        case end
    }

    /// The whole block at the cursor (the cursor moves past it), when its header and trailer
    /// lengths agree, are a multiple of 4 and at least 12, and it fits the source's buffer;
    /// `.end` when the file ends cleanly here; nil otherwise.
    private mutating func nextBlock() -> Block? {
        if window.count - cursor < 8 {
            refill()
            if window.count == cursor { return source.readErrno == nil ? .end : nil }
            if window.count - cursor < 8 { return nil }
        }
        let length = Int(u32(window, cursor + 4))
        guard length >= 12, length & 3 == 0, length <= source.capacity else { return nil }
        if window.count - cursor < length {
            refill()
            if window.count - cursor < length { return nil }
        }
        guard let b = window.slice(cursor, length), u32(b, length - 4) == UInt32(length) else { return nil }
        cursor += length
        return .block(b)
    }

    /// Consumes what the cursor has passed and takes all the source can buffer.
    private mutating func refill() {
        source.consume(cursor)
        windowOffset += Int64(cursor)
        cursor = 0
        window = source.peekAvailable(upTo: source.capacity)
    }

    /// An Enhanced Packet Block on interface 0 that libpcap reads without complaint.
    private func packet(_ b: ByteView, spanStart: Int64) -> Packet? {
        guard b.count >= Self.enhancedPacketOverhead, u32(b, 8) == 0 else { return nil }
        let caplen = Int(u32(b, 20))
        guard caplen <= snapshot, caplen <= Self.maximumSnapshot, caplen <= b.count - Self.enhancedPacketOverhead,
            let data = b.slice(28, caplen)
        else { return nil }
        // libpcap's conversion to µs (pcap-ng.c, SCALE_DOWN for ns): seconds and the fraction
        // truncated; seconds stay below 2^64 / 10^6, so they fit a time_t.
        let t = UInt64(u32(b, 12)) << 32 | UInt64(u32(b, 16))
        let fraction = t % unitsPerSecond
        let ts = timeval(
            tv_sec: Int(truncatingIfNeeded: t / unitsPerSecond),
            tv_usec: Int(truncatingIfNeeded: unitsPerSecond == 1_000_000 ? fraction : fraction / 1000))
        let end = windowOffset + Int64(cursor)
        let (start, length) = Self.reportedBlock(spanStart: spanStart, end: end, blockLength: b.count, caplen: caplen)
        return Packet(
            data: data, originalLength: Int(u32(b, 24)), timestamp: ts, recordStart: start, recordLength: length)
    }

    /// What `PcapReader`'s libpcap path reports for a packet block that ends at `end`, libpcap
    /// having consumed everything since `spanStart`: the whole span when it is exactly one
    /// EPB or SPB without options, else the block its trailer names (`pcapngBlock(endingAt:)`;
    /// the trailer equals the header's length here, `nextBlock` checked it).
    static func reportedBlock(spanStart: Int64, end: Int64, blockLength: Int, caplen: Int) -> (Int64, Int) {
        let span = Int(end - spanStart)
        let padded = (caplen + 3) & ~3
        if span == 32 + padded || span == 16 + padded { return (spanStart, span) }
        guard blockLength <= span else { return (spanStart, span) }
        return (end - Int64(blockLength), blockLength)
    }

    static func isPacket(_ type: UInt32) -> Bool {
        type == enhancedPacket || type == simplePacket || type == obsoletePacket
    }

    /// if_tsresol of an Interface Description Block: 10^6 (absent or 6) or 10^9 (9); nil for
    /// any other resolution, an if_tsoffset, or options that do not parse.
    private func timestampResolution(_ b: ByteView) -> UInt64? {
        var resolution: UInt64 = 1_000_000
        var at = 16  // type, length, link type + reserved, snaplen
        let end = b.count - 4
        while at + 4 <= end {
            let code = u16(b, at)
            if code == 0 { break }  // opt_endofopt
            let length = Int(u16(b, at + 2))
            let next = at + 4 + (length + 3) & ~3
            guard next <= end else { return nil }
            switch code {
            case 9:  // if_tsresol
                guard length == 1, let v = b.u8(at + 4), v == 6 || v == 9 else { return nil }
                resolution = v == 6 ? 1_000_000 : 1_000_000_000
            case 14: return nil  // if_tsoffset
            default: break
            }
            at = next
        }
        return resolution
    }

    /// The file's u32 at `offset` of `b` (0 past its end: callers check lengths first).
    @inline(__always) private func u32(_ b: ByteView, _ offset: Int) -> UInt32 {
        let v = b.u32le(offset) ?? 0
        return bigEndian ? v.byteSwapped : v
    }

    @inline(__always) private func u16(_ b: ByteView, _ offset: Int) -> UInt16 {
        let v = b.u16le(offset) ?? 0
        return bigEndian ? v.byteSwapped : v
    }
}
