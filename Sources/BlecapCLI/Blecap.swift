import ArgumentParser
import BLEOutput

#if canImport(Glibc)
    import Glibc
#endif

/// The `blecap` command: one subcommand per file in this folder.
public struct Blecap: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "blecap",
        abstract: "Read Bluetooth LE HCI captures: decode every frame, rebuild the timeline and GATT database.",
        discussion: """
            Reads btsnoop (Android, btmon -w), pcap/pcapng (link types 187, 201, 254) and Apple \
            PacketLogger (.pklg) files, chosen by content. FILE may be '-' for standard input.

            Archives and compressed logs are opened by content too: gzip, xz, zip, tar and \
            .tar.gz, Android bug reports (the HCI snoop log, else the btsnooz summary) and iOS \
            sysdiagnose archives (their .pklg files in time order); --member NAME picks one capture.

            \(ExitStatusTable.text)
            """,
        version: BlecapVersion.description,
        subcommands: [
            PacketsCommand.self, InfoCommand.self, TimelineCommand.self, GattCommand.self, LintCommand.self,
            DiagnoseCommand.self,
            RulesCommand.self, ExplainCommand.self, ReportCommand.self, ReplayCommand.self, ServeCommand.self,
            WatchCommand.self,
        ]
    )

    public init() {}

    /// Entry point used by the executable: like `main()`, but with blecap's exit statuses
    /// (docs/exit-codes.md): usage errors exit 2 rather than ArgumentParser's 64, and an error
    /// nobody expected exits 7 rather than 1, which means findings.
    public static func run(arguments: [String]? = nil) -> Never {
        // A closed pipe (`blecap packets f | head`) shows as EPIPE on the write that meets it,
        // and OutputBuffer ends the process the way Unix tools end (docs/exit-codes.md).
        signal(SIGPIPE, SIG_IGN)
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            exit(withError: nil)
        } catch let code as ExitCode {
            exit(withError: code)
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                let message = fullMessage(for: error)
                if !message.isEmpty { writeStandardError(message + "\n") }
                Glibc.exit(BlecapExit.usage.rawValue)
            }
            if code == .success { exit(withError: error) }  // --help, --version
            printError("internal error: \(error)")
            Glibc.exit(BlecapExit.internalError.rawValue)
        }
    }
}

/// Process exit statuses: the one table of docs/exit-codes.md, in every command's help.
public enum BlecapExit: Int32 {
    case success = 0
    /// Findings at or above `--fail-on` (lint, watch); a replay that diverged from the capture;
    /// a served session whose operations differ from the captured central's.
    case findings = 1
    /// Usage error: an unknown option or value, a missing argument, a config or baseline file
    /// that cannot be loaded, an archive with several captures and no `--member`.
    case usage = 2
    /// The input is damaged: its valid part was decoded and printed, the damage reported.
    case damaged = 3
    /// The input cannot be read as a capture: it cannot be opened, is in no format blecap
    /// reads, or holds no capture (an archive without one, whose contents are listed; an
    /// Android bug report without Bluetooth logs, with how to enable them).
    case unreadable = 4
    /// An archive refused by a safety limit: decompressed size, compression ratio (bombs),
    /// nesting depth, a member name that climbs out of the archive.
    case refused = 5
    /// Output could not be written whole (a full disk, an I/O error, a directory that cannot be
    /// written): nothing partial is left under the name `-o` gave.
    case writeError = 6
    /// A bug in blecap: an error no other status describes.
    case internalError = 7

    public var exitCode: ExitCode { ExitCode(rawValue) }
}

/// The exit-status table as every command's help ends with it (and the man pages, made from
/// the help); docs/exit-codes.md says the same at more length.
enum ExitStatusTable {
    static let text = """
        Exit status (the same in every command; docs/exit-codes.md):
          0  success
          1  findings at or above --fail-on (lint, watch); replay diverged; serve differed;
             nothing matched with --fail-on-empty (packets, timeline, watch)
          2  usage error (option, value, config or baseline file, --member needed)
          3  input damaged: decoded up to the damage, which stderr names
          4  input unreadable: cannot be opened, unknown format, or no capture inside
          5  archive refused by a safety limit (size, ratio, nesting, path traversal)
          6  write error: output not written whole (disk full, I/O error, no permission)
          7  internal error (a bug in blecap)
          killed by SIGPIPE (shells show 141) when the reader of the output went away
        """
}
