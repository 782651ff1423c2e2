import BLEBytes
import BLEPackets
import BLEReplay

/// What a real controller advertises for the next captured connection the radio host plays
/// (`blecap replay --controller`): the captured peripheral's address, advertising data, scan
/// response and advertising type, as the virtual air would show them to a scanner.
public struct CapturedAdvertising: Sendable, Equatable {
    /// The captured connection (its number in `blecap timeline`).
    public var connection: Int
    public var address: BDAddr
    /// 0 public, 1 random: a random address is set with LE Set Random Address; a public one is
    /// the controller's own and cannot be changed over standard HCI.
    public var addressType: UInt8
    /// Advertising_Type of LE Set Advertising Parameters: connectable undirected (ADV_IND,
    /// 0x00) whatever the capture's last report said, since the captured central connected.
    public var advertisingType: UInt8
    public var data: [UInt8]
    public var scanResponse: [UInt8]
    /// The captured advertising interval, when the capture shows two reports of it.
    public var intervalMicros: Int64?
    /// The capture showed extended advertising (played as legacy for now: docs/real-radio.md).
    public var capturedExtended: Bool
    /// The captured kind's spec name (ADV_IND, extended connectable …).
    public var capturedKind: String
}

extension VirtualController {
    /// The advertising of the next captured connection to play, nil when every one was.
    public var nextCapturedAdvertising: CapturedAdvertising? {
        guard let a = advertisers().first(where: { $0.model != nil }), let m = a.model else { return nil }
        let ad = a.advertisement
        return CapturedAdvertising(
            connection: replay.models[m].number, address: a.address, addressType: a.addressType & 0x01,
            advertisingType: HCILEAdvertisingReportEntry.advInd,
            data: Array((ad?.data ?? []).prefix(HCILESetAdvertisingData.maximumLength)),
            scanResponse: Array((ad?.scanResponse ?? []).prefix(HCILESetAdvertisingData.maximumLength)),
            intervalMicros: ad?.intervalMicros, capturedExtended: ad?.extended ?? false, capturedKind: a.kind.name)
    }

    /// A real central connected to the real controller the radio host drives: the next captured
    /// connection comes up here at once, as if the host had connected to its peer, and from now
    /// on the remote central's ACL data is fed in as the host's. Its handle here; nil when
    /// every captured connection was played.
    public func acceptRadioConnection() -> UInt16? {
        guard pendingConnection == nil, let a = advertisers().first(where: { $0.model != nil }), let m = a.model
        else { return nil }
        pendingConnection = PendingConnection(
            extended: false, useAcceptList: false, peerType: a.addressType, peer: a.address, model: m)
        establish()
        return connections.values.first { $0.model == m }?.handle
    }
}
