import BLEBytes
import BLELint
import CaptureArchive
import CaptureIO

#if canImport(Glibc)
    import Glibc
#endif

/// One input of a batch: a path, and whether it was named (in `--files-from` or on the command
/// line) or found inside a directory, which decides whether a file that is no capture counts.
public struct BatchInput: Sendable, Equatable {
    public var path: String
    public var named: Bool
    /// A mark in the list (`--marks`: a blank line), counted from 1; no input then.
    public var mark: Int?
    public init(path: String, named: Bool) {
        self.path = path
        self.named = named
    }
    public init(mark: Int) {
        self.path = ""
        self.named = false
        self.mark = mark
    }
}

/// The inputs of a batch, one at a time: the command line's paths, then the lines of
/// `--files-from` (read as needed, never held whole), each directory walked as it comes.
///
/// Memory does not grow with the count: a directory's entries are listed and sorted one
/// directory at a time (so the order is the same on every file system), and a list file is read
/// line by line. Inside directories the rules are `lint DIR`'s (`CaptureWalker`): empty files and
/// files that are neither a capture, a simulator trace nor an archive are skipped silently.
public final class BatchInputs: Sequence, IteratorProtocol {
    private var paths: [String]
    private var list: LineReader?
    /// Directories being walked: each level's remaining entries, sorted, last first.
    private var stack: [(dir: String, entries: [String])] = []
    /// Problems met on the way (a missing path, a directory that cannot be listed), as
    /// `path: reason`, for error rows.
    public private(set) var problems: [(path: String, reason: String)] = []
    /// A path that could not be used, handed out as a named input so its error row is written.
    private var pendingProblem: BatchInput?

    /// Blank lines of the list are marks (`--marks`), handed out in their place.
    private let marks: Bool
    private var markCount = 0

    /// `list`: a file descriptor to read one path per line from (`--files-from`), or nil. With
    /// `marks`, each blank line of the list is handed out as a `BatchInput(mark:)` once every
    /// input before it has been (a program feeding blecap batch after batch learns from the
    /// mark's line that the batch's lines are all out).
    public init(paths: [String], listFD: Int32?, marks: Bool = false) {
        self.paths = paths.reversed()
        self.list = listFD.map(LineReader.init)
        self.marks = marks
    }

    public func next() -> BatchInput? {
        while true {
            if let entry = nextInDirectory() { return entry }
            if let p = paths.popLast() {
                if let input = start(p) { return input }
                continue
            }
            guard let list else { return nil }
            guard let line = list.nextLine() else {
                self.list = nil
                return nil
            }
            // Blank lines separate nothing (but with `marks`); a path may contain spaces but not a newline.
            if line.isEmpty {
                guard marks else { continue }
                markCount += 1
                return BatchInput(mark: markCount)
            }
            if let input = start(line) { return input }
        }
    }

    /// A named path: a file is an input, a directory starts a walk.
    private func start(_ path: String) -> BatchInput? {
        var st = stat()
        guard stat(path, &st) == 0 else { return BatchInput(path: path, named: true) }
        if st.st_mode & S_IFMT == S_IFDIR {
            push(path)
            return nil
        }
        return BatchInput(path: path, named: true)
    }

    private func push(_ dir: String) {
        guard let d = opendir(dir) else {
            problems.append((dir, "cannot list directory: \(String(cString: strerror(errno)))"))
            return
        }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name == "." || name == ".." { continue }
            names.append(name)
        }
        stack.append((dir, names.sorted(by: >)))
    }

    private func nextInDirectory() -> BatchInput? {
        while !stack.isEmpty {
            guard let name = stack[stack.count - 1].entries.popLast() else {
                stack.removeLast()
                continue
            }
            let dir = stack[stack.count - 1].dir
            let full = dir.hasSuffix("/") ? dir + name : dir + "/" + name
            var st = stat()
            // Symbolic links are followed as `lint DIR` follows them (FileManager's walk).
            guard stat(full, &st) == 0 else { continue }
            if st.st_mode & S_IFMT == S_IFDIR {
                push(full)
                continue
            }
            guard st.st_mode & S_IFMT == S_IFREG, Self.isCandidate(full) else { continue }
            return BatchInput(path: full, named: false)
        }
        return nil
    }

    /// Whether a file found in a directory is read: `lint DIR`'s rule (a capture by content, a
    /// simulator trace, or an archive; empty files are not).
    static func isCandidate(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return true }  // unreadable: its error row says why
        defer { close(fd) }
        var prefix = [UInt8](repeating: 0, count: 512)
        let n = prefix.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return false }
        let head = Array(prefix[0..<n])
        if SimulatorTraceReader.detect(head) { return true }
        return head.withUnsafeBytes { raw -> Bool in
            let view = ByteView(raw)
            if case .unknown = CaptureFile.detect(view) { return CaptureBundle.isArchive(view) }
            return true
        }
    }
}

/// Lines of a file descriptor, read in blocks; a line longer than 64 KiB is cut there (no path
/// is that long) so that a list without newlines cannot grow memory.
final class LineReader {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var eof = false
    static let maximumLine = 1 << 16

    init(fd: Int32) { self.fd = fd }

    func nextLine() -> String? {
        while true {
            if let nl = buffer[start...].firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[start..<nl], as: UTF8.self)
                start = nl + 1
                return line.hasSuffix("\r") ? String(line.dropLast()) : line
            }
            if buffer.count - start >= Self.maximumLine {
                let line = String(decoding: buffer[start..<(start + Self.maximumLine)], as: UTF8.self)
                start += Self.maximumLine
                return line
            }
            if eof {
                guard start < buffer.count else { return nil }
                let line = String(decoding: buffer[start...], as: UTF8.self)
                start = buffer.count
                return line
            }
            buffer.removeFirst(start)
            start = 0
            var block = [UInt8](repeating: 0, count: 1 << 16)
            let n = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                eof = true
            } else {
                buffer += block[0..<n]
            }
        }
    }
}
