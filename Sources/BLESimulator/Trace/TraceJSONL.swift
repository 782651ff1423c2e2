import BLEBytes
import BLETimeline
import Foundation

/// One JSON object per trace record, in order: `seq`, `time_us` (since the world started),
/// `source` (`api`, `callback`, `radio`, `world`, `peripheral_manager`), then the record's fields,
/// each line one `SimulatorTraceLine` (BLETimeline, the type the linter decodes). Radio records use
/// the timeline's `type` names (docs/timeline.md) with `frame` = `seq`. Keys are written in a
/// fixed order and nothing depends on hashing, so equal traces render to equal bytes.
extension SimulatorTrace {
    public func jsonl() -> String {
        var out = ""
        out.reserveCapacity(records.count * 96)
        for r in records {
            out += traceLine(r).text
            out += "\n"
        }
        return out
    }

    /// The record as the trace's typed line (`SimulatorTraceLine`, shared with the linter).
    public func traceLine(_ r: TraceRecord) -> SimulatorTraceLine {
        let body: SimulatorTraceLine.Body
        switch r.entry {
        case .api(let a): body = .api(a.traceCall)
        default:
            var o = JSONObject()
            switch r.entry {
            case .api: break
            case .callback(let c): Self.callback(c, into: &o)
            case .radio(let e): Self.radio(e, into: &o)
            case .world(let w): Self.world(w, into: &o)
            case .peripheralManager(let p): p.render(into: &o)
            }
            body = .other(r.source, o.members)
        }
        return SimulatorTraceLine(seq: r.sequence, timeMicros: r.time, body: body)
    }

    /// The trace's lines, typed.
    public var lines: [SimulatorTraceLine] { records.map(traceLine) }

    private static func callback(_ c: CallbackRecord, into o: inout JSONObject) {
        o.str("callback", c.callback.name)
        o.int("central", c.central)
        o.bool("delivered", c.delivered)
        var error: String?
        switch c.callback {
        case .didUpdateState(let s): o.str("state", s.description)
        case .willRestoreState(let ps, let services, let scanning):
            o.strings("peripherals", ps.map(\.uuidString))
            o.bool("is_scanning", scanning)
            if scanning { o.uuids("scan_services", services) }
        case .didDiscover(let p, let rssi, let name, let uuids):
            o.str("peripheral", p.uuidString)
            o.int("rssi", rssi)
            if let name { o.str("local_name", name) }
            o.uuids("service_uuids", uuids)
        case .didConnect(let p): o.str("peripheral", p.uuidString)
        case .didFailToConnect(let p, let e):
            o.str("peripheral", p.uuidString)
            error = e
        case .didDisconnect(let p, let r, let e):
            o.str("peripheral", p.uuidString)
            o.bool("is_reconnecting", r)
            error = e
        case .didDiscoverServices(let p, let s, let e):
            o.str("peripheral", p.uuidString)
            o.uuids("services", s)
            error = e
        case .didDiscoverIncludedServices(let p, let s, let e):
            o.str("peripheral", p.uuidString)
            o.str("service", s.uuidString)
            error = e
        case .didDiscoverCharacteristics(let p, let s, let cs, let e):
            o.str("peripheral", p.uuidString)
            o.str("service", s.uuidString)
            o.uuids("characteristics", cs)
            error = e
        case .didDiscoverDescriptors(let p, let c, let e):
            o.str("peripheral", p.uuidString)
            o.str("characteristic", c.uuidString)
            error = e
        case .didUpdateValue(let p, let c, let length, let e):
            o.str("peripheral", p.uuidString)
            o.str("characteristic", c.uuidString)
            o.int("length", length)
            error = e
        case .didUpdateDescriptorValue(let p, let d, let e), .didWriteDescriptorValue(let p, let d, let e):
            o.str("peripheral", p.uuidString)
            o.str("descriptor", d.uuidString)
            error = e
        case .didWriteValue(let p, let c, let e):
            o.str("peripheral", p.uuidString)
            o.str("characteristic", c.uuidString)
            error = e
        case .didUpdateNotificationState(let p, let c, let n, let e):
            o.str("peripheral", p.uuidString)
            o.str("characteristic", c.uuidString)
            o.bool("is_notifying", n)
            error = e
        case .isReadyToSendWriteWithoutResponse(let p): o.str("peripheral", p.uuidString)
        case .didModifyServices(let p, let inv):
            o.str("peripheral", p.uuidString)
            o.uuids("invalidated", inv)
        case .didReadRSSI(let p, let rssi, let e):
            o.str("peripheral", p.uuidString)
            o.int("rssi", rssi)
            error = e
        case .didOpenL2CAPChannel(let p, let psm, let e):
            o.str("peripheral", p.uuidString)
            o.int("psm", Int(psm))
            error = e
        }
        if let error { o.str("error", error) }
    }

    private static func world(_ w: WorldEvent, into o: inout JSONObject) {
        switch w {
        case .adapterStateChanged(let s):
            o.str("event", "adapter_state")
            o.str("state", s.description)
        case .peripheralRangeChanged(let a, let inRange):
            o.str("event", "range")
            o.str("address", a)
            o.bool("in_range", inRange)
        case .linkLossStarted(let a, let t):
            o.str("event", "link_loss")
            o.str("address", a)
            o.int("supervision_timeout_us", Int(t))
        case .servicesChanged(let a):
            o.str("event", "services_changed")
            o.str("address", a)
        case .peripheralDisconnected(let a, let reason):
            o.str("event", "peripheral_disconnected")
            o.str("address", a)
            o.int("reason", Int(reason))
        case .appRelaunched: o.str("event", "app_relaunched")
        case .centralStatePreserved(let id, let ps, let scanning):
            o.str("event", "state_preserved")
            o.str("restore_identifier", id)
            o.strings("peripherals", ps.map(\.uuidString))
            o.bool("is_scanning", scanning)
        case .peripheralReleased(let p, let s):
            o.str("event", "peripheral_released")
            o.str("peripheral", p.uuidString)
            o.str("state", s.description)
        case .notificationSuppressed(let a, let h):
            o.str("event", "notification_suppressed")
            o.str("address", a)
            o.int("handle", Int(h))
        case .valueForUndiscoveredCharacteristic(let p, let h):
            o.str("event", "value_for_undiscovered_characteristic")
            o.str("peripheral", p.uuidString)
            o.int("handle", Int(h))
        case .attTransactionTimeout(let a, let request):
            o.str("event", "att_timeout")
            o.str("address", a)
            o.int("request", request)
        case .peripheralManagerStatePreserved(let id, let services, let advertising):
            o.str("event", "peripheral_manager_state_preserved")
            o.str("restore_identifier", id)
            o.uuids("services", services)
            o.bool("is_advertising", advertising)
        }
    }

    private static func radio(_ e: TimelineEvent, into o: inout JSONObject) {
        o.str("type", "\(e.type)")
        o.int("frame", e.frame)
        if let c = e.connection { o.int("connection", c) }
        if let p = e.peer { o.str("peer", p.description) }
        switch e.kind {
        case .scanStart(let s):
            o.str("scan_type", s.active ? "active" : "passive")
            o.int("filter_duplicates", Int(s.filterDuplicates))
        case .advertisement(let a):
            o.int("rssi", Int(a.rssi))
            o.int("event_type", Int(a.eventType))
        case .connectionComplete(let c), .connectionFailed(let c):
            o.int("handle", Int(c.handle))
            if c.status != 0 { o.int("status", Int(c.status)) }
            if let t = c.timing {
                o.int("interval_us", Int(t.interval) * 1250)
                o.int("timeout_ms", Int(t.supervisionTimeout) * 10)
            }
        case .disconnection(_, let reason, let side):
            o.int("reason", Int(reason))
            o.str("side", "\(side.name)")
        case .mtuExchange(let client, let server, let effective, _):
            o.int("client_rx_mtu", Int(client))
            if let server { o.int("server_rx_mtu", Int(server)) }
            o.int("mtu", Int(effective))
        case .discovery(let d, _):
            o.int("start_handle", Int(d.startHandle))
            o.int("end_handle", Int(d.endHandle))
            if let f = d.filter { o.str("uuid", f.description) }
            o.int("found", d.found)
        case .read(let op, let v):
            attribute(op, &o)
            o.str("variant", "\(v.name)")
        case .write(let op, let v):
            attribute(op, &o)
            o.str("variant", "\(v.name)")
        case .subscribe(let op, let cfg):
            attribute(op, &o)
            o.int("configuration", Int(cfg))
        case .notification(let op), .indication(let op): attribute(op, &o)
        default: break
        }
        if !e.value.isEmpty {
            o.int("length", e.value.count)
            o.str("value", e.value.bytes.map { String(format: "%02x", $0) }.joined())
        }
        switch e.outcome {
        case .none: break
        case .success(let f, let l):
            o.str("outcome", "success")
            o.int("response_frame", f)
            o.int("latency_us", Int(l))
        case .error(let f, let l, let code, let h):
            o.str("outcome", "error")
            o.int("response_frame", f)
            o.int("latency_us", Int(l))
            o.int("error", Int(code))
            o.int("error_handle", Int(h))
        case .disconnected(let f):
            o.str("outcome", "disconnected")
            o.int("disconnection_frame", f)
        default: o.str("outcome", "\(e.outcome.name)")
        }
    }

    private static func attribute(_ op: AttributeOperation, _ o: inout JSONObject) {
        o.int("handle", Int(op.handle))
        if let a = op.attribute { o.str("uuid", a.uuid.description) }
        o.str("direction", op.sent ? "sent" : "received")
    }
}

/// The fields of a trace record after `source`, in call order (the non-`api` sources; `api`
/// records are `TraceAPICall`s).
struct JSONObject {
    private(set) var members: [JSONValue.Member] = []

    mutating func int(_ k: String, _ v: Int) { members.append(.init(k, .int(Int64(v)))) }
    mutating func bool(_ k: String, _ v: Bool) { members.append(.init(k, .bool(v))) }
    mutating func str(_ k: String, _ v: String) { members.append(.init(k, .string(v))) }
    mutating func strings(_ k: String, _ v: [String]) { members.append(.init(k, .array(v.map(JSONValue.string)))) }
    /// A UUID list, `null` for nil ("all").
    mutating func uuids(_ k: String, _ v: [CBUUID]?) {
        members.append(.init(k, v.map { .array($0.map { .string($0.uuidString) }) } ?? .null))
    }
}

extension APICallRecord {
    /// The record as the trace writes it and the linter reads it.
    public var traceCall: TraceAPICall {
        let disposition: TraceAPICall.Disposition =
            switch self.disposition {
            case .performed: .performed
            case .noEffect: .noEffect
            case .misuse(let r): .misuse(r.trace)
            case .dropped(let r): .dropped(r.trace)
            }
        return TraceAPICall(
            central: central, managerState: context.managerState.trace,
            peripheralState: context.peripheralState?.trace, isScanning: context.isScanning,
            inCallback: context.inCallback, disposition: disposition, call: call.trace)
    }
}

extension APICall {
    var trace: TraceAPICall.Call {
        func ids(_ v: [CBUUID]?) -> [String]? { v?.map(\.uuidString) }
        return switch self {
        case .centralManagerInit(let id, let alert): .centralManagerInit(restoreIdentifier: id, showPowerAlert: alert)
        case .scanForPeripherals(let s, let dup): .scanForPeripherals(services: ids(s), allowDuplicates: dup)
        case .stopScan: .stopScan
        case .connect(let p, let auto, let retained):
            .connect(peripheral: p.uuidString, autoReconnect: auto, retained: retained)
        case .cancelPeripheralConnection(let p): .cancelPeripheralConnection(peripheral: p.uuidString)
        case .retrievePeripherals(let list, let found):
            .retrievePeripherals(identifiers: list.map(\.uuidString), found: found)
        case .retrieveConnectedPeripherals(let s, let found):
            .retrieveConnectedPeripherals(services: s.map(\.uuidString), found: found)
        case .discoverServices(let p, let s, let d):
            .discoverServices(peripheral: p.uuidString, services: ids(s), delegateSet: d)
        case .discoverIncludedServices(let p, let s, let service):
            .discoverIncludedServices(peripheral: p.uuidString, services: ids(s), service: service.uuidString)
        case .discoverCharacteristics(let p, let cs, let service):
            .discoverCharacteristics(peripheral: p.uuidString, characteristics: ids(cs), service: service.uuidString)
        case .discoverDescriptors(let p, let c):
            .discoverDescriptors(peripheral: p.uuidString, characteristic: c.uuidString)
        case .readValue(let p, let c, let props):
            .readValue(peripheral: p.uuidString, characteristic: c.uuidString, properties: props.rawValue)
        case .readDescriptor(let p, let d): .readDescriptor(peripheral: p.uuidString, descriptor: d.uuidString)
        case .writeValue(let p, let c, let handle, let props, let type, let length, let max, let canSend):
            .writeValue(
                peripheral: p.uuidString, characteristic: c.uuidString, handle: handle, properties: props.rawValue,
                writeType: type.trace, length: length, maximumLength: max, canSend: canSend)
        case .writeDescriptor(let p, let d, let length):
            .writeDescriptor(peripheral: p.uuidString, descriptor: d.uuidString, length: length)
        case .setNotifyValue(let p, let enabled, let c):
            .setNotifyValue(
                peripheral: p.uuidString, enabled: enabled, characteristic: c.uuid.uuidString, handle: c.handle,
                properties: c.properties.rawValue)
        case .readRSSI(let p): .readRSSI(peripheral: p.uuidString)
        case .maximumWriteValueLength(let p, let type, let result):
            .maximumWriteValueLength(peripheral: p.uuidString, writeType: type.trace, result: result)
        case .canSendWriteWithoutResponse(let p, let result):
            .canSendWriteWithoutResponse(peripheral: p.uuidString, result: result)
        }
    }
}

extension CBManagerState {
    var trace: TraceAPICall.ManagerState {
        switch self {
        case .unknown: .unknown
        case .resetting: .resetting
        case .unsupported: .unsupported
        case .unauthorized: .unauthorized
        case .poweredOff: .poweredOff
        case .poweredOn: .poweredOn
        }
    }
}

extension CBPeripheralState {
    var trace: TraceAPICall.PeripheralState {
        switch self {
        case .disconnected: .disconnected
        case .connecting: .connecting
        case .connected: .connected
        case .disconnecting: .disconnecting
        }
    }
}

extension CBCharacteristicWriteType {
    var trace: TraceAPICall.WriteType { self == .withResponse ? .withResponse : .withoutResponse }
}

extension MisuseReason {
    var trace: TraceAPICall.MisuseReason {
        switch self {
        case .notPoweredOn: .notPoweredOn
        case .notConnected: .notConnected
        case .foreignAttribute: .foreignAttribute
        case .cccdWrite: .cccdWrite
        }
    }
}

extension DropReason {
    var trace: TraceAPICall.DropReason {
        switch self {
        case .cannotSendWriteWithoutResponse: .cannotSendWriteWithoutResponse
        case .writeTypeNotSupported: .writeTypeNotSupported
        case .exceedsMaximumLength: .exceedsMaximumLength
        }
    }
}
