import ArgumentParser
import BLEBytes
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

        var saved: WatchRecorder?
        if let write {
            do { saved = try WatchRecorder(path: write) } catch {
                printError("\(write): \(error)")
                throw BlecapExit.writeError.exitCode
            }
        }
        let watch = WatchPass(
            configuration: configuration, jsonl: format == .jsonl, paint: color.paint(text: format == .text),
            saved: saved, filter: filter, shouldStop: { WatchSignals.stop.load(ordering: .relaxed) })
        let outcome = watch.run(
            reader, name: live.name, to: OutputBuffer(fd: 1, flushThreshold: 0), started: started, note: printError)
        let (report, matched) = (outcome.report, outcome.matched)
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
