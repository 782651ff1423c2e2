import BLEBytes
import Foundation
import TestSupport
import Testing

@testable import CaptureIO

/// pcapng packets read without libpcap (`PcapngPacketBlocks`) must be exactly what libpcap
/// gives — records, file offsets, radio fields, damage — and everything unusual must still be
/// libpcap's: each file here is read both ways and compared.
@Suite("PcapReader: pcapng packet blocks without libpcap")
struct PcapngPacketBlocksTests {
    typealias K = PcapTestKit

    struct Read: Equatable, CustomStringConvertible {
        var format: CaptureFormat
        var records: [OwnedRecord]
        var radios: [LinkLayerRadio]
        var damage: CaptureDamage?
        /// Packets still came from the native reader at the end.
        var native: Bool

        var description: String { "\(records.count) records, damage \(damage.map(\.description) ?? "none")" }

        static func == (a: Read, b: Read) -> Bool {
            a.format == b.format && a.records == b.records && a.radios == b.radios && a.damage == b.damage
        }
    }

    static func read(path: String, native: Bool) throws -> Read {
        let source = try FileByteSource(path: path)
        _ = source.peekAvailable(upTo: 64)
        let reader = try PcapReader(source: source, path: path, readsPcapngBlocks: native)
        var records: [OwnedRecord] = []
        var radios: [LinkLayerRadio] = []
        while let r = reader.next() {
            records.append(OwnedRecord(r))
            radios.append(r.radio)
        }
        #expect(reader.next() == nil)
        return Read(
            format: reader.format, records: records, radios: radios, damage: reader.damage,
            native: reader.readsPcapngBlocksNatively)
    }

    /// Both readings of `bytes`; nil when libpcap refuses to open them (then so does blecap,
    /// the same way, whichever reads the packets).
    static func both(_ bytes: [UInt8]) throws -> (native: Read, libpcap: Read)? {
        let path = K.temporaryFile(bytes)
        defer { unlink(path) }
        guard let libpcap = try? read(path: path, native: false) else {
            #expect(throws: CaptureError.self) { _ = try read(path: path, native: true) }
            return nil
        }
        return (try read(path: path, native: true), libpcap)
    }

    static let pcapngCaptures: [String] =
        (Fixtures.captures(in: "linklayer") + Fixtures.captures(in: "formats") + Fixtures.captures(in: "public"))
        .filter { $0.hasSuffix(".pcapng") }

    @Test(arguments: pcapngCaptures)
    func everyCorpusCaptureReadsAsLibpcapReadsIt(path: String) throws {
        let libpcap = try Self.read(path: path, native: false)
        let native = try Self.read(path: path, native: true)
        #expect(native == libpcap)
        #expect(!libpcap.records.isEmpty)
        // The corpus is ordinary pcapng: no file needed libpcap for its packets.
        #expect(native.native, "\(path) fell back to libpcap")
    }

    @Test func truncatedAnywhereReadsAsLibpcapReadsIt() throws {
        // The nRF Sniffer capture (272) cut at every byte: clean ends at block boundaries,
        // libpcap's damage (its offset, frame and message) inside a block.
        let bytes = try K.bytes(of: Fixtures.capture("linklayer/hr_short_notification.central.nordic272.pcapng"))
        var damaged = 0
        for cut in 0...bytes.count {
            guard let (native, libpcap) = try Self.both(Array(bytes[..<cut])) else { continue }
            #expect(native == libpcap, "cut at \(cut)")
            if libpcap.damage != nil { damaged += 1 }
        }
        #expect(damaged > bytes.count / 2)
    }

    // MARK: crafted files

    /// A pcapng block (type, length, body padded to 4, length).
    static func block(_ type: UInt32, _ body: [UInt8], bigEndian: Bool = false) -> [UInt8] {
        let w32 = bigEndian ? K.be32 : K.le32
        let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
        let total = UInt32(12 + padded.count)
        return w32(type) + w32(total) + padded + w32(total)
    }

    static func shb(bigEndian: Bool = false) -> [UInt8] {
        let (w32, w16) = bigEndian ? (K.be32, K.be16) : (K.le32, K.le16)
        return block(
            0x0A0D_0D0A, w32(0x1A2B_3C4D) + w16(1) + w16(0) + [UInt8](repeating: 0xFF, count: 8), bigEndian: bigEndian)
    }

    /// IDB for link type 201; `options` already encoded (end-of-options added).
    static func idb(snaplen: UInt32 = 0, options: [UInt8] = [], bigEndian: Bool = false) -> [UInt8] {
        let (w32, w16) = bigEndian ? (K.be32, K.be16) : (K.le32, K.le16)
        let opts = options.isEmpty ? [] : options + w16(0) + w16(0)
        return block(1, w16(201) + w16(0) + w32(snaplen) + opts, bigEndian: bigEndian)
    }

    /// An HCI command (201: direction word, H4 type, Reset) as an EPB.
    static func epb(
        ts: UInt64, interface: UInt32 = 0, extra: [UInt8] = [], options: [UInt8] = [], bigEndian: Bool = false
    ) -> [UInt8] {
        let (w32, w16) = bigEndian ? (K.be32, K.be16) : (K.le32, K.le16)
        let data: [UInt8] = [0, 0, 0, 0, 0x01, 0x03, 0x0C, 0x00] + extra
        let padded = data + [UInt8](repeating: 0, count: (4 - data.count % 4) % 4)
        let opts = options.isEmpty ? [] : options + w16(0) + w16(0)
        return block(
            6,
            w32(interface) + w32(UInt32(ts >> 32)) + w32(UInt32(ts & 0xFFFF_FFFF)) + w32(UInt32(data.count))
                + w32(UInt32(data.count)) + padded + opts, bigEndian: bigEndian)
    }

    static let comment: [UInt8] = K.le16(1) + K.le16(5) + Array("hello".utf8) + [0, 0, 0]
    /// Interface Statistics Block (type 5): interface 0, a timestamp, no options.
    static let statistics = block(5, K.le32(0) + K.le32(0) + K.le32(7))
    /// A custom block (0x00000BAD) with 5 bytes of data.
    static let custom = block(0x0000_0BAD, K.le32(32473) + [1, 2, 3, 4, 5])

    /// Files the native reader reads to the end itself.
    @Test(arguments: [
        ("non-packet blocks between packets", shb() + idb() + epb(ts: 1) + statistics + custom + epb(ts: 2) + custom),
        (
            "packet options",
            shb() + idb() + epb(ts: 1, options: comment) + epb(ts: 2, extra: [9, 9, 9], options: comment)
        ),
        ("blocks before the interface", shb() + custom + idb() + epb(ts: 3)),
        ("nanoseconds", shb() + idb(options: K.le16(9) + K.le16(1) + [9, 0, 0, 0]) + epb(ts: 1_999_999_999)),
        ("big-endian", shb(bigEndian: true) + idb(bigEndian: true) + epb(ts: 5, bigEndian: true)),
        ("snaplen equal to the packet", shb() + idb(snaplen: 8) + epb(ts: 1)),
    ])
    func ordinaryFiles(_ what: String, _ bytes: [UInt8]) throws {
        let (native, libpcap) = try #require(try Self.both(bytes), "\(what)")
        #expect(native == libpcap, "\(what)")
        #expect(native.native, "\(what)")
        #expect(libpcap.damage == nil && !libpcap.records.isEmpty, "\(what)")
    }

    /// Files with something libpcap must judge: the native reader hands over, and the result is
    /// still libpcap's.
    @Test(arguments: [
        ("a second interface", shb() + idb() + epb(ts: 1) + idb() + epb(ts: 2, interface: 1)),
        ("a packet on an undescribed interface", shb() + idb() + epb(ts: 1) + epb(ts: 2, interface: 1)),
        ("a second section", shb() + idb() + epb(ts: 1) + shb() + idb() + epb(ts: 2)),
        ("a simple packet block", shb() + idb() + epb(ts: 1) + block(3, K.le32(8) + [0, 0, 0, 0, 1, 3, 0x0C, 0])),
        ("capture length over the snaplen", shb() + idb(snaplen: 6) + epb(ts: 1)),
        ("millisecond resolution", shb() + idb(options: K.le16(9) + K.le16(1) + [3, 0, 0, 0]) + epb(ts: 1)),
        ("a timestamp offset", shb() + idb(options: K.le16(14) + K.le16(8) + K.le32(100) + K.le32(0)) + epb(ts: 1)),
        (
            "trailer disagreeing with the header",
            shb() + idb() + epb(ts: 1) + Array(epb(ts: 2).dropLast(4)) + K.le32(99)
        ),
        (
            "block length not a multiple of 4",
            shb() + idb() + epb(ts: 1) + K.le32(5) + K.le32(13) + [0, 0, 0, 0, 0] + K.le32(13)
        ),
        ("garbage after the last block", shb() + idb() + epb(ts: 1) + [1, 2, 3]),
    ])
    func unusualFilesAreLibpcaps(_ what: String, _ bytes: [UInt8]) throws {
        guard let (native, libpcap) = try Self.both(bytes) else { return }
        #expect(native == libpcap, "\(what): native \(native), libpcap \(libpcap)")
        #expect(!native.native, "\(what)")
    }
}
