import BLEBytes
import BLETimeline

/// The fields of `timeline` and `watch`: the timeline JSONL contract's names
/// (docs/timeline.md).
public enum EventField: Int, CaseIterable, Sendable {
    case frame, type, connection, peer, peerAddressType, outcome, responseFrame, latency, handle, uuid, direction
    case error, status, reason, length

    var spec: (String, FilterFieldType, String, String) {
        switch self {
        case .frame: ("frame", .integer, "frame.number", "frame the event starts at")
        case .type: ("type", .name, "", "event type (gatt.write …)")
        case .connection: ("connection", .integer, "", "connection number (#1, #2 … in order of connection)")
        case .peer: ("peer", .address, "bthci_evt.bd_addr", "remote address")
        case .peerAddressType: ("peer_address_type", .integer, "", "0 public, 1 random, 2/3 resolved identity")
        case .outcome: ("outcome", .name, "", "success, error, timeout, unanswered, disconnected, end_of_capture")
        case .responseFrame: ("response_frame", .integer, "btatt.response_in_frame", "frame of the answer")
        case .latency: ("latency_us", .integer, "", "answer time minus request time, µs")
        case .handle: ("handle", .integer, "btatt.handle", "attribute handle, or the connection handle")
        case .uuid: ("uuid", .uuid, "btatt.uuid16 || btatt.uuid128", "the attribute's UUID, when discovery named it")
        case .direction: ("direction", .name, "", "sent or received (ATT, SMP, L2CAP)")
        case .error: ("error", .integer, "btatt.error_code", "ATT error code")
        case .status: ("status", .integer, "bthci_evt.status", "HCI status of a failed command or event")
        case .reason: ("reason", .integer, "bthci_evt.reason", "disconnection or pairing failure reason")
        case .length: ("length", .integer, "", "value length (reads, writes, notifications, indications)")
        }
    }

    /// Every field, and `conn` for `connection`.
    public static let table = FilterFieldTable(
        fields: allCases.map { f in
            let (name, type, tshark, help) = f.spec
            return FilterField(name: name, type: type, id: f.rawValue, tshark: tshark, help: help)
        }, aliases: ["conn": "connection"])
}

/// A timeline event as a filter reads it. The commands test the event itself
/// (`filter.matches(event)`, the conformance below): wrapping it first copied its 240 bytes
/// and retained what it holds, per event (docs/performance.md).
public struct EventSubject: FilterSubject {
    public let event: TimelineEvent
    @inlinable public init(_ event: TimelineEvent) { self.event = event }

    public func value(_ id: Int) -> FilterValue? { event.value(id) }
}

extension TimelineEvent: FilterSubject {
    public func value(_ id: Int) -> FilterValue? {
        guard let field = EventField(rawValue: id) else { return nil }
        switch field {
        case .frame: return .int(Int64(self.frame))
        case .type: return .name(self.type)
        case .connection: return self.connection.map { .int(Int64($0)) }
        case .peer: return self.peer.map { .address($0) }
        case .peerAddressType: return self.peer == nil ? nil : self.peerAddressType.map { .int(Int64($0)) }
        case .outcome:
            if case .none = self.outcome { return nil }
            return .name(self.outcome.name)
        case .responseFrame: return self.outcome.responseFrame.map { .int(Int64($0)) }
        case .latency: return self.outcome.latency.map { .int($0) }
        case .handle: return filterHandle
        case .uuid: return filterUUID
        case .direction: return filterSent.map { .name($0 ? "sent" : "received") }
        case .error, .status:
            let isATT = self.type.withUTF8Buffer { $0.starts(with: "gatt.".utf8) }
            if case .error(_, _, let code, _) = self.outcome {
                return isATT == (field == .error) ? .int(Int64(code)) : nil
            }
            if field == .error, case .unmatchedResponse(_, let code?, _, _) = self.kind { return .int(Int64(code)) }
            if field == .status { return filterStatus }
            return nil
        case .reason:
            switch self.kind {
            case .disconnection(_, let r, _): return .int(Int64(r))
            case .pairingFailed(let r, _): return .int(Int64(r))
            default: return nil
            }
        case .length:
            switch self.kind {
            case .read:
                if case .success = self.outcome { return .int(Int64(self.value.count)) }
                return nil
            case .write(_, let v): return v == .execute ? nil : .int(Int64(self.value.count))
            case .notification, .indication: return .int(Int64(self.value.count))
            default: return nil
            }
        }
    }

    var filterOperation: AttributeOperation? {
        switch kind {
        case .read(let o, _), .write(let o, _), .subscribe(let o, _), .notification(let o), .indication(let o): o
        default: nil
        }
    }

    var filterHandle: FilterValue? {
        if let o = filterOperation { return .int(Int64(o.handle)) }
        switch kind {
        case .connectionComplete(let c), .connectionFailed(let c): return .int(Int64(c.handle))
        case .unmatchedResponse(_, _, let h?, _): return .int(Int64(h))
        default: return nil
        }
    }

    var filterUUID: FilterValue? {
        if let o = filterOperation { return o.attribute.map { .uuid($0.uuid) } }
        if case .discovery(let d, _) = kind { return d.filter.map { .uuid($0) } }
        return nil
    }

    var filterSent: Bool? {
        if let o = filterOperation { return o.sent }
        switch kind {
        case .connectionParameterRequest(_, _, _, _, _, let s, _), .connectionParameterResponse(_, _, let s),
            .mtuExchange(_, _, _, let s), .discovery(_, let s), .unmatchedResponse(_, _, _, let s),
            .pairingRequest(_, let s), .pairingResponse(_, let s), .pairingFailed(_, let s),
            .securityRequest(_, let s), .identityAddress(_, _, let s), .keyDistribution(_, let s):
            return s
        default: return nil
        }
    }

    var filterStatus: FilterValue? {
        switch kind {
        case .connectionFailed(let c): return .int(Int64(c.status))
        case .connectionUpdate(let s, _), .phyUpdate(let s, _, _), .encryptionChange(let s, _):
            return s == 0 ? nil : .int(Int64(s))
        default: return nil
        }
    }
}

/// A connection's `connection.summary` line as a filter reads it: its number, peer and type;
/// it has no frame of its own until the capture ends, so other fields are absent.
public struct SummarySubject: FilterSubject {
    public let summary: ConnectionSummary
    public static let type: StaticString = "connection.summary"
    @inlinable public init(_ summary: ConnectionSummary) { self.summary = summary }

    public func value(_ id: Int) -> FilterValue? {
        switch EventField(rawValue: id) {
        case .type: .name(Self.type)
        case .connection: .int(Int64(summary.number))
        case .peer: summary.peer.map { .address($0) }
        case .peerAddressType: summary.peer == nil ? nil : summary.peerAddressType.map { .int(Int64($0)) }
        case .handle: .int(Int64(summary.handle))
        default: nil
        }
    }
}
