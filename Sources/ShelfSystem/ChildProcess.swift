// ChildProcess: a foreground child started with posix_spawn (not Foundation's Process, whose one monitor thread
// can miss a child's exit while others run) with the descriptors it gets named exactly — stdin, stdout, stderr,
// nothing else of ours — reaped by the caller; and a short run of a program with its output captured.
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

public enum ChildProcess {
    /// Starts `argv[0]` (a path) with `stdin`, `stdout` and `stderr` as its 0, 1 and 2; returns its pid.
    /// With `newProcessGroup` the child leads a process group of its own, so all it starts can be ended with it.
    public static func spawn(
        _ argv: [String], stdin: Int32, stdout: Int32, stderr: Int32,
        environment: [String: String]? = nil, newProcessGroup: Bool = false
    )
        -> Result<pid_t, FileSystemError>
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        for fd in DetachedProcess.inheritedDescriptors() where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        // The job-control signals too: a parent that ignores them while its child runs (OpenSSHChild) must not
        // pass that on.
        for number in [SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGHUP, SIGCHLD, SIGTSTP, SIGTTIN, SIGTTOU, SIGWINCH] {
            sigaddset(&defaults, number)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        if newProcessGroup { posix_spawnattr_setpgroup(&attributes, 0) }
        let flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | (newProcessGroup ? POSIX_SPAWN_SETPGROUP : 0)
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var cArgv = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArgv { free(pointer) } }
        var cEnvironment = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in cEnvironment ?? [] { free(pointer) } }
        var pid: pid_t = 0
        let rc: Int32
        if cEnvironment != nil {
            rc = posix_spawn(&pid, argv[0], &actions, &attributes, &cArgv, &cEnvironment!)
        } else {
            rc = posix_spawn(&pid, argv[0], &actions, &attributes, &cArgv, environ)
        }
        guard rc == 0 else { return .failure(FileSystemError(path: argv[0], operation: "start", code: rc)) }
        return .success(pid)
    }

    /// Waits for `pid` and returns its exit status (128 + the signal that ended it).
    @discardableResult
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        return exitCode(status)
    }

    /// The exit status of `pid` if it has ended (reaped now), nil while it runs.
    public static func poll(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        let reaped = waitpid(pid, &status, WNOHANG)
        return reaped == pid ? exitCode(status) : nil
    }

    /// Waits until `pid` has ended, or `deadline` passed (then nil: it still runs). A child of this process is
    /// reaped and its exit status returned; any other process (a daemon found by its pid file) is watched until it
    /// is gone or a zombie — only its parent learns its status, so 0 stands for "ended".
    public static func waitForExit(_ pid: pid_t, deadline: Date) -> Int32? {
        while true {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return exitCode(status) }
            if reaped < 0, errno == ECHILD, !isAlive(pid) { return 0 }
            if reaped < 0, errno != ECHILD, errno != EINTR { return -1 }
            guard deadline.timeIntervalSinceNow > 0 else { return nil }
            usleep(10_000)
        }
    }

    /// Whether a process that is not our child still runs (a zombie waiting for its parent does not).
    private static func isAlive(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        return !stat[stat.index(after: close)...].hasPrefix(" Z")
    }

    /// An exit status from a waitpid status: the exit code, or 128 + the signal that ended the process.
    public static func exitCode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    public struct Output: Sendable {
        public var status: Int32
        public var stdout: [UInt8]
        public var stderr: [UInt8]
        /// The program (and everything it started) was killed at the deadline.
        public var timedOut = false
    }

    /// Runs a short program with stdin from /dev/null and both outputs captured (each up to `limit` bytes; the rest
    /// is read and dropped). Nil when it cannot start. With a `timeout` it runs in a process group of its own, and
    /// the whole group is killed when the time is up (a child that keeps the output open cannot hold the call).
    public static func run(
        _ argv: [String], environment: [String: String]? = nil, limit: Int = 1 << 20,
        timeout: TimeInterval? = nil
    ) -> Output? {
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        guard CloseOnExec.pipe(&out) == 0 else { return nil }
        guard CloseOnExec.pipe(&err) == 0 else {
            close(out[0])
            close(out[1])
            return nil
        }
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let started = spawn(
            argv, stdin: null, stdout: out[1], stderr: err[1], environment: environment,
            newProcessGroup: timeout != nil)
        close(null)
        close(out[1])
        close(err[1])
        defer {
            close(out[0])
            close(err[0])
        }
        guard case .success(let pid) = started else { return nil }
        var stdout: [UInt8] = [], stderr: [UInt8] = []
        var fds = [
            pollfd(fd: out[0], events: Int16(POLLIN), revents: 0),
            pollfd(fd: err[0], events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        var timedOut = false
        while fds.contains(where: { $0.fd >= 0 }) {
            let wait = deadline.map { Int32(max(0, min(Double(Int32.max), $0.timeIntervalSinceNow * 1000))) } ?? -1
            let ready = Glibc.poll(&fds, nfds_t(fds.count), wait)
            guard ready >= 0 || errno == EINTR else { break }
            if ready == 0, deadline != nil {
                // The program itself may have ended while something it started holds the output open.
                if let status = poll(pid) {
                    kill(-pid, SIGKILL)
                    return Output(status: status, stdout: stdout, stderr: stderr)
                }
                timedOut = true
                kill(-pid, SIGKILL)
                break
            }
            for index in fds.indices where fds[index].fd >= 0 && fds[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(fds[index].fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    if index == 0, stdout.count < limit { stdout += buffer[0..<min(count, limit - stdout.count)] }
                    if index == 1, stderr.count < limit { stderr += buffer[0..<min(count, limit - stderr.count)] }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    fds[index].fd = -1
                }
            }
        }
        // Both outputs closed: the program is ending, but it gets no more than the time left to do so.
        var ended: Int32?
        if !timedOut, let deadline {
            ended = waitForExit(pid, deadline: deadline)
            if ended == nil {
                timedOut = true
                kill(-pid, SIGKILL)
            }
        }
        if timedOut {
            _ = wait(pid)
            return Output(status: 124, stdout: stdout, stderr: stderr, timedOut: true)
        }
        return Output(status: ended ?? wait(pid), stdout: stdout, stderr: stderr)
    }
}
