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
    /// The end is the Disconnection Complete's, or the HCI Reset's that ended the link. True
    /// when the step was added.
    @discardableResult
    func rootInflammationStep(_ s: ConnectionSummary?, endFrame: Int, endTime: Int64, _ v: inout Verdict) -> Bool {
        guard let f = s?.rootInflammation, f.time <= endTime, f.frame <= endFrame else { return false }
        let ri = f.report
        let error = Codes.hex(ri.errorCode) + (HCIError.name(ri.errorCode).map { " \($0)" } ?? "")
        v.steps.append(
            Verdict.Step(
                what: "root_inflammation",
                text:
                    "the controller reported a root inflammation (its own failure), error \(error), vendor code \(Codes.hex(ri.vendorErrorCode)), \(Codes.duration(endTime - f.time)) before the end",
                frames: [f.frame, endFrame], certainty: .observed,
                basis: "HCI Vendor-Specific event 0x58 (Android BQR) with report id 0x05, Root Inflammation"))
        v.signals.append("controller_fault")
        return true
    }
}

extension Diagnoser {
    /// Supervision timeout: the last BQR RF Stats report of the link's controller while the
    /// link was up. It counts the packets the controller received over a period by RSSI, over
    /// all its traffic (it names no handle), so it is said as what it is: the controller's
    /// radio, not this link's. No signal, and the cause stays the end reason's; a report whose
    /// RSSI buckets are all zero says nothing of the signal and gives no step.
    func rfStatsStep(_ s: ConnectionSummary?, _ end: Disconnection, _ v: inout Verdict) {
        guard let f = s?.rfStats, f.time <= end.time, f.frame <= end.frame else { return }
        let rf = f.report
        let received = rf.received
        guard received > 0 else { return }
        let percent = Double(rf.weak) * 100 / Double(received)
        let share = (percent * 10).rounded() / 10
        v.steps.append(
            Verdict.Step(
                what: "rf_stats",
                text:
                    "the controller's last RF statistics (Bluetooth Quality Report, \(Codes.duration(end.time - f.time)) before the end, over \(Codes.duration(Int64(rf.period) * 1000))): of \(received) packets it received, all its links together, \(rf.weak) (\(share) %) came at -80 dBm or weaker, \(rf.rssiBuckets.last ?? 0) below -90 dBm",
                frames: [f.frame], certainty: .observed,
                basis:
                    "HCI Vendor-Specific event 0x58 (Android BQR) with report id 0x09, RF Stats: the controller's counts, no handle"
            ))
    }
}
