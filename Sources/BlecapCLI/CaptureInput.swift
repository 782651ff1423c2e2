import ArgumentParser
import BLEBytes
import BLEFleet
import BLEPackets
import BLEPass
import CaptureArchive
import CaptureIO

#if canImport(Glibc)
    import Glibc
#endif

/// Opens a capture for a subcommand and turns open errors and damage into blecap's exit codes
/// and messages.
///
/// The input may be a plain capture (read in place, as CaptureIO reads it), a gzip/xz file, a
/// zip or tar (also .tar.gz), an Android bug report or an iOS sysdiagnose: `CaptureBundle`
/// finds the captures inside; `--member NAME` picks one.
struct CaptureInput {
    /// What messages and reports call the capture: the path, or `archive!member`.
    let path: String
    let reader: any CaptureReader
    let member: CaptureMember
    let bundle: CaptureBundle

    /// Opens the one capture of `path` (or its `member`), or prints why it cannot and exits
    /// with the code for that reason. An archive holding several captures needs `--member`.
    static func open(_ path: String, member: String? = nil) throws(ExitCode) -> CaptureInput {
        let bundle = try openBundle(path, member: member)
        guard bundle.members.count == 1 else {
            fail(path, ArchiveError.severalCaptures(bundle.members.compactMap(\.name)).description)
            throw BlecapExit.usage.exitCode
        }
        let input = try open(bundle.members[0], in: bundle)
        if let note = input.member.note { printError("\(input.path): \(note)") }
        return input
    }

    /// The captures of `path` (one for a plain capture), or the message and exit code.
    static func openBundle(_ path: String, member: String?) throws(ExitCode) -> CaptureBundle {
        do {
            return try CaptureBundle.open(path: path, member: member)
        } catch {
            fail(path, error.description)
            throw exit(for: error).exitCode
        }
    }

    /// A reader over one member of an opened bundle.
    static func open(_ member: CaptureMember, in bundle: CaptureBundle) throws(ExitCode) -> CaptureInput {
        do {
            return CaptureInput(
                path: member.displayName, reader: try member.makeReader(), member: member, bundle: bundle)
        } catch {
            fail(member.displayName, error.description)
            throw BlecapExit.unreadable.exitCode
        }
    }

    /// The exit status for an input that could not be opened.
    static func exit(for error: ArchiveError) -> BlecapExit {
        switch error {
        case .noCapture, .bugReportWithoutBluetoothLog, .capture, .unreadableArchive, .btsnooz: .unreadable
        case .refused: .refused
        case .noSuchMember, .severalCaptures: .usage
        }
    }

    /// The exit status of a lint job whose input could not be opened, nil when it has none.
    static func exit(for job: LintRunner.Job) -> BlecapExit? {
        guard case .failed(_, let error?) = job else { return nil }
        return exit(for: error)
    }

    /// Whether `path` is a regular file that is compressed or an archive (by content), which
    /// only CaptureBundle opens: `watch` reads such a file through `open` (once, since a
    /// compressed stream cannot be followed as it grows).
    /// By `stat` before any `open`: opening a named pipe here and closing it could take the
    /// writer's one connection, and the reader's own open would then wait for a writer forever.
    static func isPacked(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return false }
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return false }
        var prefix = [UInt8](repeating: 0, count: 512)
        let n = read(fd, &prefix, prefix.count)
        guard n > 0 else { return false }
        return prefix.withUnsafeBytes {
            CaptureBundle.isArchive(ByteView(UnsafeRawBufferPointer(rebasing: $0[0..<n])))
        }
    }

    private static func fail(_ path: String, _ message: String) {
        printError("\(path == "-" ? "standard input" : path): \(message)")
    }

    /// The one pass over this input's records, decrypting with `keys` (`--ltk`).
    func pass(keys: LinkLayerKeys) -> CapturePass {
        CapturePass(reader: reader, name: path, keys: keys)
    }

    /// After a pass: the `--ltk` keys that matched no link, each noted on standard error the
    /// same way for every command.
    @discardableResult
    func note(_ pass: CapturePass) -> [String] {
        for n in pass.notes { printError(n) }
        return pass.unmatchedKeys
    }

    /// Damage that is not the reader's own: the compressed data or the archive broke.
    var containerDamage: String? { member.damage ?? bundle.damage }

    /// After the records ran out: report damage (exit 3) or succeed.
    func finish() throws(ExitCode) {
        var damaged = false
        if let damage = reader.damage {
            CaptureInput.fail(path, damage.description)
            damaged = true
        }
        if let d = containerDamage {
            CaptureInput.fail(path, d)
            damaged = true
        }
        if damaged { throw BlecapExit.damaged.exitCode }
    }
}
