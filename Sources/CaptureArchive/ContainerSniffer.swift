import BLEBytes
import CaptureIO

/// What an input (or an archive member) is, from its first bytes: never from its name.
enum ContentKind: Equatable {
    /// btsnoop, pcap/pcapng or PacketLogger: CaptureIO reads it as it is.
    case capture
    /// gzip, xz, zip or tar: libarchive opens it.
    case archive(String)
    /// Printable text: an Android bug report's main file can carry a btsnooz section.
    case text
    case other

    /// Bytes enough to tell every kind (tar's "ustar" magic sits at offset 257).
    static let prefixLength = 512

    static func of(_ prefix: ByteView) -> ContentKind {
        switch CaptureFile.detect(prefix) {
        case .btsnoop, .pcap, .packetLogger: return .capture
        case .truncated, .unknown: break
        }
        if let name = archiveName(prefix) { return .archive(name) }
        // JSON (a simulator trace) is no bug report: not scanned for a btsnooz section.
        if looksLikeText(prefix), !looksLikeJSON(prefix) { return .text }
        return .other
    }

    /// The compression or archive format whose magic starts `prefix`.
    static func archiveName(_ p: ByteView) -> String? {
        if p.u8(0) == 0x1F && p.u8(1) == 0x8B { return "gzip" }
        if p.count >= 6 && p.prefix(6).elementsEqual([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return "xz" }
        // Local file header, or the end-of-central-directory record of an empty zip.
        if p.u32le(0) == 0x0403_4B50 || p.u32le(0) == 0x0605_4B50 { return "zip" }
        // POSIX ustar ("ustar\0" + "00") and GNU tar ("ustar  \0") both start with "ustar".
        if let magic = p.slice(257, 5), magic.elementsEqual("ustar".utf8) { return "tar" }
        return nil
    }

    /// Starts with `{` or `[` after blanks.
    static func looksLikeJSON(_ p: ByteView) -> Bool {
        for b in p where b != 0x20 && b != 0x09 && b != 0x0A && b != 0x0D {
            return b == UInt8(ascii: "{") || b == UInt8(ascii: "[")
        }
        return false
    }

    /// No NUL and mostly printable: enough to try a text scan, which looks for a marker anyway.
    static func looksLikeText(_ p: ByteView) -> Bool {
        guard !p.isEmpty else { return false }
        var printable = 0
        for b in p {
            if b == 0 { return false }
            if b >= 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b >= 0x80 { printable += 1 }
        }
        return printable * 10 >= p.count * 9
    }
}
