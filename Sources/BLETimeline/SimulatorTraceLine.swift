import BLEBytes

/// One line of a simulator trace (docs/simulator-trace.md): the vocabulary shared by the writer
/// (`BLESimulator`'s `SimulatorTrace.jsonl()`) and the reader (`BLELint`'s
/// `SimulatorTraceReader`). Both sides encode and decode this type, so a key renamed on one side
/// is renamed on the other; a line that does not decode is an error the reader reports, never a
/// call silently skipped.
///
/// Every line starts with `seq`, `time_us` and `source`. `api` lines (what the linter reads) are
/// fully typed: `TraceAPICall`, decoded strictly (a missing, mistyped or unknown key fails the
/// line). Other sources (`callback`, `radio`, `world`, `peripheral_manager`) are only counted by
/// the linter: their fields are carried as JSON members in writing order.
public struct SimulatorTraceLine: Sendable, Equatable {
    /// 1-based position in the session.
    public var seq: Int
    /// Microseconds since the world started.
    public var timeMicros: Int64
    public var body: Body

    public enum Source: String, Sendable, Codable, CaseIterable {
        case api, callback, radio, world
        case peripheralManager = "peripheral_manager"
    }

    public enum Body: Sendable, Equatable {
        /// A `CBCentralManager`/`CBPeripheral` call the app made.
        case api(TraceAPICall)
        /// A record of another source; its fields after `source`, in order.
        case other(Source, [JSONValue.Member])
    }

    public var source: Source {
        switch body {
        case .api: .api
        case .other(let s, _): s
        }
    }

    public init(seq: Int, timeMicros: Int64, body: Body) {
        self.seq = seq
        self.timeMicros = timeMicros
        self.body = body
    }

    /// The line's JSON text, without the newline.
    public var text: String { JSONDocumentEncoder().write(jsonValue) }

    /// The line as a JSON object, keys in the documented order.
    public var jsonValue: JSONValue {
        var members: [JSONValue.Member] = [
            .init("seq", .int(Int64(seq))), .init("time_us", .int(timeMicros)),
            .init("source", .string(source.rawValue)),
        ]
        switch body {
        case .api(let call): call.members(into: &members)
        case .other(_, let fields): members += fields
        }
        return .object(members)
    }

    /// The first bytes of every line: how `blecap lint` recognises a trace.
    public static let signature = Array("{\"seq\":".utf8)
}

/// An app's call into the simulated Core Bluetooth API as the trace records it (`source` `api`).
public struct TraceAPICall: Sendable, Equatable {
    /// Which central manager (1, 2, … in order of creation).
    public var central: Int
    public var managerState: ManagerState
    public var peripheralState: PeripheralState?
    public var isScanning: Bool
    /// The delegate method the call was made from; nil outside any callback.
    public var inCallback: String?
    public var disposition: Disposition
    public var call: Call

    public init(
        central: Int, managerState: ManagerState, peripheralState: PeripheralState? = nil, isScanning: Bool,
        inCallback: String? = nil, disposition: Disposition = .performed, call: Call
    ) {
        self.central = central
        self.managerState = managerState
        self.peripheralState = peripheralState
        self.isScanning = isScanning
        self.inCallback = inCallback
        self.disposition = disposition
        self.call = call
    }

    /// `CBManagerState` as the trace spells it.
    public enum ManagerState: String, Sendable, Codable, CaseIterable {
        case unknown, resetting, unsupported, unauthorized, poweredOff, poweredOn
    }

    /// `CBPeripheralState` as the trace spells it.
    public enum PeripheralState: String, Sendable, Codable, CaseIterable {
        case disconnected, connecting, connected, disconnecting
    }

    public enum WriteType: String, Sendable, Codable, CaseIterable {
        case withResponse, withoutResponse
    }

    /// What Core Bluetooth did with the call (`disposition`, and `reason` for the last two).
    public enum Disposition: Sendable, Equatable {
        case performed
        case noEffect
        /// Refused with "API MISUSE".
        case misuse(MisuseReason)
        /// Accepted, never sent.
        case dropped(DropReason)
    }

    public enum MisuseReason: String, Sendable, Codable, CaseIterable {
        case notPoweredOn = "not_powered_on"
        case notConnected = "not_connected"
        case foreignAttribute = "foreign_attribute"
        case cccdWrite = "cccd_write"
    }

    public enum DropReason: String, Sendable, Codable, CaseIterable {
        case cannotSendWriteWithoutResponse = "can_send_false"
        case writeTypeNotSupported = "write_type_not_supported"
        case exceedsMaximumLength = "exceeds_maximum_length"
    }

    /// Core Bluetooth's selector names, the trace's `call` values.
    public enum Selector: String, Sendable, CaseIterable {
        case centralManagerInit = "CBCentralManager.init(delegate:queue:options:)"
        case scanForPeripherals = "scanForPeripherals(withServices:options:)"
        case stopScan = "stopScan()"
        case connect = "connect(_:options:)"
        case cancelPeripheralConnection = "cancelPeripheralConnection(_:)"
        case retrievePeripherals = "retrievePeripherals(withIdentifiers:)"
        case retrieveConnectedPeripherals = "retrieveConnectedPeripherals(withServices:)"
        case discoverServices = "discoverServices(_:)"
        case discoverIncludedServices = "discoverIncludedServices(_:for:)"
        case discoverCharacteristics = "discoverCharacteristics(_:for:)"
        case discoverDescriptors = "discoverDescriptors(for:)"
        case readValue = "readValue(for:)"
        case readDescriptor = "readValue(for:) descriptor"
        case writeValue = "writeValue(_:for:type:)"
        case writeDescriptor = "writeValue(_:for:) descriptor"
        case setNotifyValue = "setNotifyValue(_:for:)"
        case readRSSI = "readRSSI()"
        case maximumWriteValueLength = "maximumWriteValueLength(for:)"
        case canSendWriteWithoutResponse = "canSendWriteWithoutResponse"
    }

    /// The call and its arguments. UUIDs are Core Bluetooth's `uuidString`s (attributes:
    /// `180D`, 128-bit forms; peripherals: `NSUUID` strings). A nil service or characteristic
    /// list is written as `null` ("all").
    public enum Call: Sendable, Equatable {
        case centralManagerInit(restoreIdentifier: String?, showPowerAlert: Bool)
        case scanForPeripherals(services: [String]?, allowDuplicates: Bool)
        case stopScan
        case connect(peripheral: String, autoReconnect: Bool, retained: Bool?)
        case cancelPeripheralConnection(peripheral: String)
        case retrievePeripherals(identifiers: [String], found: Int)
        case retrieveConnectedPeripherals(services: [String], found: Int)
        case discoverServices(peripheral: String, services: [String]?, delegateSet: Bool)
        case discoverIncludedServices(peripheral: String, services: [String]?, service: String)
        case discoverCharacteristics(peripheral: String, characteristics: [String]?, service: String)
        case discoverDescriptors(peripheral: String, characteristic: String)
        case readValue(peripheral: String, characteristic: String, properties: UInt)
        case readDescriptor(peripheral: String, descriptor: String)
        case writeValue(
            peripheral: String, characteristic: String, handle: UInt16, properties: UInt, writeType: WriteType,
            length: Int, maximumLength: Int, canSend: Bool)
        case writeDescriptor(peripheral: String, descriptor: String, length: Int)
        case setNotifyValue(peripheral: String, enabled: Bool, characteristic: String, handle: UInt16, properties: UInt)
        case readRSSI(peripheral: String)
        case maximumWriteValueLength(peripheral: String, writeType: WriteType, result: Int)
        case canSendWriteWithoutResponse(peripheral: String, result: Bool)

        public var selector: Selector {
            switch self {
            case .centralManagerInit: .centralManagerInit
            case .scanForPeripherals: .scanForPeripherals
            case .stopScan: .stopScan
            case .connect: .connect
            case .cancelPeripheralConnection: .cancelPeripheralConnection
            case .retrievePeripherals: .retrievePeripherals
            case .retrieveConnectedPeripherals: .retrieveConnectedPeripherals
            case .discoverServices: .discoverServices
            case .discoverIncludedServices: .discoverIncludedServices
            case .discoverCharacteristics: .discoverCharacteristics
            case .discoverDescriptors: .discoverDescriptors
            case .readValue: .readValue
            case .readDescriptor: .readDescriptor
            case .writeValue: .writeValue
            case .writeDescriptor: .writeDescriptor
            case .setNotifyValue: .setNotifyValue
            case .readRSSI: .readRSSI
            case .maximumWriteValueLength: .maximumWriteValueLength
            case .canSendWriteWithoutResponse: .canSendWriteWithoutResponse
            }
        }

        /// The `CBPeripheral` the call is about, if any.
        public var peripheral: String? {
            switch self {
            case .connect(let p, _, _), .cancelPeripheralConnection(let p), .discoverServices(let p, _, _),
                .discoverIncludedServices(let p, _, _), .discoverCharacteristics(let p, _, _),
                .discoverDescriptors(let p, _), .readValue(let p, _, _), .readDescriptor(let p, _),
                .writeValue(let p, _, _, _, _, _, _, _), .writeDescriptor(let p, _, _),
                .setNotifyValue(let p, _, _, _, _),
                .readRSSI(let p), .maximumWriteValueLength(let p, _, _), .canSendWriteWithoutResponse(let p, _):
                p
            case .centralManagerInit, .scanForPeripherals, .stopScan, .retrievePeripherals,
                .retrieveConnectedPeripherals:
                nil
            }
        }

        /// The characteristic or descriptor the call names, if any.
        public var attribute: String? {
            switch self {
            case .discoverDescriptors(_, let c), .readValue(_, let c, _), .writeValue(_, let c, _, _, _, _, _, _),
                .setNotifyValue(_, _, let c, _, _):
                c
            case .readDescriptor(_, let d), .writeDescriptor(_, let d, _): d
            default: nil
            }
        }
    }
}

// MARK: - writing

extension TraceAPICall {
    /// The fields after `source`, in the documented order.
    func members(into m: inout [JSONValue.Member]) {
        func str(_ k: String, _ v: String) { m.append(.init(k, .string(v))) }
        func int(_ k: String, _ v: some BinaryInteger) { m.append(.init(k, .int(Int64(v)))) }
        func bool(_ k: String, _ v: Bool) { m.append(.init(k, .bool(v))) }
        func list(_ k: String, _ v: [String]?) {
            m.append(.init(k, v.map { .array($0.map(JSONValue.string)) } ?? .null))
        }

        str("call", call.selector.rawValue)
        int("central", central)
        str("manager_state", managerState.rawValue)
        if let s = peripheralState { str("peripheral_state", s.rawValue) }
        bool("is_scanning", isScanning)
        if let cb = inCallback { str("in_callback", cb) }
        switch disposition {
        case .performed: str("disposition", "performed")
        case .noEffect: str("disposition", "no_effect")
        case .misuse(let r):
            str("disposition", "misuse")
            str("reason", r.rawValue)
        case .dropped(let r):
            str("disposition", "dropped")
            str("reason", r.rawValue)
        }
        switch call {
        case .centralManagerInit(let id, let alert):
            if let id { str("restore_identifier", id) }
            bool("show_power_alert", alert)
        case .scanForPeripherals(let services, let dup):
            list("services", services)
            bool("allow_duplicates", dup)
        case .stopScan: break
        case .connect(let p, let auto, let retained):
            str("peripheral", p)
            bool("auto_reconnect", auto)
            if let retained { bool("retained", retained) }
        case .cancelPeripheralConnection(let p): str("peripheral", p)
        case .retrievePeripherals(let ids, let found):
            list("identifiers", ids)
            int("found", found)
        case .retrieveConnectedPeripherals(let services, let found):
            list("services", services)
            int("found", found)
        case .discoverServices(let p, let services, let delegateSet):
            str("peripheral", p)
            list("services", services)
            bool("delegate_set", delegateSet)
        case .discoverIncludedServices(let p, let services, let service):
            str("peripheral", p)
            list("services", services)
            str("service", service)
        case .discoverCharacteristics(let p, let chars, let service):
            str("peripheral", p)
            list("characteristics", chars)
            str("service", service)
        case .discoverDescriptors(let p, let c):
            str("peripheral", p)
            str("characteristic", c)
        case .readValue(let p, let c, let props):
            str("peripheral", p)
            str("characteristic", c)
            int("properties", props)
        case .readDescriptor(let p, let d):
            str("peripheral", p)
            str("descriptor", d)
        case .writeValue(let p, let c, let handle, let props, let type, let length, let max, let canSend):
            str("peripheral", p)
            str("characteristic", c)
            int("handle", handle)
            int("properties", props)
            str("write_type", type.rawValue)
            int("length", length)
            int("maximum_length", max)
            bool("can_send", canSend)
        case .writeDescriptor(let p, let d, let length):
            str("peripheral", p)
            str("descriptor", d)
            int("length", length)
        case .setNotifyValue(let p, let enabled, let c, let handle, let props):
            str("peripheral", p)
            bool("enabled", enabled)
            str("characteristic", c)
            int("handle", handle)
            int("properties", props)
        case .readRSSI(let p): str("peripheral", p)
        case .maximumWriteValueLength(let p, let type, let result):
            str("peripheral", p)
            str("write_type", type.rawValue)
            int("result", result)
        case .canSendWriteWithoutResponse(let p, let result):
            str("peripheral", p)
            bool("result", result)
        }
    }
}

extension SimulatorTraceLine: Encodable {
    public func encode(to encoder: any Encoder) throws { try jsonValue.encode(to: encoder) }
}

// MARK: - reading

extension SimulatorTraceLine: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        seq = try c.decode(Int.self, forKey: AnyKey("seq"))
        let source = try c.decode(Source.self, forKey: AnyKey("source"))
        timeMicros = try c.decode(Int64.self, forKey: AnyKey("time_us"))
        if source == .api {
            body = .api(try TraceAPICall(from: c))
        } else {
            let header: Set = ["seq", "time_us", "source"]
            var fields: [JSONValue.Member] = []
            for key in c.allKeys where !header.contains(key.stringValue) {
                fields.append(.init(key.stringValue, try c.decode(JSONValue.self, forKey: key)))
            }
            body = .other(source, fields)
        }
    }
}

extension TraceAPICall {
    /// Strict: every key the call's record has is required (optional ones may be absent), values
    /// must have their documented types and spellings, and a key the record does not have is an
    /// error (`DecodingError.dataCorrupted` naming it), so a renamed key cannot pass unnoticed.
    init(from c: KeyedDecodingContainer<AnyKey>) throws {
        var known: Set<String> = ["seq", "time_us", "source"]
        func key(_ k: String) -> AnyKey {
            known.insert(k)
            return AnyKey(k)
        }
        func str(_ k: String) throws -> String { try c.decode(String.self, forKey: key(k)) }
        func optStr(_ k: String) throws -> String? { try c.decodeIfPresent(String.self, forKey: key(k)) }
        func int(_ k: String) throws -> Int { try c.decode(Int.self, forKey: key(k)) }
        func bool(_ k: String) throws -> Bool { try c.decode(Bool.self, forKey: key(k)) }
        func value<T: Decodable>(_ k: String, _ t: T.Type) throws -> T { try c.decode(T.self, forKey: key(k)) }
        /// A list of attribute UUIDs, or null: present either way.
        func uuids(_ k: String) throws -> [String]? {
            let k = key(k)
            guard c.contains(k) else {
                throw DecodingError.keyNotFound(
                    k, .init(codingPath: c.codingPath, debugDescription: "missing \(k.stringValue)"))
            }
            guard let list = try c.decodeNil(forKey: k) ? nil : c.decode([String].self, forKey: k) else { return nil }
            for s in list where BluetoothUUID(s) == nil {
                throw DecodingError.dataCorruptedError(
                    forKey: k, in: c, debugDescription: "'\(s)' is not a Bluetooth UUID")
            }
            return list
        }
        func uuid(_ k: String) throws -> String {
            let s = try str(k)
            guard BluetoothUUID(s) != nil else {
                throw DecodingError.dataCorruptedError(
                    forKey: AnyKey(k), in: c, debugDescription: "'\(s)' is not a Bluetooth UUID")
            }
            return s
        }

        let name = try str("call")
        guard let selector = Selector(rawValue: name) else {
            throw DecodingError.dataCorruptedError(
                forKey: AnyKey("call"), in: c, debugDescription: "unknown call '\(name)'")
        }
        central = try int("central")
        managerState = try value("manager_state", ManagerState.self)
        peripheralState = try c.decodeIfPresent(PeripheralState.self, forKey: key("peripheral_state"))
        isScanning = try bool("is_scanning")
        inCallback = try optStr("in_callback")
        switch try str("disposition") {
        case "performed": disposition = .performed
        case "no_effect": disposition = .noEffect
        case "misuse": disposition = .misuse(try value("reason", MisuseReason.self))
        case "dropped": disposition = .dropped(try value("reason", DropReason.self))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: AnyKey("disposition"), in: c,
                debugDescription: "unknown disposition '\(other)'")
        }
        switch selector {
        case .centralManagerInit:
            call = .centralManagerInit(
                restoreIdentifier: try optStr("restore_identifier"), showPowerAlert: try bool("show_power_alert"))
        case .scanForPeripherals:
            call = .scanForPeripherals(services: try uuids("services"), allowDuplicates: try bool("allow_duplicates"))
        case .stopScan: call = .stopScan
        case .connect:
            call = .connect(
                peripheral: try str("peripheral"), autoReconnect: try bool("auto_reconnect"),
                retained: try c.decodeIfPresent(Bool.self, forKey: key("retained")))
        case .cancelPeripheralConnection: call = .cancelPeripheralConnection(peripheral: try str("peripheral"))
        case .retrievePeripherals:
            call = .retrievePeripherals(identifiers: try value("identifiers", [String].self), found: try int("found"))
        case .retrieveConnectedPeripherals:
            guard let services = try uuids("services") else {
                throw DecodingError.dataCorruptedError(forKey: AnyKey("services"), in: c, debugDescription: "null")
            }
            call = .retrieveConnectedPeripherals(services: services, found: try int("found"))
        case .discoverServices:
            call = .discoverServices(
                peripheral: try str("peripheral"), services: try uuids("services"),
                delegateSet: try bool("delegate_set"))
        case .discoverIncludedServices:
            call = .discoverIncludedServices(
                peripheral: try str("peripheral"), services: try uuids("services"),
                service: try uuid("service"))
        case .discoverCharacteristics:
            call = .discoverCharacteristics(
                peripheral: try str("peripheral"), characteristics: try uuids("characteristics"),
                service: try uuid("service"))
        case .discoverDescriptors:
            call = .discoverDescriptors(peripheral: try str("peripheral"), characteristic: try uuid("characteristic"))
        case .readValue:
            call = .readValue(
                peripheral: try str("peripheral"), characteristic: try uuid("characteristic"),
                properties: try value("properties", UInt.self))
        case .readDescriptor:
            call = .readDescriptor(peripheral: try str("peripheral"), descriptor: try uuid("descriptor"))
        case .writeValue:
            call = .writeValue(
                peripheral: try str("peripheral"), characteristic: try uuid("characteristic"),
                handle: try value("handle", UInt16.self), properties: try value("properties", UInt.self),
                writeType: try value("write_type", WriteType.self), length: try int("length"),
                maximumLength: try int("maximum_length"), canSend: try bool("can_send"))
        case .writeDescriptor:
            call = .writeDescriptor(
                peripheral: try str("peripheral"), descriptor: try uuid("descriptor"), length: try int("length"))
        case .setNotifyValue:
            call = .setNotifyValue(
                peripheral: try str("peripheral"), enabled: try bool("enabled"),
                characteristic: try uuid("characteristic"), handle: try value("handle", UInt16.self),
                properties: try value("properties", UInt.self))
        case .readRSSI: call = .readRSSI(peripheral: try str("peripheral"))
        case .maximumWriteValueLength:
            call = .maximumWriteValueLength(
                peripheral: try str("peripheral"), writeType: try value("write_type", WriteType.self),
                result: try int("result"))
        case .canSendWriteWithoutResponse:
            call = .canSendWriteWithoutResponse(peripheral: try str("peripheral"), result: try bool("result"))
        }
        if let extra = c.allKeys.first(where: { !known.contains($0.stringValue) }) {
            throw DecodingError.dataCorruptedError(
                forKey: extra, in: c,
                debugDescription: "unknown key for \(selector.rawValue)")
        }
    }
}
