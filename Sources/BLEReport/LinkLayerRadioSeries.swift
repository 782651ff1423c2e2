import BLEPackets
import CaptureIO

/// What the sniffer's radio saw of one connection (one access address), for the report's
/// link-layer charts: PDUs and CRC errors per data channel (a channel that fails far more often
/// than the others points at interference there, typically Wi-Fi), RSSI over time per side
/// (which end is far or shadowed), and retransmissions over time (when the link struggled).
/// Memory is fixed: 37 counters twice and three bucket series of at most `Limits.rssiBuckets`.
public struct LinkLayerRadioSeries: Sendable, Encodable {
    /// Data channel PDUs per channel index 0–36 (retransmissions and CRC errors included).
    public var channelPDUs = [Int](repeating: 0, count: 37)
    public var channelCRCErrors = [Int](repeating: 0, count: 37)
    public var rssiCentral = BucketSeries<RSSIBucket>(start: 0, width: 10_000, capacity: Limits.rssiBuckets)
    public var rssiPeripheral = BucketSeries<RSSIBucket>(start: 0, width: 10_000, capacity: Limits.rssiBuckets)
    public var retransmissions = BucketSeries<RetransmissionBucket>(
        start: 0, width: 10_000, capacity: Limits.rssiBuckets)

    typealias Limits = SessionReportModel.Limits

    init() {}

    /// One data channel PDU at `t` (µs since the capture's first frame).
    mutating func add(_ radio: LinkLayerRadio, _ frame: LinkLayerFrame, at t: Int64) {
        let channel = Int(radio.channel)
        guard channel < 37 else { return }
        channelPDUs[channel] += 1
        if frame.crc == .invalid { channelCRCErrors[channel] += 1 }
        if radio.flags.contains(.rssiValid) {
            let rssi = Int(radio.rssi)
            switch radio.sender {
            case .central: rssiCentral.add(at: t) { $0.add(rssi) }
            case .peripheral: rssiPeripheral.add(at: t) { $0.add(rssi) }
            case .unknown: break
            }
        }
        let retransmitted = frame.isRetransmission
        retransmissions.add(at: t) {
            $0.pdus += 1
            if retransmitted { $0.retransmitted += 1 }
        }
    }

    enum CodingKeys: String, CodingKey {
        case channelPDUs, channelCRCErrors, rssiCentral, rssiPeripheral, retransmissions
    }
}

/// Data PDUs and retransmitted copies in one bucket. Encoded as `[pdus, retransmitted]`.
public struct RetransmissionBucket: BucketValue {
    public var pdus = 0
    public var retransmitted = 0
    public init() {}
    public mutating func merge(_ o: RetransmissionBucket) {
        pdus += o.pdus
        retransmitted += o.retransmitted
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(pdus)
        try c.encode(retransmitted)
    }
}
