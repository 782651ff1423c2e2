import CaptureArchive
import CaptureIO

#if canImport(Glibc)
    import Glibc
#endif

/// How one batch format turns a capture into lines (`--format jsonl`: one document per capture;
/// `--format fleet`: the fleet tables' rows, docs/fleet.md).
public protocol BatchRowFormat {
    /// The lines of one capture of an opened input, and its exit class.
    func rows(for member: CaptureMember, in bundle: CaptureBundle, identity: InputIdentity) -> (
        lines: [String], exit: ExitClass
    )
    /// The lines of a capture, or a whole input, that has no result.
    func errorRows(identity: InputIdentity, member: String?, failure: BatchFailure) -> [String]
}

/// Per-capture limits (`--max-seconds`, `--max-memory`). With either set, each input is analysed
/// in a child process: a deadline checked inside the analysis could not stop a decoder stuck in
/// one record, and a memory limit can only be set on a whole process (RLIMIT_AS).
public struct BatchLimits: Sendable, Equatable {
    public var maxSeconds: Double?
    /// Bytes of address space (RLIMIT_AS) the child may map, its own code and libraries included.
    public var maxMemory: Int?
    public init(maxSeconds: Double? = nil, maxMemory: Int? = nil) {
        self.maxSeconds = maxSeconds
        self.maxMemory = maxMemory
    }
    public var isEmpty: Bool { maxSeconds == nil && maxMemory == nil }
}

/// Runs a batch: each input hashed, opened and analysed in turn, its lines written as soon as it
/// is done. Nothing of a capture is kept once its lines are out, so memory does not grow with
/// the number of inputs; one input failing (unreadable, refused, over a limit, even crashing in
/// its child) is an error row and the batch goes on.
public final class BatchRunner {
    let format: any BatchRowFormat
    let limits: BatchLimits
    let write: (String) -> Void
    let note: (String) -> Void
    /// Captures analysed so far, by class (for the summary and the exit status).
    public private(set) var counts: [ExitClass: Int] = [:]
    public private(set) var worst = ExitClass.ok

    /// `write` takes each line (without its newline); `note` what goes to standard error.
    public init(
        format: any BatchRowFormat, limits: BatchLimits, write: @escaping (String) -> Void,
        note: @escaping (String) -> Void
    ) {
        self.format = format
        self.limits = limits
        self.write = write
        self.note = note
    }

    /// Runs every input; returns the batch's exit class (the worst of its captures').
    @discardableResult
    public func run(_ inputs: some Sequence<BatchInput>) -> ExitClass {
        for input in inputs {
            if let mark = input.mark {
                write(Self.markLine(mark))
                continue
            }
            let identity = InputIdentity.of(path: input.path)
            let (lines, exit): ([String], ExitClass)
            if limits.isEmpty {
                (lines, exit) = analyse(input, identity: identity)
            } else {
                (lines, exit) = ChildAnalysis.run(input, identity: identity, limits: limits, format: format, note: note)
            }
            for l in lines { write(l) }
            if !lines.isEmpty { counts[exit, default: 0] += 1 }
            worst = max(worst, exit)
        }
        return worst
    }

    /// The line a mark of the list becomes (`--marks`): a JSON object with the one key `mark`,
    /// which no row of either batch format has.
    public static func markLine(_ mark: Int) -> String { "{\"mark\":\(mark)}" }

    /// One input in this process: its captures' lines, or its error row. Inside a directory,
    /// `lint DIR`'s rules apply: an archive without captures and a capture of a link type
    /// blecap does not read are skipped with a note (no line); named, they are error rows.
    public func analyse(_ input: BatchInput, identity: InputIdentity) -> ([String], ExitClass) {
        Self.analyse(input, identity: identity, format: format, note: note)
    }

    static func analyse(
        _ input: BatchInput, identity: InputIdentity, format: any BatchRowFormat, note: (String) -> Void
    ) -> ([String], ExitClass) {
        let bundle: CaptureBundle
        do { bundle = try CaptureBundle.open(path: input.path) } catch {
            switch error {
            case .noCapture where !input.named, .bugReportWithoutBluetoothLog where !input.named:
                note("\(input.path): skipped: \(error)")
                return ([], .ok)
            default: break
            }
            let failure = BatchFailure(stage: "open", cause: error.description, exitClass: ExitClass(error))
            return (format.errorRows(identity: identity, member: nil, failure: failure), failure.exitClass)
        }
        var lines: [String] = []
        var worst = ExitClass.ok
        for member in bundle.members {
            if !input.named, let reason = unsupported(member) {
                note("\(member.displayName): skipped: \(reason)")
                continue
            }
            let (l, e) = format.rows(for: member, in: bundle, identity: identity)
            lines += l
            worst = max(worst, e)
        }
        return (lines, worst)
    }

    /// Why a capture found in a directory is passed over (a link type blecap does not read).
    static func unsupported(_ member: CaptureMember) -> String? {
        guard member.isRereadable else { return nil }
        do { _ = try member.makeReader() } catch {
            switch error {
            case .unsupportedLinkType, .unsupportedBtsnoopDatalink: return error.description
            default: return nil
            }
        }
        return nil
    }
}
