// FileLock: an exclusive flock(2) on a lock file, for read-modify-write of a file several writers share.
import FoundationEssentials
import Glibc

/// Held from init until `release()` (or the process's end, whatever happens). flock locks belong to the open file
/// description, so two holders in one process exclude each other as two processes do — threads need no extra lock.
public final class FileLock {
    private var fd: Int32

    /// Creates the lock file (0600, never through a symbolic link) and waits for the lock.
    public init(_ path: String) throws(FileSystemError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw FileSystemError(path: path, operation: "open the lock file", code: errno) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let code = errno
                close(fd)
                throw FileSystemError(path: path, operation: "lock", code: code)
            }
        }
        self.fd = fd
    }

    /// Callers release explicitly (`defer { lock.release() }`) so the lock's extent is visible in the code.
    public func release() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    deinit { release() }
}
