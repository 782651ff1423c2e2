#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Long text on a terminal goes through a pager, as git does: only when standard output is a
/// terminal and the output is text; the command is BLECAP_PAGER, else PAGER, else `less`, with
/// LESS=FRX when LESS is unset (quit when it fits a screen, keep colours, leave the screen as
/// it was). Standard output becomes the pager's input for the rest of the run, so every
/// OutputBuffer writing fd 1 is paged without knowing it; at exit blecap closes it and waits
/// for the pager. A user who quits the pager early makes blecap's next write fail with EPIPE,
/// which ends it quietly (`OutputBuffer.fail`), as a closed pipe does.
package enum Pager {
    /// The pager command the environment asks for, nil for none (git's rule: an empty value
    /// or `cat` means no pager).
    package static func command(environment: (String) -> String?) -> String? {
        let chosen = environment("BLECAP_PAGER") ?? environment("PAGER") ?? "less"
        let words = chosen.split(whereSeparator: { $0 == " " || $0 == "\t" })
        return words.isEmpty || words == ["cat"] ? nil : chosen
    }

    /// The pager's process, waited for at exit.
    nonisolated(unsafe) package static var child: pid_t = 0

    /// Starts the pager when `text` output goes to a terminal. Call it before the first write to
    /// standard output; commands writing to a file (-o) or live (`watch`) never call it.
    package static func start(text: Bool) {
        guard text, child == 0, isatty(1) == 1 else { return }
        guard let command = command(environment: { getenv($0).map { String(cString: $0) } }) else { return }
        if getenv("LESS") == nil { setenv("LESS", "FRX", 1) }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("sh"), strdup("-c"), strdup(command), nil]
        defer { for a in argv { free(a) } }
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ)
        close(fds[0])
        guard spawned == 0 else {
            // No pager to be had: the text goes to the terminal as it would without one.
            close(fds[1])
            return
        }
        dup2(fds[1], 1)
        close(fds[1])
        child = pid
        atexit { Pager.finish() }
    }

    /// At exit: end the pager's input and wait until the user quits it, so the shell prompt
    /// does not come back under the pager's screen.
    package static func finish() {
        guard child != 0 else { return }
        close(1)
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        child = 0
    }
}
