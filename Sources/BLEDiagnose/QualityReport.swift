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

extension Diagnoser {
    /// Any end: a BQR Root Inflammation from the link's controller while the link was up is the
    /// controller reporting its own failure (a firmware fault; Android's stack restarts
    /// Bluetooth on one), strong evidence the controller, not the peer or the app, ended the
    /// link. A step and the signal `controller_fault`; the cause stays the end reason's.
    func rootInflammationStep(_ s: ConnectionSummary?, _ end: Disconnection, _ v: inout Verdict) {
        guard let f = s?.rootInflammation, f.time <= end.time, f.frame <= end.frame else { return }
        let ri = f.report
        let error = Codes.hex(ri.errorCode) + (HCIError.name(ri.errorCode).map { " \($0)" } ?? "")
        v.steps.append(
            Verdict.Step(
                what: "root_inflammation",
                text:
                    "the controller reported a root inflammation (its own failure), error \(error), vendor code \(Codes.hex(ri.vendorErrorCode)), \(Codes.duration(end.time - f.time)) before the end",
                frames: [f.frame, end.frame], certainty: .observed,
                basis: "HCI Vendor-Specific event 0x58 (Android BQR) with report id 0x05, Root Inflammation"))
        v.signals.append("controller_fault")
    }
}
