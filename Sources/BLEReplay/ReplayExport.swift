import BLEBytes
import BLEPackets
import BLETimeline
import CaptureIO

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
        var writer = BTSnoopWriter()
        for r in exportRecords(notes: false).records {
            writer.append(r.packet, received: r.received, unixMicros: r.time)
        }
        return writer.bytes
    }

    /// The same packets as pcapng (`PcapngWriter`, link type 201), for Wireshark: with
    /// `comments`, the first fragment of each replayed ATT PDU says which connection it belongs
    /// to and which captured frame it replays.
    public func pcapng(comments: Bool = true) -> [UInt8] {
        var writer = PcapngWriter(application: "blecap replay")
        let (records, notes) = exportRecords(notes: comments)
        for r in records {
            var comment: String?
            if let n = notes[r.order] {
                let op = ATTOpcode(n.opcode)
                comment =
                    "connection #\(n.connection): replayed \(op.name)"
                    + (n.capturedFrame.map { " (captured frame \($0))" } ?? " (not in the capture)")
            }
            writer.append(r.packet, received: r.received, unixMicros: r.time, comment: comment)
        }
        return writer.bytes
    }

    /// Which replayed ATT PDU a packet starts.
    private struct ExportNote {
        let connection: Int
        let opcode: UInt8
        let capturedFrame: Int?
    }

    /// Every packet of the export with its time and direction, in file order, and (when
    /// `notes`) what the first packet of each replayed ATT PDU stands for, by `order`.
    private func exportRecords(notes wantsNotes: Bool)
        -> (records: [(time: Int64, order: Int, packet: [UInt8], received: Bool)], notes: [Int: ExportNote])
    {
        var records: [(time: Int64, order: Int, packet: [UInt8], received: Bool)] = []
        var notes: [Int: ExportNote] = [:]
        var order = 0
        func emit(_ time: Int64, _ packet: [UInt8], received: Bool, note: @autoclosure () -> ExportNote? = nil) {
            order += 1
            records.append((time, order, packet, received))
            if wantsNotes, let n = note() { notes[order] = n }
        }
        let fragment = 27
        for c in connections {
            let conn = c.model.connection
            let s = conn.summary
            let start = s.startTime
            let replayedStart = clock.time(start)
            let handle = s.handle & HCIConnectionHandle.mask
            let peer = s.peer ?? BDAddr(rawValue: 0)
            let peerType = s.peerAddressType ?? 0
            let timing = conn.timing ?? ConnectionTiming(interval: 24, latency: 0, supervisionTimeout: 200)
            if conn.hostIsCentral {
                if let ad = conn.advertisement {
                    let t = clock.time(start &- 2000)
                    emit(
                        t,
                        HCISynthesis.advertisingReport(
                            eventType: HCILEAdvertisingReportEntry.advInd,
                            addressType: peerType, address: peer,
                            data: Array(ad.data.prefix(31)), rssi: ad.rssi), received: true)
                    if !ad.scanResponse.isEmpty {
                        emit(
                            t,
                            HCISynthesis.advertisingReport(
                                eventType: HCILEAdvertisingReportEntry.scanResponse,
                                addressType: peerType, address: peer,
                                data: Array(ad.scanResponse.prefix(31)), rssi: ad.rssi),
                            received: true)
                    }
                }
                // LE Create Connection (7.8.12): scan 60 ms/30 ms, no filter list, the peer,
                // own address public, the captured interval as min and max.
                let create = HCILECreateConnection(
                    scanInterval: 96, scanWindow: 48, initiatorFilterPolicy: 0, peerAddressType: peerType,
                    peerAddress: peer, ownAddressType: 0,
                    connection: HCIConnectionParameters(
                        intervalMin: timing.interval, intervalMax: timing.interval,
                        maxLatency: timing.latency,
                        supervisionTimeout: timing.supervisionTimeout))
                let t = clock.time(start &- 1000)
                emit(t, create.h4Encoded(), received: false)
                emit(t, HCISynthesis.commandStatus(HCIOpcode.leCreateConnection), received: true)
            }
            // LE Connection Complete (7.7.65.1) with this host's captured role.
            emit(
                replayedStart,
                HCISynthesis.leConnectionComplete(
                    status: HCIError.success, handle: handle,
                    role: conn.hostIsCentral ? HCIRole.central : HCIRole.peripheral,
                    peerType: peerType, peer: peer, interval: timing.interval,
                    latency: timing.latency, timeout: timing.supervisionTimeout),
                received: true)
            for pdu in c.replayed.pdus {
                let t = replayedStart &+ pdu.offset
                for (i, f) in HCISynthesis.acl(
                    handle: handle, payload: pdu.bytes, received: !pdu.sentByHost,
                    fragment: fragment
                ).enumerated() {
                    emit(
                        t, f, received: !pdu.sentByHost,
                        note: i > 0
                            ? nil
                            : ExportNote(
                                connection: c.model.number, opcode: pdu.bytes.first ?? 0,
                                capturedFrame: pdu.capturedIndex.flatMap {
                                    conn.att.indices.contains($0) ? conn.att[$0].frame : nil
                                }))
                    if pdu.sentByHost { emit(t, HCISynthesis.completedPackets(handle: handle), received: true) }
                }
            }
            if let off = c.replayed.poweredOffAt {
                emit(replayedStart &+ off, HCISynthesis.command(HCIOpcode.reset), received: false)
                emit(replayedStart &+ off, HCISynthesis.commandComplete(HCIOpcode.reset), received: true)
            } else if let end = c.replayed.end {
                let t = replayedStart &+ end.offset
                if end.side == .local {
                    emit(
                        t, HCIDisconnect(handle: handle, reason: HCIError.remoteUserTerminatedConnection).h4Encoded(),
                        received: false)
                    emit(t, HCISynthesis.commandStatus(HCIOpcode.disconnect), received: true)
                }
                emit(t, HCISynthesis.disconnectionComplete(handle: handle, reason: end.reason), received: true)
            }
        }
        records.sort { ($0.time, $0.order) < ($1.time, $1.order) }
        return (records, notes)
    }
}
