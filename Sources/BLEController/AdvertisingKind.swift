import BLEBytes
import BLEPackets
import BLEReplay

/// What an advertiser's PDUs are on the virtual air, from its captured advertising reports:
/// connectable, scannable, directed, legacy or extended advertising (Vol 6 Part B 2.3.1,
/// Vol 4 Part E 7.7.65.2 and 7.7.65.13).
struct AdvertisingKind: Equatable {
    var connectable: Bool
    var scannable: Bool
    var directed: Bool
    /// Legacy PDUs (ADV_IND and its kin) rather than extended advertising.
    var legacy: Bool
    /// An active scan gets a scan response: the advertising is scannable, or the capture has a
    /// scan response from it (it answered a scan request whatever its reports said).
    var answersScanRequests: Bool

    typealias Legacy = HCILEAdvertisingReportEntry
    typealias Extended = HCILEExtendedAdvertisingReportEntry

    /// ADV_IND: what a peer the capture never saw advertising is taken to have sent.
    static let advInd = AdvertisingKind(connectable: true, scannable: true, directed: false, legacy: true)

    init(connectable: Bool, scannable: Bool, directed: Bool, legacy: Bool) {
        (self.connectable, self.scannable, self.directed, self.legacy) = (connectable, scannable, directed, legacy)
        answersScanRequests = scannable
    }

    /// From the captured advertisement: its last report's event type, and whether a scan
    /// response was captured.
    init(captured a: CapturedAdvertisement) {
        guard a.sawAdvertising else {
            self = .advInd
            return
        }
        if a.extended {
            let t = a.eventType
            connectable = t & Extended.connectableBit != 0
            scannable = t & Extended.scannableBit != 0
            directed = t & Extended.directedBit != 0
            legacy = t & Extended.legacyBit != 0
        } else {
            let t = UInt8(truncatingIfNeeded: a.eventType)
            connectable = t == Legacy.advInd || t == Legacy.advDirectInd
            scannable = t == Legacy.advInd || t == Legacy.advScanInd
            directed = t == Legacy.advDirectInd
            legacy = true
        }
        answersScanRequests = scannable || !a.scanResponse.isEmpty
    }

    /// The Event_Type of an LE Advertising Report (legacy scanning). Extended advertising, which
    /// a legacy scan cannot receive on a real radio, is shown as the legacy PDU with the same
    /// properties so that an older host still finds the captured peripheral (docs/serve.md).
    var legacyEventType: UInt8 {
        if connectable { return directed ? Legacy.advDirectInd : Legacy.advInd }
        return scannable ? Legacy.advScanInd : Legacy.advNonconnInd
    }

    /// The Event_Type of an LE Extended Advertising Report: of the advertising PDU, or of the
    /// scan response to it (legacy: 0x1B to ADV_IND, 0x1A to ADV_SCAN_IND, 7.7.65.13).
    func extendedEventType(scanResponse: Bool) -> UInt16 {
        var t: UInt16 = 0
        if connectable { t |= Extended.connectableBit }
        if scannable { t |= Extended.scannableBit }
        if directed { t |= Extended.directedBit }
        if legacy { t |= Extended.legacyBit }
        if scanResponse { t |= Extended.scanResponseBit }
        return t
    }

    /// Its spec name, for the log and the report.
    var name: String {
        if legacy {
            switch legacyEventType {
            case Legacy.advInd: return "ADV_IND"
            case Legacy.advDirectInd: return "ADV_DIRECT_IND"
            case Legacy.advScanInd: return "ADV_SCAN_IND"
            default: return "ADV_NONCONN_IND"
            }
        }
        let parts = [
            connectable ? "connectable" : "non-connectable", scannable ? "scannable" : nil, directed ? "directed" : nil,
        ]
        return "extended " + parts.compactMap { $0 }.joined(separator: " ")
    }
}

/// An advertiser on the virtual air while the host scans.
struct AirAdvertiser {
    /// The captured connection a connection to it plays (nil: the capture never connected to
    /// it, so no connection to it comes up).
    var model: Int?
    var address: BDAddr
    var addressType: UInt8
    var advertisement: CapturedAdvertisement?
    var kind: AdvertisingKind
}
