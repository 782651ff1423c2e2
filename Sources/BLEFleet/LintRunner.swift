import BLEBytes
import BLEFilter
import BLELint
import BLEReport
import CaptureArchive
import CaptureIO
import Dispatch
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Finds the captures among command-line paths (`lint`, `report`; batch mode walks with
/// `BatchInputs`, by the same rules).
package enum CaptureWalker {
    /// Files to lint (sorted, deduplicated) and problems to report (missing paths, unreadable
    /// files named explicitly). Inside directories, files that are not captures are skipped
    /// silently, and captures blecap cannot lint (link-layer, unsupported link types) are
    /// skipped with a note on standard error.
    package static func collect(_ paths: [String]) -> (files: [String], explicit: Set<String>, problems: [String]) {
        var files: Set<String> = []
        var explicit: Set<String> = []
        var problems: [String] = []
        // A file found under a directory: linted if it is a capture, a simulator trace or an archive.
        func consider(_ full: String) {
            guard let prefix = CaptureLinter.filePrefix(full, count: 512) else {
                problems.append("\(full): cannot open")
                return
            }
            // An empty file is no capture: skipped like any other file that is not one.
            if prefix.isEmpty { return }
            let detection = prefix.withUnsafeBytes { CaptureFile.detect(ByteView($0)) }
            switch detection {
            case .unknown where SimulatorTraceReader.detect(prefix): files.insert(full)
            case .unknown where prefix.withUnsafeBytes({ CaptureBundle.isArchive(ByteView($0)) }): files.insert(full)
            case .unknown: return
            default: files.insert(full)
            }
        }
        for p in paths {
            // Standard input, opened by CaptureBundle as every command opens it.
            if p == "-" {
                files.insert(p)
                explicit.insert(p)
                continue
            }
            var st = stat()
            guard stat(p, &st) == 0 else {
                problems.append("\(p): no such file or directory")
                continue
            }
            if st.st_mode & S_IFMT != S_IFDIR {
                files.insert(p)
                explicit.insert(p)
                continue
            }
            guard walk(p, "", consider) else {
                problems.append("\(p): cannot list directory")
                continue
            }
        }
        return (files.sorted(), explicit, problems)
    }

    /// Calls `body` with each file under `root` (`relative` deep): entries in the order the
    /// directory lists them, a subdirectory's files where it is listed. Symbolic links to files
    /// count, links to directories are not followed, entries that do not resolve are skipped:
    /// the walk FileManager's `enumerator(atPath:)` made. False if `root` cannot be listed.
    private static func walk(_ root: String, _ relative: String, _ body: (String) -> Void) -> Bool {
        let dir = relative.isEmpty ? root : join(root, relative)
        guard let d = opendir(dir) else { return false }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(d)
        for name in names {
            let rel = relative.isEmpty ? name : relative + "/" + name
            let full = join(root, rel)
            var st = stat()
            guard lstat(full, &st) == 0 else { continue }
            if st.st_mode & S_IFMT == S_IFDIR {
                _ = walk(root, rel, body)
                continue
            }
            guard stat(full, &st) == 0, st.st_mode & S_IFMT != S_IFDIR else { continue }
            body(full)
        }
        return true
    }

    /// `NSString.appendingPathComponent`'s join: one "/" unless `dir` ends in one.
    private static func join(_ dir: String, _ rel: String) -> String {
        dir.hasSuffix("/") ? dir + rel : dir + "/" + rel
    }
}

/// Lints many captures on all cores (`lint`, `report`); results come back in the order of the
/// jobs (an archive's captures in its reading order, each named `archive!member`).
package enum LintRunner {
    /// One capture to lint: a plain file by path, or a capture inside an archive.
    package enum Job {
        case path(String)
        case member(CaptureMember, CaptureBundle)
        /// An input that could not be opened; `counted` is its error when it counts towards
        /// the exit status (nil: an archive without captures passed over inside a directory).
        case failed(CaptureReport, counted: ArchiveError?)
    }

    /// The captures of `files`: plain files by path, archives by member (in their reading
    /// order), inputs that cannot be opened as failed reports.
    package static func jobs(_ files: [String], member: String?, explicit: Set<String>) -> [Job] {
        var jobs: [Job] = []
        for file in files {
            let bundle: CaptureBundle
            do { bundle = try CaptureBundle.open(path: file, member: member) } catch {
                var r = CaptureReport(path: file)
                r.error = error.description
                let holdsNone: Bool
                switch error {
                case .noCapture, .bugReportWithoutBluetoothLog: holdsNone = true
                default: holdsNone = false
                }
                // Inside a directory, an archive without captures is passed over with a note.
                if holdsNone && !explicit.contains(file) {
                    r.unsupportedFormat = true
                    jobs.append(.failed(r, counted: nil))
                } else {
                    jobs.append(.failed(r, counted: error))
                }
                continue
            }
            // A plain regular file is linted by path (simulator traces are told there);
            // standard input, a FIFO or /dev/stdin was already opened by the bundle and is read
            // through it.
            var st = stat()
            let regular = file != "-" && stat(file, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
            if bundle.container == nil && regular {
                jobs.append(.path(file))
            } else {
                jobs += bundle.members.map { .member($0, bundle) }
            }
        }
        return jobs
    }

    /// The lint report of each job (one pass each, on at most `parallel` cores; all by default).
    package static func lint(
        _ work: [Job], explicit: Set<String>, configuration: LintConfiguration, baseline: Baseline,
        parallel: Int? = nil
    ) -> [CaptureReport] {
        Parallel.map(work.count, width: parallel) { i in
            let start = DispatchTime.now().uptimeNanoseconds
            var r: CaptureReport
            switch work[i] {
            case .path(let p): r = CaptureLinter.lint(path: p, configuration: configuration, baseline: baseline)
            case .member(let m, let bundle):
                r = lint(
                    m, in: bundle, explicit: explicit.contains(bundle.path), configuration: configuration,
                    baseline: baseline)
            case .failed(let report, _): r = report
            }
            r.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            return r
        }
    }

    /// `build` a batch at a time (each batch on all cores), each batch's results handed to
    /// `each` before the next is built: `report -o dir logs/*` holds one batch's models, not
    /// every capture's. Cores counted with sysconf: `ProcessInfo` costs 1.3 MB of memory.
    package static func buildInBatches(
        _ work: [Job], configuration: LintConfiguration, baseline: Baseline, scope: Filter? = nil,
        scopeText: String? = nil, each: (SessionReportModel, CaptureReport) throws -> Void
    ) rethrows {
        let batch = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) * 4
        for first in stride(from: 0, to: work.count, by: batch) {
            let built = build(
                Array(work[first..<min(first + batch, work.count)]), configuration: configuration,
                baseline: baseline, scope: scope, scopeText: scopeText)
            for (model, report) in built { try each(model, report) }
        }
    }

    /// The HTML report's model and the lint report of each job (one pass each, on all cores).
    /// `scope`: `report`'s filter (-Y, --connection …) and the options as given.
    package static func build(
        _ work: [Job], configuration: LintConfiguration, baseline: Baseline, parallel: Int? = nil,
        scope: Filter? = nil, scopeText: String? = nil
    ) -> [(model: SessionReportModel, report: CaptureReport)] {
        Parallel.map(work.count, width: parallel) { i in
            let start = DispatchTime.now().uptimeNanoseconds
            var r: (model: SessionReportModel, report: CaptureReport)
            switch work[i] {
            case .path(let p):
                r = SessionReportBuilder.build(
                    path: p, configuration: configuration, baseline: baseline, scope: scope, scopeText: scopeText)
            case .member(let m, let bundle):
                do {
                    r = SessionReportBuilder.build(
                        reader: try m.makeReader(), name: m.displayName,
                        reopen: m.isRereadable ? { try? m.makeReader() } : nil, configuration: configuration,
                        baseline: baseline, scope: scope, scopeText: scopeText)
                    if let d = m.damage ?? bundle.damage {
                        r.report.damage = r.report.damage.map { "\($0); \(d)" } ?? d
                    }
                } catch {
                    var failed = CaptureReport(path: m.displayName)
                    failed.error = "\(error)"
                    r = (SessionAggregator(path: m.displayName).finish(failed), failed)
                }
            case .failed(let report, _): r = (SessionAggregator(path: report.path).finish(report), report)
            }
            r.report.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            return r
        }
    }

    static func lint(
        _ m: CaptureMember, in bundle: CaptureBundle, explicit: Bool, configuration: LintConfiguration,
        baseline: Baseline
    ) -> CaptureReport {
        let reader: any CaptureReader
        do { reader = try m.makeReader() } catch {
            var r = CaptureReport(path: m.displayName)
            r.error = error.description
            // As for bare files: inside a directory, a capture blecap cannot lint is passed over.
            switch error {
            case .unsupportedLinkType, .unsupportedBtsnoopDatalink:
                r.unsupportedFormat = !explicit
            default: break
            }
            return r
        }
        var r = CaptureLinter.lint(
            reader: reader, name: m.displayName,
            reopen: m.isRereadable ? { try? m.makeReader() } : nil, configuration: configuration,
            baseline: baseline)
        if let d = m.damage ?? bundle.damage { r.damage = r.damage.map { "\($0); \(d)" } ?? d }
        return r
    }
}

/// Runs independent jobs on several threads, at most `width` at once.
enum Parallel {
    /// Calls `body` once for each index in `0..<count`. `width` nil: one thread per core
    /// (`DispatchQueue.concurrentPerform`); otherwise at most `width` threads, each taking the
    /// next index when it is done with one, so a slow capture does not hold up a fixed share.
    static func forEach(_ count: Int, width: Int?, _ body: @Sendable (Int) -> Void) {
        guard let width, width < count else {
            DispatchQueue.concurrentPerform(iterations: count, execute: body)
            return
        }
        let next = Counter()
        DispatchQueue.concurrentPerform(iterations: max(1, width)) { _ in
            while let i = next.take(below: count) { body(i) }
        }
    }

    /// `body`'s result for each index in `0..<count`, in index order, computed as `forEach` runs.
    static func map<T>(_ count: Int, width: Int?, _ body: @Sendable (Int) -> T) -> [T] {
        let slots = Slots<T>(count: count)
        forEach(count, width: width) { i in slots.set(i, body(i)) }
        return slots.all
    }

    private final class Counter: Sendable {
        private let value = Mutex(0)

        func take(below limit: Int) -> Int? {
            value.withLock { value in
                guard value < limit else { return nil }
                value += 1
                return value - 1
            }
        }
    }

    /// One slot per job, filled from worker threads.
    private final class Slots<T>: @unchecked Sendable {
        private var slots: [T?]
        private let lock = Mutex(())
        init(count: Int) { slots = Array(repeating: nil, count: count) }
        func set(_ i: Int, _ r: T) { lock.withLock { _ in slots[i] = r } }
        var all: [T] { lock.withLock { _ in slots.compactMap { $0 } } }
    }
}
