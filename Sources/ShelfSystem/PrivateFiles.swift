// PrivateFiles: directories 0700 (made by PrivateDirectory, never through a link) and files 0600 whatever the
// umask, atomic replacement, and the check that refuses a file others can read. Every syscall retries on EINTR
// and reports errno by name.
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

public struct FileSystemError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var operation: String
    public var code: Int32
    /// The whole message, when errno alone would not say what is wrong and what to do (a refused folder).
    public var reason: String? = nil
    public var description: String {
        reason ?? "\(operation) \(path): \(String(cString: strerror(code)))"
    }
}

public enum PrivateFiles {
    public static let directoryMode: mode_t = 0o700
    public static let fileMode: mode_t = 0o600

    @inline(__always)
    static func retrying(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result != -1 || errno != EINTR { return result }
        }
    }

    /// The folder `path` is in, as ShelfCore's `parentPath` (which this module cannot import) works it out.
    static func parent(of path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        guard let slash = path.lastIndex(of: "/") else { return "" }
        var parent = path[..<slash]
        while parent.hasSuffix("/") { parent = parent.dropLast() }
        return parent.isEmpty ? "/" : String(parent)
    }

    /// Creates `path` and any missing parents, without following a link another user planted (PrivateDirectory):
    /// directories this call creates get 0700, and the folders from `root` down (`path` alone when nil) must be
    /// real folders of this uid and are tightened to 0700 even if they existed, because they are ours.
    public static func ensureDirectory(_ path: String, within root: String? = nil) throws(FileSystemError) {
        close(try PrivateDirectory.open(path, within: root))
    }

    /// Creates `path` empty with mode 0600 if it does not exist (never follows a symlink at the last step).
    public static func ensureFile(_ path: String) throws(FileSystemError) {
        let fd = retrying { open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, fileMode) }
        guard fd >= 0 else { throw FileSystemError(path: path, operation: "create", code: errno) }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & 0o777 != fileMode, info.st_size == 0 {
            _ = fchmod(fd, fileMode)
        }
    }

    /// Sets mode 0600 on a file that exists (SQLite's -wal and -shm files, which it creates itself).
    public static func tighten(_ path: String) {
        _ = chmod(path, fileMode)
    }

    /// The permission bits of a file, or nil if it does not exist.
    public static func mode(of path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// Replaces `path` atomically: write a 0600 temp file beside it, fsync, rename, fsync the directory.
    public static func atomicWrite(_ data: Data, to path: String) throws(FileSystemError) {
        let directory = parent(of: path)
        let temp = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = retrying { open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, fileMode) }
        guard fd >= 0 else { throw FileSystemError(path: temp, operation: "create", code: errno) }
        var failure: FileSystemError? = nil
        _ = fchmod(fd, fileMode)
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = FileSystemError(path: temp, operation: "write", code: errno)
                    return
                }
                offset += written
            }
        }
        if failure == nil && fsync(fd) != 0 { failure = FileSystemError(path: temp, operation: "sync", code: errno) }
        close(fd)
        if failure == nil && rename(temp, path) != 0 {
            failure = FileSystemError(path: path, operation: "replace", code: errno)
        }
        if let failure {
            unlink(temp)
            throw failure
        }
        let dirfd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 {
            fsync(dirfd)
            close(dirfd)
        }
    }
}
