import BLEBytes
import CCaptureSupport
import CPcap

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// pcap and pcapng (either byte order, µs or ns timestamps) through libpcap.
///
/// libpcap is asked for microsecond timestamps: it converts nanosecond pcap files and pcapng
/// interfaces with another `if_tsresol` by truncating (dividing) the fraction, which for the
/// non-negative times of a real capture is the floor that tshark's displayed µs would give.
///
/// Link types read (pseudo-headers per libpcap's `pcap/bluetooth.h`, network byte order):
/// - 187 BLUETOOTH_HCI_H4: H4 type byte, packet. Direction inferred (`H4DirectionInference`).
/// - 201 BLUETOOTH_HCI_H4_WITH_PHDR: u32 direction (bit 0 set = received), H4 type byte, packet.
/// - 254 BLUETOOTH_LINUX_MONITOR: u16 adapter id, u16 monitor opcode, monitor payload.
///
/// Over-the-air link types (records of kind `.linkLayer`, the pseudo-header in
/// `CaptureRecord.radio`, `LinkLayerPseudoHeader` for the layouts):
/// - 251 BLUETOOTH_LE_LL: the bare packet; the sender of data PDUs is inferred from timing.
/// - 256 BLUETOOTH_LE_LL_WITH_PHDR: RF channel, signal, flags (direction, CRC, MIC, PHY).
/// - 272 NORDIC_BLE and 157 USER10 (the nRF Sniffer's older files): protocol versions 0–3.
/// - 192 PPI around a 251 packet (inner DLT 251 or Ubertooth's 147), BTLE field 30006.
///
/// File offsets: for classic pcap `fileOffset`/`recordLength` are exact (16-byte record header
/// plus data, counted from the end of the file header; for a record libpcap cut to the snaplen,
/// the stream position libpcap reached). For pcapng, libpcap silently
/// reads non-packet blocks (interface descriptions, statistics, …) while looking for the next
/// packet, so the span between two packets can hold more than one block; the reader then takes
/// the packet block's own length from its trailing Block Total Length (read with `pread` on a
/// regular file) and reports the block that ends where libpcap stopped. On a pipe it reports
/// the whole span. (Asking the stream its position costs no system call on a regular file:
/// see the seek in `init`.)
public final class PcapReader: CaptureReader {
    public let format: CaptureFormat
    public private(set) var damage: CaptureDamage? = nil

    /// The opened source: kept alive because on a pipe libpcap reads from its fd.
    let source: FileByteSource
    private let handle: OpaquePointer
    private let file: UnsafeMutablePointer<FILE>?
    /// A seekable fd of the same file (regular files only), for pcapng block trailers.
    private let seekableFD: Int32?
    private let layout: Layout
    private let isPcapng: Bool
    // The per-record state below is `@exclusivity(unchecked)`: each checked access to a class's
    // stored `var` is a runtime call, at every record. A reader is used by one thread at a time
    // and `next()` calls out only to libpcap and the pseudo-header parsers, which cannot reach it.
    @exclusivity(unchecked) private var frame = 0
    /// Stream position just after the last good record (or after the file header).
    @exclusivity(unchecked) private var position: Int64
    @exclusivity(unchecked) private var finished = false
    @exclusivity(unchecked) private var inference = H4DirectionInference()
    @exclusivity(unchecked) private var senderInference = LinkLayerSenderInference()
    /// 256: this file's writer puts channel indices where RF channels belong.
    @exclusivity(unchecked) private var phdrChannelIsIndex = false
    /// libpcap's snaplen for the file (it cuts longer records to this).
    private let snapshot: Int
    /// File offset of the stream's first byte (non-zero only if the source had consumed bytes
    /// before libpcap got it).
    private let streamBase: Int64
    /// An ordinary pcapng regular file's packets, read without libpcap until something unusual
    /// (`PcapngPacketBlocks`); nil once libpcap reads.
    @exclusivity(unchecked) private var blocks: PcapngPacketBlocks?
    /// Whether packets still come from `PcapngPacketBlocks` (tests).
    var readsPcapngBlocksNatively: Bool { blocks != nil }

    private enum Layout { case h4, h4WithDirection, linuxMonitor, leLL, leLLWithPHDR, nordic, ppi }

    /// pcap (µs/ns, either byte order) or pcapng section header magic.
    public static func sniff(_ prefix: ByteView) -> Bool {
        magicKind(prefix) != nil
    }

    private enum Magic { case pcapMicro, pcapNano, pcapng }

    private static func magicKind(_ prefix: ByteView) -> Magic? {
        switch prefix.u32be(0) {
        case 0xA1B2_C3D4, 0xD4C3_B2A1: .pcapMicro
        case 0xA1B2_3C4D, 0x4D3C_B2A1: .pcapNano
        case 0x0A0D_0D0A: .pcapng
        default: nil
        }
    }

    /// Opens the capture whose first bytes `source` has buffered. With a `path` to a regular
    /// file libpcap opens the file itself; otherwise (`path == nil`, or a FIFO/device path whose
    /// first bytes the source already took) it reads the buffered bytes and then the rest of
    /// `source.fd`, through a FILE* from `blecap_fopen_prefixed`.
    public convenience init(source: FileByteSource, path: String?) throws(CaptureError) {
        try self.init(source: source, path: path, readsPcapngBlocks: true)
    }

    /// `readsPcapngBlocks: false` leaves every packet to libpcap (what the tests compare the
    /// native pcapng reading with).
    init(source: FileByteSource, path: String?, readsPcapngBlocks: Bool) throws(CaptureError) {
        self.source = source
        let prefix = source.peekAvailable(upTo: 64)
        guard let magic = Self.magicKind(prefix) else { throw .unknownFormat }
        isPcapng = magic == .pcapng

        var st = stat()
        let isRegular = fstat(source.fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        let opened: OpaquePointer?
        var streamBase: Int64 = 0
        if let path, isRegular {
            opened = pcap_open_offline_with_tstamp_precision(
                path, UInt32(PCAP_TSTAMP_PRECISION_MICRO), &errbuf)
        } else {
            // Hand libpcap what was sniffed, then the rest of the descriptor.
            let buffered = source.buffered
            let base = source.buffer.baseAddress!.advanced(by: source.start)
                .assumingMemoryBound(to: UInt8.self)
            guard let fp = blecap_fopen_prefixed(base, buffered, source.fd) else {
                throw .cannotOpen(path: path ?? "-", reason: "cannot allocate a stream")
            }
            streamBase = source.offset
            source.consume(buffered)
            opened = pcap_fopen_offline_with_tstamp_precision(
                fp, UInt32(PCAP_TSTAMP_PRECISION_MICRO), &errbuf)
            if opened == nil { fclose(fp) }
        }
        guard let p = opened else {
            let message = errbuf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            if message.hasPrefix("truncated dump file") { throw .truncatedHeader }
            throw .pcap(message)
        }
        handle = p
        file = pcap_file(p)
        seekableFD = isRegular && path != nil ? file.map { fileno($0) } : nil
        // glibc's ftello asks the kernel (one lseek) unless the stream has cached its file
        // offset, which it starts doing only after a seek; underflow keeps the cache up to date
        // from then on. A seek to where the stream already is changes nothing else, and makes
        // the position query per pcapng packet (below) free of system calls.
        if let file, seekableFD != nil { _ = fseeko(file, 0, SEEK_CUR) }

        let linkType = pcap_datalink(p)
        switch linkType {
        case LinkType.bluetoothHCIH4: layout = .h4
        case LinkType.bluetoothHCIH4WithPHDR: layout = .h4WithDirection
        case LinkType.bluetoothLinuxMonitor: layout = .linuxMonitor
        case LinkType.bluetoothLELL: layout = .leLL
        case LinkType.bluetoothLELLWithPHDR: layout = .leLLWithPHDR
        case LinkType.nordicBLE, LinkType.user10: layout = .nordic
        case LinkType.ppi: layout = .ppi
        default:
            pcap_close(p)
            throw .unsupportedLinkType(linkType)
        }
        format =
            isPcapng
            ? .pcapng(linkType: linkType) : .pcap(linkType: linkType, nanosecond: magic == .pcapNano)
        self.streamBase = streamBase
        snapshot = Int(pcap_snapshot(p))
        let here = file.map { Int64(ftello($0)) } ?? -1
        position = here >= 0 ? streamBase &+ here : (isPcapng ? 0 : 24)
        if readsPcapngBlocks, isPcapng, seekableFD != nil, here >= 0 {
            // libpcap's `swapped`: the file's byte order is not the host's.
            let hostIsBigEndian = 1.bigEndian == 1
            blocks = PcapngPacketBlocks(
                source: source, bigEndian: (pcap_is_swapped(p) != 0) != hostIsBigEndian, snapshot: snapshot,
                packetsStart: position)
        }
    }

    deinit {
        pcap_close(handle)
    }

    public func next() -> CaptureRecord? {
        if finished { return nil }
        if blocks != nil {
            switch blocks!.next() {
            case .packet(let p):
                frame &+= 1
                position = blocks!.position
                return record(
                    p.data, originalLength: p.originalLength, ts: p.timestamp, recordStart: p.recordStart,
                    recordLength: p.recordLength)
            case .end:
                finished = true
                return nil
            case .unusual:
                blocks = nil
                resumeWithLibpcap()
                if finished { return nil }
            }
        }
        return nextFromLibpcap()
    }

    /// libpcap takes over where `blocks` stopped: it reads again the packets already returned
    /// (its stream is still where opening the file left it) and goes on from there.
    private func resumeWithLibpcap() {
        var header: UnsafeMutablePointer<pcap_pkthdr>? = nil
        var data: UnsafePointer<UInt8>? = nil
        for _ in 0..<frame {
            guard pcap_next_ex(handle, &header, &data) == 1 else {
                // libpcap refuses what the native reader took: say so rather than mis-number.
                finished = true
                damage = CaptureDamage(
                    offset: position, frame: frame &+ 1, reason: String(cString: pcap_geterr(handle)))
                return
            }
        }
    }

    private func nextFromLibpcap() -> CaptureRecord? {
        var header: UnsafeMutablePointer<pcap_pkthdr>? = nil
        var data: UnsafePointer<UInt8>? = nil
        let r = pcap_next_ex(handle, &header, &data)
        guard r == 1, let header, let data else {
            finished = true
            if r == PCAP_ERROR {
                damage = CaptureDamage(
                    offset: position, frame: frame &+ 1, reason: String(cString: pcap_geterr(handle)))
            }
            return nil
        }
        frame &+= 1
        let h = header.pointee
        let caplen = Int(h.caplen)
        let wireLength = Int(h.len)

        // Where the record sits in the file.
        let before = position
        var recordStart = before
        var recordLength = 16 &+ caplen
        if !isPcapng && caplen < snapshot {
            // A classic record is its 16-byte header and caplen bytes; only a record cut to
            // the snaplen hides how many bytes libpcap skipped, so only then ask the stream
            // (glibc's ftell costs an lseek per call on a regular file).
            position = before &+ Int64(recordLength)
        } else {
            let told = file.map { Int64(ftello($0)) } ?? -1
            let after = told >= 0 ? streamBase &+ told : -1
            if after > before {
                recordLength = Int(after - before)
                if isPcapng, let (start, length) = pcapngBlock(endingAt: after, span: recordLength, caplen: caplen) {
                    recordStart = start
                    recordLength = length
                }
                position = after
            } else {
                // ftell failed: assume a classic record header and keep counting.
                position = before &+ Int64(recordLength)
            }
        }

        let raw = ByteView(UnsafeRawBufferPointer(start: data, count: caplen))
        return record(raw, originalLength: wireLength, ts: h.ts, recordStart: recordStart, recordLength: recordLength)
    }

    /// The record of a packet's bytes as the link type lays them out.
    private func record(
        _ raw: ByteView, originalLength wireLength: Int, ts: timeval, recordStart: Int64, recordLength: Int
    )
        -> CaptureRecord
    {
        let caplen = raw.count
        let (timestamp, _) = Self.microseconds(ts)
        var record = CaptureRecord(
            frame: frame, timestamp: timestamp, direction: .unknown, kind: .unknown, rawType: 0,
            payload: raw, originalLength: wireLength, fileOffset: recordStart,
            recordLength: recordLength)

        switch layout {
        case .h4:
            guard let type = raw.u8(0), let payload = raw.suffix(from: 1) else { break }
            record.kind = HCIPacketKinds.kind(h4Type: type)
            record.rawType = UInt32(type)
            record.payload = payload
            record.originalLength = max(wireLength &- 1, payload.count)
            record.direction = inference.direction(kind: record.kind, payload: payload)
        case .h4WithDirection:
            guard let dir = raw.u32be(0) else { break }
            record.direction = dir & 1 != 0 ? .received : .sent
            guard let type = raw.u8(4), let payload = raw.suffix(from: 5) else { break }
            record.kind = HCIPacketKinds.kind(h4Type: type)
            record.rawType = UInt32(type)
            record.payload = payload
            record.originalLength = max(wireLength &- 5, payload.count)
        case .linuxMonitor:
            guard let adapter = raw.u16be(0), let opcode = raw.u16be(2),
                let payload = raw.suffix(from: 4)
            else { break }
            (record.kind, record.direction) = HCIPacketKinds.kind(monitorOpcode: opcode)
            record.rawType = UInt32(opcode)
            record.controllerIndex = adapter
            record.payload = payload
            record.originalLength = max(wireLength &- 4, payload.count)
        case .leLL, .leLLWithPHDR, .nordic, .ppi:
            var radio = LinkLayerRadio()
            let pdu: ByteView?
            switch layout {
            case .leLL: pdu = LinkLayerPseudoHeader.bare(raw, &radio)
            case .leLLWithPHDR: pdu = LinkLayerPseudoHeader.withPHDR(raw, &radio, channelIsIndex: &phdrChannelIsIndex)
            case .nordic: pdu = LinkLayerPseudoHeader.nordic(raw, &radio)
            default: pdu = LinkLayerPseudoHeader.ppi(raw, &radio)
            }
            guard let pdu else { break }
            senderInference.infer(&radio, pduLength: pdu.count, timestamp: timestamp)
            record.kind = .linkLayer
            record.payload = pdu
            record.originalLength = max(wireLength &- (caplen &- pdu.count), pdu.count)
            record.direction =
                switch radio.sender {
                case .central: .sent
                case .peripheral: .received
                case .unknown: .unknown
                }
            record.radio = radio
        }
        return record
    }

    /// tv_sec * 1_000_000 + tv_usec without trapping: a hostile pcapng timestamp can exceed
    /// Int64 µs; it saturates (and the flag says so).
    static func microseconds(_ ts: timeval) -> (Int64, overflowed: Bool) {
        let sec = Int64(ts.tv_sec)
        let usec = Int64(ts.tv_usec)
        let (scaled, o1) = sec.multipliedReportingOverflow(by: 1_000_000)
        let (sum, o2) = scaled.addingReportingOverflow(usec)
        if o1 || o2 { return (sec < 0 ? Int64.min : Int64.max, true) }
        return (sum, false)
    }

    /// The packet block that ends at `end`, when the span libpcap consumed since the previous
    /// packet is more than one block. Enhanced Packet Block without options: 32 + padded data;
    /// Simple Packet Block: 16 + padded data (pcapng spec 4.3, 4.4).
    private func pcapngBlock(endingAt end: Int64, span: Int, caplen: Int) -> (Int64, Int)? {
        let padded = (caplen &+ 3) & ~3
        if span == 32 &+ padded || span == 16 &+ padded { return nil }
        guard let fd = seekableFD, end >= 12 else { return nil }  // streamBase is 0 here
        var trailer: UInt32 = 0
        guard pread(fd, &trailer, 4, off_t(end - 4)) == 4 else { return nil }
        let length = Int(pcap_is_swapped(handle) != 0 ? trailer.byteSwapped : trailer)
        guard length >= 12, length <= span, length & 3 == 0 else { return nil }
        return (end - Int64(length), length)
    }
}
