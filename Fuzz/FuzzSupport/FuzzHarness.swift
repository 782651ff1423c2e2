import BLEBytes
import BLEOutput
import BLEPackets
import BLETimeline
import CFuzzerDriver
import CaptureArchive
import CaptureIO
import Foundation

@testable import BlecapCLI

#if canImport(Glibc)
    import Glibc
#endif

/// What every fuzz target runs: bytes → a reader (or synthesized records) → `FrameDecoder` →
/// every layer's `describe` → `PacketWriter` text (verbose), json (with fields) and jsonl.
///
/// Besides crashes and hangs (libFuzzer's -timeout), it traps on broken invariants so libFuzzer
/// keeps the input: a reader that delivers more records than the bytes can hold, damage that is
/// not numbered after the last frame, a reader that restarts after its end, describe output
/// whose groups do not balance, JSON output that does not parse.
public enum FuzzHarness {
    /// Which reader to drive (bypassing content detection, so every input reaches its parser).
    public enum Reader {
        case btsnoop, pcap, packetLogger
    }

    /// Runs one fuzz input through a reader and the rest of the pipeline.
    public static func runReader(_ kind: Reader, _ data: UnsafeRawBufferPointer) {
        guard let fd = memoryFile(data) else { fatalError("cannot create a memory file") }
        let source = FileByteSource(fd: fd, ownsFD: true)
        let reader: (any CaptureReader)?
        switch kind {
        case .btsnoop:
            reader = try? BTSnoopReader(source: source)
        case .pcap:
            // Even lengths: libpcap reopens the file by path (and pcapng offsets use pread), and
            // an ordinary pcapng's packets come from PcapngPacketBlocks until something unusual
            // hands them back to libpcap; odd: the stream path stdin takes (fopencookie
            // replaying the sniffed bytes), libpcap throughout.
            _ = source.peekAvailable(upTo: 64)
            reader = try? PcapReader(source: source, path: data.count & 1 == 0 ? "/proc/self/fd/\(fd)" : nil)
        case .packetLogger:
            let sniffed = PacketLoggerReader.sniff(source.peekAvailable(upTo: 64))
            reader = try? PacketLoggerReader(source: source, bigEndian: sniffed ?? (data.count & 1 == 0))
        }
        guard let reader else { return }
        // The smallest record of any container is 12 bytes (a PacketLogger header).
        pipeline(reader, frameLimit: data.count / 12 + 2)
    }

    /// Records synthesized from the input, for the decoders: each is
    /// `[kind][length lo][length hi][payload …]` (kind: low 3 bits select command, event, ACL,
    /// SCO, ISO, note; bit 3 received; bits 4–5 controller index), so every HCI and L2CAP
    /// decoder, and reassembly across records, is reachable without a container around it.
    /// Kind bit 6 makes a Link Layer record instead: payload = access address (4, LE) then the
    /// PDU with its CRC; bit 3 peripheral (else central), bit 4 "CRC checked and valid", bit 5
    /// advertising channel 37 (else data channel 5), bit 7 "encrypted" (the 272 flag).
    public static func runDecoders(_ data: UnsafeRawBufferPointer) {
        let records = SynthesizedRecords(ByteView(data))
        pipeline(records, frameLimit: data.count / 3 + 1)
    }

    /// Limits small enough that a decompression bomb is refused in milliseconds, not after
    /// gigabytes: the walker's accounting is what is under test, not the default sizes.
    static let archiveLimits: ArchiveLimits = {
        var l = ArchiveLimits()
        l.maximumMemberBytes = 8 << 20
        l.maximumTotalBytes = 32 << 20
        l.ratioFloorBytes = 1 << 16
        l.maximumSummaryBytes = 4 << 20
        return l
    }()

    /// Untrusted fleet input: the bytes as a file handed to `CaptureBundle.open` (gzip, xz, zip,
    /// tar, an Android bug report, a bug report's text with a btsnooz section, or a plain
    /// capture), then every member through the pipeline. An input starting with `#` (not the
    /// first byte of any container) is instead the base64 text of a btsnooz section, so the
    /// section decoder is reached without the fuzzer having to invent base64 framing.
    public static func runArchive(_ data: UnsafeRawBufferPointer) {
        if data.first == UInt8(ascii: "#") {
            let text = Array(data.dropFirst())
            guard let log = try? BTSnoozLog(base64: text, limits: archiveLimits) else { return }
            pipeline(BTSnoozReader(log), frameLimit: Int.max)
            return
        }
        guard let fd = memoryFile(data) else { fatalError("cannot create a memory file") }
        defer { close(fd) }
        guard let bundle = try? CaptureBundle.open(path: "/proc/self/fd/\(fd)", limits: archiveLimits) else { return }
        if bundle.members.isEmpty { fatalError("a bundle without members opened") }
        for member in bundle.members {
            guard let reader = try? member.makeReader() else { continue }
            // Decompressed sizes are not the input's: no records-per-byte bound here.
            pipeline(reader, frameLimit: Int.max)
        }
    }

    static func pipeline(_ reader: any CaptureReader, frameLimit: Int) {
        let textOut = OutputBuffer(fd: nil)
        let jsonOut = OutputBuffer(fd: nil)
        let jsonlOut = OutputBuffer(fd: nil)
        let monitor: Bool
        switch reader.format {
        case .btsnoop(2001), .pcap(LinkType.bluetoothLinuxMonitor, _), .pcapng(LinkType.bluetoothLinuxMonitor):
            monitor = true
        default:
            monitor = false
        }
        let text = PacketWriter(
            out: textOut, format: .text, verbose: true, color: true, absoluteTime: false, showsController: monitor)
        let json = PacketWriter(
            out: jsonOut, format: .json, verbose: false, color: false, absoluteTime: false, showsController: monitor)
        let jsonl = PacketWriter(
            out: jsonlOut, format: .jsonl, verbose: false, color: false, absoluteTime: true, showsController: monitor)
        let sink = BalanceSink()
        let decoder = FrameDecoder()
        // The timeline too: connections, GATT and the link-layer facts built from the frames.
        let timeline = TimelineBuilder(emit: { _ in })
        var frames = 0
        json.begin()
        while let record = reader.next() {
            frames += 1
            if frames > frameLimit { fatalError("reader delivered more than \(frameLimit) records") }
            if record.frame != frames { fatalError("record \(frames) numbered \(record.frame)") }
            let frame = decoder.decode(record)
            sink.check(frame)
            timeline.feed(frame)
            text.write(frame)
            json.write(frame)
            jsonl.write(frame)
        }
        json.end()
        timeline.finish()
        let damage = reader.damage
        if let damage, damage.frame != frames + 1 { fatalError("damage \(damage) after \(frames) frames") }
        if reader.next() != nil { fatalError("next() after the end returned a record") }
        if reader.damage != damage { fatalError("damage changed after the end") }
        if (try? JSONSerialization.jsonObject(with: Data(jsonOut.bytes))) == nil {
            fatalError("json output does not parse: \(String(decoding: jsonOut.bytes, as: UTF8.self))")
        }
        var lineStart = 0
        for (i, b) in jsonlOut.bytes.enumerated() where b == 0x0A {
            let line = Data(jsonlOut.bytes[lineStart..<i])
            if (try? JSONSerialization.jsonObject(with: line)) == nil {
                fatalError("jsonl line does not parse: \(String(decoding: line, as: UTF8.self))")
            }
            lineStart = i + 1
        }
        if String(validating: textOut.bytes, as: UTF8.self) == nil { fatalError("text output is not UTF-8") }
    }

    /// An anonymous in-memory file holding `data`, positioned at its start.
    static func memoryFile(_ data: UnsafeRawBufferPointer) -> Int32? {
        let fd = blecap_fuzz_memfd()
        guard fd >= 0 else { return nil }
        var off = 0
        while off < data.count {
            let n = write(fd, data.baseAddress! + off, data.count - off)
            if n <= 0 {
                close(fd)
                return nil
            }
            off += n
        }
        lseek(fd, 0, SEEK_SET)
        return fd
    }
}

/// Traps when a decoder's groups do not balance or it leaves a frame undescribed.
final class BalanceSink: FieldSink {
    var depth = 0
    var items = 0

    func field(_ name: StaticString, _ value: FieldValue) { items += 1 }
    func begin(_ name: StaticString) {
        items += 1
        depth += 1
    }
    func end() {
        if depth == 0 { fatalError("end() without begin()") }
        depth -= 1
    }
    func note(_ text: StaticString) { items += 1 }

    func check(_ frame: DecodedFrame) {
        depth = 0
        items = 0
        switch frame.layer {
        case .command(let c): c.describe(into: self)
        case .event(let e): e.describe(into: self)
        case .acl(let acl):
            acl.describe(into: self)
            if let pdu = frame.l2cap { L2CAPPayload.describe(pdu, into: self) }
        case .linkLayer(let ll):
            ll.describe(radio: frame.record.radio, into: self)
            if let pdu = frame.l2cap { L2CAPPayload.describe(pdu, into: self) }
        case .other, .malformed: return
        }
        if depth != 0 { fatalError("\(depth) group(s) left open by \(frame.layer)") }
        if items == 0 { fatalError("describe emitted nothing for \(frame.layer)") }
    }
}

/// A `CaptureReader` over synthesized records (see `FuzzHarness.runDecoders`).
final class SynthesizedRecords: CaptureReader {
    let data: ByteView
    var offset = 0
    var frame = 0
    let format = CaptureFormat.btsnoop(datalink: 1002)
    var damage: CaptureDamage? = nil
    var finished = false

    init(_ data: ByteView) { self.data = data }

    static let kinds: [RecordKind] = [.hciCommand, .hciEvent, .aclData, .aclData, .scoData, .isoData, .note, .hciEvent]

    func next() -> CaptureRecord? {
        guard !finished, let kindByte = data.u8(offset), let length = data.u16le(offset + 1) else {
            if !finished && offset < data.count {
                damage = CaptureDamage(offset: Int64(offset), frame: frame + 1, reason: "truncated record header")
            }
            finished = true
            return nil
        }
        // Lengths past the end are cut to the bytes left.
        let start = offset + 3
        let count = min(Int(length), data.count - start)
        guard let payload = data.slice(start, count) else { fatalError("slice \(start)+\(count) of \(data.count)") }
        offset = start + count
        frame += 1
        let received = kindByte & 0x08 != 0
        if kindByte & 0x40 != 0 {
            var radio = LinkLayerRadio()
            radio.accessAddress = payload.u32le(0) ?? 0
            radio.channel = kindByte & 0x20 != 0 ? 37 : 5
            if kindByte & 0x10 != 0 { radio.flags.formUnion([.crcChecked, .crcValid]) }
            if !radio.isAdvertising {
                radio.sender = received ? .peripheral : .central
                if kindByte & 0x80 != 0 { radio.flags.formUnion([.encryptionKnown, .encrypted]) }
            }
            return CaptureRecord(
                frame: frame, timestamp: Int64(frame) * 1000,
                direction: radio.sender == .peripheral ? .received : .sent,
                kind: .linkLayer, rawType: UInt32(kindByte), payload: payload.suffix(from: 4) ?? .empty,
                originalLength: count, fileOffset: Int64(start - 3), recordLength: count + 3, radio: radio)
        }
        return CaptureRecord(
            frame: frame, timestamp: Int64(frame) * 1000, direction: received ? .received : .sent,
            kind: Self.kinds[Int(kindByte & 0x07)], rawType: UInt32(kindByte),
            controllerIndex: UInt16(kindByte >> 4 & 0x03), payload: payload, originalLength: count,
            fileOffset: Int64(start - 3), recordLength: count + 3)
    }
}
