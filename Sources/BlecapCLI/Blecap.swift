import ArgumentParser

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

            Exit status: 0 success, 1 lint findings at or above --fail-on, 2 usage error or \
            unreadable capture, 3 capture damaged \
            (everything before the damage was decoded; the message names the byte offset), \
            4 no capture in the input (an archive without one, a bug report without Bluetooth \
            logs), 5 archive refused by a safety limit (size, compression ratio, nesting, \
            path-traversal name).
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

    /// Entry point used by the executable: like `main()`, but usage errors exit with 2 so that
    /// scripts can tell "bad invocation or unreadable input" (2) from "damaged input" (3).
    public static func run(arguments: [String]? = nil) -> Never {
        // A closed pipe (`blecap packets f | head`) is an ordinary end of output, not a crash.
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
                Glibc.exit(BlecapExit.unreadable.rawValue)
            }
            exit(withError: error)
        }
    }
}

/// Process exit statuses, documented in `blecap --help`.
public enum BlecapExit: Int32 {
    case success = 0
    /// Findings at or above the failure threshold (lint).
    case findings = 1
    /// Usage error, or a capture that cannot be opened or is in no supported format.
    case unreadable = 2
    /// The capture is damaged: its valid part was decoded, the damage reported.
    case damaged = 3
    /// The input holds no capture: an archive without one (its contents are listed), an Android
    /// bug report without Bluetooth logs (how to enable them is said).
    case noCapture = 4
    /// An archive refused by a safety limit: decompressed size, compression ratio (bombs),
    /// nesting depth, a member name that climbs out of the archive.
    case refused = 5

    public var exitCode: ExitCode { ExitCode(rawValue) }
}
