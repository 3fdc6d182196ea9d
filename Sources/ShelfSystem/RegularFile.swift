// RegularFile: opening a file sshelf expects to be plain — a key, a database, known_hosts, an export — so that
// a FIFO, socket, device or directory in its place is refused at once with what it is, instead of hanging a
// read forever (a FIFO blocks open() and read() until someone writes) or feeding a device's bytes onward.
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

public struct RegularFileError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case missing
        /// Something other than a regular file: the text says what ("a FIFO (named pipe)").
        case notRegular(String)
        case tooLarge(limit: Int)
        case unreadable(Int32)
    }

    public var path: String
    public var kind: Kind

    public var description: String {
        switch kind {
        case .missing: "\(path) does not exist"
        case .notRegular(let what): "\(path) is \(what), not a regular file"
        case .tooLarge(let limit): "\(path) is larger than \(limit) bytes"
        case .unreadable(let code): "cannot read \(path): \(String(cString: strerror(code)))"
        }
    }
}

public enum RegularFile {
    /// What a file type is, in words.
    public static func describe(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFLNK: "a symbolic link"
        default: "a special file"
        }
    }

    /// Refuses `path` when something other than a regular file is there (a missing file passes: creating it is
    /// the caller's business). Follows no symbolic link when `followLinks` is false.
    public static func check(_ path: String, followLinks: Bool = true) throws(RegularFileError) {
        var info = stat()
        let result = followLinks ? stat(path, &info) : lstat(path, &info)
        guard result == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw RegularFileError(path: path, kind: .notRegular(describe(info.st_mode)))
        }
    }

    /// Opens `path` read-only as a regular file: without blocking (a FIFO would wait for a writer), checked with
    /// fstat on the descriptor itself (no race with a rename), then switched back to blocking reads.
    public static func open(_ path: String, followLinks: Bool = true) throws(RegularFileError) -> Int32 {
        let flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (followLinks ? 0 : O_NOFOLLOW)
        var fd: Int32
        repeat { fd = Glibc.open(path, flags) } while fd < 0 && errno == EINTR
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { throw RegularFileError(path: path, kind: .missing) }
            // A socket cannot be opened at all (ENXIO), a symbolic link not with O_NOFOLLOW (ELOOP): say what it is.
            var info = stat()
            if lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG,
                !(followLinks && info.st_mode & S_IFMT == S_IFLNK)
            {
                throw RegularFileError(path: path, kind: .notRegular(describe(info.st_mode)))
            }
            throw RegularFileError(path: path, kind: .unreadable(code))
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw RegularFileError(path: path, kind: .unreadable(code))
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw RegularFileError(path: path, kind: .notRegular(describe(info.st_mode)))
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// Reads `fd` to its end in chunks (small files: keys, known_hosts, exports), refusing more than `limit` bytes.
    private static func readAll(_ fd: Int32, path: String, limit: Int, into append: (UnsafeRawBufferPointer) -> Void)
        throws(RegularFileError)
    {
        var total = 0
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        defer { chunk.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) } }
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw RegularFileError(path: path, kind: .unreadable(errno)) }
            if count == 0 { return }
            total += count
            guard total <= limit else { throw RegularFileError(path: path, kind: .tooLarge(limit: limit)) }
            chunk.withUnsafeBytes { append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
    }

    /// The whole file, refusing one over `limit` bytes.
    public static func read(_ path: String, limit: Int = 16 << 20, followLinks: Bool = true) throws(RegularFileError)
        -> [UInt8]
    {
        let fd = try open(path, followLinks: followLinks)
        defer { close(fd) }
        var bytes: [UInt8] = []
        try readAll(fd, path: path, limit: limit) { bytes += $0 }
        return bytes
    }

    /// The whole file into guarded memory (a private key), refusing one over `limit` bytes; no copy of the
    /// content is left outside it (the read buffer is zeroed).
    public static func readSecret(_ path: String, limit: Int = 1 << 20, followLinks: Bool = true)
        throws(RegularFileError)
        -> SecretBytes
    {
        let fd = try open(path, followLinks: followLinks)
        defer { close(fd) }
        var info = stat()
        let size = fstat(fd, &info) == 0 ? Int(info.st_size) : 0
        guard size <= limit else { throw RegularFileError(path: path, kind: .tooLarge(limit: limit)) }
        // Sized by fstat; a file that grows while being read is refused rather than followed.
        let buffer = SecretBytes(count: size)
        var length = 0
        try readAll(fd, path: path, limit: size) { part in
            buffer.withUnsafeMutableBytes { out in
                UnsafeMutableRawBufferPointer(rebasing: out[length..<length + part.count]).copyMemory(from: part)
            }
            length += part.count
        }
        return buffer.prefix(length)
    }
}
