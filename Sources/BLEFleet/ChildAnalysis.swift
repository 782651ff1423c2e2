import CaptureArchive

#if canImport(Glibc)
    import Glibc
#endif

/// One input analysed in a child process under `--max-seconds` and `--max-memory`.
///
/// The child is this same executable with the same arguments, told by its environment which one
/// input to analyse (`ChildAnalysis.environmentKey`); it sets RLIMIT_AS on itself before reading
/// anything, writes that input's lines and exits with their class. The parent kills it when the
/// deadline passes (SIGKILL: nothing it is doing can delay that), and keeps its lines only if it
/// ended normally, so a capture that breaks a limit leaves exactly one error row.
public enum ChildAnalysis {
    /// The path of the one input a child analyses.
    public static let environmentKey = "BLECAP_BATCH_CHILD"
    static let namedKey = "BLECAP_BATCH_CHILD_NAMED"
    static let shaKey = "BLECAP_BATCH_CHILD_SHA256"
    static let sizeKey = "BLECAP_BATCH_CHILD_SIZE"
    static let memoryKey = "BLECAP_BATCH_CHILD_MAX_MEMORY"
    /// The most bytes of lines (and of standard error) kept from one child.
    static let maximumOutput = 256 << 20
    static let maximumErrorOutput = 64 << 10

    /// In a child: the input to analyse (its identity as the parent computed it), after setting
    /// the memory limit. nil in the parent.
    public static func childInput() -> (BatchInput, InputIdentity)? {
        guard let path = env(environmentKey) else { return nil }
        if let m = env(memoryKey).flatMap({ Int($0) }) {
            var limit = rlimit(rlim_cur: rlim_t(m), rlim_max: rlim_t(m))
            setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit)
        }
        let identity = InputIdentity(path: path, sha256: env(shaKey), size: env(sizeKey).flatMap { Int64($0) })
        return (BatchInput(path: path, named: env(namedKey) == "1"), identity)
    }

    /// Analyses `input` in a child of `/proc/self/exe`; its lines and class, or an error row.
    static func run(
        _ input: BatchInput, identity: InputIdentity, limits: BatchLimits, format: any BatchRowFormat,
        note: (String) -> Void
    ) -> ([String], ExitClass) {
        func failed(_ stage: String, _ cause: String, _ c: ExitClass, limit: String? = nil) -> ([String], ExitClass) {
            let f = BatchFailure(stage: stage, cause: cause, exitClass: c, limit: limit)
            return (format.errorRows(identity: identity, member: nil, failure: f), c)
        }
        var env = environ()
        env.removeAll { $0.hasPrefix("BLECAP_BATCH_CHILD") }
        env.append("\(environmentKey)=\(input.path)")
        env.append("\(namedKey)=\(input.named ? "1" : "0")")
        if let s = identity.sha256 { env.append("\(shaKey)=\(s)") }
        if let s = identity.size { env.append("\(sizeKey)=\(s)") }
        if let m = limits.maxMemory { env.append("\(memoryKey)=\(m)") }
        let start = monotonicSeconds()
        guard let child = Spawned(arguments: CommandLine.arguments, environment: env) else {
            return failed("crash", "cannot start a child process: \(String(cString: strerror(errno)))", .internalError)
        }
        let deadline = limits.maxSeconds.map { start + $0 }
        let timedOut = child.collect(until: deadline, maximumOutput: maximumOutput, maximumError: maximumErrorOutput)
        let status = child.wait()
        let errText = String(decoding: child.error, as: UTF8.self)
        // The child's notes (skipped members, --ltk notes) go on to standard error as usual.
        if !errText.isEmpty, !timedOut { note(errText.hasSuffix("\n") ? String(errText.dropLast()) : errText) }
        if timedOut {
            let s = limits.maxSeconds ?? 0
            return failed(
                "limit", "analysis took longer than --max-seconds \(decimal(s)) and was stopped", .refused,
                limit: "max-seconds")
        }
        if child.outputOverflow {
            return failed("limit", "the capture's rows exceed \(maximumOutput) bytes", .refused, limit: "output")
        }
        let lines = child.output.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        if status.exited, let c = ExitClass(rawValue: Int(status.code)), c != .internalError {
            return (lines, c)
        }
        // Abnormal end: an allocation refused under RLIMIT_AS ends a Swift process with a trap
        // and says so on standard error; anything else is reported as the crash it is.
        let seconds = decimal(monotonicSeconds() - start)
        let how = status.exited ? "exited with status \(status.code)" : "was killed by signal \(status.signal)"
        if let m = limits.maxMemory, errText.contains("allocate") || errText.contains("memory") {
            return failed(
                "limit", "analysis ran out of memory under --max-memory \(m) (\(how) after \(seconds) s)",
                .refused, limit: "max-memory")
        }
        let tail = errText.split(separator: "\n").last.map { ": \($0)" } ?? ""
        var cause = "analysis \(how) after \(seconds) s\(tail)"
        if let m = limits.maxMemory { cause += " (with --max-memory \(m): a failed allocation may be the reason)" }
        return failed("crash", cause, .internalError)
    }

    static func decimal(_ s: Double) -> String {
        let r = (s * 1000).rounded() / 1000
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    static func env(_ key: String) -> String? { getenv(key).map { String(cString: $0) } }

    static func environ() -> [String] {
        var out: [String] = []
        var p = Glibc.environ
        while let s = p.pointee {
            out.append(String(cString: s))
            p += 1
        }
        return out
    }
}

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// A child process of `/proc/self/exe` with its standard output and error in pipes and its
/// standard input on /dev/null.
final class Spawned {
    let pid: pid_t
    private let outFD: Int32
    private let errFD: Int32
    private(set) var output: [UInt8] = []
    private(set) var error: [UInt8] = []
    private(set) var outputOverflow = false

    init?(arguments: [String], environment: [String]) {
        var outPipe: [Int32] = [0, 0]
        var errPipe: [Int32] = [0, 0]
        guard pipe(&outPipe) == 0 else { return nil }
        guard pipe(&errPipe) == 0 else {
            close(outPipe[0])
            close(outPipe[1])
            return nil
        }
        // Not inherited by the child (dup2 gives it its own 1 and 2), nor by later children.
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/proc/self/exe", &actions, nil, argv, envp)
        close(outPipe[1])
        close(errPipe[1])
        guard rc == 0 else {
            close(outPipe[0])
            close(errPipe[0])
            errno = rc
            return nil
        }
        self.pid = pid
        outFD = outPipe[0]
        errFD = errPipe[0]
    }

    deinit {
        close(outFD)
        close(errFD)
    }

    /// Reads both pipes until the child closes them or `deadline` (monotonic seconds) passes;
    /// past the deadline the child is killed. Returns whether it was.
    func collect(until deadline: Double?, maximumOutput: Int, maximumError: Int) -> Bool {
        var open = [outFD, errFD]
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while !open.isEmpty {
            var timeout: Int32 = -1
            if let deadline {
                let left = deadline - monotonicSeconds()
                if left <= 0 {
                    kill(pid, SIGKILL)
                    return true
                }
                timeout = Int32(min(left * 1000 + 1, 60_000))
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let r = poll(&fds, nfds_t(fds.count), timeout)
            if r < 0 && errno == EINTR { continue }
            if r <= 0 { continue }
            for f in fds where f.revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(f.fd, $0.baseAddress, $0.count) }
                if n <= 0 {
                    open.removeAll { $0 == f.fd }
                    continue
                }
                if f.fd == outFD {
                    if output.count + n > maximumOutput {
                        outputOverflow = true
                        kill(pid, SIGKILL)
                        return false
                    }
                    output += buffer[0..<n]
                } else if error.count < maximumError {
                    error += buffer[0..<min(n, maximumError - error.count)]
                }
            }
        }
        return false
    }

    /// Waits for the child; how it ended.
    func wait() -> (exited: Bool, code: Int32, signal: Int32) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7F
        if signal == 0 { return (true, (status >> 8) & 0xFF, 0) }
        return (false, 0, signal)
    }
}
