// RemoteDirectory: a folder of the sync remote held open by its descriptor. Everything below it — listing, reading,
// writing, removing, making a folder — is done relative to that descriptor one name at a time (`openat`, `unlinkat`,
// `mkdirat`, `renameat`, `fstatat`) and never follows a link, so a writer of the remote swapping a folder for a link
// between a check and a use (`renameat2(RENAME_EXCHANGE)` in a loop) cannot turn a removal or a write onto a folder
// outside the remote: what was checked is the very folder acted on.
import FoundationEssentials
import ShelfSystem

#if canImport(Glibc)
import Glibc
#endif

final class RemoteDirectory {
    let fd: Int32
    /// Where it is, for messages only (never opened again by this path).
    let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// The remote's root, the one path resolved (it may be a link the user made). Nil when it is not a folder.
    static func root(_ path: String) -> RemoteDirectory? {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        return fd >= 0 ? RemoteDirectory(fd: fd, path: path) : nil
    }

    /// A real folder directly inside this one; nil when `name` is missing or anything else (a link is not followed).
    func folder(_ name: String) -> RemoteDirectory? {
        guard RemoteDirectory.isPlainName(name) else { return nil }
        let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        return child >= 0 ? RemoteDirectory(fd: child, path: path + "/" + name) : nil
    }

    /// A real folder directly inside this one, made (mode 0700) when missing. A link or file under the name is
    /// removed first when `replacing`, refused otherwise.
    func makeFolder(_ name: String, replacing: Bool) throws(SyncFailure) -> RemoteDirectory {
        guard RemoteDirectory.isPlainName(name) else { throw SyncFailure("\(name) is not a name sync writes") }
        if let kind = kind(name), kind != S_IFDIR {
            guard replacing else {
                throw SyncFailure(
                    "sync folder holds \(path)/\(name) as \(FolderRemote.describe(kind)), not a folder; "
                        + "sync does not follow it",
                    hint: "sshelf never writes one: remove \(path)/\(name) (the devices write their files again)")
            }
            _ = unlinkat(fd, name, 0)
        }
        if mkdirat(fd, name, PrivateFiles.directoryMode) != 0 && errno != EEXIST {
            throw SyncFailure("cannot create \(path)/\(name) in the sync folder: \(String(cString: strerror(errno)))")
        }
        guard let child = folder(name) else {
            throw SyncFailure("\(path)/\(name) on the remote is not a folder; sync does not follow it")
        }
        _ = fchmod(child.fd, PrivateFiles.directoryMode)  // mkdirat's mode is filtered by the umask; fchmod is not
        return child
    }

    /// The type of what is at `name` itself (a link is not followed); nil when nothing is.
    func kind(_ name: String) -> mode_t? {
        var info = stat()
        guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }

    /// The names in this folder (not `.` and `..`). More than `limit` is a failure with that reason: a remote
    /// flooded with names must not make a run read them all.
    func names(limit: Int, what: String) throws(SyncFailure) -> [String] {
        let copy = CloseOnExec.duplicate(fd)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
            }
            if name == "." || name == ".." { continue }
            names.append(name)
            if names.count > limit {
                throw SyncFailure(
                    "\(path) on the remote holds more than \(limit) \(what); sync stops rather than read them all",
                    hint: "sshelf never writes that many: remove what 'sshelf sync devices' does not account for")
            }
        }
        return names
    }

    /// The bytes of the regular file `name`, at most `limit`; a link, a folder, a FIFO or a device is refused at once.
    func read(_ name: String, label: String, limit: Int) throws(SyncFailure) -> [UInt8] {
        guard RemoteDirectory.isPlainName(name) else { throw SyncFailure("\(label) is missing") }
        let file = openat(fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        guard file >= 0 else {
            if errno == ENOENT { throw SyncFailure("\(label) is missing") }
            if let kind = kind(name), kind != S_IFREG { throw SyncFailure("\(label) is not a regular file") }
            throw SyncFailure("\(label) is unreadable")
        }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw SyncFailure("\(label) is not a regular file")
        }
        guard info.st_size <= limit else { throw SyncFailure("\(label) is larger than \(limit / 1024 / 1024) MiB") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress! + offset, $0.count - offset) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            offset += got
        }
        guard offset == bytes.count else { throw SyncFailure("\(label) changed while it was read") }
        return bytes
    }

    /// Writes `name` whole: a 0600 temp file beside it, fsync, then a rename into place, then the folder fsynced.
    /// Without `replace` a file already there is refused (this device's runs are serialised by its lock, so nothing
    /// of its own appears between the check and the rename).
    func write(_ name: String, _ bytes: [UInt8], replace: Bool) throws(SyncFailure) {
        guard RemoteDirectory.isPlainName(name) else { throw SyncFailure("\(name) is not a name sync writes") }
        if !replace && kind(name) != nil { throw writeFailure(name, EEXIST) }
        let temp = ".\(name).\(UUID().uuidString.prefix(8)).tmp"
        let file = openat(fd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, PrivateFiles.fileMode)
        guard file >= 0 else { throw writeFailure(name, errno) }
        _ = fchmod(file, PrivateFiles.fileMode)
        var offset = 0
        var code: Int32 = 0
        while offset < bytes.count {
            let wrote = bytes.withUnsafeBytes { Glibc.write(file, $0.baseAddress! + offset, $0.count - offset) }
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else {
                code = errno
                break
            }
            offset += wrote
        }
        if code == 0 && fsync(file) != 0 { code = errno }
        close(file)
        if code == 0 {
            if renameat(fd, temp, fd, name) != 0 { code = errno }
        }
        guard code == 0 else {
            _ = unlinkat(fd, temp, 0)
            throw writeFailure(name, code)
        }
        _ = fsync(fd)
    }

    private func writeFailure(_ name: String, _ code: Int32) -> SyncFailure {
        if code == EEXIST { return SyncFailure("\(path)/\(name) already exists; sync never writes a file twice") }
        return SyncFailure(
            "cannot write to sync folder \(path)/\(name): \(String(cString: strerror(code)))",
            hint: "check free space and permissions")
    }

    /// Removes `name` from this folder: a file or a link itself (never what it points to), a real folder with
    /// everything in it (each entry removed the same way, through the folder's own descriptor; at most 32 folders
    /// deep). Returns how many regular files went.
    @discardableResult
    func remove(_ name: String, depth: Int = 0) -> Int {
        guard RemoteDirectory.isPlainName(name), let kind = kind(name) else { return 0 }
        if unlinkat(fd, name, 0) == 0 { return kind == S_IFREG ? 1 : 0 }
        guard errno == EISDIR || errno == EPERM, depth < 32, let inner = folder(name) else { return 0 }
        var removed = 0
        for child in (try? inner.names(limit: .max, what: "entries")) ?? [] {
            removed += inner.remove(child, depth: depth + 1)
        }
        _ = unlinkat(fd, name, AT_REMOVEDIR)
        return removed
    }

    /// One name inside a folder: no separator, not `.` or `..`, not empty.
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\0")
    }
}
