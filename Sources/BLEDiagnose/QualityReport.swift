import BLEPackets
import BLETimeline

extension Diagnoser {
    /// Supervision timeout: the last Android Bluetooth Quality Report link-quality report for
    /// the link's handle, when the capture has one (only Android controllers with BQR enabled
    /// send them; without one nothing is said).
    func qualityReportStep(_ s: ConnectionSummary?, _ end: Disconnection, _ v: inout Verdict) {
        guard let f = s?.qualityReport, f.time <= end.time else { return }
        let q = f.report
        let name = BQRLinkQuality.reportName(q.reportID).map { "\($0)" } ?? "report \(Codes.hex(q.reportID))"
        v.steps.append(
            Verdict.Step(
                what: "quality_report",
                text:
                    "the controller's last Bluetooth Quality Report for the link (\(name), \(Codes.duration(end.time - f.time)) before the end, \(f.count) in all): RSSI \(q.rssi) dBm, SNR \(q.snr) dB, \(q.noRX) packets not received, \(q.retransmissions) retransmissions, \(q.nak) NAKs, TX power \(q.txPower) dBm, \(q.unusedAFHChannels) unused AFH channels",
                frames: [f.frame], certainty: .observed,
                basis: "HCI Vendor-Specific event 0x58 (Android BQR) for the link's handle"))
    }
}
