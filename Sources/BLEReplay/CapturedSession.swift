import BLEBytes
import BLEPackets
import BLEPass
import BLETimeline
import CaptureIO

/// One ATT PDU of a captured (or replayed) connection.
public struct CapturedATTPDU: Sendable, Equatable {
    /// The capture's frame number (replayed PDUs: the replayed file's frame number).
    public var frame: Int
    /// Microseconds since 1970.
    public var time: Int64
    /// Sent by the capturing host; false when received from the peer.
    public var sentByHost: Bool
    /// The whole PDU, opcode first.
    public var bytes: [UInt8]

    public init(frame: Int, time: Int64, sentByHost: Bool, bytes: [UInt8]) {
        self.frame = frame
        self.time = time
        self.sentByHost = sentByHost
        self.bytes = bytes
    }

    public var opcode: UInt8 { bytes.first ?? 0 }
    /// Sent by the ATT client of its bearer (requests, commands, confirmations).
    public var isFromClient: Bool { ATTRole.isFromClient(opcode) }
    /// The host's client talks to the peer's server when the host sent a client PDU or
    /// received a server PDU; otherwise the peer is the client of the host's server.
    public var hostIsClient: Bool { isFromClient == sentByHost }
}

/// The advertisement a peer sent before a connection: AD structures of its last
/// connectable advertising report and of its last scan response (Core Vol 4 Part E 7.7.65.2).
public struct CapturedAdvertisement: Sendable, Equatable {
    public var data: [UInt8]
    public var scanResponse: [UInt8]
    public var rssi: Int8
    public var frame: Int
    /// The advertiser's interval as captured: the median gap between its advertising reports
    /// (scan responses aside), µs; nil with fewer than two reports.
    public var intervalMicros: Int64? = nil
    /// The event type of its last advertising report other than a scan response (legacy: 0
    /// ADV_IND … 3 ADV_NONCONN_IND; extended: the bit field of Vol 4 Part E 7.7.65.13), and
    /// whether that was an LE Extended Advertising Report. 0 (ADV_IND) until one is seen.
    public var eventType: UInt16 = 0
    public var extended = false
    /// That report's primary and secondary PHY (extended reports: 1 LE 1M, 2 LE 2M, 3 LE
    /// Coded), nil when not known (legacy reports, or no auxiliary packets).
    public var primaryPHY: UInt8? = nil
    public var secondaryPHY: UInt8? = nil
    /// Whether any advertising report other than a scan response was seen (only a scan
    /// response: the advertising PDU itself was missed).
    public var sawAdvertising = false
    /// Whether its last scan response answered scannable advertising: a legacy SCAN_RSP always
    /// does; an extended report says so with its scannable bit (7.7.65.13). A controller that
    /// reports a scan response to connectable, non-scannable extended advertising (Bumble's
    /// does, repeating the advertising data) shows what no scanner receives over the air.
    public var scanResponseScannable = false
}

extension CapturedAdvertisement {
    /// The advertisement a central receives from a host advertising as `setup` (the capturing
    /// host's own, from its HCI commands): as the report it would get, legacy (Advertising_Type
    /// 4, low duty directed, is reported as ADV_DIRECT_IND, 7.7.65.2) or extended (the event
    /// properties' connectable, scannable, directed and legacy bits, 7.7.65.13). What no command
    /// says is the central's to measure: the RSSI is -60 dBm, the value replay takes for an
    /// advertisement it never saw.
    public init(hostAdvertising setup: AdvertisingSetup, frame: Int) {
        self.init(data: setup.data, scanResponse: setup.scanResponse, rssi: -60, frame: frame)
        if setup.extended, let p = setup.eventProperties {
            let bits =
                HCILEExtendedAdvertisingReportEntry.connectableBit | HCILEExtendedAdvertisingReportEntry.scannableBit
                | HCILEExtendedAdvertisingReportEntry.directedBit | HCILEExtendedAdvertisingReportEntry.legacyBit
            eventType = p & bits
            extended = true
            primaryPHY = setup.primaryPHY
            secondaryPHY = p & HCILEExtendedAdvertisingReportEntry.legacyBit != 0 ? nil : setup.secondaryPHY
        } else if let t = setup.advertisingType {
            eventType = UInt16(t == 4 ? HCILEAdvertisingReportEntry.advDirectInd : t)
        }
        intervalMicros = setup.intervalMin.map { Int64($0) * 625 }
        sawAdvertising = true
    }
}

/// An advertiser the capture saw: its address, address type and advertisement, connected
/// to or not.
public struct CapturedAdvertiser: Sendable, Equatable {
    public var address: BDAddr
    /// 0 public, 1 random (2 and 3: an identity address the controller resolved).
    public var addressType: UInt8
    public var advertisement: CapturedAdvertisement
}

/// What a capture shows of pairing and encryption on one connection (its SMP and Encryption
/// Change events), so that a peer played from it pairs, or refuses to, as captured.
public struct CapturedSecurity: Sendable, Equatable {
    /// The central sent a Pairing Request.
    public var pairingRequested = false
    /// When it sent the first one (µs since 1970).
    public var pairingRequestTime: Int64?
    /// The peripheral answered with a Pairing Response.
    public var pairingResponded = false
    /// The first Pairing Request's and Pairing Response's features (IO capability, OOB flag,
    /// AuthReq, key size, key distribution), what blecap as the captured central asks with
    /// and checks the peer's answer against.
    public var pairingRequestFeatures: SMPPairingFeatures?
    public var pairingResponseFeatures: SMPPairingFeatures?
    /// The peripheral's first Security Request: when (µs since 1970) and its AuthReq.
    public var securityRequestTime: Int64?
    public var securityRequestAuthReq: UInt8?
    /// Both sides set SC: the pairing was LE Secure Connections.
    public var secureConnections = false
    /// The reason of a Pairing Failed the peripheral sent, if it sent one.
    public var peripheralPairingFailed: UInt8?
    /// Encryption came up (Encryption Change with success, encryption on).
    public var encrypted = false
    /// When it first did (µs since 1970).
    public var encryptionTime: Int64?

    public init() {}
}

/// One connection of a capture with everything replay needs: its summary (peer, role, GATT
/// databases, how it ended), its ATT exchange in order, its timing and the advertisement
/// that preceded it.
public struct CapturedConnection: Sendable {
    public var summary: ConnectionSummary
    public var att: CapturedATTPDUs
    public var advertisement: CapturedAdvertisement?
    /// From the Connection Complete (nil when the capture started during the connection).
    public var timing: ConnectionTiming?
    /// Frame and time of the Disconnection Complete, when the capture has it.
    public var disconnection: (frame: Int, time: Int64)?
    /// More ATT PDUs than `CapturedSession.maximumPDUs` allowed (or more than 4 GiB of them,
    /// `CapturedATTPDUs`): the exchange is cut.
    public var isTruncated = false
    public var security = CapturedSecurity()
    /// A connection the capturing host took as peripheral: its own advertising in force when
    /// the connection came up (the last set it enabled and had not disabled; the timeline's
    /// `advertising.start`), nil when the capture shows none.
    public var hostAdvertisement: AdvertisingSetup?
    /// Set on a connection seen from its peer (`seenFromPeer`): this view's host is the
    /// recording host's peer, at the address and type its LE Connection Complete gave.
    public var hostAsCaptured: (address: BDAddr?, type: UInt8?)?

    public var number: Int { summary.number }
    /// This host's role: central unless the Connection Complete said peripheral.
    public var hostIsCentral: Bool { summary.role != 1 }
    /// Connection interval in µs (1.25 ms units), 30 ms when unknown.
    public var intervalMicros: Int64 { Int64(timing?.interval ?? 24) * 1250 }
    /// Supervision timeout in µs (10 ms units), 2 s when unknown.
    public var supervisionTimeoutMicros: Int64 { Int64(timing?.supervisionTimeout ?? 200) * 10_000 }
}

extension CapturedConnection {
    /// The connection as its peer saw it, from the same captured bytes: each ATT PDU the
    /// recording host sent is the peer's and the reverse, the two GATT databases, the roles
    /// and the side that ended the link trade places, and the peer is the recording host at
    /// `recorder` (its own address as its power-on sequence showed it; nil when unknown).
    /// ATT's client and server follow from the PDUs (Vol 3 Part F 3.3), so the one script
    /// model plays either side.
    public func seenFromPeer(recorder: BDAddr?, recorderType: UInt8?) -> CapturedConnection {
        var c = self
        c.att = CapturedATTPDUs(
            att.lazy.map { p in
                var p = p
                p.sentByHost.toggle()
                return p
            })
        c.summary.role = hostIsCentral ? 1 : 0
        c.summary.peer = recorder
        c.summary.peerAddressType = recorderType
        c.summary.identity = nil
        (c.summary.remoteDatabase, c.summary.localDatabase) = (summary.localDatabase, summary.remoteDatabase)
        (c.summary.remoteCarriedOverFrom, c.summary.localCarriedOverFrom) =
            (summary.localCarriedOverFrom, summary.remoteCarriedOverFrom)
        switch summary.endSide {
        case .local?: c.summary.endSide = .remote
        case .remote?: c.summary.endSide = .local
        default: break
        }
        c.hostAsCaptured = (summary.peer, summary.peerAddressType)
        return c
    }
}

/// A capture read for replay: its connections with their ATT exchanges, in one streaming
/// pass through the same decoder and timeline builder `blecap timeline` uses.
public struct CapturedSession: Sendable {
    /// At most this many ATT PDUs are kept over all connections (a session worth replaying
    /// is far smaller; the cap keeps a hostile or huge capture from exhausting memory).
    /// `CapturedSession.stream` counts only the PDUs of connections not yet handed over.
    public static let maximumPDUs = 2_000_000
    /// Advertisers remembered for the advertisement that precedes a connection.
    static let maximumAdvertisers = 1024

    public var path: String
    public var format: String
    public var connections: [CapturedConnection]
    /// Time of the capture's first frame (µs since 1970): the zero of `blecap timeline`.
    public var startTime: Int64
    public var frames: Int
    /// Where the capture is damaged, if it is (everything before it was read).
    public var damage: String?
    /// Every advertiser seen (at most `maximumAdvertisers`), in the order first seen, with
    /// its last advertisement.
    public var advertisers: [CapturedAdvertiser] = []
    /// The capturing host's own addresses, as its controller's power-on sequence showed them
    /// (Read BD_ADDR, LE Set Random Address): where a peripheral's capture says the central
    /// found it. Nil when the capture does not show them.
    public var hostPublicAddress: BDAddr?
    public var hostRandomAddress: BDAddr?
    /// The capturing host scanned or initiated with the extended commands (LE Set Extended
    /// Scan Parameters, LE Extended Create Connection: Vol 4 Part E 7.8.64, 7.8.66).
    public var hostUsedExtendedScanning = false

    /// Reads the capture at `path` ("-" for standard input).
    public init(path: String) throws(CaptureError) {
        let reader = try CaptureFile.open(path: path)
        self.init(reader: reader, path: path)
    }

    /// Reads every connection of the capture into memory. `keys`: for encrypted links of an
    /// over-the-air capture (`--ltk`).
    public init(reader: any CaptureReader, path: String, keys: LinkLayerKeys = LinkLayerKeys()) {
        var all: [CapturedConnection] = []
        self = Self.read(reader: reader, path: path, streaming: false, keys: keys) { c, _ in all.append(c) }
        connections = all.sorted { $0.number < $1.number }
    }

    /// Reads the capture, handing each connection to `connection` as soon as it has ended and
    /// everything the timeline says about it is final, then forgetting it: memory holds only
    /// the connections still open. Connections come in the order they end, each with the time
    /// of the capture's first frame (`startTime`); the returned session has no `connections`.
    public static func stream(
        reader: any CaptureReader, path: String, keys: LinkLayerKeys = LinkLayerKeys(),
        connection: (CapturedConnection, _ startTime: Int64) -> Void
    ) -> CapturedSession {
        read(reader: reader, path: path, streaming: true, keys: keys, connection: connection)
    }

    /// `streaming`: connections go out as they end and their PDUs stop counting against
    /// `maximumPDUs`; otherwise all go out at the end (the cap is over the whole capture).
    private static func read(
        reader: any CaptureReader, path: String, streaming: Bool, keys: LinkLayerKeys,
        connection: (CapturedConnection, _ startTime: Int64) -> Void
    ) -> CapturedSession {
        withoutActuallyEscaping(connection) { connection in
            let reading = SessionReading(streaming: streaming, connection: connection)
            CapturePass(reader: reader, name: path, keys: keys).run(reading)
            var session = CapturedSession(
                path: path, format: reader.format.description, connections: [], startTime: reading.first ?? 0,
                frames: reading.frames, damage: reader.damage.map { "\($0)" })
            session.hostPublicAddress = reading.controller?.publicAddress
            session.hostRandomAddress = reading.controller?.randomAddress
            session.hostUsedExtendedScanning = reading.extendedScanning
            session.advertisers = reading.advertiserOrder.compactMap { a, type in
                reading.adverts[a].map { CapturedAdvertiser(address: a, addressType: type, advertisement: $0) }
            }
            return session
        }
    }

    init(
        path: String, format: String, connections: [CapturedConnection], startTime: Int64, frames: Int, damage: String?
    ) {
        self.path = path
        self.format = format
        self.connections = connections
        self.startTime = startTime
        self.frames = frames
        self.damage = damage
    }
}

/// Replay's consumer of the capture pass: each connection's ATT exchange byte for byte, its
/// advertisement, timing, security and end, handed over once everything the timeline says
/// about it is final.
private final class SessionReading: CaptureConsumer {
    let streaming: Bool
    let connection: (CapturedConnection, _ startTime: Int64) -> Void
    var summaries: [ConnectionSummary] = []
    var pdus: [Int: CapturedATTPDUs] = [:]
    var truncated: Set<Int> = []
    var held = 0
    var timings: [Int: ConnectionTiming] = [:]
    var ends: [Int: (Int, Int64)] = [:]
    // Per advertiser: last connectable advertisement and last scan response.
    var adverts: [BDAddr: CapturedAdvertisement] = [:]
    var advertisementOf: [Int: CapturedAdvertisement] = [:]
    // The host's own advertising: where its setups are kept, the sets on now (by handle, nil
    // for legacy; most recent last) and, per connection it took as peripheral, the one in force.
    var advertisingTables = ScanFilterTables()
    var hostAdvertising: [(handle: UInt8?, setup: AdvertisingSetup)] = []
    var hostAdvertisementOf: [Int: AdvertisingSetup] = [:]
    // Per advertiser: time of its last advertising report and the gaps seen (at most 64).
    var advertisingTimes: [BDAddr: (last: Int64, gaps: [Int64])] = [:]
    var advertiserOrder: [(BDAddr, UInt8)] = []
    /// The first power-on sequence's findings.
    var controller: ControllerInfo?
    var security: [Int: CapturedSecurity] = [:]
    var hostCentral: [Int: Bool] = [:]
    var extendedScanning = false
    // The frame of the last event the timeline emitted: events come out in frame order, so
    // everything before it is final.
    var emitted = 0
    var first: Int64?
    var frames = 0

    init(streaming: Bool, connection: @escaping (CapturedConnection, _ startTime: Int64) -> Void) {
        self.streaming = streaming
        self.connection = connection
    }

    var observes: CaptureObservations { [.records, .framesAfterTimeline, .events, .connections, .att] }

    func begin(_ pass: CapturePass) { advertisingTables = pass.scanFilterTables }

    func record(_ record: CaptureRecord) {
        frames += 1
        if first == nil { first = record.timestamp }
    }

    func frameAfterTimeline(_ frame: DecodedFrame) {
        if streaming, !summaries.isEmpty { handOver(all: false) }
    }

    func connectionEnded(_ summary: ConnectionSummary) { summaries.append(summary) }

    func finish(_ pass: CapturePass) { handOver(all: true) }

    func event(_ e: TimelineEvent) {
        emitted = max(emitted, e.frame)
        switch e.kind {
        case .advertisement(let a):
            guard let peer = e.peer else { return }
            if adverts[peer] == nil {
                guard adverts.count < CapturedSession.maximumAdvertisers else { return }
                advertiserOrder.append((peer, e.peerAddressType ?? 0))
            }
            var ad =
                adverts[peer] ?? CapturedAdvertisement(data: [], scanResponse: [], rssi: a.rssi, frame: e.frame)
            let bytes = e.value.bytes
            // Legacy SCAN_RSP (4) or an extended report with the scan-response bit (3).
            if (!a.extended && a.eventType == UInt16(HCILEAdvertisingReportEntry.scanResponse))
                || (a.extended && a.eventType & HCILEExtendedAdvertisingReportEntry.scanResponseBit != 0)
            {
                ad.scanResponse = bytes
                ad.scanResponseScannable =
                    !a.extended || a.eventType & HCILEExtendedAdvertisingReportEntry.scannableBit != 0
            } else {
                ad.data = bytes
                ad.eventType = a.eventType
                ad.extended = a.extended
                (ad.primaryPHY, ad.secondaryPHY) = (a.primaryPHY, a.secondaryPHY)
                ad.sawAdvertising = true
                var t = advertisingTimes[peer] ?? (e.time, [])
                if e.time > t.last, t.gaps.count < 64 { t.gaps.append(e.time - t.last) }
                t.last = e.time
                advertisingTimes[peer] = t
                let gaps = t.gaps.sorted()
                ad.intervalMicros = gaps.isEmpty ? nil : gaps[gaps.count / 2]
            }
            ad.rssi = a.rssi
            ad.frame = e.frame
            adverts[peer] = ad
        case .connectionComplete(let info):
            guard let n = e.connection else { return }
            hostCentral[n] = info.role != 1
            if let t = info.timing { timings[n] = t }
            if let p = e.peer, let ad = adverts[p] { advertisementOf[n] = ad }
            // The set that connected: the newest one on that is connectable, else the newest.
            if info.role == 1,
                let on = hostAdvertising.last(where: { $0.setup.connectable != false }) ?? hostAdvertising.last
            {
                hostAdvertisementOf[n] = on.setup
            }
        case .advertisingStart(let snapshot):
            if case .error = e.outcome { return }
            guard let s = advertisingTables.advertising(snapshot) else { return }
            hostAdvertising.removeAll { $0.handle == s.handle }
            // Bounded: a controller has at most 255 sets.
            if hostAdvertising.count >= 256 { hostAdvertising.removeFirst() }
            hostAdvertising.append((s.handle, s))
        case .advertisingStop(let extended, let handle):
            if case .error = e.outcome { return }
            if extended && handle == nil {
                hostAdvertising.removeAll { $0.handle != nil }
            } else {
                hostAdvertising.removeAll { $0.handle == handle }
            }
        case .initComplete(let info):
            if controller == nil { controller = info }
        case .scanStart(let p):
            extendedScanning = extendedScanning || p.extended
        case .connectionCreate(let c):
            extendedScanning = extendedScanning || c.extended
        case .disconnection:
            if let n = e.connection { ends[n] = (e.frame, e.time) }
        // SMP's initiator is the central (Vol 3 Part H 2.3): a Pairing Request is the
        // central's, a Pairing Response the peripheral's, whichever side was captured.
        case .pairingRequest(let info, _):
            guard let n = e.connection else { return }
            var s = security[n] ?? CapturedSecurity()
            if !s.pairingRequested { (s.pairingRequestTime, s.pairingRequestFeatures) = (e.time, info.features) }
            s.pairingRequested = true
            security[n] = s
        case .pairingResponse(let info, _):
            guard let n = e.connection else { return }
            if security[n]?.pairingResponded != true {
                security[n, default: .init()].pairingResponseFeatures = info.features
            }
            security[n, default: .init()].pairingResponded = true
            if info.secureConnections == true { security[n, default: .init()].secureConnections = true }
        case .securityRequest(let authReq, _):
            // Only a peripheral sends it (Vol 3 Part H 3.6.7), whichever side was captured.
            guard let n = e.connection, security[n]?.securityRequestTime == nil else { return }
            security[n, default: .init()].securityRequestTime = e.time
            security[n, default: .init()].securityRequestAuthReq = authReq
        case .pairingFailed(let reason, let sent):
            // The peripheral's: received by a central host, sent by a peripheral one.
            guard let n = e.connection, let central = hostCentral[n], sent != central else { return }
            security[n, default: .init()].peripheralPairingFailed = reason
        case .encryptionChange(let status, let enabled):
            guard let n = e.connection, status == 0, enabled != 0 else { return }
            var s = security[n] ?? CapturedSecurity()
            if !s.encrypted { s.encryptionTime = e.time }
            s.encrypted = true
            security[n] = s
        default: break
        }
    }

    func att(_ o: ATTObservation) {
        guard held < CapturedSession.maximumPDUs else {
            truncated.insert(o.connection)
            return
        }
        guard
            pdus[o.connection, default: []].append(
                frame: o.frame, time: o.time, sentByHost: o.sentByHost, bytes: o.pdu.base)
        else {
            truncated.insert(o.connection)
            return
        }
        held += 1
    }

    func handOver(all: Bool) {
        var i = 0
        while i < summaries.count {
            let s = summaries[i]
            // Its Disconnection Complete (not an earlier, failed one), or a later frame's event,
            // has come out: so have its Connection Complete and the advertisement before it.
            let disconnected = s.endFrame != nil && ends[s.number]?.0 == s.endFrame
            guard all || disconnected || emitted > (s.endFrame ?? s.startFrame) else {
                i += 1
                continue
            }
            summaries.remove(at: i)
            let n = s.number
            var c = CapturedConnection(
                summary: s, att: pdus.removeValue(forKey: n) ?? [],
                advertisement: advertisementOf.removeValue(forKey: n),
                timing: timings.removeValue(forKey: n))
            if let e = ends.removeValue(forKey: n) { c.disconnection = e }
            c.isTruncated = truncated.remove(n) != nil
            c.security = security.removeValue(forKey: n) ?? CapturedSecurity()
            c.hostAdvertisement = hostAdvertisementOf.removeValue(forKey: n)
            hostCentral.removeValue(forKey: n)
            // Streamed, it is replayed at once; otherwise it waits for the whole capture,
            // spooled rather than in memory.
            if streaming { held -= c.att.count } else { c.att.seal() }
            connection(c, first ?? s.startTime)
        }
    }
}
