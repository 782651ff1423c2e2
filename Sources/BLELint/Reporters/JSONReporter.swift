import BLEBytes
import BLETimeline

/// Machine-readable report: one object with every capture, its findings and what could not be
/// evaluated. Keys in a fixed order (the models' declaration order) so the output is diffable.
public enum JSONReporter {
    public static func render(_ reports: [CaptureReport]) -> String {
        JSONDocument.render(document(reports), style: .compact)
    }

    public static func document(_ reports: [CaptureReport]) -> LintJSONDocument {
        LintJSONDocument(
            captures: reports.map { r in
                .init(
                    path: r.path, format: r.format, frames: r.frames, error: r.error, damage: r.damage,
                    platform: r.error == nil ? .init(r.facts.platform) : nil,
                    findings: r.findings.map(LintJSONDocument.Finding.init),
                    notEvaluated: r.notEvaluated.map {
                        .init(rule: $0.ruleID, slug: $0.slug, whole: $0.whole, reason: $0.reason)
                    }, connections: r.connections)
            })
    }
}

/// `blecap lint --format json` (docs/lint.md).
public struct LintJSONDocument: Encodable, Sendable {
    public var tool = "blecap"
    public var captures: [Capture]

    public struct Capture: Encodable, Sendable {
        public var path: String
        public var format: String?
        public var frames: Int
        public var error: String?
        public var damage: String?
        /// The platform the capture was judged as (absent for an unreadable capture).
        public var platform: Platform?
        public var findings: [Finding]
        public var notEvaluated: [NotEvaluated]
        /// Each connection's facts (`ConnectionFacts`: the same record `info`, `gatt`,
        /// `timeline` and `report` state).
        public var connections: [ConnectionFacts] = []

        enum CodingKeys: String, CodingKey {
            case path, format, frames, error, damage, platform, findings
            case notEvaluated = "not_evaluated"
            case connections
        }
    }

    /// `{"name": "android", "evidence": "…", "source": "detected"|"option"}`.
    public struct Platform: Encodable, Sendable {
        public var name: String
        public var evidence: String
        public var source: String

        init(_ p: PlatformFact) {
            name = p.platform.rawValue
            evidence = p.evidence
            source = p.overridden ? "option" : "detected"
        }
    }

    public struct Finding: Encodable, Sendable {
        public var rule: String
        public var slug: String
        public var severity: String
        public var message: String
        public var connection: Int?
        public var peer: String?
        public var handle: UInt16?
        public var timeMicros: Int64
        public var frames: [Int]
        public var evidence: String
        /// Whose behaviour: `app`, `os-stack`, `other-app` or `peer`.
        public var party: String
        /// Both or neither.
        public var byteOffset: Int64?
        public var byteLength: Int?
        public var fingerprint: String
        public var baselined: Bool

        enum CodingKeys: String, CodingKey {
            case rule, slug, severity, message, connection, peer, handle
            case timeMicros = "time_us"
            case frames, evidence, party
            case byteOffset = "byte_offset"
            case byteLength = "byte_length"
            case fingerprint, baselined
        }

        init(_ f: BLELint.Finding) {
            let located = f.byteOffset != nil && f.byteLength != nil
            self.init(
                rule: f.ruleID, slug: f.slug, severity: f.severity.name, message: f.message,
                connection: f.connection, peer: f.peer, handle: f.handle, timeMicros: f.time, frames: f.frames,
                evidence: f.evidence.rawValue, byteOffset: located ? f.byteOffset : nil,
                byteLength: located ? f.byteLength : nil, fingerprint: f.fingerprint, baselined: f.baselined,
                party: f.party.rawValue)
        }

        init(
            rule: String, slug: String, severity: String, message: String, connection: Int?, peer: String?,
            handle: UInt16?, timeMicros: Int64, frames: [Int], evidence: String, byteOffset: Int64?, byteLength: Int?,
            fingerprint: String, baselined: Bool, party: String = Party.app.rawValue
        ) {
            self.party = party
            self.rule = rule
            self.slug = slug
            self.severity = severity
            self.message = message
            self.connection = connection
            self.peer = peer
            self.handle = handle
            self.timeMicros = timeMicros
            self.frames = frames
            self.evidence = evidence
            self.byteOffset = byteOffset
            self.byteLength = byteLength
            self.fingerprint = fingerprint
            self.baselined = baselined
        }
    }

    public struct NotEvaluated: Encodable, Sendable {
        public var rule: String
        public var slug: String
        public var whole: Bool
        public var reason: String
    }
}
