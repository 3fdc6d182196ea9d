// CloseOnExec: descriptors that are close-on-exec from the moment they exist — a pipe (pipe2), an accepted
// connection (accept4) and a copy (F_DUPFD_CLOEXEC). Setting FD_CLOEXEC afterwards leaves a gap in which a fork and
// exec on another thread (a ProxyCommand, a git run, the agent's start) hands the descriptor to the child, which
// then holds a socket or pipe end open past its use. Sockets and files say SOCK_CLOEXEC / O_CLOEXEC themselves.
import CDescriptorShims
import Glibc

public enum CloseOnExec {
    /// pipe(2) into `fds` (read end, write end), both ends close-on-exec (and non-blocking when asked); 0 or -1.
    public static func pipe(_ fds: inout [Int32], nonBlocking: Bool = false) -> Int32 {
        var pair: [Int32] = [-1, -1]
        let rc = cshims_pipe_cloexec(&pair, nonBlocking ? 1 : 0)
        if rc == 0 { fds = pair }
        return rc
    }

    /// accept(2) of one waiting connection, close-on-exec (and non-blocking when asked); -1 and errno when none.
    public static func accept(_ listener: Int32, nonBlocking: Bool = false) -> Int32 {
        cshims_accept_cloexec(listener, nonBlocking ? 1 : 0)
    }

    /// dup(2), the copy close-on-exec.
    public static func duplicate(_ fd: Int32) -> Int32 { fcntl(fd, F_DUPFD_CLOEXEC, 0) }

    /// Points standard error (descriptor 2) at `fd` — the user service's log. The one descriptor left inheritable on
    /// purpose: a standard stream is what every child (ssh, git) is meant to write its errors to. 0 or -1.
    @discardableResult
    public static func replaceStandardError(with fd: Int32) -> Int32 { Glibc.dup2(fd, 2) < 0 ? -1 : 0 }

    /// Marks a descriptor this process inherited (`--passphrase-fd N`) close-on-exec, as soon as it is known: the
    /// one mark that cannot come at creation, since the descriptor was made by the parent. 0 or -1.
    @discardableResult
    public static func markInherited(_ fd: Int32) -> Int32 {
        let flags = fcntl(fd, F_GETFD)
        guard flags >= 0 else { return -1 }
        let closing = flags | FD_CLOEXEC
        return fcntl(fd, F_SETFD, closing) < 0 ? -1 : 0
    }

    /// Marks every open descriptor from `lowest` up close-on-exec (close_range), so a child spawned next gets only
    /// what its spawn names: what another library or an older call of ours left inheritable included. 0 or -1.
    @discardableResult
    public static func markAll(from lowest: Int32) -> Int32 { cshims_cloexec_from(lowest) }
}
