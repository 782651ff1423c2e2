import BLEBytes
import BLEPackets
import BLESpool
import BLETimeline
import CaptureIO

extension ReplayReport {
    /// The replayed session as the host's HCI would have logged it: btsnoop with datalink 1002
    /// (H4), readable by blecap, Wireshark and tshark (`ReplayExport` says what it holds). The
    /// report must keep its replayed exchanges (`CaptureReplay.run`); a streamed replay
    /// exports as it goes instead (`CaptureReplay.streamed(…, export:)`).
    public func btsnoop() -> [UInt8] {
        var bytes: [UInt8] = []
        export(notes: false).writeBTSnoop { bytes += $0 }
        return bytes
    }

    /// The same packets as pcapng (`PcapngWriter`, link type 201), for Wireshark: with
    /// `comments`, the first fragment of each replayed ATT PDU says which connection it belongs
    /// to and which captured frame it replays.
    public func pcapng(comments: Bool = true) -> [UInt8] {
        var writer = PcapngWriter(application: "blecap replay")
        export(notes: comments).drain { r in
            var comment: String?
            if r.noted {
                let op = ATTOpcode(r.opcode)
                comment =
                    "connection #\(r.connection): replayed \(op.name)"
                    + (r.capturedFrame >= 0 ? " (captured frame \(r.capturedFrame))" : " (not in the capture)")
            }
            writer.append(r.packetBytes, received: r.received, unixMicros: r.time, comment: comment)
        }
        return writer.bytes
    }

    /// Every replayed connection's packets, from the replayed exchanges the report kept
    /// (`CaptureReplay.run`), for `ReplayExport.writeBTSnoop(_:)`.
    public func export(notes: Bool = false) -> ReplayExport {
        let export = ReplayExport(notes: notes)
        for c in connections {
            var e = ReplayConnectionExport(c.model.connection, clock: clock, into: export)
            for pdu in c.replayed.pdus { e.add(pdu) }
            e.finish(c.replayed)
        }
        return export
    }
}

/// The packets of a replayed session's export in file order, gathered connection by
/// connection (`ReplayConnectionExport`) and written when the replay is over.
///
/// File order is by time, then by connection number, then in the order each connection's
/// packets were made. Connections overlap in time and a streamed replay finishes them in the
/// order they end, so the packets are sorted, and in bounded memory: runs sorted in memory are
/// spooled and merged (`ExternalSorter`), so an export of millions of PDUs is written as it is
/// merged instead of being held.
public final class ReplayExport {
    /// Whether each replayed ATT PDU's first packet says what it stands for (pcapng comments).
    let notes: Bool
    private var sorter: ExternalSorter<ReplayExportRecord>

    public convenience init(notes: Bool = false) {
        self.init(notes: notes, runBytes: ExternalSorter<ReplayExportRecord>.defaultRunBytes)
    }

    /// `runBytes`: how much is sorted in memory before a run is spooled.
    init(notes: Bool, runBytes: Int) {
        self.notes = notes
        sorter = ExternalSorter(runBytes: runBytes)
    }

    func append(_ r: ReplayExportRecord) { sorter.append(r) }

    /// Writes the packets as btsnoop (datalink 1002, H4), handing `sink` the file in pieces of
    /// about 64 KiB; the export is empty afterwards.
    public func writeBTSnoop(_ sink: ([UInt8]) -> Void) {
        var writer = BTSnoopWriter()
        var pending = 0
        drain { r in
            writer.append(r.packetBytes, received: r.received, unixMicros: r.time)
            pending += 24 + Int(r.length)
            if pending >= 64 << 10 {
                sink(writer.take())
                pending = 0
            }
        }
        sink(writer.take())
    }

    func drain(_ body: (ReplayExportRecord) -> Void) { sorter.drain(body) }
}

/// One packet of an export: where it goes in the file (time, connection, its place in the
/// connection's packets), its bytes and, for the first packet of a replayed ATT PDU, what that
/// PDU was (pcapng comments). A fixed size, so that runs of them spool as blocks.
struct ReplayExportRecord: BitwiseCopyable, Sendable, Comparable {
    /// The longest packet an export makes: an advertising report with 31 bytes of data (46).
    static let maximumPacket = 64

    var time: Int64
    var connection: Int
    var sequence: Int
    /// The captured frame the PDU replays, -1 for none.
    var capturedFrame = -1
    private var packet: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    var length: UInt8 = 0
    var received: Bool
    var noted = false
    var opcode: UInt8 = 0

    init(time: Int64, connection: Int, sequence: Int, packet bytes: [UInt8], received: Bool) {
        precondition(bytes.count <= Self.maximumPacket, "export packets are synthesised, at most 46 bytes")
        self.time = time
        self.connection = connection
        self.sequence = sequence
        self.received = received
        length = UInt8(bytes.count)
        withUnsafeMutableBytes(of: &packet) { $0.copyBytes(from: bytes) }
    }

    var packetBytes: [UInt8] {
        withUnsafeBytes(of: packet) { Array($0.prefix(Int(length))) }
    }

    static func < (a: Self, b: Self) -> Bool {
        (a.time, a.connection, a.sequence) < (b.time, b.connection, b.sequence)
    }

    static func == (a: Self, b: Self) -> Bool {
        (a.time, a.connection, a.sequence) == (b.time, b.connection, b.sequence)
    }
}

/// The packets of one replayed connection, made as it is replayed: at its start the peer's
/// last advertisement (a central's capture), LE Create Connection with its Command Status, LE
/// Connection Complete with the captured role and timing; then every replayed ATT PDU in L2CAP
/// over ACL, cut to the LE ACL data length (27, the Core minimum, Vol 6 Part B 4.5.10), each
/// sent fragment acknowledged by Number Of Completed Packets; then the end: HCI Disconnect +
/// Command Status when this host ended the link, Disconnection Complete; HCI Reset + Command
/// Complete for a power-off. Every timestamp is a captured time put through the replay's clock
/// (as captured at realtime).
struct ReplayConnectionExport {
    private let export: ReplayExport
    private let number: Int
    private let handle: UInt16
    private let replayedStart: Int64
    /// The captured exchange, for the frame each replayed PDU replays (pcapng comments).
    private let captured: CapturedATTPDUs
    private var sequence = 0

    /// Adds the connection's opening packets.
    init(_ conn: CapturedConnection, clock: ReplayClock, into export: ReplayExport) {
        self.export = export
        let s = conn.summary
        number = s.number
        handle = s.handle & HCIConnectionHandle.mask
        captured = conn.att
        let start = s.startTime
        replayedStart = clock.time(start)
        let peer = s.peer ?? BDAddr(rawValue: 0)
        let peerType = s.peerAddressType ?? 0
        let timing = conn.timing ?? ConnectionTiming(interval: 24, latency: 0, supervisionTimeout: 200)
        if conn.hostIsCentral {
            if let ad = conn.advertisement {
                let t = clock.time(start &- 2000)
                emit(
                    t,
                    HCISynthesis.advertisingReport(
                        eventType: HCILEAdvertisingReportEntry.advInd, addressType: peerType, address: peer,
                        data: Array(ad.data.prefix(31)), rssi: ad.rssi), received: true)
                if !ad.scanResponse.isEmpty {
                    emit(
                        t,
                        HCISynthesis.advertisingReport(
                            eventType: HCILEAdvertisingReportEntry.scanResponse, addressType: peerType,
                            address: peer, data: Array(ad.scanResponse.prefix(31)), rssi: ad.rssi),
                        received: true)
                }
            }
            // LE Create Connection (7.8.12): scan 60 ms/30 ms, no filter list, the peer,
            // own address public, the captured interval as min and max.
            let create = HCILECreateConnection(
                scanInterval: 96, scanWindow: 48, initiatorFilterPolicy: 0, peerAddressType: peerType,
                peerAddress: peer, ownAddressType: 0,
                connection: HCIConnectionParameters(
                    intervalMin: timing.interval, intervalMax: timing.interval, maxLatency: timing.latency,
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
                role: conn.hostIsCentral ? HCIRole.central : HCIRole.peripheral, peerType: peerType, peer: peer,
                interval: timing.interval, latency: timing.latency, timeout: timing.supervisionTimeout),
            received: true)
    }

    private mutating func emit(_ time: Int64, _ packet: [UInt8], received: Bool) {
        export.append(
            ReplayExportRecord(time: time, connection: number, sequence: sequence, packet: packet, received: received))
        sequence += 1
    }

    /// Adds a replayed ATT PDU.
    mutating func add(_ pdu: ReplayedPDU) {
        let t = replayedStart &+ pdu.offset
        let fragments = HCISynthesis.acl(
            handle: handle, payload: pdu.bytes, received: !pdu.sentByHost, fragment: 27)
        for (i, f) in fragments.enumerated() {
            var r = ReplayExportRecord(
                time: t, connection: number, sequence: sequence, packet: f, received: !pdu.sentByHost)
            if i == 0, export.notes {
                r.noted = true
                r.opcode = pdu.bytes.first ?? 0
                if let c = pdu.capturedIndex, captured.indices.contains(c) { r.capturedFrame = captured.frame(at: c) }
            }
            export.append(r)
            sequence += 1
            if pdu.sentByHost { emit(t, HCISynthesis.completedPackets(handle: handle), received: true) }
        }
    }

    /// Adds how the replayed link ended, if it did.
    mutating func finish(_ replayed: ReplayedConnection) {
        if let off = replayed.poweredOffAt {
            emit(replayedStart &+ off, HCISynthesis.command(HCIOpcode.reset), received: false)
            emit(replayedStart &+ off, HCISynthesis.commandComplete(HCIOpcode.reset), received: true)
        } else if let end = replayed.end {
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
}
