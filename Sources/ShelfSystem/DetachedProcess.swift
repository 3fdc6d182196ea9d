// DetachedProcess: starts a background sshelf child with posix_spawn (Foundation's Process can miss a child's
// exit while other children run): a new session with no controlling terminal, default signal handling, stdin
// and stdout on /dev/null, stderr on /dev/null or a 0600 log, optionally one extra descriptor as fd 3, and no other.
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

public enum DetachedProcess {
    /// Returns the child's pid, or the reason it could not start.
    public static func spawn(_ argv: [String], stderrPath: String? = nil, fd3: Int32? = nil) -> Result<
        pid_t, FileSystemError
    > {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        if let stderrPath {
            posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        if let fd3 { posix_spawn_file_actions_adddup2(&actions, fd3, 3) }
        // Nothing else of ours: a daemon holding a parent's pipe or socket keeps that parent's reader (a test
        // harness, a shell's $(…)) waiting for an end of file that never comes. (glibc ignores a close action on a
        // descriptor that has meanwhile been closed.)
        for fd in inheritedDescriptors() where fd > 3 || (fd == 3 && fd3 == nil) {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGHUP] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        // POSIX_SPAWN_SETSID (glibc 2.26+; not imported into Swift): no controlling terminal for the child.
        let setsid: Int32 = 0x80
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | setsid))
        var cArgv = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArgv { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, &attributes, &cArgv, environ)
        guard rc == 0 else { return .failure(FileSystemError(path: argv[0], operation: "start", code: rc)) }
        return .success(pid)
    }

    /// Descriptors from 3 up that an exec would keep (no FD_CLOEXEC).
    static func inheritedDescriptors() -> [Int32] {
        let listed = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return listed.compactMap { Int32($0) }.filter { fd in
            guard fd >= 3 else { return false }
            let flags = fcntl(fd, F_GETFD)
            return flags >= 0 && flags & FD_CLOEXEC == 0
        }
    }
}
