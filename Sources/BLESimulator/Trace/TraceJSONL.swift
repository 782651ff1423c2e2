import BLEBytes
import BLETimeline
import Foundation

/// One JSON object per trace record, in order: `seq`, `time_us` (since the world started),
/// `source` (`api`, `callback`, `radio`, `world`), then the record's fields. Radio records use
/// the timeline's `type` names (docs/timeline.md) with `frame` = `seq`. Keys are written in a
/// fixed order and nothing depends on hashing, so equal traces render to equal bytes.
extension SimulatorTrace {
    public func jsonl() -> String {
        var out = ""
        out.reserveCapacity(records.count * 96)
        for r in records {
            var o = JSONObject()
            o.int("seq", r.sequence)
            o.int("time_us", Int(r.time))
            o.str("source", "\(r.source)")
            switch r.entry {
            case .api(let a): Self.api(a, into: &o)
            case .callback(let c): Self.callback(c, into: &o)
            case .radio(let e): Self.radio(e, into: &o)
            case .world(let w): Self.world(w, into: &o)
            case .peripheralManager(let p): p.render(into: &o)
            }
            out += o.text
            out += "\n"
        }
        return out
    }

    private static func api(_ a: APICallRecord, into o: inout JSONObject) {
        o.str("call", a.call.name)
        o.int("central", a.central)
        o.str("manager_state", a.context.managerState.description)
        if let s = a.context.peripheralState { o.str("peripheral_state", s.description) }
        o.bool("is_scanning", a.context.isScanning)
        if let cb = a.context.inCallback { o.str("in_callback", cb) }
        switch a.disposition {
        case .performed: o.str("disposition", "performed")
        case .noEffect: o.str("disposition", "no_effect")
        case .misuse(let r): o.str("disposition", "misuse"); o.str("reason", r.rawValue)
        case .dropped(let r): o.str("disposition", "dropped"); o.str("reason", r.rawValue)
        }
        switch a.call {
        case .centralManagerInit(let id, let alert):
            if let id { o.str("restore_identifier", id) }
            o.bool("show_power_alert", alert)
        case .scanForPeripherals(let services, let dup):
            o.uuids("services", services)
            o.bool("allow_duplicates", dup)
        case .stopScan: break
        case .connect(let p, let auto, let retained):
            o.str("peripheral", p.uuidString)
            o.bool("auto_reconnect", auto)
            if let retained { o.bool("retained", retained) }
        case .cancelPeripheralConnection(let p): o.str("peripheral", p.uuidString)
        case .retrievePeripherals(let ids, let found):
            o.raw("identifiers", "[" + ids.map { "\"\($0.uuidString)\"" }.joined(separator: ",") + "]")
            o.int("found", found)
        case .retrieveConnectedPeripherals(let services, let found):
            o.uuids("services", services)
            o.int("found", found)
        case .discoverServices(let p, let services, let delegateSet):
            o.str("peripheral", p.uuidString)
            o.uuids("services", services)
            o.bool("delegate_set", delegateSet)
        case .discoverIncludedServices(let p, let services, let service):
            o.str("peripheral", p.uuidString)
            o.uuids("services", services)
            o.str("service", service.uuidString)
        case .discoverCharacteristics(let p, let chars, let service):
            o.str("peripheral", p.uuidString)
            o.uuids("characteristics", chars)
            o.str("service", service.uuidString)
        case .discoverDescriptors(let p, let c):
            o.str("peripheral", p.uuidString)
            o.str("characteristic", c.uuidString)
        case .readValue(let p, let c, let props):
            o.str("peripheral", p.uuidString)
            o.str("characteristic", c.uuidString)
            o.int("properties", Int(props.rawValue))
        case .readDescriptor(let p, let d):
            o.str("peripheral", p.uuidString)
            o.str("descriptor", d.uuidString)
        case .writeValue(let p, let c, let handle, let props, let type, let length, let max, let canSend):
            o.str("peripheral", p.uuidString)
            o.str("characteristic", c.uuidString)
            o.int("handle", Int(handle))
            o.int("properties", Int(props.rawValue))
            o.str("write_type", type.description)
            o.int("length", length)
            o.int("maximum_length", max)
            o.bool("can_send", canSend)
        case .writeDescriptor(let p, let d, let length):
            o.str("peripheral", p.uuidString)
            o.str("descriptor", d.uuidString)
            o.int("length", length)
        case .setNotifyValue(let p, let enabled, let c):
            o.str("peripheral", p.uuidString)
            o.bool("enabled", enabled)
            o.str("characteristic", c.uuid.uuidString)
            o.int("handle", Int(c.handle))
            o.int("properties", Int(c.properties.rawValue))
        case .readRSSI(let p): o.str("peripheral", p.uuidString)
        case .maximumWriteValueLength(let p, let type, let result):
            o.str("peripheral", p.uuidString)
            o.str("write_type", type.description)
            o.int("result", result)
        case .canSendWriteWithoutResponse(let p, let result):
            o.str("peripheral", p.uuidString)
            o.bool("result", result)
        }
    }

    private static func callback(_ c: CallbackRecord, into o: inout JSONObject) {
        o.str("callback", c.callback.name)
        o.int("central", c.central)
        o.bool("delivered", c.delivered)
        var error: String?
        switch c.callback {
        case .didUpdateState(let s): o.str("state", s.description)
        case .willRestoreState(let ps, let services, let scanning):
            o.raw("peripherals", "[" + ps.map { "\"\($0.uuidString)\"" }.joined(separator: ",") + "]")
            o.bool("is_scanning", scanning)
            if scanning { o.uuids("scan_services", services) }
        case .didDiscover(let p, let rssi, let name, let uuids):
            o.str("peripheral", p.uuidString)
            o.int("rssi", rssi)
            if let name { o.str("local_name", name) }
            o.uuids("service_uuids", uuids)
        case .didConnect(let p): o.str("peripheral", p.uuidString)
        case .didFailToConnect(let p, let e): o.str("peripheral", p.uuidString); error = e
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
        }
        if let error { o.str("error", error) }
    }

    private static func world(_ w: WorldEvent, into o: inout JSONObject) {
        switch w {
        case .adapterStateChanged(let s): o.str("event", "adapter_state"); o.str("state", s.description)
        case .peripheralRangeChanged(let a, let inRange):
            o.str("event", "range"); o.str("address", a); o.bool("in_range", inRange)
        case .linkLossStarted(let a, let t):
            o.str("event", "link_loss"); o.str("address", a); o.int("supervision_timeout_us", Int(t))
        case .servicesChanged(let a): o.str("event", "services_changed"); o.str("address", a)
        case .peripheralDisconnected(let a, let reason):
            o.str("event", "peripheral_disconnected"); o.str("address", a); o.int("reason", Int(reason))
        case .appRelaunched: o.str("event", "app_relaunched")
        case .centralStatePreserved(let id, let ps, let scanning):
            o.str("event", "state_preserved"); o.str("restore_identifier", id)
            o.raw("peripherals", "[" + ps.map { "\"\($0.uuidString)\"" }.joined(separator: ",") + "]")
            o.bool("is_scanning", scanning)
        case .peripheralReleased(let p, let s):
            o.str("event", "peripheral_released"); o.str("peripheral", p.uuidString); o.str("state", s.description)
        case .notificationSuppressed(let a, let h):
            o.str("event", "notification_suppressed"); o.str("address", a); o.int("handle", Int(h))
        case .valueForUndiscoveredCharacteristic(let p, let h):
            o.str("event", "value_for_undiscovered_characteristic"); o.str("peripheral", p.uuidString)
            o.int("handle", Int(h))
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
        case .advertisement(let a): o.int("rssi", Int(a.rssi)); o.int("event_type", Int(a.eventType))
        case .connectionComplete(let c), .connectionFailed(let c):
            o.int("handle", Int(c.handle))
            if c.status != 0 { o.int("status", Int(c.status)) }
            if let t = c.timing { o.int("interval_us", Int(t.interval) * 1250); o.int("timeout_ms", Int(t.supervisionTimeout) * 10) }
        case .disconnection(_, let reason, let side): o.int("reason", Int(reason)); o.str("side", "\(side.name)")
        case .mtuExchange(let client, let server, let effective, _):
            o.int("client_rx_mtu", Int(client))
            if let server { o.int("server_rx_mtu", Int(server)) }
            o.int("mtu", Int(effective))
        case .discovery(let d, _):
            o.int("start_handle", Int(d.startHandle)); o.int("end_handle", Int(d.endHandle))
            if let f = d.filter { o.str("uuid", f.description) }
            o.int("found", d.found)
        case .read(let op, let v): attribute(op, &o); o.str("variant", "\(v.name)")
        case .write(let op, let v): attribute(op, &o); o.str("variant", "\(v.name)")
        case .subscribe(let op, let cfg): attribute(op, &o); o.int("configuration", Int(cfg))
        case .notification(let op), .indication(let op): attribute(op, &o)
        default: break
        }
        if !e.value.isEmpty {
            o.int("length", e.value.count)
            o.str("value", e.value.bytes.map { String(format: "%02x", $0) }.joined())
        }
        switch e.outcome {
        case .none: break
        case .success(let f, let l): o.str("outcome", "success"); o.int("response_frame", f); o.int("latency_us", Int(l))
        case .error(let f, let l, let code, let h):
            o.str("outcome", "error"); o.int("response_frame", f); o.int("latency_us", Int(l))
            o.int("error", Int(code)); o.int("error_handle", Int(h))
        case .disconnected(let f): o.str("outcome", "disconnected"); o.int("disconnection_frame", f)
        default: o.str("outcome", "\(e.outcome.name)")
        }
    }

    private static func attribute(_ op: AttributeOperation, _ o: inout JSONObject) {
        o.int("handle", Int(op.handle))
        if let a = op.attribute { o.str("uuid", a.uuid.description) }
        o.str("direction", op.sent ? "sent" : "received")
    }
}

/// A JSON object written key by key, in call order.
struct JSONObject {
    private(set) var body = ""
    var text: String { "{" + body + "}" }

    private mutating func key(_ k: String) {
        if !body.isEmpty { body += "," }
        body += "\"" + k + "\":"
    }
    mutating func int(_ k: String, _ v: Int) { key(k); body += String(v) }
    mutating func bool(_ k: String, _ v: Bool) { key(k); body += v ? "true" : "false" }
    mutating func raw(_ k: String, _ v: String) { key(k); body += v }
    mutating func str(_ k: String, _ v: String) { key(k); body += Self.quote(v) }
    mutating func uuids(_ k: String, _ v: [CBUUID]?) {
        guard let v else { key(k); body += "null"; return }
        raw(k, "[" + v.map { Self.quote($0.uuidString) }.joined(separator: ",") + "]")
    }

    static func quote(_ s: String) -> String { JSONQuoting.quoted(s) }
}
