// PrivateSocket: unix sockets only this user can reach — listening under a temporary name made 0600 (never through
// the umask) and renamed into place in a 0700 folder checked without following links (PrivateDirectory),
// connecting, telling whether the path is still ours, and the peer's credentials (SO_PEERCRED) that both ends
// check. Shared by warm sessions, the agent and the TUI's confirm channel.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

public enum PrivateSocket {
    /// Who is at the other end of a connected unix socket, from the kernel.
    struct Peer: Sendable, Equatable {
        var pid: pid_t
        var uid: uid_t
        var gid: gid_t
    }

    static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return address
    }

    /// Connects to a socket of ours; nil when there is none (or it is stale, or someone else's).
    static func connect(_ path: String) -> Int32? {
        guard var address = address(path) else { return nil }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard rc == 0, peerIsUs(fd) else {
            close(fd)
            return nil
        }
        return fd
    }

    /// SO_PEERCRED: the pid, uid and gid of the process that opened the other end.
    static func peer(_ fd: Int32) -> Peer? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (only imported with _GNU_SOURCE).
        var credentials: [UInt32] = [0, 0, 0]
        var length = socklen_t(12)
        let rc = credentials.withUnsafeMutableBytes { getsockopt(fd, SOL_SOCKET, SO_PEERCRED, $0.baseAddress, &length) }
        guard rc == 0, length == 12 else { return nil }
        return Peer(pid: pid_t(bitPattern: credentials[0]), uid: credentials[1], gid: credentials[2])
    }

    /// The other end was opened by our own uid.
    public static func peerIsUs(_ fd: Int32) -> Bool { peer(fd)?.uid == getuid() }

    public static func setTimeout(_ fd: Int32, seconds: Int, option: Int32) {
        var value = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Binds under a temporary name, makes it 0600, then renames it into place, so the path never points at a
    /// socket with looser permissions and one already there is replaced atomically. Returns the listening
    /// descriptor and the socket's inode (see `ownsPath`).
    ///
    /// `directory` is checked first (PrivateDirectory: from `root`, a DataLocations folder, down, real folders of
    /// this uid, 0700, no link followed) and everything after goes through its descriptor: the socket is bound in
    /// the folder that was checked, where no other uid can reach it even before its own mode is set.
    public static func listen(at path: String, directory: String, within root: String, backlog: Int32 = 16) throws
        -> (Int32, ino_t)
    {
        let name = path.lastPathPart
        let temporary = name + ".\(getpid()).tmp"
        // Clients connect by the path itself: one too long for a unix socket is refused here, not left unreachable.
        guard address(directory + "/" + temporary) != nil else {
            throw ShelfError(
                .failure, "the socket path \(directory)/\(temporary) is too long for a unix socket",
                hint: "use a shorter XDG_RUNTIME_DIR (or SSHELF_HOME)")
        }
        let folder = try PrivateDirectory.open(directory, within: root)
        defer { close(folder) }
        // The folder's /proc name reaches the folder checked even if its path was swapped since; without /proc,
        // its path (whose sshelf part no other uid can change).
        let base = PrivateDirectory.path(of: folder) ?? directory
        unlinkat(folder, temporary, 0)
        guard var address = address(base + "/" + temporary) else {
            throw ShelfError(.failure, "the socket path \(base)/\(temporary) is too long for a unix socket")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ShelfError(.failure, "socket: \(String(cString: strerror(errno)))") }
        // Never the umask (process-wide: a file another thread created meanwhile would get it): Linux makes the
        // bound path with the unbound socket's mode, so fchmod first; the folder is 0700 anyway, and chmod after.
        let bound =
            fchmod(fd, PrivateFiles.fileMode) == 0
            && withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            } == 0
        guard bound, fchmodat(folder, temporary, PrivateFiles.fileMode, 0) == 0, Glibc.listen(fd, backlog) == 0,
            renameat(folder, temporary, folder, name) == 0
        else {
            let reason = String(cString: strerror(errno))
            close(fd)
            unlinkat(folder, temporary, 0)
            throw ShelfError(.failure, "could not listen on \(path): \(reason)")
        }
        var info = stat()
        guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            close(fd)
            throw ShelfError(.failure, "could not listen on \(path): \(String(cString: strerror(errno)))")
        }
        return (fd, info.st_ino)
    }

    /// Whether `path` is still the socket this process bound (another one may have taken it over).
    public static func ownsPath(_ path: String, inode: ino_t) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_ino == inode
    }
}
