import BLEBytes
import BLEPackets
import BLETimeline

/// Renders timeline events as aligned text lines or JSONL objects (docs/timeline.md,
/// docs/jsonl.md). Both formats go through the same field list, so they always carry the same
/// facts. Public so that a library client writes the very lines `blecap timeline` writes: set
/// `base` from the capture's first record and `scanFilterTables` from the pass, then `write`
/// each event a `CaptureConsumer` is handed (`Tests/BLEOutputTests` shows the loop).
public final class TimelineWriter {
    package let out: OutputBuffer
    package let jsonl: Bool
    /// Timestamp of the capture's first frame (text shows seconds since it, JSONL `elapsed`);
    /// nil: the first event written sets it.
    public var base: Int64? {
        get { baseStorage }
        set { baseStorage = newValue }
    }
    /// `base` and `color` are read for every event. Their storage is private because the
    /// optimiser drops a class property's run-time exclusivity check (a `swift_beginAccess`
    /// call) only where it sees every access, which a stored property visible outside the
    /// module denies: stored as `public`, they cost 6 M instructions on `timeline`
    /// (docs/performance.md).
    private var baseStorage: Int64?
    private var colorStorage = false
    /// Where the tables of `scan.filters` events are looked up: the builder's
    /// (`CapturePass.scanFilterTables`).
    public var scanFilterTables = ScanFilterTables()
    /// Text only: colour each event type by its family (`Palette.family`).
    package var color: Bool {
        get { colorStorage }
        set { colorStorage = newValue }
    }
    private var first = true

    /// Attribute names and UUID strings rendered once (JSON string, or text quoted when it has a
    /// space) and reused: a capture names the same few attributes millions of times, and
    /// building the String per event dominated the run time. Bounded by `cacheLimit`.
    private struct NameKey: Hashable {
        var role: UInt8
        var uuid: BluetoothUUID
        var characteristic: BluetoothUUID?
    }
    ///
    /// The last name and UUID written are checked first: a notification stream names the same
    /// attribute event after event, and hashing the key each time was 5 % of `timeline`.
    /// Unchecked exclusivity: read for every event (a checked access to a class's `var` is a
    /// `swift_beginAccess` call); a writer is used from one thread and no access spans a call.
    @exclusivity(unchecked) private var names: [NameKey: [UInt8]] = [:]
    @exclusivity(unchecked) private var uuids: [BluetoothUUID: [UInt8]] = [:]
    @exclusivity(unchecked) private var lastName: (key: NameKey, rendered: [UInt8])?
    @exclusivity(unchecked) private var lastUUID: (uuid: BluetoothUUID, rendered: [UInt8])?
    private static let cacheLimit = 4096

    /// The fields a notification stream repeats event after event, rendered once and copied
    /// while their inputs stay the same: after `type`, the connection, peer and address type
    /// (`header`); for an attribute operation, its direction, handle, name and UUID (`operation`).
    /// Rendering them field by field was half of `timeline --format jsonl`.
    private struct HeaderKey: Equatable {
        var type: UInt
        var connection: Int?
        var peer: BDAddr?
        var peerAddressType: UInt8?
    }
    private struct OperationKey: Equatable {
        var sent: Bool
        var serverIsPeer: Bool
        var handle: UInt16
        var attribute: AttributeRef?
        /// Text: whether the segment starts the line's fields (no separating space).
        var first: Bool
    }
    private let header = SegmentMemo<HeaderKey>()
    private let operationSegment = SegmentMemo<OperationKey>()

    /// A writer of text lines (`jsonl` false) or JSONL objects into `out`.
    public init(out: OutputBuffer, jsonl: Bool) {
        self.out = out
        self.jsonl = jsonl
    }

    /// One event's line, newline included.
    public func write(_ e: TimelineEvent) {
        let base = baseStorage ?? e.time
        if jsonl {
            jsonlStart(frame: e.frame, time: e.time, base: base)
            let type = e.type
            let key = HeaderKey(
                type: type.hasPointerRepresentation ? UInt(bitPattern: type.utf8Start) : 0, connection: e.connection,
                peer: e.peer, peerAddressType: e.peerAddressType)
            if key.type == 0 || !header.replay(key, into: out) {
                let start = out.count
                out.jsonNextKey("type")
                out.jsonString(type)
                out.jsonOptional("connection", e.connection)
                out.jsonOptional("peer", address: e.peer)
                out.jsonOptional("peer_address_type", e.peerAddressType.map(Int.init))
                if key.type != 0 { header.record(key, out.written(since: start)) }
            }
            first = false
            fields(e)
            out.byte(UInt8(ascii: "}"))
        } else {
            textStart(frame: e.frame, time: e.time, base: base, connection: e.connection, peer: e.peer, type: e.type)
            fields(e)
        }
        out.newline()
        out.maybeFlush()
    }

    /// What every JSONL line starts with: frame, time and time since the first line.
    @inline(__always)
    private func jsonlStart(frame: Int, time: Int64, base: Int64) {
        out.timelineLineStart(frame: frame, microseconds: time, elapsed: time &- base)
    }

    /// What every text line starts with: frame, seconds, connection, peer and type in their
    /// columns; the fields follow (`first` set for the first of them).
    @inline(__always)
    private func textStart(frame: Int, time: Int64, base: Int64, connection: Int?, peer: BDAddr?, type: StaticString) {
        rightAligned(frame, width: 7)
        out.spaces(2)
        // Seconds right-aligned, as `blecap packets` does, so the decimal points line up.
        rightAlignedSeconds(time &- base, width: 11)
        out.spaces(2)
        let c0 = out.count
        if let c = connection {
            out.byte(UInt8(ascii: "#"))
            out.decimal(c)
        } else {
            out.byte(UInt8(ascii: "-"))
        }
        out.spaces(Swift.max(1, 5 - (out.count - c0)))
        if let p = peer { out.address(p) } else { out.spaces(17) }
        out.spaces(2)
        if color, let code = Palette.family(ofEventType: type) {
            out.ascii(code)
            out.ascii(type)
            out.ascii(ANSI.reset)
        } else {
            out.ascii(type)
        }
        out.spaces(Swift.max(1, 32 - type.utf8CodeUnitCount))
        first = true
    }

    /// A `connection.summary` line: one connection's facts (`ConnectionFacts`), written after
    /// the last event at the capture's last frame (docs/timeline.md).
    func writeSummary(_ f: ConnectionFacts, peer: BDAddr?, peerAddressType: UInt8?, frame: Int, time: Int64) {
        let base = self.base ?? time
        if jsonl {
            jsonlStart(frame: frame, time: time, base: base)
            out.jsonNextKey("type")
            out.jsonString(Self.summaryType)
            out.jsonOptional("connection", f.connection)
            out.jsonOptional("peer", address: peer)
            out.jsonOptional("peer_address_type", peerAddressType.map(Int.init))
            out.jsonFacts(f)
            out.byte(UInt8(ascii: "}"))
        } else {
            textStart(
                frame: frame, time: time, base: base, connection: f.connection, peer: peer, type: Self.summaryType)
            if let r = f.role { str("role", r) }
            str("ended", f.ended)
            if let r = f.endReason { hex("reason", UInt64(r), digits: 2) }
            if let n = f.endReasonName { str("reason_name", n) }
            if let mtu = f.mtu {
                int("mtu", mtu)
            } else {
                bool("mtu_known", false)
                int("mtu_at_least", f.mtuAtLeast ?? 23)
            }
            bool("encrypted", f.security.encrypted)
            if let m = f.security.pairingMethod { str("pairing_method", m) }
            if f.security.pairingFailed { bool("pairing_failed", true) }
            let a = f.attributes
            if a.peer != a.local || a.peer.services + a.peer.characteristics + a.peer.descriptors > 0 {
                str("peer_server", Self.counts(a.peer))
                str("local_server", Self.counts(a.local))
            }
        }
        out.newline()
        out.maybeFlush()
    }

    static let summaryType: StaticString = "connection.summary"

    private static func counts(_ c: ConnectionFacts.Counts) -> String {
        "\(c.services)s/\(c.characteristics)c/\(c.descriptors)d"
    }

    private func rightAlignedSeconds(_ us: Int64, width: Int) {
        // "S.ffffff": integer digits, a point, six decimals (and a sign when negative).
        var digits = 1
        var x = (us.magnitude / 1_000_000) / 10
        while x > 0 {
            digits += 1
            x /= 10
        }
        out.spaces(width - digits - 7 - (us < 0 ? 1 : 0))
        out.seconds(microseconds: us)
    }

    private func rightAligned(_ v: Int, width: Int) {
        var digits = 1
        var x = v.magnitude / 10
        while x > 0 {
            digits += 1
            x /= 10
        }
        out.spaces(width - digits - (v < 0 ? 1 : 0))
        out.decimal(v)
    }

    // MARK: field emitters (text: `key=value`, JSON: `,"key":value`)

    private func key(_ k: StaticString) {
        if jsonl {
            out.jsonNextKey(k)
        } else {
            if !first { out.byte(0x20) }
            first = false
            out.ascii(k)
            out.byte(UInt8(ascii: "="))
        }
    }

    private func int(_ k: StaticString, _ v: Int) {
        key(k)
        out.decimal(v)
    }
    private func hex(_ k: StaticString, _ v: UInt64, digits: Int) {
        key(k)
        if jsonl { out.decimal(v) } else { out.hex(v, digits: digits) }
    }
    private func bool(_ k: StaticString, _ v: Bool) {
        key(k)
        out.ascii(v ? "true" : "false")
    }
    private func str(_ k: StaticString, _ v: StaticString) {
        key(k)
        if jsonl {
            out.jsonString(v)
            return
        }
        let spaced = v.withUTF8Buffer { $0.contains(0x20) }
        if spaced { out.byte(0x22) }
        out.ascii(v)
        if spaced { out.byte(0x22) }
    }
    private func str(_ k: StaticString, _ v: String) {
        key(k)
        if jsonl {
            out.jsonString(v)
        } else if v.utf8.contains(0x20) {
            // Not `v.contains(" ")`: with Foundation imported that is NSString's, two allocations a call.
            out.byte(0x22)
            out.string(v)
            out.byte(0x22)
        } else {
            out.string(v)
        }
    }
    private func text(_ k: StaticString, _ v: ByteView) {
        key(k)
        if jsonl {
            out.jsonString(v)
        } else {
            out.byte(0x22)
            out.sanitizedText(v)
            out.byte(0x22)
        }
    }
    private func address(_ k: StaticString, _ a: BDAddr) {
        key(k)
        if jsonl {
            out.byte(0x22)
            out.address(a)
            out.byte(0x22)
        } else {
            out.address(a)
        }
    }
    private func bytes(_ k: StaticString, _ v: InlineBytes) {
        key(k)
        if jsonl {
            v.withView { out.jsonHexString($0) }
        } else {
            v.withView { out.hexBytes($0) }
        }
        if v.isTruncated { bool("value_truncated", true) }
    }
    private func millis(_ k: StaticString, _ units: UInt16, unitMicros: Int64) {
        millis(k, UInt32(units), unitMicros: unitMicros)
    }
    private func uuid(_ k: StaticString, _ u: BluetoothUUID) {
        key(k)
        if let last = lastUUID, last.uuid == u { return raw(last.rendered) }
        let r: [UInt8]
        if let cached = uuids[u] {
            r = cached
        } else {
            if uuids.count >= Self.cacheLimit { uuids.removeAll(keepingCapacity: true) }
            r = rendered(u.description)
            uuids[u] = r
        }
        lastUUID = (u, r)
        raw(r)
    }

    private func attributeName(_ a: AttributeRef) {
        key("name")
        let k = NameKey(role: a.role.rawValue, uuid: a.uuid, characteristic: a.characteristic)
        if let last = lastName, last.key == k { return raw(last.rendered) }
        let r: [UInt8]
        if let cached = names[k] {
            r = cached
        } else {
            if names.count >= Self.cacheLimit { names.removeAll(keepingCapacity: true) }
            r = rendered(a.displayName)
            names[k] = r
        }
        lastName = (k, r)
        raw(r)
    }

    private func raw(_ bytes: [UInt8]) { bytes.withUnsafeBytes { out.append($0) } }

    /// A field value as `str` would write it: a JSON string, or text quoted when it has a space.
    private func rendered(_ s: String) -> [UInt8] {
        var r: [UInt8] = []
        let quote = jsonl || s.utf8.contains(0x20)
        if quote { r.append(0x22) }
        for b in s.utf8 {
            if jsonl, b == 0x22 || b == 0x5C {
                r.append(0x5C)
                r.append(b)
            } else if jsonl, b < 0x20 {
                r.append(contentsOf: Array("\\u00".utf8))
                r.append(contentsOf: Array(Hex.string(UInt64(b), digits: 2).dropFirst(2).utf8))
            } else if !jsonl, b < 0x20 || b == 0x22 {
                r.append(0x3F)
            } else {
                r.append(b)
            }
        }
        if quote { r.append(0x22) }
        return r
    }
    private func status(_ k: StaticString, _ nameKey: StaticString, _ code: UInt8) {
        hex(k, UInt64(code), digits: 2)
        if let n = HCIError.name(code) { str(nameKey, n) }
    }

    // MARK: per kind

    private func fields(_ e: TimelineEvent) {
        switch e.kind {
        case .initComplete(let i):
            int("reset_frame", i.resetFrame)
            int("commands", i.commands)
            if i.failedCommands > 0 { int("failed_commands", i.failedCommands) }
            if let a = i.publicAddress { address("public_address", a) }
            if let a = i.randomAddress { address("random_address", a) }
            if let v = i.hciVersion {
                hex("hci_version", UInt64(v), digits: 2)
                if let n = Self.coreVersionName(v) { str("core_version", n) }
            }
            if let m = i.manufacturer { hex("manufacturer", UInt64(m), digits: 4) }
            if let f = i.leFeatures { hex("le_features", f, digits: 16) }
            if let l = i.aclMaxLength, let n = i.aclPackets {
                int("acl_max_length", Int(l))
                int("acl_packets", Int(n))
            }
            if let l = i.leACLMaxLength, let n = i.leACLPackets {
                int("le_acl_max_length", Int(l))
                int("le_acl_packets", Int(n))
            }
            if let l = i.isoMaxLength, let n = i.isoPackets {
                int("iso_max_length", Int(l))
                int("iso_packets", Int(n))
            }
            if let o = i.suggestedMaxTxOctets, let t = i.suggestedMaxTxTime {
                int("suggested_max_tx_octets", Int(o))
                int("suggested_max_tx_time", Int(t))
            }
        case .managementSetPowered(let on):
            bool("powered", on)
        case .managementSettings(let s):
            hex("settings", UInt64(s), digits: 8)
            bool("powered", s & 1 != 0)
        case .managementDiscoveryStart(let d):
            hex("address_types", UInt64(d.addressTypes), digits: 2)
            bool("limited", d.limited)
            bool("service_filter", d.serviceFilterUUIDs != nil)
            if let n = d.serviceFilterUUIDs { int("filter_uuids", Int(n)) }
            if let t = d.rssiThreshold { int("rssi_threshold", Int(t)) }
        case .managementDiscoveryStop(let t):
            hex("address_types", UInt64(t), digits: 2)
        case .managementDiscovering(let t, let on):
            hex("address_types", UInt64(t), digits: 2)
            bool("discovering", on)
        case .controllerReset, .indexAdded, .indexRemoved, .indexOpened, .indexClosed, .scanStop, .connectionCancel:
            break
        case .power:
            // PacketLogger power records are short ASCII state strings ("OFF->ON+", "AP Sleep").
            if !e.value.isEmpty { e.value.withView { text("state", Self.trimmed($0)) } }
            if e.value.isTruncated { bool("value_truncated", true) }
        case .annotation(let source):
            str("source", source.name)
            e.value.withView { v in
                // Linux monitor user logging (btmon): priority, ident (NUL included), message.
                if source == .userLogging, let u = MonitorUserLogging(v) {
                    int("priority", Int(u.priority))
                    text("ident", Self.trimmed(u.recordedIdent))
                    text("text", Self.trimmed(u.recordedMessage))
                } else {
                    text("text", Self.trimmed(v))
                }
            }
            if e.value.isTruncated { bool("value_truncated", true) }
        case .scanStart(let s):
            str("scan_type", s.active ? "active" : "passive")
            bool("extended", s.extended)
            if s.parametersKnown {
                millis("interval_ms", s.interval, unitMicros: 625)
                millis("window_ms", s.window, unitMicros: 625)
                hex("phys", UInt64(s.phys), digits: 2)
                int("filter_policy", Int(s.filterPolicy))
            }
            bool("parameters_set", s.parametersKnown)
            int("filter_duplicates", Int(s.filterDuplicates))
        case .scanFilters(let snapshot):
            // Always there while the event is being emitted (`ScanFilterTables`).
            if let t = scanFilterTables[snapshot] { scanFilters(t) }
        case .advertisement(let a):
            if let t = e.peerAddressType, !jsonl { int("address_type", Int(t)) }
            hex("event_type", UInt64(a.eventType), digits: a.extended ? 4 : 2)
            int("rssi", Int(a.rssi))
            if let tx = a.txPower { int("tx_power", Int(tx)) }
            advertisingData(e.value)
        case .advertisingStart(let snapshot):
            // Always there while the event is being emitted (`ScanFilterTables`).
            if let s = scanFilterTables.advertising(snapshot) { advertisingSetup(s) }
        case .advertisingStop(let extended, let handle):
            bool("extended", extended)
            if let h = handle { int("handle", Int(h)) } else if extended { bool("all_sets", true) }
        case .connectionCreate(let c):
            int("filter_policy", Int(c.filterPolicy))
            millis("interval_min_ms", c.intervalMin, unitMicros: 1250)
            millis("interval_max_ms", c.intervalMax, unitMicros: 1250)
            int("latency", Int(c.latency))
            millis("timeout_ms", c.supervisionTimeout, unitMicros: 10_000)
            hex("phys", UInt64(c.phys), digits: 2)
            bool("extended", c.extended)
            if let snapshot = c.acceptList, let l = scanFilterTables.acceptList(snapshot) {
                // The Filter Accept List the controller chose the peer from (docs/timeline.md).
                list("accept_list", l.entries.map(\.address.description), quoted: true)
                list("accept_list_frames", l.entries.map { "\($0.frame)" }, quoted: false)
                bool("accept_list_complete", l.complete)
                if l.anomalies > 0 {
                    int("accept_list_anomalies", l.anomalies)
                    if let f = l.firstAnomalyFrame { int("accept_list_first_anomaly_frame", f) }
                }
            }
        case .connectionComplete(let c), .connectionFailed(let c):
            if c.status != 0 { status("status", "status_name", c.status) }
            hex("handle", UInt64(c.handle), digits: 4)
            if let role = c.role { str("role", role == 0 ? "central" : "peripheral") }
            if let t = c.timing { timing(t) }
            str("transport", c.isLE ? "le" : "br_edr")
        case .connectionUpdate(let s, let t):
            if s != 0 { status("status", "status_name", s) }
            timing(t)
        case .connectionParameterRequest(let id, let minI, let maxI, let lat, let to, let sent, let result):
            direction(sent)
            int("identifier", Int(id))
            millis("interval_min_ms", minI, unitMicros: 1250)
            millis("interval_max_ms", maxI, unitMicros: 1250)
            int("latency", Int(lat))
            millis("timeout_ms", to, unitMicros: 10_000)
            if let result { parameterResult(result) }
        case .connectionParameterResponse(let id, let result, let sent):
            direction(sent)
            int("identifier", Int(id))
            parameterResult(result)
        case .dataLengthChange(let tx, let rx):
            int("max_tx_octets", Int(tx))
            int("max_rx_octets", Int(rx))
        case .phyUpdate(let s, let tx, let rx):
            if s != 0 { status("status", "status_name", s) }
            int("tx_phy", Int(tx))
            int("rx_phy", Int(rx))
        case .channelMapUpdate(let map):
            hex("channel_map", map, digits: 10)
            int("used_channels", (map & LinkLayerCounters.dataChannels).nonzeroBitCount)
        case .encryptionChange(let s, let enabled):
            if s != 0 { status("status", "status_name", s) }
            int("encryption", Int(enabled))
        case .disconnection(let s, let reason, let side):
            if s != 0 { status("status", "status_name", s) }
            status("reason", "reason_name", reason)
            str("side", side.name)
        case .linkLayerControl(let opcode, let byCentral, let instant):
            hex("opcode", UInt64(opcode), digits: 2)
            str("name", LLControlPDU.name(opcode))
            if let byCentral { str("sender", byCentral ? "central" : "peripheral") }
            if let instant { int("instant", Int(instant)) }
            linkLayerProcedure(opcode, e.value)
        case .linkLayerEncrypted(let first):
            int("first_frame", first)
        case .linkLayerDecryption(let note):
            linkLayerDecryption(note)
        case .mtuExchange(let client, let server, let effective, let sent):
            direction(sent)
            int("client_rx_mtu", Int(client))
            if let server { int("server_rx_mtu", Int(server)) }
            int("mtu", Int(effective))
        case .discovery(let d, let sent):
            direction(sent)
            str("by", d.filter == nil ? "all" : "uuid")
            if let f = d.filter {
                uuid("uuid", f)
                nameOf(f)
            }
            hex("start_handle", UInt64(d.startHandle), digits: 4)
            hex("end_handle", UInt64(d.endHandle), digits: 4)
            int("found", d.found)
        case .read(let o, let v):
            operation(o)
            str("variant", v.name)
            if let off = o.offset { int("offset", Int(off)) }
            if case .success = e.outcome {
                int("length", e.value.count)
                bytes("value", e.value)
            }
        case .write(let o, let v):
            operation(o)
            str("variant", v.name)
            if let off = o.offset { int(v == .execute ? "flags" : "offset", Int(off)) }
            if v != .execute {
                int("length", e.value.count)
                if o.mtuKnown {
                    int("mtu", Int(o.mtu))
                    // The most a single write can carry is ATT_MTU − 3 (Vol 3 Part F 3.4.5.1).
                    if v != .prepare, e.value.count > Int(o.mtu) - 3 { bool("exceeds_mtu", true) }
                } else {
                    // The capture missed the exchange: a long write proves ATT_MTU was at least
                    // its PDU's length, it exceeds nothing known.
                    bool("mtu_known", false)
                    int("mtu_at_least", Int(o.mtu))
                }
                bytes("value", e.value)
            }
        case .subscribe(let o, let config):
            operation(o)
            // A CCCD is written with a Write Request (GATT Write Characteristic Descriptors,
            // Vol 3 Part G 4.12.3); a Write Command still changes it, so it is marked.
            if o.opcode == ATTOpcode.writeCommand.rawValue { str("variant", "command") }
            hex("configuration", UInt64(config), digits: 4)
            bool("notifications", config & 1 != 0)
            bool("indications", config & 2 != 0)
        case .notification(let o), .indication(let o):
            operation(o)
            int("length", e.value.count)
            bytes("value", e.value)
        case .unmatchedResponse(let op, let code, let handle, let sent):
            direction(sent)
            str("opcode", ATTOpcode(op).name)
            if let code {
                hex("error", UInt64(code), digits: 2)
                if let n = ATTErrorCode.name(code) { str("error_name", n) }
            }
            if let handle { hex("handle", UInt64(handle), digits: 4) }
        case .pairingRequest(let p, let sent), .pairingResponse(let p, let sent):
            direction(sent)
            pairing(p)
        case .pairingFailed(let reason, let sent):
            direction(sent)
            hex("reason", UInt64(reason), digits: 2)
            if let n = SMPPairingFailed.reasonName(reason) { str("reason_name", n) }
        case .securityRequest(let auth, let sent):
            direction(sent)
            hex("auth_req", UInt64(auth), digits: 2)
        case .identityAddress(let a, let t, let sent):
            direction(sent)
            address("identity_address", a)
            int("identity_address_type", Int(t))
        case .keyDistribution(let k, let sent):
            direction(sent)
            str("key", k.name)
        }
        // The capture cut the PDU (btsnooz, a filtered Android log): `length` and `value` are
        // what was kept, not what was sent.
        if e.valueTruncated { bool("capture_truncated", true) }
        outcome(e)
    }

    /// docs/timeline.md `ll.decryption`.
    /// The connection parameter request procedure's PDUs (Vol 6 Part B 5.1.7): the ranges
    /// LL_CONNECTION_PARAM_REQ/RSP ask for (the parameters change only at the update that
    /// follows), and what LL_REJECT_EXT_IND / LL_REJECT_IND refuse and why.
    private func linkLayerProcedure(_ opcode: UInt8, _ value: InlineBytes) {
        switch opcode {
        case LLControlOpcode.connectionParamReq, LLControlOpcode.connectionParamRsp,
            LLControlOpcode.rejectExtInd, LLControlOpcode.rejectInd:
            value.withView { v in
                let p = LLControlPDU(opcode: opcode, ctrData: v)
                if let q = p.connectionParameterRequest {
                    millis("interval_min_ms", q.intervalMin, unitMicros: 1250)
                    millis("interval_max_ms", q.intervalMax, unitMicros: 1250)
                    int("latency", Int(q.latency))
                    millis("timeout_ms", q.timeout, unitMicros: 10_000)
                    int("preferred_periodicity", Int(q.preferredPeriodicity))
                    int("reference_event", Int(q.referenceEventCount))
                }
                if let rejected = p.referencedOpcode {
                    hex("reject_opcode", UInt64(rejected), digits: 2)
                    str("reject_opcode_name", LLControlPDU.name(rejected))
                }
                if let code = p.errorCode { status("error", "error_name", code) }
            }
        default: break
        }
    }

    private func linkLayerDecryption(_ note: LinkLayerDecryptionNote) {
        switch note {
        case .decrypting(let source):
            str("decrypted", "yes")
            switch source {
            case .recoveredFromPairing(let tk, let stk, let attempts, let method):
                str("key_source", "recovered_from_pairing")
                switch method {
                case .justWorks: str("method", "just_works")
                case .passkeyEntry(let passkey):
                    str("method", "passkey_entry")
                    int("passkey", Int(passkey))
                }
                str("tk", tk.hexMSBFirst)
                str("stk", stk.hexMSBFirst)
                // How long it took is in lint's finding: the timeline stays the same from run to run.
                int("attempts", attempts)
            case .given(let ltk):
                str("key_source", "given")
                str("ltk", ltk.hexMSBFirst)
            case .distributed(let ltk, let frame):
                str("key_source", "distributed")
                str("ltk", ltk.hexMSBFirst)
                int("distributed_frame", frame)
            case .secureConnectionsDebugKey(let ltk):
                str("key_source", "sc_debug_key")
                str("ltk", ltk.hexMSBFirst)
            }
        case .notDecryptable(let reason):
            str("decrypted", "no")
            switch reason {
            case .secureConnections(let debugKey):
                str("reason", "secure_connections")
                if debugKey { bool("debug_key", true) }
            case .noKey: str("reason", "no_key")
            case .pairingNotRecovered(let why, let attempts):
                str("reason", "pairing_not_recovered")
                str("detail", why.description)
                int("attempts", attempts)
            case .noEncryptionParameters: str("reason", "no_encryption_parameters")
            case .noKeyVerifies(let tried):
                str("reason", "no_key_verifies")
                int("keys_tried", tried)
            case .crackBudgetSpent(let attempts):
                str("reason", "crack_budget_spent")
                int("attempts", attempts)
            }
        }
    }

    /// Android's offloaded scan filters at a scan start (docs/timeline.md `scan.filters`).
    private func scanFilters(_ t: ScanFilterTable) {
        str("apcf", t.enabled == nil ? "unknown" : t.enabled == true ? "enabled" : "disabled")
        bool("passes_everything", t.passesEverything)
        let active = t.active
        list("all_pass_indices", t.allPass.map { "\($0.index)" }, quoted: false)
        list("service_uuids", active.flatMap { $0.serviceUUIDs.map(\.description) }, quoted: true)
        list("local_names", active.flatMap(\.localNames), quoted: true)
        list("addresses", active.flatMap { $0.addresses.map(\.description) }, quoted: true)
        bool("complete", t.complete)
        if let s = t.filteringSupported { bool("filtering_supported", s) }
        if let m = t.maxFilters { int("max_filters", Int(m)) }
        var frames = Set(active.flatMap(\.frames))
        if let f = t.enableFrame { frames.insert(f) }
        list("setup_frames", frames.sorted().map { "\($0)" }, quoted: false)
        if let m = t.scanMode { str("scan_mode", m.rawValue) }
        if let f = t.inquiryFrame { int("inquiry_frame", f) }
        if t.anomalies > 0 {
            int("anomalies", t.anomalies)
            if let f = t.firstAnomalyFrame { int("first_anomaly_frame", f) }
        }
        // One entry per index, in force or only holding conditions.
        key("filters")
        if jsonl { out.byte(UInt8(ascii: "[")) } else { out.byte(0x22) }
        for (n, f) in t.entries.enumerated() {
            if n > 0 { out.byte(jsonl ? UInt8(ascii: ",") : 0x20) }
            if jsonl {
                out.string("{\"index\":\(f.index)")
                if let fs = f.featureSelection { out.string(",\"features\":\(fs)") }
                out.string(",\"all_pass\":\(f.isAllPass)")
                out.string(",\"owner\":\"\(t.owner(f).name)\"")
                if case .system(let name) = t.owner(f) {
                    out.string(",\"system_scanner\":")
                    out.jsonString(name)
                }
                jsonArray("service_uuids", f.serviceUUIDs.map(\.description))
                jsonArray("solicitation_uuids", f.solicitationUUIDs.map(\.description))
                jsonArray("local_names", f.localNames)
                jsonArray("addresses", f.addresses.map(\.description))
                if !f.manufacturerCompanies.isEmpty {
                    out.string(
                        ",\"companies\":[" + f.manufacturerCompanies.map { "\($0)" }.joined(separator: ",") + "]")
                }
                jsonArray("service_data", f.serviceData)
                if f.otherConditions > 0 { out.string(",\"other_conditions\":\(f.otherConditions)") }
                out.string(",\"frames\":[" + f.frames.map { "\($0)" }.joined(separator: ",") + "]}")
            } else {
                var parts: [String] = []
                if let fs = f.featureSelection {
                    parts.append(fs == 0 ? "all_pass" : "features=" + Hex.string(UInt64(fs), digits: 4))
                } else {
                    parts.append("not_selected")
                }
                parts += f.serviceUUIDs.map { "uuid=\($0)" } + f.solicitationUUIDs.map { "solicitation=\($0)" }
                parts += f.localNames.map {
                    "name=\($0.replacing(" ", with: "_").replacing("\"", with: "?"))"
                }
                parts +=
                    f.addresses.map { "address=\($0)" }
                    + f.manufacturerCompanies.map { "company=" + Hex.string(UInt64($0), digits: 4) }
                parts += f.serviceData.map { "service_data=\($0)" }
                if f.otherConditions > 0 { parts.append("other=\(f.otherConditions)") }
                parts.append("owner=\(t.owner(f).name)")
                out.string("\(f.index):" + parts.joined(separator: ","))
            }
        }
        out.byte(jsonl ? UInt8(ascii: "]") : 0x22)
    }

    /// A list field: a JSON array, or comma-separated text.
    private func list(_ k: StaticString, _ values: [String], quoted: Bool) {
        key(k)
        if jsonl {
            out.byte(UInt8(ascii: "["))
            for (i, v) in values.enumerated() {
                if i > 0 { out.byte(UInt8(ascii: ",")) }
                if quoted { out.jsonString(v) } else { out.string(v) }
            }
            out.byte(UInt8(ascii: "]"))
        } else {
            out.string(
                values.isEmpty ? "-" : values.map { $0.replacing(" ", with: "_") }.joined(separator: ",")
            )
        }
    }

    private func jsonArray(_ name: String, _ values: [String]) {
        guard !values.isEmpty else { return }
        out.string(",\"\(name)\":[")
        for (i, v) in values.enumerated() {
            if i > 0 { out.byte(UInt8(ascii: ",")) }
            out.jsonString(v)
        }
        out.byte(UInt8(ascii: "]"))
    }

    /// Without the trailing NULs and line ends C strings and log lines carry.
    static func trimmed(_ v: ByteView) -> ByteView {
        v.droppingTrailing { $0 == 0 || $0 == 0x0A || $0 == 0x0D }
    }

    /// Connection Parameter Update Response result (Vol 3 Part A 4.21).
    private func parameterResult(_ result: UInt16) {
        str("result", result == 0 ? "accepted" : result == 1 ? "rejected" : "unknown")
    }

    /// Core specification versions by HCI_Version (Assigned Numbers 2.1).
    static func coreVersionName(_ v: UInt8) -> StaticString? {
        switch v {
        case 6: "4.0"
        case 7: "4.1"
        case 8: "4.2"
        case 9: "5.0"
        case 10: "5.1"
        case 11: "5.2"
        case 12: "5.3"
        case 13: "5.4"
        case 14: "6.0"
        default: nil
        }
    }

    /// The names typed as StaticString: as plain literals in a conditional they became a
    /// `String` built and escaped for every event (7 % of `timeline --format jsonl`).
    private func direction(_ sent: Bool) { str("direction", sent ? Self.sentName : Self.receivedName) }
    private static let sentName: StaticString = "sent"
    private static let receivedName: StaticString = "received"

    private func timing(_ t: ConnectionTiming) {
        millis("interval_ms", t.interval, unitMicros: 1250)
        int("latency", Int(t.latency))
        millis("timeout_ms", t.supervisionTimeout, unitMicros: 10_000)
    }

    private func nameOf(_ u: BluetoothUUID) {
        if let n = GATTAssignedNumbers.name(for: u) { str("uuid_name", n) }
    }

    private func operation(_ o: AttributeOperation) {
        let key = OperationKey(
            sent: o.sent, serverIsPeer: o.serverIsPeer, handle: o.handle, attribute: o.attribute, first: first)
        if operationSegment.replay(key, into: out) {
            first = false
            return
        }
        let start = out.count
        direction(o.sent)
        // Whose GATT server the handle lives in (issue 28: a read by the peer of this host's
        // server is not this host using the peer's database).
        str("server", o.serverIsPeer ? "peer" : "local")
        hex("handle", UInt64(o.handle), digits: 4)
        if let a = o.attribute {
            attributeName(a)
            str("attribute_kind", a.role.name)
            uuid("uuid", a.uuid)
            if a.carriedOver { bool("carried_over", true) }
        }
        operationSegment.record(key, out.written(since: start))
    }

    private func pairing(_ p: PairingInfo) {
        let f = p.features
        int("io_capability", Int(f.ioCapability))
        if let n = SMPIOCapability.name(f.ioCapability) { str("io_capability_name", n) }
        int("oob", Int(f.oobDataFlag))
        bool("bonding", f.authReq.bonding)
        bool("mitm", f.authReq.mitm)
        bool("secure_connections_flag", f.authReq.secureConnections)
        int("max_key_size", Int(f.maximumEncryptionKeySize))
        hex("initiator_keys", UInt64(f.initiatorKeyDistribution.rawValue), digits: 2)
        hex("responder_keys", UInt64(f.responderKeyDistribution.rawValue), digits: 2)
        if let m = p.method { str("method", m.name) }
        if let sc = p.secureConnections { str("pairing", sc ? "secure_connections" : "legacy") }
    }

    private func advertisingData(_ v: InlineBytes) {
        v.withView { advertisingFields($0) }
        if jsonl { bytes("data", v) }
    }

    /// The AD structures' name, service UUIDs, appearance and company.
    private func advertisingFields(_ view: ByteView) {
        let ad = AdvertisingData(view)
        if let n = ad.localName { text("local_name", n) }
        var n = 0
        for u in ad.serviceUUIDs {
            if n == 0 {
                key("service_uuids")
                if jsonl { out.byte(UInt8(ascii: "[")) }
            } else {
                out.byte(UInt8(ascii: ","))
            }
            n += 1
            if let r = uuids[u] {
                raw(r)
            } else {
                if uuids.count >= Self.cacheLimit { uuids.removeAll(keepingCapacity: true) }
                let r = rendered(u.description)
                uuids[u] = r
                raw(r)
            }
        }
        if n > 0, jsonl { out.byte(UInt8(ascii: "]")) }
        if let a = ad.appearance { hex("appearance", UInt64(a), digits: 4) }
        if let m = ad.manufacturerData { hex("company", UInt64(m.companyID), digits: 4) }
    }

    /// The host's own advertising at an `advertising.start` (docs/timeline.md): how, from
    /// which address, and the data (AD fields as an `advertisement`'s; JSONL: whole, hex).
    private func advertisingSetup(_ s: AdvertisingSetup) {
        bool("extended", s.extended)
        if let h = s.handle { int("handle", Int(h)) }
        if let t = s.advertisingType { int("advertising_type", Int(t)) }
        if let p = s.eventProperties { hex("event_properties", UInt64(p), digits: 4) }
        if let c = s.connectable { bool("connectable", c) }
        if let c = s.scannable { bool("scannable", c) }
        if let i = s.intervalMin { millis("interval_min_ms", i) }
        if let i = s.intervalMax { millis("interval_max_ms", i) }
        if let t = s.ownAddressType { int("own_address_type", Int(t)) }
        if let a = s.randomAddress { address("random_address", a) }
        if let p = s.primaryPHY { int("primary_phy", Int(p)) }
        if let p = s.secondaryPHY { int("secondary_phy", Int(p)) }
        bool("parameters_set", s.parametersKnown)
        if let d = s.duration, d != 0 { millis("duration_ms", UInt32(d), unitMicros: 10_000) }
        if let m = s.maxEvents, m != 0 { int("max_events", Int(m)) }
        s.data.withUnsafeBytes { advertisingFields(ByteView($0)) }
        int("data_length", s.data.count)
        int("scan_response_length", s.scanResponse.count)
        if !s.dataKnown { bool("data_known", false) }
        if !s.scanResponseKnown { bool("scan_response_known", false) }
        if jsonl {
            key("data")
            s.data.withUnsafeBytes { out.jsonHexString(ByteView($0)) }
            key("scan_response")
            s.scanResponse.withUnsafeBytes { out.jsonHexString(ByteView($0)) }
        }
    }

    /// An interval in ms from `units` of `unitMicros` µs (an advertising interval: 0.625 ms units,
    /// up to 24 bits; the connection's 16-bit ones come through the overload above).
    private func millis(_ k: StaticString, _ units: UInt32, unitMicros: Int64 = 625) {
        key(k)
        let us = Int64(units) * unitMicros
        out.decimal(us / 1000)
        if us % 1000 != 0 {
            out.byte(UInt8(ascii: "."))
            out.decimal(UInt64(us % 1000), width: 3)
        }
    }

    /// Most events (notifications, advertisements) have no outcome: that test stays inline.
    @inline(__always) private func outcome(_ e: TimelineEvent) {
        switch e.outcome {
        case .none, .pending: return
        default: outcomeFields(e)
        }
    }

    private func outcomeFields(_ e: TimelineEvent) {
        str("outcome", e.outcome.name)
        if let f = e.outcome.responseFrame { int("response_frame", f) }
        if let l = e.outcome.latency {
            if jsonl {
                int("latency_us", Int(l))
            } else {
                key("latency_ms")
                out.decimal(l / 1000)
                out.byte(UInt8(ascii: "."))
                out.decimal(UInt64(l.magnitude % 1000), width: 3)
            }
        }
        if case .error(_, _, let code, let handle) = e.outcome {
            if isManagement(e.kind) {
                hex("status", UInt64(code), digits: 2)
                if let n = BlueZManagementNames.status(code) { str("status_name", n) }
            } else if isHCI(e.kind) {
                status("status", "status_name", code)
            } else {
                hex("error", UInt64(code), digits: 2)
                if let n = ATTErrorCode.name(code) { str("error_name", n) }
                hex("error_handle", UInt64(handle), digits: 4)
            }
        }
        if case .unanswered(let f) = e.outcome { int("superseded_by", f) }
        if case .disconnected(let f) = e.outcome { int("disconnection_frame", f) }
    }

    private func isManagement(_ k: TimelineEvent.Kind) -> Bool {
        switch k {
        case .managementSetPowered, .managementDiscoveryStart, .managementDiscoveryStop: true
        default: false
        }
    }

    private func isHCI(_ k: TimelineEvent.Kind) -> Bool {
        switch k {
        case .controllerReset, .scanStart, .scanStop, .connectionCreate, .connectionCancel, .advertisingStart,
            .advertisingStop:
            true
        default: false
        }
    }
}

/// The bytes one run of writes produced for `key`, kept to be copied again when the next run
/// has the same key (its output depends on the key alone). Segments longer than `capacity`
/// are not kept.
final class SegmentMemo<Key: Equatable> {
    static var capacity: Int { 512 }
    /// Unchecked: read for every event; a memo belongs to one writer, used from one thread, and
    /// no access spans a call that could reach the memo again.
    @exclusivity(unchecked) private var key: Key?
    @exclusivity(unchecked) private var count = 0
    private let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: SegmentMemo.capacity)

    deinit { bytes.deallocate() }

    /// Writes the kept bytes if they were made for `key`.
    func replay(_ key: Key, into out: OutputBuffer) -> Bool {
        guard let kept = self.key, kept == key else { return false }
        out.append(UnsafeRawBufferPointer(start: bytes, count: count))
        return true
    }

    func record(_ key: Key, _ segment: UnsafeRawBufferPointer) {
        guard segment.count <= Self.capacity, let base = segment.baseAddress else {
            self.key = nil
            return
        }
        UnsafeMutableRawPointer(bytes).copyMemory(from: base, byteCount: segment.count)
        count = segment.count
        self.key = key
    }
}
