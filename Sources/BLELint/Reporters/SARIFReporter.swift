import BLEBytes

/// SARIF 2.1.0 (OASIS, sarif-schema-2.1.0.json): one run, the rules as
/// `tool.driver.rules[]`, one result per finding located in the capture file by its record's
/// byte range, evidence frames in `properties.frames`, a stable `partialFingerprints` entry.
public enum SARIFReporter {
    public static let schema = "https://json.schemastore.org/sarif-2.1.0.json"
    public static let helpBase = "https://github.com/blecap/blecap/blob/main/"

    public static func render(_ reports: [CaptureReport], version: String = "0.1.0") -> String {
        JSONDocument.render(log(reports, version: version), style: .pretty)
    }

    /// The SARIF log for `reports`, as a value.
    public static func log(_ reports: [CaptureReport], version: String = "0.1.0") -> SARIFLog {
        let rules = RuleRegistry.descriptors
        let driver = SARIFLog.Driver(
            name: "blecap", version: version, informationUri: helpBase + "README.md",
            rules: rules.map { d in
                .init(
                    id: d.id, name: d.slug, shortDescription: .init(d.title), fullDescription: .init(d.summary),
                    help: .init(
                        text: d.summary + helpPoints(d, markdown: false) + "\n\nFix:\n" + d.fix
                            + (d.android.map { "\n\nOn Android: " + $0.text + ($0.fix.isEmpty ? "" : "\n" + $0.fix) }
                                ?? ""),
                        markdown: d.summary + helpPoints(d, markdown: true) + "\n\n```swift\n" + d.fix + "\n```"
                            + (d.android.map {
                                "\n\nOn Android: " + $0.text
                                    + ($0.fix.isEmpty ? "" : "\n\n```kotlin\n" + $0.fix + "\n```")
                            } ?? "")),
                    helpUri: helpBase + d.docsPath, defaultConfiguration: .init(level: d.defaultSeverity.name))
            })
        let readable = reports.filter { $0.error == nil }
        var results: [SARIFLog.Result] = []
        for (ai, r) in readable.enumerated() {
            for f in r.findings {
                let region = f.byteOffset.flatMap { o in
                    f.byteLength.map { SARIFLog.Region(byteOffset: o, byteLength: $0) }
                }
                results.append(
                    .init(
                        ruleId: f.ruleID, ruleIndex: rules.firstIndex { $0.id == f.ruleID } ?? 0,
                        level: f.severity.name,
                        message: .init(f.message),
                        locations: [
                            .init(
                                physicalLocation: .init(
                                    artifactLocation: .init(uri: Escape.uri(r.path), index: ai), region: region))
                        ],
                        partialFingerprints: .init(blecap: f.fingerprint),
                        baselineState: f.baselined ? "unchanged" : nil,
                        suppressions: f.baselined
                            ? [.init(kind: "external", justification: "in the blecap baseline")] : nil,
                        properties: .init(
                            frames: f.frames, evidence: f.evidence.rawValue, connection: f.connection,
                            peer: f.peer, handle: f.handle, party: f.party.rawValue,
                            platform: r.facts.platform.platform.rawValue)))
            }
        }
        // Rules that could not run, as tool notifications (SARIF 3.58).
        let notes = readable.flatMap { r -> [SARIFLog.Notification] in
            r.notEvaluated.filter(\.whole).map { n in
                SARIFLog.Notification(
                    level: "note", message: .init("\(n.ruleID) \(n.slug) not evaluable on \(r.path): \(n.reason)"),
                    descriptor: .init(id: n.ruleID))
            }
        }
        let failedToRead = reports.filter { $0.error != nil || $0.damage != nil }
        let invocation = SARIFLog.Invocation(
            executionSuccessful: failedToRead.isEmpty, toolConfigurationNotifications: notes,
            toolExecutionNotifications: failedToRead.isEmpty
                ? nil
                : failedToRead.map {
                    .init(level: "error", message: .init("\($0.path): \($0.error ?? $0.damage ?? "")"), descriptor: nil)
                })
        return SARIFLog(
            schema: schema,
            runs: [
                .init(
                    tool: .init(driver: driver),
                    artifacts: readable.map { .init(location: .init(uri: Escape.uri($0.path), index: nil)) },
                    results: results, invocations: [invocation])
            ])
    }
}

extension SARIFReporter {
    /// What a rule enforces and the public documentation it rests on, for a rule's `help`
    /// (docs/rules/<slug>.md, which `helpUri` names, has the same lists).
    static func helpPoints(_ d: RuleDescriptor, markdown: Bool) -> String {
        var s = markdown ? "\n\n**What it enforces**\n" : "\n\nWhat it enforces:"
        for point in d.enforces { s += "\n- " + point }
        s += markdown ? "\n\n**References**\n" : "\n\nReferences:"
        for r in d.references { s += "\n- " + (markdown ? r.markdown : r.text) }
        return s
    }
}

/// The part of SARIF 2.1.0 blecap writes (§3.13 sarifLog and below), in the schema's names.
public struct SARIFLog: Encodable, Sendable {
    public var schema: String
    public var version = "2.1.0"
    public var runs: [Run]

    enum CodingKeys: String, CodingKey {
        case schema = "$schema"
        case version, runs
    }

    public struct Run: Encodable, Sendable {
        public var tool: Tool
        public var artifacts: [Artifact]
        public var results: [Result]
        public var invocations: [Invocation]
    }

    public struct Tool: Encodable, Sendable { public var driver: Driver }

    public struct Driver: Encodable, Sendable {
        public var name: String
        public var version: String
        public var informationUri: String
        public var rules: [ReportingDescriptor]
    }

    public struct ReportingDescriptor: Encodable, Sendable {
        public var id: String
        public var name: String
        public var shortDescription: Message
        public var fullDescription: Message
        public var help: Help
        public var helpUri: String
        public var defaultConfiguration: Configuration
    }

    public struct Message: Encodable, Sendable {
        public var text: String
        init(_ text: String) { self.text = text }
    }

    public struct Help: Encodable, Sendable {
        public var text: String
        public var markdown: String
    }

    public struct Configuration: Encodable, Sendable { public var level: String }

    public struct Artifact: Encodable, Sendable { public var location: ArtifactLocation }

    public struct ArtifactLocation: Encodable, Sendable {
        public var uri: String
        public var index: Int?
    }

    public struct Result: Encodable, Sendable {
        public var ruleId: String
        public var ruleIndex: Int
        public var level: String
        public var message: Message
        public var locations: [Location]
        public var partialFingerprints: Fingerprints
        public var baselineState: String?
        public var suppressions: [Suppression]?
        public var properties: ResultProperties
    }

    public struct Location: Encodable, Sendable { public var physicalLocation: PhysicalLocation }

    public struct PhysicalLocation: Encodable, Sendable {
        public var artifactLocation: ArtifactLocation
        public var region: Region?
    }

    public struct Region: Encodable, Sendable {
        public var byteOffset: Int64
        public var byteLength: Int
    }

    public struct Fingerprints: Encodable, Sendable {
        public var blecap: String
        enum CodingKeys: String, CodingKey { case blecap = "blecapFingerprint/v1" }
    }

    public struct Suppression: Encodable, Sendable {
        public var kind: String
        public var justification: String
    }

    /// blecap's property bag on a result: the evidence frames and where the problem is.
    public struct ResultProperties: Encodable, Sendable {
        public var frames: [Int]
        public var evidence: String
        public var connection: Int?
        public var peer: String?
        public var handle: UInt16?
        /// Whose behaviour: `app`, `os-stack`, `other-app` or `peer`.
        public var party: String
        /// The platform the capture was judged as: `android`, `apple`, `linux` or `unknown`.
        public var platform: String
    }

    public struct Invocation: Encodable, Sendable {
        public var executionSuccessful: Bool
        public var toolConfigurationNotifications: [Notification]
        public var toolExecutionNotifications: [Notification]?
    }

    public struct Notification: Encodable, Sendable {
        public var level: String
        public var message: Message
        public var descriptor: DescriptorReference?
    }

    public struct DescriptorReference: Encodable, Sendable { public var id: String }
}
