import BLEBytes
import BLESimulator
import BLETimeline

extension ReplayReport {
    /// The replayed session as the host's HCI would have logged it: btsnoop with datalink 1002
    /// (H4), readable by blecap, Wireshark and tshark. Every timestamp is a captured time put
    /// through the replay's clock (`clock`; as captured at realtime). Per replayed connection,
    /// at its start: the peer's last advertisement (a central's capture), LE Create
    /// Connection with its Command Status, LE Connection Complete with the captured role and
    /// timing; then every replayed ATT PDU in L2CAP over ACL, cut to the LE ACL data length
    /// (27, the Core minimum, Vol 6 Part B 4.5.10), each sent fragment acknowledged by Number Of
    /// Completed Packets; then the end: HCI Disconnect + Command Status when this host ended
    /// the link, Disconnection Complete; HCI Reset + Command Complete for a power-off.
    public func btsnoop() -> [UInt8] {
        var records: [(time: Int64, order: Int, packet: [UInt8], received: Bool)] = []
        var order = 0
        func emit(_ time: Int64, _ packet: [UInt8], received: Bool) {
            order += 1
            records.append((time, order, packet, received))
        }
        let fragment = 27
        for c in connections {
            let conn = c.model.connection
            let s = conn.summary
            let start = s.startTime
            let replayedStart = clock.time(start)
            let handle = s.handle & 0x0FFF
            let peer = s.peer ?? BDAddr(rawValue: 0)
            let peerType = s.peerAddressType ?? 0
            let timing = conn.timing ?? ConnectionTiming(interval: 24, latency: 0, supervisionTimeout: 200)
            if conn.hostIsCentral {
                if let ad = conn.advertisement {
                    let t = clock.time(start &- 2000)
                    emit(t, HCISynthesis.advertisingReport(eventType: 0x00, addressType: peerType, address: peer,
                                                           data: Array(ad.data.prefix(31)), rssi: ad.rssi), received: true)
                    if !ad.scanResponse.isEmpty {
                        emit(t, HCISynthesis.advertisingReport(eventType: 0x04, addressType: peerType, address: peer,
                                                               data: Array(ad.scanResponse.prefix(31)), rssi: ad.rssi),
                             received: true)
                    }
                }
                // LE Create Connection (7.8.12): scan 60 ms/30 ms, no filter list, the peer,
                // own address public, the captured interval as min and max.
                let params = HCISynthesis.le16(0x0060) + HCISynthesis.le16(0x0030) + [0x00, peerType]
                    + HCISynthesis.address(peer) + [0x00] + HCISynthesis.le16(timing.interval)
                    + HCISynthesis.le16(timing.interval) + HCISynthesis.le16(timing.latency)
                    + HCISynthesis.le16(timing.supervisionTimeout) + [0, 0, 0, 0]
                let t = clock.time(start &- 1000)
                emit(t, HCISynthesis.command(HCISynthesis.leCreateConnection, params), received: false)
                emit(t, HCISynthesis.commandStatus(HCISynthesis.leCreateConnection), received: true)
            }
            // LE Connection Complete (7.7.65.1) with this host's captured role.
            emit(replayedStart, HCISynthesis.leMeta(0x01, [0x00] + HCISynthesis.le16(handle) + [conn.hostIsCentral ? 0 : 1, peerType]
                                                + HCISynthesis.address(peer) + HCISynthesis.le16(timing.interval)
                                                + HCISynthesis.le16(timing.latency)
                                                + HCISynthesis.le16(timing.supervisionTimeout) + [0x00]),
                 received: true)
            for pdu in c.replayed.pdus {
                let t = replayedStart &+ pdu.offset
                for f in HCISynthesis.acl(handle: handle, payload: pdu.bytes, received: !pdu.sentByHost, fragment: fragment) {
                    emit(t, f, received: !pdu.sentByHost)
                    if pdu.sentByHost { emit(t, HCISynthesis.completedPackets(handle: handle), received: true) }
                }
            }
            if let off = c.replayed.poweredOffAt {
                emit(replayedStart &+ off, HCISynthesis.command(HCISynthesis.reset), received: false)
                emit(replayedStart &+ off, HCISynthesis.commandComplete(HCISynthesis.reset), received: true)
            } else if let end = c.replayed.end {
                let t = replayedStart &+ end.offset
                if end.side == .local {
                    emit(t, HCISynthesis.command(HCISynthesis.disconnect, HCISynthesis.le16(handle) + [0x13]), received: false)
                    emit(t, HCISynthesis.commandStatus(HCISynthesis.disconnect), received: true)
                }
                emit(t, HCISynthesis.disconnectionComplete(handle: handle, reason: end.reason), received: true)
            }
        }
        records.sort { ($0.time, $0.order) < ($1.time, $1.order) }
        var writer = BTSnoopWriter()
        for r in records { writer.append(r.packet, received: r.received, unixMicros: r.time) }
        return writer.bytes
    }
}
