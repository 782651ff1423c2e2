import BLEBytes
import Foundation

/// Reads a simulator trace (the JSONL that `BLESimulator`'s `SimulatorTrace.jsonl()` writes,
/// docs/simulator-trace.md) and feeds its API calls to the rules as `LintInput.api`, so the
/// API-level variants of the rules run on a simulated session: from a test (`BLESimLint`'s
/// `SimulatorTrace.lint()`) or as `blecap lint trace.jsonl`.
///
/// The JSONL is the interface between the two modules: BLELint does not depend on
/// BLESimulator, and a trace written to disk lints exactly as the in-memory one does.
///
/// Only `api` records are fed. The trace's `radio` records are not: every rule that could see
/// the problem on the air has an exact API variant, and feeding both would report each problem
/// twice, once with a false "observed in HCI". (To lint the air side, export the run as btsnoop.)
///
/// The file is untrusted like a capture: read line by line through a fixed buffer, a line longer
/// than `maximumLineLength` or one that is not a JSON object stops the read with a damage note;
/// findings cover the lines before it.
public enum SimulatorTraceReader {
    public static let maximumLineLength = 1 << 20
    public static let format = "simulator trace (JSONL)"

    /// A trace starts with its first record, whose first key is always `seq`.
    public static func detect(_ prefix: some Collection<UInt8>) -> Bool {
        let signature = Array("{\"seq\":".utf8)
        return prefix.count >= signature.count && zip(prefix, signature).allSatisfy { $0 == $1 }
    }

    /// Lints a trace file. `path` "-" is not supported (captures on stdin are sniffed by
    /// CaptureIO, which does not know this format).
    public static func lint(path: String, configuration: LintConfiguration = LintConfiguration(),
                            baseline: Baseline = Baseline()) -> CaptureReport {
        var report = CaptureReport(path: path)
        report.format = format
        guard let handle = FileHandle(forReadingAtPath: path) else {
            report.error = "cannot open \(path)"
            return report
        }
        defer { try? handle.close() }
        var lines = LineSplitter()
        let engine = LintEngine(configuration: configuration)
        var reader = Feeder(engine: engine)
        reading: while true {
            let chunk: Data
            do { chunk = try handle.read(upToCount: 1 << 16) ?? Data() } catch {
                report.damage = "read error after line \(reader.lines): \(error)"
                break
            }
            if chunk.isEmpty { break }
            var problem: String?
            lines.feed(chunk) { line in
                guard problem == nil else { return }
                problem = reader.feed(line)
            }
            if problem == nil, lines.pending > maximumLineLength {
                problem = "line \(reader.lines + 1) is longer than \(maximumLineLength) bytes"
            }
            if let problem { report.damage = problem; break reading }
        }
        if report.damage == nil, !lines.rest.isEmpty, let problem = reader.feed(lines.rest[...]) {
            report.damage = problem
        }
        finish(engine, reader, baseline, &report)
        return report
    }

    /// Lints a trace held in memory (what `SimulatorTrace.jsonl()` returns).
    public static func lint(jsonl: String, path: String = "<simulator trace>",
                            configuration: LintConfiguration = LintConfiguration(),
                            baseline: Baseline = Baseline()) -> CaptureReport {
        var report = CaptureReport(path: path)
        report.format = format
        let engine = LintEngine(configuration: configuration)
        var reader = Feeder(engine: engine)
        for line in jsonl.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if line.count > maximumLineLength {
                report.damage = "line \(reader.lines + 1) is longer than \(maximumLineLength) bytes"
                break
            }
            if let problem = reader.feed(Data(line)[...]) { report.damage = problem; break }
        }
        finish(engine, reader, baseline, &report)
        return report
    }

    private static func finish(_ engine: LintEngine, _ reader: Feeder, _ baseline: Baseline, _ report: inout CaptureReport) {
        engine.facts.frames = reader.records
        let result = engine.finish()
        report.frames = reader.records
        report.facts = engine.facts
        report.findings = result.findings
        report.notEvaluated = result.notEvaluated
        for i in report.findings.indices where baseline.fingerprints.contains(report.findings[i].fingerprint) {
            report.findings[i].baselined = true
        }
    }

    /// Parses one trace line. Returns nil for records that are not API calls (callbacks, radio,
    /// world) and for blank lines; throws for a line that is not a trace record.
    public static func call(fromLine line: Data) throws(TraceLineError) -> APICall? {
        guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return nil }
        guard let any = try? JSONSerialization.jsonObject(with: line),
              let o = any as? [String: Any] else { throw .notAnObject }
        guard let seq = o["seq"] as? Int, let source = o["source"] as? String else { throw .missing("seq/source") }
        guard source == "api" else { return nil }
        guard let name = o["call"] as? String else { throw .missing("call") }
        let time = Int64(o["time_us"] as? Int ?? 0)
        let managerState = (o["manager_state"] as? String).flatMap(Self.managerState) ?? .unknown

        func uuids(_ key: String) throws(TraceLineError) -> [BluetoothUUID]? {
            guard let v = o[key], !(v is NSNull) else { return nil }
            guard let list = v as? [String] else { throw .badField(key) }
            var out: [BluetoothUUID] = []
            for s in list {
                guard let u = BluetoothUUID(s) else { throw .badField(key) }
                out.append(u)
            }
            return out
        }

        let kind: APICall.Kind
        switch name {
        case "scanForPeripherals(withServices:options:)":
            kind = .scanForPeripherals(services: try uuids("services"), state: managerState)
        case "stopScan()":
            kind = .stopScan
        case "connect(_:options:)":
            kind = .connect(state: managerState, retained: o["retained"] as? Bool)
        case "writeValue(_:for:type:)":
            guard let handle = o["handle"] as? Int, let length = o["length"] as? Int,
                  let type = o["write_type"] as? String, let max = o["maximum_length"] as? Int,
                  let canSend = o["can_send"] as? Bool else { throw .missing("writeValue fields") }
            kind = .writeValue(handle: UInt16(clamping: handle), length: length, withResponse: type == "withResponse",
                               properties: (o["properties"] as? Int).map { UInt8(truncatingIfNeeded: $0) },
                               maximumWriteValueLength: max, canSendWriteWithoutResponse: canSend)
        case "discoverServices(_:)":
            kind = .discoverServices(services: try uuids("services"), delegateSet: o["delegate_set"] as? Bool ?? true)
        default:
            kind = peripheralCommands.contains(name) ? .peripheralCommand(name: name) : .other(name: name)
        }
        let attribute = ((o["characteristic"] ?? o["descriptor"]) as? String).flatMap { BluetoothUUID($0) }

        let disposition: APICall.Disposition
        switch o["disposition"] as? String {
        case "no_effect": disposition = .noEffect
        case "misuse": disposition = .misuse(reason: o["reason"] as? String ?? "")
        case "dropped": disposition = .dropped(reason: o["reason"] as? String ?? "")
        default: disposition = .performed
        }
        return APICall(sequence: seq, time: time, kind: kind, peripheral: o["peripheral"] as? String,
                       peripheralState: (o["peripheral_state"] as? String).flatMap(Self.peripheralState),
                       isScanning: o["is_scanning"] as? Bool ?? false, attribute: attribute, disposition: disposition)
    }

    /// `CBPeripheral` commands that need a connection (besides `writeValue` and
    /// `discoverServices`, which have kinds of their own).
    static let peripheralCommands: Set<String> = [
        "discoverIncludedServices(_:for:)", "discoverCharacteristics(_:for:)", "discoverDescriptors(for:)",
        "readValue(for:)", "readValue(for:) descriptor", "writeValue(_:for:) descriptor", "setNotifyValue(_:for:)",
        "readRSSI()",
    ]

    static func managerState(_ s: String) -> APICall.ManagerState? {
        switch s {
        case "unknown": .unknown
        case "resetting": .resetting
        case "unsupported": .unsupported
        case "unauthorized": .unauthorized
        case "poweredOff": .poweredOff
        case "poweredOn": .poweredOn
        default: nil
        }
    }

    static func peripheralState(_ s: String) -> APICall.PeripheralState? {
        switch s {
        case "disconnected": .disconnected
        case "connecting": .connecting
        case "connected": .connected
        case "disconnecting": .disconnecting
        default: nil
        }
    }

    /// Feeds lines to an engine, counting them.
    struct Feeder {
        let engine: LintEngine
        var lines = 0
        var records = 0

        /// Nil, or why reading must stop.
        mutating func feed(_ line: Data.SubSequence) -> String? {
            lines += 1
            let data = Data(line)
            guard data.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return nil }
            do {
                records += 1
                if let call = try SimulatorTraceReader.call(fromLine: data) { engine.observe(.api(call)) }
                return nil
            } catch {
                return "line \(lines): \(error)"
            }
        }
    }
}

/// Why a trace line could not be read.
public enum TraceLineError: Error, CustomStringConvertible, Equatable {
    case notAnObject
    case missing(String)
    case badField(String)

    public var description: String {
        switch self {
        case .notAnObject: "not a JSON object"
        case .missing(let what): "missing \(what)"
        case .badField(let key): "field \"\(key)\" has the wrong type or value"
        }
    }
}

/// Splits a byte stream into lines, holding at most one partial line.
struct LineSplitter {
    var rest = Data()
    var pending: Int { rest.count }

    mutating func feed(_ chunk: Data, _ body: (Data.SubSequence) -> Void) {
        var data = rest
        data.append(chunk)
        var start = data.startIndex
        while let nl = data[start...].firstIndex(of: 0x0A) {
            body(data[start..<nl])
            start = nl + 1
        }
        rest = Data(data[start...])
    }
}
