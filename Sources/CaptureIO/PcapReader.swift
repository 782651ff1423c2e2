import BLEBytes
import CPcap
import CCaptureSupport

/// pcap and pcapng through libpcap. STUB: to be implemented.
public final class PcapReader: CaptureReader {
    public let format: CaptureFormat
    public private(set) var damage: CaptureDamage? = nil

    /// pcap (µs/ns, either byte order) or pcapng section header magic.
    public static func sniff(_ prefix: ByteView) -> Bool {
        guard let m = prefix.u32be(0) else { return false }
        return [0xA1B2_C3D4, 0xD4C3_B2A1, 0xA1B2_3C4D, 0x4D3C_B2A1, 0x0A0D_0D0A].contains(m)
    }

    public init(source: FileByteSource, path: String?) throws(CaptureError) {
        format = .pcap(linkType: 201, nanosecond: false)
    }

    public func next() -> CaptureRecord? { nil }
}
