// OpenSSHChild: OpenSSH's ssh run as a child on the user's own terminal and descriptors (`connect` and `exec` handed
// over, the TUI's Enter), as `sudo` and `script` run theirs: nothing sits between ssh and the terminal, so its own
// raw mode, escapes and speed are the user's. While it runs this process ignores SIGINT and SIGQUIT (the terminal's
// keys are ssh's), passes SIGTERM, SIGHUP and SIGWINCH on, and follows ssh's job control: when ssh stops (`~^Z`, or
// a ^Z while it is not in raw mode) this process stops itself with the same signal, so the shell sees the job
// stopped and its `fg` continues both.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

/// The running child the signal handler passes signals to (0: none yet; then the signal waits in `pendingSignal`).
nonisolated(unsafe) private var openSSHChildPid: pid_t = 0
nonisolated(unsafe) private var openSSHPendingSignal: Int32 = 0

private func openSSHChildForward(_ number: Int32) {
    let saved = errno
    if openSSHChildPid > 0 { kill(openSSHChildPid, number) } else { openSSHPendingSignal = number }
    errno = saved
}

public enum OpenSSHChild {
    /// The signals this process ignores while ssh runs: the terminal's interrupt keys (ssh's own), and the stop
    /// signals, which it raises on itself only when ssh stopped — so one ^Z stops the job once.
    static let ignored = [SIGINT, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU]
    /// The signals passed on to ssh.
    static let passed = [SIGTERM, SIGHUP, SIGWINCH]

    /// Runs `argv` with this process's standard input, output and error until it ends; its exit status (128 + the
    /// signal that ended it). Throws when it cannot start.
    public static func run(_ argv: [String], environment: [String: String]) throws -> Int32 {
        var saved: [(Int32, sigaction)] = []
        func install(_ number: Int32, _ handler: (@convention(c) (Int32) -> Void)?, ignore: Bool) {
            var action = sigaction(), previous = sigaction()
            if ignore {
                action.__sigaction_handler.sa_handler = SIG_IGN
            } else {
                action.__sigaction_handler.sa_handler = handler
                action.sa_flags = SA_RESTART
            }
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, &previous)
            saved.append((number, previous))
        }
        openSSHChildPid = 0
        openSSHPendingSignal = 0
        for number in ignored { install(number, nil, ignore: true) }
        for number in passed { install(number, openSSHChildForward, ignore: false) }
        defer {
            openSSHChildPid = 0
            for (number, previous) in saved.reversed() {
                var action = previous
                sigaction(number, &action, nil)
            }
        }
        // ChildProcess.spawn puts every signal ssh cares about back to its default in the child.
        let pid: pid_t
        switch ChildProcess.spawn(argv, stdin: 0, stdout: 1, stderr: 2, environment: environment) {
        case .success(let started): pid = started
        case .failure(let error): throw ShelfError(.failure, "could not run \(argv[0]): \(error)")
        }
        openSSHChildPid = pid
        if openSSHPendingSignal != 0 { kill(pid, openSSHPendingSignal) }
        while true {
            var status: Int32 = 0
            guard waitpid(pid, &status, WUNTRACED) == pid else {
                if errno == EINTR { continue }
                return -1
            }
            guard status & 0xFF == 0x7F else { return ChildProcess.exitCode(status) }
            stopLikeTheChild(signal: (status >> 8) & 0xFF)
            kill(pid, SIGCONT)
        }
    }

    /// Stops this process as ssh stopped (a stop signal from the terminal's job control, raised with its default
    /// action for the moment; SIGSTOP for any other), and returns once it is continued (the shell's `fg`). In an
    /// orphaned process group the kernel drops a terminal stop signal and this returns at once: ssh is continued,
    /// as a shell without job control would leave it.
    private static func stopLikeTheChild(signal number: Int32) {
        guard [SIGTSTP, SIGTTIN, SIGTTOU].contains(number) else {
            kill(getpid(), SIGSTOP)
            return
        }
        var action = sigaction(), previous = sigaction()
        action.__sigaction_handler.sa_handler = SIG_DFL
        sigemptyset(&action.sa_mask)
        sigaction(number, &action, &previous)
        // Raised on this thread with the signal unblocked, it is taken before raise returns: stopped here until
        // SIGCONT (another thread could not take it and find it ignored again).
        var unblock = sigset_t(), before = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, number)
        pthread_sigmask(SIG_UNBLOCK, &unblock, &before)
        raise(number)
        pthread_sigmask(SIG_SETMASK, &before, nil)
        sigaction(number, &previous, nil)
    }
}
