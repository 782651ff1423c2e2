/// How bad a finding is. Ordered: `note < warning < error`, so "at or above the threshold" is a
/// comparison.
public enum Severity: Int, Sendable, Comparable, CaseIterable, Codable {
    case note = 0
    case warning, error

    public static func < (a: Severity, b: Severity) -> Bool { a.rawValue < b.rawValue }

    public var name: String {
        switch self {
        case .note: "note"
        case .warning: "warning"
        case .error: "error"
        }
    }

    public init?(name: String) {
        switch name.lowercased() {
        case "note", "info", "notice": self = .note
        case "warning", "warn": self = .warning
        case "error": self = .error
        default: return nil
        }
    }
}

/// Where a finding's proof comes from.
public enum EvidenceKind: String, Sendable, Codable, CaseIterable {
    /// Seen directly in the HCI traffic (the PDU or command itself is the violation).
    case hci
    /// Deduced from HCI traffic about what the app must have done (e.g. the host-side scan
    /// filter from a BlueZ mgmt command, or a cancelled connection attempt).
    case inferred
    /// Taken from a Core Bluetooth API trace (simulator), exact.
    case api
    /// Seen directly in a sniffer's capture of the air (the PDU itself is the violation): what
    /// `hci` becomes for an over-the-air capture, which has no HCI.
    case overTheAir = "over_the_air"

    public var label: String {
        switch self {
        case .hci: "observed in HCI"
        case .inferred: "inferred"
        case .api: "API trace"
        case .overTheAir: "observed over the air"
        }
    }
}

/// Which platform a capture was judged as, and what decided it.
public struct PlatformFact: Sendable, Equatable, Codable {
    public var platform: Platform
    /// The sign that decided it, with its frame where there is one ("sent LE Get Vendor
    /// Capabilities (0xFD53), frame 14"), or the option that forced it.
    public var evidence: String
    /// Forced by `--platform`, not detected.
    public var overridden: Bool

    public init(_ platform: Platform, evidence: String, overridden: Bool = false) {
        self.platform = platform
        self.evidence = evidence
        self.overridden = overridden
    }

    public static let undetected = PlatformFact(.unknown, evidence: "no sign of the host's platform in the input")
}

/// Whose behaviour a finding reports: what the reader can change depends on it.
public enum Party: String, Sendable, Codable, CaseIterable {
    /// The app under test (the one the capture was taken for).
    case app
    /// The operating system's Bluetooth stack itself (its own GATT server, its own scans, its
    /// pairing policy): no app code can change it.
    case osStack = "os-stack"
    /// Another app on the same host, or an OS service acting as a client of the stack (Fast
    /// Pair, Find My Device, Settings' device discovery).
    case otherApp = "other-app"
    /// The remote device.
    case peer

    public var label: String {
        switch self {
        case .app: "this app"
        case .osStack: "the OS's Bluetooth stack"
        case .otherApp: "another app or OS service"
        case .peer: "the peer device"
        }
    }
}

/// A rule's advice for one platform: what to do in that platform's API, in prose, and code.
public struct PlatformAdvice: Sendable, Equatable {
    /// A paragraph in the project's words naming the platform's public API documentation.
    public var text: String
    /// Code (Kotlin for Android) that avoids the problem; may be empty when the problem does
    /// not exist on that platform (the text then says why).
    public var fix: String
    /// "What it enforces" on this platform, where the rule's points name Core Bluetooth's API
    /// or behaviour (`blecap explain --platform android`); nil: the points hold as they are.
    public var enforces: [String]?

    public init(enforces: [String]? = nil, _ text: String, fix: String) {
        self.text = text
        self.fix = fix
        self.enforces = enforces
    }
}

/// Public documentation a rule's point rests on: one API in Apple's Core Bluetooth or Android's
/// `android.bluetooth` reference, or a section of the Bluetooth Core Specification. Every name
/// is one a reader can look up; `blecap explain`, docs/rules/<slug>.md and the report list them.
public struct DocReference: Sendable, Equatable {
    public enum Source: String, Sendable, CaseIterable {
        /// Apple's Core Bluetooth documentation.
        case coreBluetooth
        /// Android's `android.bluetooth` (and `android.bluetooth.le`) reference.
        case android
        /// The Bluetooth Core Specification (5.4).
        case coreSpec

        public var label: String {
            switch self {
            case .coreBluetooth: "Core Bluetooth"
            case .android: "Android"
            case .coreSpec: "Bluetooth Core Specification"
            }
        }
    }

    public var source: Source
    /// An API as its reference names it (`CBPeripheral.writeValue(_:for:type:)`,
    /// `BluetoothGatt.requestMtu(int)`), or a section (`Vol 3 Part F 3.3.3`).
    public var name: String
    /// For a section: what it says that the rule rests on, in a few words.
    public var topic: String

    public init(_ source: Source, _ name: String, topic: String = "") {
        self.source = source
        self.name = name
        self.topic = topic
    }

    /// An API in Apple's Core Bluetooth documentation.
    public static func apple(_ name: String) -> DocReference { .init(.coreBluetooth, name) }
    /// An API in Android's `android.bluetooth` reference.
    public static func android(_ name: String) -> DocReference { .init(.android, name) }
    /// A section of the Bluetooth Core Specification and what the rule takes from it.
    public static func spec(_ section: String, _ topic: String) -> DocReference {
        .init(.coreSpec, section, topic: topic)
    }

    /// One line of plain text: `Core Bluetooth: CBPeripheral.canSendWriteWithoutResponse`.
    public var text: String {
        source.label + ": " + name + (topic.isEmpty ? "" : " (\(topic))")
    }

    /// The same in Markdown, the API in code style.
    public var markdown: String {
        source == .coreSpec ? text : source.label + ": `" + name + "`"
    }
}

/// A tunable number of a rule, with its default.
public struct ThresholdSpec: Sendable, Equatable {
    public var name: String
    public var defaultValue: Double
    public var unit: String
    public var help: String

    public init(_ name: String, _ defaultValue: Double, unit: String, _ help: String) {
        self.name = name
        self.defaultValue = defaultValue
        self.unit = unit
        self.help = help
    }
}

/// Everything about a rule that is not its logic: what `blecap rules` lists, `blecap explain`
/// prints, and SARIF's `tool.driver.rules[]` carries.
public struct RuleDescriptor: Sendable {
    /// `BLE001` …: stable, never reused.
    public var id: String
    /// kebab-case name used on the command line, in configs and as the docs page name.
    public var slug: String
    public var title: String
    public var defaultSeverity: Severity
    /// What the rule checks and why, in a paragraph.
    public var summary: String
    /// What the rule asks of an app, one point a line, in the project's words.
    public var enforces: [String]
    /// The public documentation the points rest on: Core Bluetooth's APIs, then Android's, then
    /// the Core Specification's sections.
    public var references: [DocReference]
    /// The kinds of evidence the rule can produce findings from.
    public var evidence: [EvidenceKind]
    public var thresholds: [ThresholdSpec]
    /// Core Bluetooth code (Swift) that avoids the problem.
    public var fix: String
    /// Whose behaviour the rule's findings report unless a finding says otherwise.
    public var party: Party
    /// The same advice in Android's API (`android.bluetooth`), where the rule has it.
    public var android: PlatformAdvice?

    public init(
        id: String, slug: String, title: String, defaultSeverity: Severity, summary: String,
        enforces: [String], references: [DocReference], evidence: [EvidenceKind], thresholds: [ThresholdSpec] = [],
        fix: String, party: Party = .app, android: PlatformAdvice? = nil
    ) {
        self.party = party
        self.android = android
        self.id = id
        self.slug = slug
        self.title = title
        self.defaultSeverity = defaultSeverity
        self.summary = summary
        self.enforces = enforces
        self.references = references
        self.evidence = evidence
        self.thresholds = thresholds
        self.fix = fix
    }

    /// The fix to show for a capture of `platform`: Android's where the rule has it, else Core
    /// Bluetooth's (Apple's, and the one every platform's docs page starts from).
    public func fix(for platform: Platform) -> (language: String, code: String) {
        if platform == .android, let a = android, !a.fix.isEmpty { return ("kotlin", a.fix) }
        return ("swift", fix)
    }

    /// The references for a capture of `platform`: Android's APIs and the specification's on
    /// Android, Core Bluetooth's and the specification's elsewhere (the platforms whose fix is
    /// Core Bluetooth's); every one when `platform` is nil.
    public func references(for platform: Platform?) -> [DocReference] {
        guard let platform else { return references }
        return references.filter { platform == .android ? $0.source != .coreBluetooth : $0.source != .android }
    }

    /// Relative path of the rule's documentation page.
    public var docsPath: String { "docs/rules/\(slug).md" }
}

/// One problem found in one capture.
public struct Finding: Sendable, Equatable, Codable {
    public var ruleID: String
    public var slug: String
    public var severity: Severity
    /// Specific to the case: handle and characteristic name, sizes, MTU, durations. Carries no
    /// frame numbers (they are in `frames`) so that the fingerprint survives re-captures.
    public var message: String
    public var connection: Int?
    public var peer: String?
    /// Attribute handle the finding is about, where there is one.
    public var handle: UInt16?
    /// Microseconds since 1970 of the first evidence frame.
    public var time: Int64
    /// Evidence frame numbers: the first is the frame that proves it, the rest are related.
    public var frames: [Int]
    public var evidence: EvidenceKind
    /// Byte offset and length of the first evidence frame's record in the capture file.
    public var byteOffset: Int64?
    public var byteLength: Int?
    public var fingerprint: String = ""
    /// Accepted by the baseline file: reported, but never fails the run.
    public var baselined: Bool = false
    /// Whose behaviour this is: the rule's default (`RuleDescriptor.party`) unless the rule
    /// decided otherwise for this case. Not part of the fingerprint.
    public var party: Party = .app

    public init(
        ruleID: String, slug: String, severity: Severity, message: String, connection: Int?,
        peer: String?, handle: UInt16?, time: Int64, frames: [Int], evidence: EvidenceKind, party: Party = .app
    ) {
        self.party = party
        self.ruleID = ruleID
        self.slug = slug
        self.severity = severity
        self.message = message
        self.connection = connection
        self.peer = peer
        self.handle = handle
        self.time = time
        self.frames = frames
        self.evidence = evidence
    }

    public var firstFrame: Int { frames.first ?? 0 }
}

/// A rule that could not be evaluated (on the whole input, or on part of it) and why.
public struct NotEvaluated: Sendable, Equatable, Codable {
    public var ruleID: String
    public var slug: String
    public var reason: String
    /// False when the rule ran but some cases (e.g. handles with unknown properties) were
    /// skipped; true when the rule could not run on this input at all.
    public var whole: Bool
}
