import ArgumentParser
import CaptureIO

/// Opens a capture for a subcommand and turns open errors and damage into blecap's exit codes
/// and messages.
struct CaptureInput {
    let path: String
    let reader: any CaptureReader

    /// Opens `path`, or prints why it cannot and exits 2.
    static func open(_ path: String) throws(ExitCode) -> CaptureInput {
        do {
            return CaptureInput(path: path, reader: try CaptureFile.open(path: path))
        } catch {
            printError("\(path == "-" ? "standard input" : path): \(error)")
            throw BlecapExit.unreadable.exitCode
        }
    }

    /// After the records ran out: report damage (exit 3) or succeed.
    func finish() throws(ExitCode) {
        if let damage = reader.damage {
            printError("\(path == "-" ? "standard input" : path): \(damage)")
            throw BlecapExit.damaged.exitCode
        }
    }
}
