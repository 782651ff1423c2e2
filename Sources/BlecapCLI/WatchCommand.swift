import ArgumentParser
import BLEBytes
import BLEDiagnose
import BLEFilter
import BLELint
import BLEOutput
import BLEPass
import BLETimeline
import CaptureArchive
import CaptureIO
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `blecap watch SOURCE`: a session as it happens — timeline events, lint findings and each
/// connection's verdict printed the moment they are known, the summary when the source ends or
/// on Ctrl-C.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Watch a session as it happens: timeline events, lint findings and verdicts as they occur.",
        discussion: """
            SOURCE is a capture file (with --follow, one that is still being written: blecap waits \
            at its end like tail -f, also through a half-written last record), '-' for standard \
            input, or tcp://HOST:PORT for a btsnoop stream (Android's snoop server after \
            'adb forward tcp:8872 tcp:8872'), or hci-monitor for the Linux kernel's HCI monitor \
            channel as btmon reads it (hci-monitor:hciN for one controller; needs a kernel with \
            Bluetooth and CAP_NET_RAW). Events come out as `blecap timeline` prints them, \
            findings as `blecap lint` words them, each as soon as it is known; findings that need \
            the end of something (a scan left running, a link lost without reconnect) when that \
            end is seen. As each connection ends (or an attempt fails), its verdict as \
            `blecap diagnose` gives it: one line with its cause and frames, or in jsonl the \
            verdict object under a "verdict" key. Ctrl-C (SIGINT) or SIGTERM ends the watch cleanly: what is pending is \
            flushed and the summary printed. A compressed file or archive (gzip, xz, zip, tar, a \
            bug report) is opened as every command opens it and read once: it cannot be followed.

            Examples:
              btmon -w /dev/stdout | blecap watch -
              blecap watch --follow /data/btsnoop_hci.log --write session.btsnoop
              blecap watch --format jsonl tcp://127.0.0.1:8872
              sudo blecap watch hci-monitor --write session.btsnoop
              blecap watch --fail-on error session.btsnoop
              blecap watch -Y 'type ~ "gatt.*" && conn == 1' session.btsnoop

            -Y (--filter) keeps the timeline events an expression matches, as for `blecap \
            timeline` (docs/filter.md); --connection, --peer, --type and --frames are its \
            shortcuts. Findings and verdicts are not filtered. When the filters match no event, \
            standard error says so at the end; --fail-on-empty makes that exit 1.

            --fail-on is never by default: a watch exits 1 for findings only when asked.

            \(ExitStatusTable.text)
            """)

    @Argument(help: "A capture file, '-' (standard input), tcp://HOST:PORT or hci-monitor[:hciN].")
    var source: String

    @Flag(name: .long, help: "Keep reading a file that is still being written (like tail -f).")
    var follow = false

    @Option(
        name: .shortAndLong,
        help: "Output format: text or jsonl (-f is --format, as in every command; --follow has no short name).")
    var format: TextOrJSONL = .text

    @Option(name: .long, help: "Also save the HCI records seen as a btsnoop file (H4).")
    var write: String?

    @Option(name: .long, help: "Lint configuration file (as for blecap lint).")
    var config: String?

    @Option(
        name: .long,
        help: "Lowest severity that makes the watch exit 1, as for blecap lint: error, warning, note or never.")
    var failOn: LintCommand.FailOn = .never

    @OptionGroup var platform: PlatformJudgement

    @OptionGroup var decryption: LinkLayerKeyOptions

    @OptionGroup var events: EventFilterOptions

    @OptionGroup var color: ColorOption

    /// Compressed standard input, opened as every command opens it.
    static func whole(_ bytes: FileByteSource) throws -> any CaptureReader {
        let bundle: CaptureBundle
        do { bundle = try CaptureBundle.open(standardInput: bytes) } catch {
            printError("standard input: \(error.description)")
            throw CaptureInput.exit(for: error).exitCode
        }
        guard bundle.members.count == 1 else {
            printError("standard input: \(ArchiveError.severalCaptures(bundle.members.compactMap(\.name)).description)")
            throw BlecapExit.usage.exitCode
        }
        return try CaptureInput.open(bundle.members[0], in: bundle).reader
    }

    func validate() throws {
        guard let s = LiveSource.parse(source, follow: follow) else {
            throw ValidationError("not a source: \(source) (a file, '-', tcp://HOST:PORT or hci-monitor[:hciN])")
        }
        if follow {
            guard case .file = s else { throw ValidationError("--follow applies to a file") }
        }
    }

    func run() throws {
        let live = LiveSource.parse(source, follow: follow)!
        let selection = try events.selection
        let filter = try selection.compiled(EventField.table)
        var matched = 0
        var configuration = LintConfiguration()
        if let config {
            do { configuration = try LintConfiguration.load(path: config) } catch {
                printError("\(config): \(error)")
                throw BlecapExit.usage.exitCode
            }
        }
        configuration.linkLayerKeys = decryption.keys
        configuration.platform = platform.forced
        WatchSignals.install()
        let started = ContinuousClock.now
        let reader: any CaptureReader
        if case .file(let path, let follow) = live, CaptureInput.isPacked(path) {
            // Opened as every command opens it; a compressed stream cannot be followed.
            if follow {
                printError("\(path): a compressed file or archive cannot be followed; without --follow it is read once")
                throw BlecapExit.usage.exitCode
            }
            reader = try CaptureInput.open(path).reader
        } else {
            do {
                let bytes = try live.open(shouldStop: { WatchSignals.stop.load(ordering: .relaxed) })
                // A compressed stream (`cat F.gz | blecap watch -`) cannot be parsed as it comes:
                // read whole, as every command reads it, then processed. Six bytes tell gzip, xz
                // and zip apart from a capture (whose header is longer), so a live stream waits
                // for nothing more than its reader would.
                if live == .standardInput, CaptureBundle.isArchive(bytes.peekAvailable(upTo: 6)) {
                    printError("standard input: compressed; read whole first, then processed (no live output)")
                    reader = try Self.whole(bytes)
                } else {
                    reader = try CaptureFile.open(source: bytes, path: nil)
                }
            } catch let exit as ExitCode {
                throw exit
            } catch {
                printError("\(live.name): \(error)")
                throw BlecapExit.unreadable.exitCode
            }
        }

        let out = OutputBuffer(fd: 1, flushThreshold: 0)
        let timeline = TimelineWriter(out: out, jsonl: format == .jsonl)
        let jsonl = format == .jsonl
        let paint = color.paint(text: !jsonl)
        timeline.color = paint.on
        var saved: WatchRecorder?
        if let write {
            do { saved = try WatchRecorder(path: write) } catch {
                printError("\(write): \(error)")
                throw BlecapExit.writeError.exitCode
            }
        }
        // Each connection's facts, written as `connection.summary` lines at the end, as
        // `timeline` does.
        var summaries = SummaryLines()
        let linter = LiveLinter(
            configuration: configuration,
            onEvent: { e in
                if let filter, !filter.matches(e) { return }
                matched += 1
                timeline.write(e)
            },
            onFinding: { f in
                out.string(jsonl ? WatchFinding(f).jsonLine : WatchFinding.text(f, paint))
                out.flush()
            },
            onConnectionEnded: { s in
                if let filter, !filter.matches(SummarySubject(s)) { return }
                matched += 1
                summaries.add(s)
            })
        let name = live.name
        let diagnoser = Diagnoser(onVerdict: { v in
            out.string(jsonl ? WatchVerdict.jsonLine(v, file: name) : WatchVerdict.text(v, paint))
            out.flush()
        })
        let session = WatchSession(timeline: timeline, saved: saved)
        let pass = CapturePass(reader: reader, name: live.name, keys: configuration.linkLayerKeys)
        // The linter first: a record's findings are out before the session flushes them; the
        // diagnoser after it, so that a verdict follows the connection's end on the timeline.
        pass.run([linter, diagnoser, session])
        let result = linter.result!
        if let last = session.last {
            summaries.write(to: timeline, frame: last.frame, time: last.time)
        }
        out.flush()
        session.saved?.close()
        for n in pass.notes { printError(n) }
        var report = CaptureReport(path: live.name)
        report.format = "\(reader.format)"
        report.frames = result.facts.frames
        report.facts = result.facts
        report.findings = result.findings
        report.notEvaluated = result.notEvaluated
        let elapsed = (ContinuousClock.now - started).components
        report.seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        if let d = reader.damage { report.damage = d.description }
        if !jsonl {
            for n in report.notEvaluated {
                out.string("not evaluated: \(n.ruleID) \(n.slug)\(n.whole ? "" : " (in part)"): \(n.reason)\n")
            }
            out.string(SummaryLine.render(report) + "\n")
        }
        out.flush()
        if !selection.isEmpty && matched == 0 { printError("\(live.name): no event matches \(selection.described)") }
        if let d = reader.damage, !WatchSignals.stop.load(ordering: .relaxed) {
            printError("\(live.name): \(d)")
            throw BlecapExit.damaged.exitCode
        }
        if !report.failing(at: failOn.threshold).isEmpty { throw BlecapExit.findings.exitCode }
        if events.failOnEmpty && matched == 0 { throw BlecapExit.findings.exitCode }
    }
}

/// SIGINT and SIGTERM end a watch: the handler only sets a flag, and is installed without
/// SA_RESTART so that a read blocked on a pipe, socket or followed file returns and sees it.
enum WatchSignals {
    static let stop = Atomic<Bool>(false)

    static func install() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in WatchSignals.stop.store(true, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        // A parent may have started blecap with these signals blocked (the mask is inherited
        // across exec; Foundation's Process does so from threads that block them).
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}

/// `watch`'s own consumer of the capture pass: the time base and last frame of the timeline's
/// lines, the records saved by `--write`, the output flushed after each record (once the
/// linter's findings are out); it stops the pass on Ctrl-C or when the reader of the output
/// went away.
final class WatchSession: CaptureConsumer {
    let timeline: TimelineWriter
    var saved: WatchRecorder?
    var last: (frame: Int, time: Int64)?

    init(timeline: TimelineWriter, saved: WatchRecorder?) {
        self.timeline = timeline
        self.saved = saved
    }

    var observes: CaptureObservations { [.records, .framesAfterTimeline] }
    func begin(_ pass: CapturePass) { timeline.scanFilterTables = pass.scanFilterTables }

    func record(_ record: CaptureRecord) {
        if timeline.base == nil { timeline.base = record.timestamp }
        last = (record.frame, record.timestamp)
        saved?.append(record)
    }

    func frameAfterTimeline(_ frame: DecodedFrame) { timeline.out.flush() }

    var isDone: Bool { WatchSignals.stop.load(ordering: .relaxed) }
}
