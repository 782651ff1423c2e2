import BLEPackets
import BLETimeline

extension Diagnoser {
    /// The RSSI trend is read over this long before the end: the supervision timeout itself
    /// is at most 32 s (Vol 6 Part B 4.5.2), and what matters is whether the signal was
    /// fading in the seconds before packets stopped, not an hour earlier.
    public static let rssiWindow: Int64 = 10_000_000
    /// A fall of more than this (first to last sample of the window) is `rssi_falling`. RSSI
    /// of a link that does not move jitters by a few dB from fading and from the controller's
    /// rounding; 10 dB is a tenth of the received power (in free space, a distance about 3
    /// times as far), more than that jitter.
    public static let rssiFallThreshold = 10

    /// Supervision timeout: the peer's RSSI in the last `rssiWindow` before the end (HCI Read
    /// RSSI results, or the sniffer's RSSI of the peripheral's PDUs), with its last
    /// advertising report's RSSI before the connection when the capture has one.
    func rssiStep(_ s: ConnectionSummary?, _ end: Disconnection, _ v: inout Verdict) {
        var advertised = ""
        var frames: [Int] = []
        if let s, let peer = s.peer, let a = advertisers[peer]?.lastRSSI, a.time <= s.startTime {
            advertised = "; before the connection it advertised at \(a.dBm) dBm (frame \(a.frame))"
            frames.append(a.frame)
        }
        let all = s?.rssi.samples ?? []
        let window = all.filter { $0.time <= end.time && end.time - $0.time <= Self.rssiWindow }
        guard let first = window.first, let last = window.last else {
            let text: String
            if let last = all.last {
                text =
                    "the last RSSI of the peer (\(last.source.name)) is \(last.dBm) dBm, \(Codes.duration(end.time - last.time)) before the end: none in the last \(Codes.duration(Self.rssiWindow))\(advertised)"
                frames.append(last.frame)
            } else {
                text =
                    "the capture has no RSSI of the peer on this link (no HCI Read RSSI result for its handle, no sniffer RSSI of its PDUs)\(advertised)"
            }
            v.steps.append(
                Verdict.Step(
                    what: "rssi", text: text, frames: frames, certainty: .observed,
                    basis: "the timeline's RSSI samples of the link"))
            return
        }
        let change = Int(last.dBm) - Int(first.dBm)
        let minimum = window.map(\.dBm).min() ?? last.dBm
        let sources = Set(window.map(\.source)).sorted { $0.rawValue < $1.rawValue }.map { "\($0.name)" }
        guard window.count > 1 else {
            frames.append(last.frame)
            v.steps.append(
                Verdict.Step(
                    what: "rssi",
                    text:
                        "one RSSI value of the peer in the last \(Codes.duration(Self.rssiWindow)) before the end: \(last.dBm) dBm, \(Codes.duration(end.time - last.time)) before, from \(sources.joined(separator: " and ")): no trend can be told\(advertised)",
                    frames: frames, certainty: .observed, basis: sources.joined(separator: ", ")))
            return
        }
        let trend: String
        if change < -Self.rssiFallThreshold {
            trend = "falling"
            v.signals.append("rssi_falling")
        } else if change > Self.rssiFallThreshold {
            trend = "rising"
        } else {
            trend = "stable"
        }
        frames += [first.frame, last.frame]
        if let m = window.first(where: { $0.dBm == minimum }) { frames.append(m.frame) }
        v.steps.append(
            Verdict.Step(
                what: "rssi",
                text:
                    "RSSI of the peer in the last \(Codes.duration(Self.rssiWindow)) before the end: \(trend), \(first.dBm) dBm (\(Codes.duration(end.time - first.time)) before) to \(last.dBm) dBm (\(Codes.duration(end.time - last.time)) before), \(change >= 0 ? "+" : "")\(change) dB, minimum \(minimum) dBm, \(window.count) samples from \(sources.joined(separator: " and "))\(advertised)",
                frames: frames, certainty: .observed,
                basis:
                    "\(sources.joined(separator: ", ")); falling means more than \(Self.rssiFallThreshold) dB down from the window's first value to its last"
            ))
    }
}
