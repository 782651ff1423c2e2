import BLEBytes
import BLETimeline
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

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
        let signature = SimulatorTraceLine.signature
        return prefix.count >= signature.count && zip(prefix, signature).allSatisfy { $0 == $1 }
    }

    /// Lints a trace file. `path` "-" is not supported (captures on stdin are sniffed by
    /// CaptureIO, which does not know this format).
    public static func lint(
        path: String, configuration: LintConfiguration = LintConfiguration(),
        baseline: Baseline = Baseline()
    ) -> CaptureReport {
        var report = CaptureReport(path: path)
        report.format = format
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            report.error = "cannot open \(path)"
            return report
        }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var lines = LineSplitter()
        let engine = LintEngine(configuration: configuration)
        var reader = Feeder(engine: engine)
        reading: while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                report.damage = "read error after line \(reader.lines): \(String(cString: strerror(errno)))"
                break
            }
            let chunk = Data(buffer[..<n])
            if chunk.isEmpty { break }
            var problem: String?
            lines.feed(chunk) { line in
                guard problem == nil else { return }
                problem = reader.feed(line)
            }
            if problem == nil, lines.pending > maximumLineLength {
                problem = "line \(reader.lines + 1) is longer than \(maximumLineLength) bytes"
            }
            if let problem {
                report.damage = problem
                break reading
            }
        }
        if report.damage == nil, !lines.rest.isEmpty, let problem = reader.feed(lines.rest[...]) {
            report.damage = problem
        }
        finish(engine, reader, baseline, &report)
        return report
    }

    /// Lints a trace held in memory (what `SimulatorTrace.jsonl()` returns).
    public static func lint(
        jsonl: String, path: String = "<simulator trace>",
        configuration: LintConfiguration = LintConfiguration(),
        baseline: Baseline = Baseline()
    ) -> CaptureReport {
        var report = CaptureReport(path: path)
        report.format = format
        let engine = LintEngine(configuration: configuration)
        var reader = Feeder(engine: engine)
        for line in jsonl.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if line.count > maximumLineLength {
                report.damage = "line \(reader.lines + 1) is longer than \(maximumLineLength) bytes"
                break
            }
            if let problem = reader.feed(Data(line)[...]) {
                report.damage = problem
                break
            }
        }
        finish(engine, reader, baseline, &report)
        return report
    }

    private static func finish(
        _ engine: LintEngine, _ reader: Feeder, _ baseline: Baseline, _ report: inout CaptureReport
    ) {
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
    /// world) and for blank lines; throws for a line that does not decode as a
    /// `SimulatorTraceLine` (BLETimeline), the type the simulator writes the trace with.
    public static func call(fromLine line: Data) throws(TraceLineError) -> APICall? {
        let decoder = LineDecoder()
        return try decoder.call(line)
    }

    /// One `JSONDecoder` for a whole trace.
    struct LineDecoder {
        let decoder = JSONDecoder()

        func call(_ line: Data) throws(TraceLineError) -> APICall? {
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return nil }
            let decoded: SimulatorTraceLine
            do { decoded = try decoder.decode(SimulatorTraceLine.self, from: line) } catch {
                throw TraceLineError(error)
            }
            guard case .api(let call) = decoded.body else { return nil }
            return SimulatorTraceReader.apiCall(sequence: decoded.seq, time: decoded.timeMicros, call)
        }
    }

    /// A trace's call as the rules receive it.
    public static func apiCall(sequence: Int, time: Int64, _ a: TraceAPICall) -> APICall {
        let state = a.managerState
        let name = a.call.selector.rawValue
        // UUID strings were checked when the line was decoded.
        func uuids(_ list: [String]?) -> [BluetoothUUID]? { list?.compactMap(BluetoothUUID.init) }
        let kind: APICall.Kind =
            switch a.call {
            case .scanForPeripherals(let services, _): .scanForPeripherals(services: uuids(services), state: state)
            case .stopScan: .stopScan
            case .connect(_, _, let retained): .connect(state: state, retained: retained)
            case .writeValue(_, _, let handle, let props, let type, let length, let max, let canSend):
                .writeValue(
                    handle: handle, length: length, withResponse: type == .withResponse,
                    properties: UInt8(truncatingIfNeeded: props), maximumWriteValueLength: max,
                    canSendWriteWithoutResponse: canSend)
            case .discoverServices(_, let services, let delegateSet):
                .discoverServices(services: uuids(services), delegateSet: delegateSet)
            default: peripheralCommands.contains(name) ? .peripheralCommand(name: name) : .other(name: name)
            }
        let disposition: APICall.Disposition =
            switch a.disposition {
            case .performed: .performed
            case .noEffect: .noEffect
            case .misuse(let r): .misuse(reason: r.rawValue)
            case .dropped(let r): .dropped(reason: r.rawValue)
            }
        return APICall(
            sequence: sequence, time: time, kind: kind, peripheral: a.call.peripheral,
            peripheralState: a.peripheralState, isScanning: a.isScanning,
            attribute: a.call.attribute.flatMap(BluetoothUUID.init), disposition: disposition)
    }

    /// `CBPeripheral` commands that need a connection (besides `writeValue` and
    /// `discoverServices`, which have kinds of their own).
    static let peripheralCommands: Set<String> = [
        "discoverIncludedServices(_:for:)", "discoverCharacteristics(_:for:)", "discoverDescriptors(for:)",
        "readValue(for:)", "readValue(for:) descriptor", "writeValue(_:for:) descriptor", "setNotifyValue(_:for:)",
        "readRSSI()",
    ]

    /// Feeds lines to an engine, counting them.
    struct Feeder {
        let engine: LintEngine
        let decoder = LineDecoder()
        var lines = 0
        var records = 0

        /// Nil, or why reading must stop.
        mutating func feed(_ line: Data.SubSequence) -> String? {
            lines += 1
            let data = Data(line)
            guard data.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return nil }
            do {
                records += 1
                if let call = try decoder.call(data) { engine.observe(.api(call)) }
                return nil
            } catch {
                return "line \(lines): \(error)"
            }
        }
    }
}

/// Why a trace line could not be read: the decoding error of `SimulatorTraceLine`, named by
/// its key.
public enum TraceLineError: Error, CustomStringConvertible, Equatable {
    case notAnObject
    case missing(String)
    case badField(String)
    /// A value or key the record cannot have: an unknown call, disposition or key (a renamed
    /// key reads as an unknown one plus, if it was required, a missing one).
    case invalid(key: String, reason: String)

    public var description: String {
        switch self {
        case .notAnObject: "not a JSON object"
        case .missing(let what): "missing \(what)"
        case .badField(let key): "field \"\(key)\" has the wrong type or value"
        case .invalid(let key, let reason): "field \"\(key)\": \(reason)"
        }
    }

    init(_ error: any Error) {
        func key(_ path: [any CodingKey]) -> String { path.map(\.stringValue).joined(separator: ".") }
        switch error as? DecodingError {
        case .keyNotFound(let k, let ctx)?: self = .missing(key(ctx.codingPath + [k]))
        case .typeMismatch(_, let ctx)?, .valueNotFound(_, let ctx)?:
            self = ctx.codingPath.isEmpty ? .notAnObject : .badField(key(ctx.codingPath))
        case .dataCorrupted(let ctx)?:
            if ctx.codingPath.isEmpty {
                self = .notAnObject
            } else if ctx.debugDescription.hasPrefix("Cannot initialize") {
                self = .badField(key(ctx.codingPath))  // an enum's raw value out of range
            } else {
                self = .invalid(key: key(ctx.codingPath), reason: ctx.debugDescription)
            }
        default: self = .notAnObject
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
