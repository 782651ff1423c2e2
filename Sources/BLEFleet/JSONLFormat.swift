import BLEBytes
import BLEDiagnose
import BLELint
import CaptureArchive

/// `--format jsonl` in batch mode: one line per capture, as it finishes:
/// `{"schema":"blecap.batch","version":1,"command":…,"input":…,"member":…,"sha256":…,"size":…,
/// "exit":…,"class":…,"result":{…}}`, or `"error":{…}` in place of `result` (docs/fleet.md).
/// `result` is what the command's own JSON says of one capture.
public struct JSONLFormat: BatchRowFormat {
    public static let schema = "blecap.batch"
    public static let version = 1

    public let command: BatchCommand
    /// The result object's text (one line) and the capture's class.
    let result: (CaptureMember, CaptureBundle) -> (json: String, exit: ExitClass)

    public init(
        command: BatchCommand, result: @escaping (CaptureMember, CaptureBundle) -> (json: String, exit: ExitClass)
    ) {
        self.command = command
        self.result = result
    }

    /// lint's and diagnose's results, from the library's own documents.
    public init(options: AnalysisOptions) {
        self.command = options.command
        self.result = { member, bundle in
            let a = CaptureAnalysis.run(member, in: bundle, options: options)
            let exit = a.exitClass(failOn: options.command == .lint ? options.failOn : nil)
            let value: JSONValue
            switch options.command {
            case .lint, .info:
                let doc = JSONReporter.document([a.report])
                value = (try? JSONDocumentEncoder.value(of: doc.captures[0])) ?? .null
            case .diagnose:
                var members: [JSONValue.Member] = [
                    .init("schema", .string(DiagnoseSchema.name)),
                    .init("version", .int(Int64(DiagnoseSchema.version))),
                ]
                if let e = a.report.error { members.append(.init("error", .string(e))) }
                members.append(.init("damage", a.report.damage.map(JSONValue.string) ?? .null))
                let verdicts = (a.verdicts ?? []).map { (try? JSONDocumentEncoder.value(of: $0)) ?? .null }
                members.append(.init("verdicts", .array(verdicts)))
                value = .object(members)
            }
            return (JSONDocumentEncoder().write(value), exit)
        }
    }

    func head(_ identity: InputIdentity, member: String?, exit: ExitClass) -> String {
        let members: [JSONValue.Member] = [
            .init("schema", .string(Self.schema)), .init("version", .int(Int64(Self.version))),
            .init("command", .string(command.rawValue)), .init("input", .string(identity.path)),
            .init("member", member.map(JSONValue.string) ?? .null),
            .init("sha256", identity.sha256.map(JSONValue.string) ?? .null),
            .init("size", identity.size.map { JSONValue.int($0) } ?? .null),
            .init("exit", .int(Int64(exit.rawValue))), .init("class", .string(exit.name)),
        ]
        let text = JSONDocumentEncoder().write(.object(members))
        return String(text.dropLast())  // the object stays open for result or error
    }

    public func rows(for member: CaptureMember, in bundle: CaptureBundle, identity: InputIdentity) -> (
        lines: [String], exit: ExitClass
    ) {
        let (json, exit) = result(member, bundle)
        return ([head(identity, member: member.name, exit: exit) + ",\"result\":" + json + "}"], exit)
    }

    public func errorRows(identity: InputIdentity, member: String?, failure: BatchFailure) -> [String] {
        [
            head(identity, member: member, exit: failure.exitClass) + ",\"error\":"
                + JSONDocumentEncoder().write(failure.value) + "}"
        ]
    }
}

extension BatchFailure {
    /// `{"stage":…,"cause":…,"class":…,"exit":…,"limit":…}`.
    var value: JSONValue {
        .object([
            .init("stage", .string(stage)), .init("cause", .string(cause)), .init("class", .string(exitClass.name)),
            .init("exit", .int(Int64(exitClass.rawValue))), .init("limit", limit.map(JSONValue.string) ?? .null),
        ])
    }
}
