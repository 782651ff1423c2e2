import BLEBytes
import BLEDiagnose
import BLELint

/// A finding as `watch` prints it, one line of text or one JSON object.
package struct WatchFinding: Encodable {
    var finding: String
    package var slug: String
    package var severity: String
    package var message: String
    package var connection: Int?
    package var peer: String?
    package var handle: UInt16?
    package var timeMicros: Int64
    package var frames: [Int]
    package var evidence: String

    package enum CodingKeys: String, CodingKey {
        case finding, slug, severity, message, connection, peer, handle
        case timeMicros = "time_us"
        case frames, evidence
    }

    package init(_ f: Finding) {
        finding = f.ruleID
        slug = f.slug
        severity = f.severity.name
        message = f.message
        connection = f.connection
        peer = f.peer
        handle = f.handle
        timeMicros = f.time
        frames = f.frames
        evidence = f.evidence.rawValue
    }

    package var jsonLine: String { ((try? JSONDocumentEncoder(style: .compact).encode(self)) ?? "{}") + "\n" }

    package static func text(_ f: Finding, _ paint: Paint = Paint(on: false)) -> String {
        let connection = f.connection.map { " #\($0)" } ?? ""
        let related =
            f.frames.count > 1 ? " (related \(f.frames.dropFirst().map(String.init).joined(separator: ", ")))" : ""
        return
            "\(f.firstFrame)\(connection)  \(paint(f.severity.name, Palette.severity(f.severity.name))) \(f.ruleID) \(f.slug): \(f.message) [frame \(f.firstFrame)\(related)]\n"
    }
}

/// A verdict as `watch` prints it: one line of text (frame, connection, cause, party, the
/// verdict's sentence, its frames), or `diagnose --format jsonl`'s object under a first key
/// `verdict` (its cause), which tells it from findings (`finding`) and timeline lines.
package enum WatchVerdict {
    static let maximumFrames = 12

    package static func text(_ v: Verdict, _ paint: Paint = Paint(on: false)) -> String {
        let at = v.endFrame ?? v.startFrame
        let who = v.connection.map { " #\($0)" } ?? (v.kind == .attempt ? " attempt" : v.kind == .loop ? " loop" : "")
        var frames = v.frames.prefix(maximumFrames).map(String.init).joined(separator: ", ")
        if v.frames.count > maximumFrames { frames += " … \(v.frames.count - maximumFrames) more" }
        let cited = frames.isEmpty ? "" : " [frame\(v.frames.count == 1 ? "" : "s") \(frames)]"
        return "\(at)\(who)  verdict \(paint(v.cause, Palette.error)) (\(v.party)): \(v.summary)\(cited)\n"
    }

    package static func jsonLine(_ v: Verdict, file: String) -> String {
        let members = [JSONValue.Member("verdict", .string(v.cause))] + DiagnoseWriter.jsonlMembers(v, file: file)
        return JSONDocumentEncoder().write(.object(members)) + "\n"
    }
}
