import BLEBytes
import BLEOutput
import BLEPackets
import CaptureIO
import Foundation
import TestSupport
import Testing

@testable import BlecapCLI

/// The whole decode pipeline as `blecap packets` runs it — reader → `FrameDecoder` → every
/// layer's `describe` → `PacketWriter` (text --verbose, json with fields, jsonl) — instrumented
/// for the robustness tests: it checks each frame as it goes and returns what a test needs to
/// compare a damaged capture with the intact one.

/// A record of the intact capture, copied out of the reader's buffer.
struct ReferenceRecord {
    var frame: Int
    var kind: RecordKind
    var direction: Direction
    var timestamp: Int64
    var payload: [UInt8]
    var fileOffset: Int64
    var recordLength: Int
    var end: Int64 { fileOffset + Int64(recordLength) }

    init(_ r: CaptureRecord) {
        frame = r.frame
        kind = r.kind
        direction = r.direction
        timestamp = r.timestamp
        payload = r.payload.toArray()
        fileOffset = r.fileOffset
        recordLength = r.recordLength
    }

    func matches(_ r: CaptureRecord) -> Bool {
        guard
            r.frame == frame && r.kind == kind && r.direction == direction && r.timestamp == timestamp
                && r.payload.count == payload.count
        else { return false }
        // memcmp: a byte-wise Sequence comparison dominates the suite's time in debug builds.
        return payload.withUnsafeBytes { mine in
            mine.count == 0 || memcmp(mine.baseAddress!, r.payload.base.baseAddress!, mine.count) == 0
        }
    }
}

/// A `FieldSink` that checks what decoders emit: groups balance, names are not empty, C strings
/// are there. Counts what it saw so a test can tell a decoder said something.
final class CheckingSink: FieldSink {
    var depth = 0
    var items = 0
    var problems: [String] = []

    func field(_ name: StaticString, _ value: FieldValue) {
        items += 1
        if name.utf8CodeUnitCount == 0 { problems.append("field without a name") }
        if case .flags(_, let digits, _) = value, digits <= 0 {
            problems.append("\(name): flags with \(digits) digits")
        }
    }

    func begin(_ name: StaticString) {
        items += 1
        depth += 1
        if name.utf8CodeUnitCount == 0 { problems.append("group without a name") }
    }

    func end() {
        if depth == 0 { problems.append("end() without begin()") } else { depth -= 1 }
    }

    func note(_ text: StaticString) {
        items += 1
        if text.utf8CodeUnitCount == 0 { problems.append("empty note") }
    }

    /// Runs every layer's `describe` for `frame` (what `PacketWriter` does for --verbose and
    /// the json `fields`), and returns problems found (balance checked per frame).
    func describe(_ frame: DecodedFrame) -> [String] {
        problems.removeAll(keepingCapacity: true)
        depth = 0
        items = 0
        switch frame.layer {
        case .command(let c): c.describe(into: self)
        case .event(let e): e.describe(into: self)
        case .acl(let acl):
            acl.describe(into: self)
            if let pdu = frame.l2cap { L2CAPPayload.describe(pdu, into: self) }
        case .linkLayer(let ll):
            ll.describe(radio: frame.record.radio, into: self)
            if let pdu = frame.l2cap { L2CAPPayload.describe(pdu, into: self) }
        case .other, .malformed: return []
        }
        if depth != 0 { problems.append("\(depth) group(s) left open") }
        if items == 0 { problems.append("describe emitted nothing") }
        return problems
    }
}

/// How a test feeds bytes to the pipeline.
enum InputPath: CustomStringConvertible {
    /// A temporary regular file opened by path (libpcap reopens it itself).
    case file
    /// A pipe written by another thread in chunks of `chunk` bytes, as standard input would be.
    case pipe(chunk: Int)

    var description: String {
        switch self {
        case .file: "file"
        case .pipe(let c): "pipe/\(c)"
        }
    }
}

/// What one run of the pipeline produced.
struct PipelineResult {
    var openError: CaptureError? = nil
    var frames = 0
    var damage: CaptureDamage? = nil
    /// First frame whose record differs from the reference (frame, kind, direction, time,
    /// payload), or that the reference does not have.
    var firstDivergence: Int? = nil
    /// jsonl line of every rendered frame (frame number → bytes without the newline).
    var jsonl: [Int: [UInt8]] = [:]
    var problems: [String] = []
    var hitFrameLimit = false
}

enum Pipeline {
    /// Runs `bytes` through the whole pipeline.
    ///
    /// - `reference`: the intact capture's records, compared frame by frame.
    /// - `renderFrom`: frames from this number on are described and written by all three
    ///   writers; earlier ones are read and decoded only (the tests already rendered them on
    ///   the intact capture, and the pipeline is deterministic and streaming, so they are the
    ///   same — the jsonl of the frames just before the damage proves the decoder state is).
    /// - `renderCount`: how many frames from `renderFrom` on to render (the rest after them is
    ///   decoded only), to bound the time spent on long captures.
    /// - `frameLimit`: a reader that delivers more frames than this does not terminate.
    /// - `parseJSON`: parse the json array and every jsonl line with JSONSerialization.
    static func run(
        _ bytes: [UInt8], via input: InputPath, reference: [ReferenceRecord], renderFrom: Int,
        renderCount: Int = .max, frameLimit: Int, parseJSON: Bool
    ) -> PipelineResult {
        switch input {
        case .file:
            let url = FileManager.default.temporaryDirectory
                .appendingPathComponent("blecap-pipeline-\(UUID().uuidString).bin")
            defer { try? FileManager.default.removeItem(at: url) }
            do { try Data(bytes).write(to: url) } catch {
                return PipelineResult(problems: ["cannot write temp file: \(error)"])
            }
            return run(
                open: { () throws(CaptureError) in try CaptureFile.open(path: url.path) },
                reference: reference, renderFrom: renderFrom, renderCount: renderCount, frameLimit: frameLimit,
                parseJSON: parseJSON)
        case .pipe(let chunk):
            // A reader that stops at damage closes its end first; the writer must survive that.
            signal(SIGPIPE, SIG_IGN)
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { return PipelineResult(problems: ["pipe() failed"]) }
            let writeFD = fds[1]
            let done = DispatchSemaphore(value: 0)
            let writer = Thread {
                var i = 0
                while i < bytes.count {
                    let n = min(chunk, bytes.count - i)
                    let w = bytes[i..<(i + n)].withUnsafeBytes { write(writeFD, $0.baseAddress, n) }
                    if w <= 0 { break }
                    i += w
                }
                close(writeFD)
                done.signal()
            }
            writer.start()
            // The reader (and the read end it owns) is released when `run` returns, before the
            // wait: a writer blocked on a full pipe then gets EPIPE and finishes.
            var result = run(
                open: { () throws(CaptureError) in
                    try CaptureFile.open(source: FileByteSource(fd: fds[0], ownsFD: true), path: nil)
                },
                reference: reference, renderFrom: renderFrom, renderCount: renderCount, frameLimit: frameLimit,
                parseJSON: parseJSON)
            if done.wait(timeout: .now() + 30) == .timedOut {
                result.problems.append("pipe writer did not finish: the reader neither read to the end nor closed")
            }
            return result
        }
    }

    static func run(
        open: () throws(CaptureError) -> any CaptureReader, reference: [ReferenceRecord], renderFrom: Int,
        renderCount: Int, frameLimit: Int, parseJSON: Bool
    ) -> PipelineResult {
        var result = PipelineResult()
        let reader: any CaptureReader
        do throws(CaptureError) { reader = try open() } catch {
            result.openError = error
            return result
        }
        let showsController: Bool
        switch reader.format {
        case .btsnoop(2001), .pcap(LinkType.bluetoothLinuxMonitor, _), .pcapng(LinkType.bluetoothLinuxMonitor):
            showsController = true
        default:
            showsController = false
        }
        let textOut = OutputBuffer(fd: nil)
        let jsonOut = OutputBuffer(fd: nil)
        let jsonlOut = OutputBuffer(fd: nil)
        let text = PacketWriter(
            out: textOut, format: .text, verbose: true, color: false, absoluteTime: false,
            showsController: showsController)
        let json = PacketWriter(
            out: jsonOut, format: .json, verbose: false, color: false, absoluteTime: false,
            showsController: showsController)
        let jsonl = PacketWriter(
            out: jsonlOut, format: .jsonl, verbose: false, color: false, absoluteTime: true,
            showsController: showsController)
        let sink = CheckingSink()
        let decoder = FrameDecoder()
        var rendered = 0
        json.begin()
        while let record = reader.next() {
            result.frames += 1
            if result.frames > frameLimit {
                result.hitFrameLimit = true
                break
            }
            if record.frame != result.frames {
                result.problems.append("record \(result.frames) numbered \(record.frame)")
            }
            if result.firstDivergence == nil
                && (result.frames > reference.count || !reference[result.frames - 1].matches(record))
            {
                result.firstDivergence = result.frames
            }
            let frame = decoder.decode(record)
            guard record.frame >= renderFrom, record.frame - renderFrom < renderCount else { continue }
            rendered += 1
            for p in sink.describe(frame) { result.problems.append("frame \(record.frame): \(p)") }
            text.write(frame)
            json.write(frame)
            let start = jsonlOut.bytes.count
            jsonl.write(frame)
            let line = Array(jsonlOut.bytes[start..<(jsonlOut.bytes.count - 1)])
            result.jsonl[record.frame] = line
            if parseJSON { checkJSONLine(line, frame: record.frame, into: &result.problems) }
        }
        json.end()
        if !result.hitFrameLimit {
            // After its end a reader keeps saying so (and keeps its damage).
            let damage = reader.damage
            if reader.next() != nil { result.problems.append("next() after the end returned a record") }
            if reader.damage != damage { result.problems.append("damage changed after the end") }
            result.damage = damage
        }
        checkText(textOut.bytes, into: &result.problems)
        if parseJSON {
            do {
                let array = try JSONSerialization.jsonObject(with: Data(jsonOut.bytes)) as? [Any]
                if array?.count != rendered {
                    result.problems.append("json array has \(array?.count ?? -1) elements for \(rendered) frames")
                }
            } catch {
                result.problems.append("json output does not parse: \(error)")
            }
        }
        return result
    }

    /// Text output is printable: control bytes from a capture are escaped (colour is off).
    static func checkText(_ bytes: [UInt8], into problems: inout [String]) {
        if let i = bytes.firstIndex(where: { $0 < 0x20 && $0 != 0x0A || $0 == 0x7F }) {
            problems.append("text output has control byte \(bytes[i]) at \(i)")
        }
        if String(validating: bytes, as: UTF8.self) == nil {
            problems.append("text output is not valid UTF-8")
        }
    }

    static func checkJSONLine(_ line: [UInt8], frame: Int, into problems: inout [String]) {
        do {
            guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                problems.append("jsonl frame \(frame): not an object")
                return
            }
            if (object["frame"] as? Int) != frame { problems.append("jsonl frame \(frame): wrong frame number") }
        } catch {
            problems.append("jsonl frame \(frame) does not parse: \(error): \(String(decoding: line, as: UTF8.self))")
        }
    }
}
