// TerminalChild: a program started on a new pseudo-terminal this process holds — the child leads its own session
// with the terminal's other end as its controlling terminal and its 0, 1 and 2; the parent keeps the master end to
// relay (a recorded session handed to OpenSSH's ssh: docs/SESSIONS.md).
import CDescriptorShims
import FoundationEssentials
import Glibc

public struct TerminalChild {
    public let pid: pid_t
    /// The master end (close-on-exec, non-blocking): what the child writes to its terminal is read here.
    public let master: Int32

    /// Starts `argv[0]` (a path) on a new terminal of `columns` x `rows` whose modes are copied from `modesFrom` (the
    /// user's terminal) when it is one.
    public static func start(
        _ argv: [String], environment: [String: String], columns: Int, rows: Int, modesFrom: Int32
    ) -> Result<TerminalChild, FileSystemError> {
        var name = [CChar](repeating: 0, count: 128)
        let master = cshims_open_pty(&name, UInt(name.count))
        guard master >= 0 else { return .failure(FileSystemError(path: "/dev/ptmx", operation: "open", code: errno)) }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // Size and modes are set on the terminal before the child starts, so ssh reads them at once.
        let slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        if slave >= 0 {
            var modes = termios()
            if isatty(modesFrom) == 1, tcgetattr(modesFrom, &modes) == 0 { tcsetattr(slave, TCSANOW, &modes) }
            var size = winsize(
                ws_row: UInt16(clamping: rows), ws_col: UInt16(clamping: columns), ws_xpixel: 0, ws_ypixel: 0)
            _ = ioctl(slave, UInt(TIOCSWINSZ), &size)
        }
        defer { if slave >= 0 { close(slave) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Opened in the child after setsid: a session leader's first terminal opened becomes its controlling one.
        posix_spawn_file_actions_addopen(&actions, 0, path, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        for fd in DetachedProcess.inheritedDescriptors() where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGHUP, SIGCHLD, SIGWINCH] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        let setsid: Int32 = 0x80  // POSIX_SPAWN_SETSID (glibc 2.26+; not imported into Swift)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | setsid))
        var cArgv = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArgv { free(pointer) } }
        var cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in cEnvironment { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, &attributes, &cArgv, &cEnvironment)
        guard rc == 0 else {
            close(master)
            return .failure(FileSystemError(path: argv[0], operation: "start", code: rc))
        }
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        return .success(TerminalChild(pid: pid, master: master))
    }
}
