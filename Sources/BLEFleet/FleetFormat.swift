import BLEBytes
import BLEDiagnose
import BLELint
import BLEPackets
import BLETimeline
import CaptureArchive

/// The fleet tables (docs/fleet.md): every row a JSON line with `schema_version` and `table`,
/// then that table's columns in `FleetSchema`'s order, every column present (null when unknown).
public enum FleetSchema {
    public static let version = 1

    public enum ColumnType: String, Sendable {
        case string, integer, number, boolean
        case strings = "array<string>"
        case integers = "array<integer>"
    }

    /// Each table's columns after `schema_version` and `table`, in row order.
    public static let tables: [(table: String, columns: [(name: String, type: ColumnType)])] = [
        (
            "capture",
            [
                ("capture_id", .string), ("input", .string), ("member", .string), ("sha256", .string),
                ("size", .integer), ("container", .string), ("format", .string), ("command", .string),
                ("frames", .integer), ("duration_s", .number), ("damage", .string), ("platform", .string),
                ("connections", .integer), ("identifiers", .string), ("device_model", .string),
                ("device_manufacturer", .string), ("android_build_fingerprint", .string),
                ("bluetooth_stack", .string), ("bluetooth_firmware", .string), ("app_packages", .strings),
                ("ios_version", .string),
            ]
        ),
        (
            "connection",
            [
                ("capture_id", .string), ("connection", .integer), ("peer", .string), ("peer_identity", .string),
                ("role", .string), ("start_frame", .integer), ("end_frame", .integer), ("unknown_start", .boolean),
                ("ended", .string), ("end_reason", .integer), ("end_reason_name", .string), ("mtu", .integer),
                ("interval_us", .integer), ("latency", .integer), ("timeout_ms", .integer), ("tx_phy", .integer),
                ("rx_phy", .integer), ("encrypted", .boolean), ("pairing_method", .string),
            ]
        ),
        (
            "finding",
            [
                ("capture_id", .string), ("rule", .string), ("slug", .string), ("severity", .string),
                ("party", .string), ("evidence", .string), ("connection", .integer), ("peer", .string),
                ("first_frame", .integer), ("fingerprint", .string), ("baselined", .boolean), ("message", .string),
            ]
        ),
        (
            "verdict",
            [
                ("capture_id", .string), ("kind", .string), ("connection", .integer), ("peer", .string),
                ("role", .string), ("start_frame", .integer), ("end_frame", .integer), ("ended", .string),
                ("reason", .integer), ("reason_name", .string), ("cause", .string), ("party", .string),
                ("signature", .string), ("signals", .strings), ("summary", .string),
            ]
        ),
        (
            "error",
            [
                ("capture_id", .string), ("input", .string), ("member", .string), ("sha256", .string),
                ("command", .string), ("stage", .string), ("class", .string), ("exit", .integer),
                ("limit", .string), ("cause", .string),
            ]
        ),
    ]

    static func columns(_ table: String) -> [String] {
        tables.first { $0.table == table }!.columns.map(\.name)
    }
}

/// `--format fleet`: one capture row per capture, then its connection rows, and its finding
/// (lint) or verdict (diagnose) rows; an error row for an input or capture without a result.
///
/// Identifiers follow `IdentifierPolicy`: device addresses (peer, identity address) and texts
/// that may quote them or a device's data (finding messages, verdict summaries) are raw only
/// with `--raw-identifiers`; under a key, addresses become pseudonyms, lint fingerprints (an
/// unkeyed hash over the peer's address) are re-keyed, and free texts are null.
public struct FleetFormat: BatchRowFormat {
    public let options: AnalysisOptions
    public let identifiers: IdentifierPolicy

    public init(options: AnalysisOptions, identifiers: IdentifierPolicy) {
        self.options = options
        self.identifiers = identifiers
    }

    /// `sha256` of the input, with `!member` for a capture inside it: stable across runs,
    /// paths and machines, and the key every other row of the capture carries.
    static func captureID(_ identity: InputIdentity, member: String?) -> String? {
        guard let sha = identity.sha256 else { return nil }
        return member.map { "\(sha)!\($0)" } ?? sha
    }

    func row(_ table: String, _ values: [String: JSONValue]) -> String {
        var members: [JSONValue.Member] = [
            .init("schema_version", .int(Int64(FleetSchema.version))), .init("table", .string(table)),
        ]
        for c in FleetSchema.columns(table) { members.append(.init(c, values[c] ?? .null)) }
        return JSONDocumentEncoder().write(.object(members))
    }

    /// The controller's firmware as Read Local Version Information names it: the company
    /// (Company_Identifier, with its assigned name where known) and its LMP_Subversion, the
    /// number a vendor gives each firmware build. Nil when the capture has no such answer.
    static func firmware(_ c: ControllerInfo) -> String? {
        guard let company = c.manufacturer, let sub = c.lmpSubversion else { return nil }
        let id = Hex.string(UInt64(company), digits: 4)
        let name = CompanyIdentifiers.string(company).map { "\($0) (\(id))" } ?? id
        return "\(name), LMP subversion \(Hex.string(UInt64(sub), digits: 4))"
    }

    func addr(_ s: String?) -> JSONValue { identifiers.apply(s, kind: "addr").map(JSONValue.string) ?? .null }
    func text(_ s: String?) -> JSONValue {
        if case .raw = identifiers { return s.map(JSONValue.string) ?? .null }
        return .null
    }

    public func rows(for member: CaptureMember, in bundle: CaptureBundle, identity: InputIdentity) -> (
        lines: [String], exit: ExitClass
    ) {
        let a = CaptureAnalysis.run(member, in: bundle, options: options)
        let exit = a.exitClass(failOn: options.command == .lint ? options.failOn : nil)
        let id = Self.captureID(identity, member: member.name).map(JSONValue.string) ?? .null
        if let error = a.report.error {
            let f = BatchFailure(stage: "read", cause: error, exitClass: .unreadable)
            return (errorRows(identity: identity, member: member.name, failure: f), .unreadable)
        }
        let r = a.report
        let m = bundle.metadata
        func s(_ v: String?) -> JSONValue { v.map(JSONValue.string) ?? .null }
        func i(_ v: Int?) -> JSONValue { v.map { JSONValue.int(Int64($0)) } ?? .null }
        var lines: [String] = []
        lines.append(
            row(
                "capture",
                [
                    "capture_id": id, "input": .string(identity.path), "member": s(member.name),
                    "sha256": s(identity.sha256), "size": identity.size.map { JSONValue.int($0) } ?? .null,
                    "container": s(bundle.container), "format": s(r.format),
                    "command": .string(options.command.rawValue),
                    "frames": .int(Int64(r.frames)), "duration_s": a.duration.map(JSONValue.double) ?? .null,
                    "damage": s(r.damage),
                    "platform": r.facts.platform.platform == .unknown
                        ? .null : .string(r.facts.platform.platform.rawValue),
                    "connections": .int(Int64(r.connections.count)), "identifiers": .string(identifiers.name),
                    "device_model": s(m.model), "device_manufacturer": s(m.manufacturer),
                    "android_build_fingerprint": s(m.buildFingerprint), "bluetooth_stack": s(m.bluetoothStack),
                    "bluetooth_firmware": s(a.controller.flatMap(Self.firmware)),
                    "app_packages": m.appPackages.map { .array($0.map(JSONValue.string)) } ?? .null,
                    "ios_version": s(m.iosVersion),
                ]))
        for c in r.connections {
            lines.append(
                row(
                    "connection",
                    [
                        "capture_id": id, "connection": i(c.connection), "peer": addr(c.peer),
                        "peer_identity": addr(c.identityAddress), "role": s(c.role), "start_frame": i(c.startFrame),
                        "end_frame": i(c.endFrame), "unknown_start": .bool(c.unknownStart), "ended": .string(c.ended),
                        "end_reason": i(c.endReason), "end_reason_name": s(c.endReasonName),
                        "mtu": c.mtuKnown ? i(c.mtu) : .null, "interval_us": i(c.intervalUs), "latency": i(c.latency),
                        "timeout_ms": i(c.timeoutMs), "tx_phy": i(c.txPHY), "rx_phy": i(c.rxPHY),
                        "encrypted": .bool(c.security.encrypted), "pairing_method": s(c.security.pairingMethod),
                    ]))
        }
        if options.command == .lint {
            for f in r.findings {
                let fingerprint: JSONValue
                switch identifiers {
                case .raw: fingerprint = .string(f.fingerprint)
                case .keyed(let p): fingerprint = .string(p.pseudonym(f.fingerprint, kind: "fp"))
                case .dropped: fingerprint = .null
                }
                lines.append(
                    row(
                        "finding",
                        [
                            "capture_id": id, "rule": .string(f.ruleID), "slug": .string(f.slug),
                            "severity": .string(f.severity.name), "party": .string(f.party.rawValue),
                            "evidence": .string(f.evidence.rawValue), "connection": i(f.connection),
                            "peer": addr(f.peer),
                            "first_frame": i(f.frames.first), "fingerprint": fingerprint,
                            "baselined": .bool(f.baselined),
                            "message": text(f.message),
                        ]))
            }
        }
        for v in a.verdicts ?? [] {
            lines.append(
                row(
                    "verdict",
                    [
                        "capture_id": id, "kind": .string(v.kind.rawValue), "connection": i(v.connection),
                        "peer": addr(v.peer), "role": s(v.role), "start_frame": i(v.startFrame),
                        "end_frame": i(v.endFrame), "ended": .string(v.ended), "reason": i(v.reason),
                        "reason_name": s(v.reasonName), "cause": .string(v.cause), "party": .string(v.party),
                        "signature": .string(v.signature), "signals": .array(v.signals.map(JSONValue.string)),
                        "summary": text(v.summary),
                    ]))
        }
        return (lines, exit)
    }

    public func errorRows(identity: InputIdentity, member: String?, failure: BatchFailure) -> [String] {
        func s(_ v: String?) -> JSONValue { v.map(JSONValue.string) ?? .null }
        return [
            row(
                "error",
                [
                    "capture_id": s(Self.captureID(identity, member: member)), "input": .string(identity.path),
                    "member": s(member), "sha256": s(identity.sha256), "command": .string(options.command.rawValue),
                    "stage": .string(failure.stage), "class": .string(failure.exitClass.name),
                    "exit": .int(Int64(failure.exitClass.rawValue)), "limit": s(failure.limit),
                    "cause": .string(failure.cause),
                ])
        ]
    }
}
