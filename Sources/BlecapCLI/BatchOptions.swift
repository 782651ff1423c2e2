import ArgumentParser
import BLEFleet
import BLELint
import BLEOutput
import CaptureArchive
import CaptureIO

#if canImport(Glibc)
    import Glibc
#endif

/// The one declaration of batch mode's options (lint, diagnose, info): many captures in one
/// process, one line per capture as it finishes (docs/fleet.md).
struct BatchOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "Read capture paths from this file, one a line ('-': standard input); batch mode (jsonl or fleet).")
    var filesFrom: String?

    @Flag(
        name: .long,
        help: "With --files-from: a blank line is a mark, answered by the line {\"mark\":N} once all before it is out.")
    var marks = false

    @Option(name: .long, help: "Batch mode: stop a capture's analysis after this many seconds (an error row).")
    var maxSeconds: Double?

    @Option(
        name: .long,
        help: "Batch mode: address space in bytes one capture's analysis may use (an error row past it).")
    var maxMemory: Int?

    @Flag(name: .long, help: "Fleet rows keep device addresses and texts as captured (no pseudonyms).")
    var rawIdentifiers = false

    @Option(
        name: .long,
        help:
            "Key file for fleet pseudonyms (HMAC-SHA256; else BLECAP_PSEUDONYM_KEY); without a key addresses are null."
    )
    var pseudonymKeyFile: String?

    func validate() throws {
        if let s = maxSeconds, !(s > 0) || !s.isFinite {
            throw ValidationError("--max-seconds takes a positive number")
        }
        if let m = maxMemory, m < 16 << 20 { throw ValidationError("--max-memory takes at least 16777216 bytes") }
        if marks && filesFrom == nil { throw ValidationError("--marks needs --files-from") }
        if rawIdentifiers && pseudonymKeyFile != nil {
            throw ValidationError("--raw-identifiers and --pseudonym-key-file exclude each other")
        }
    }

    var limits: BatchLimits { BatchLimits(maxSeconds: maxSeconds, maxMemory: maxMemory) }

    /// Whether the options alone ask for batch mode (the limits and identifier options mean
    /// nothing outside it).
    var asked: Bool {
        filesFrom != nil || maxSeconds != nil || maxMemory != nil || rawIdentifiers || pseudonymKeyFile != nil || marks
    }

    /// How fleet rows show identifiers: raw, keyed pseudonyms, or (no key) left out, with a note.
    /// Runs batch mode for a command's `options`: the fleet tables, or a JSONL line per capture.
    func run(_ paths: [String], _ options: AnalysisOptions, fleet: Bool) throws {
        let rows: any BatchRowFormat =
            fleet ? FleetFormat(options: options, identifiers: try identifierPolicy()) : JSONLFormat(options: options)
        try BatchMode.run(paths: paths, options: self, format: rows)
    }

    func identifierPolicy() throws(ExitCode) -> IdentifierPolicy {
        if rawIdentifiers { return .raw }
        do {
            guard let key = try Pseudonymizer.loadKey(file: pseudonymKeyFile), let p = Pseudonymizer(key: key) else {
                printError(
                    "note: no pseudonym key (--pseudonym-key-file, BLECAP_PSEUDONYM_KEY): device addresses, fingerprints and texts are null in fleet rows"
                )
                return .dropped
            }
            return .keyed(p)
        } catch {
            printError(error.description)
            throw BlecapExit.usage.exitCode
        }
    }
}

/// Batch mode for one command: the inputs (paths, directories walked, `--files-from`), the
/// format's rows, streamed to standard output as each capture finishes.
enum BatchMode {
    /// Runs the batch (or, in a child that `--max-seconds`/`--max-memory` started, its one
    /// input) and throws the batch's exit status: the worst of its captures'.
    static func run(
        paths: [String], options: BatchOptions, format: any BatchRowFormat
    ) throws(ExitCode) {
        let out = OutputBuffer(fd: 1)
        let write: (String) -> Void = { line in
            out.string(line)
            out.newline()
        }
        let note: (String) -> Void = { printError($0) }
        let runner = BatchRunner(format: format, limits: options.limits, write: write, note: note)
        let worst: ExitClass
        if let (input, identity) = ChildAnalysis.childInput() {
            let (lines, exit) = runner.analyse(input, identity: identity)
            for l in lines { write(l) }
            out.flush()
            worst = exit
        } else {
            var listFD: Int32?
            if let list = options.filesFrom {
                listFD = list == "-" ? 0 : open(list, O_RDONLY | O_CLOEXEC)
                if listFD! < 0 {
                    printError("\(list): cannot open: \(String(cString: strerror(errno)))")
                    throw BlecapExit.unreadable.exitCode
                }
            }
            defer { if let fd = listFD, fd > 0 { close(fd) } }
            let inputs = BatchInputs(paths: paths, listFD: listFD, marks: options.marks)
            // Each capture's lines leave as soon as it is done.
            worst = runner.run(
                AnySequence {
                    AnyIterator { () -> BatchInput? in
                        out.flush()
                        return inputs.next()
                    }
                })
            out.flush()
        }
        if worst != .ok { throw ExitCode(Int32(worst.rawValue)) }
    }

    /// Whether `paths` name a directory (batch mode for diagnose and info, which read files).
    static func namesDirectory(_ paths: [String]) -> Bool {
        paths.contains { p in
            var st = stat()
            return p != "-" && stat(p, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
        }
    }
}
