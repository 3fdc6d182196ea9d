// PrivateDirectory: opens (and makes) one of sshelf's private folders without following a link another user could
// have planted — each component opened from its parent's descriptor with O_NOFOLLOW, made with mkdirat, checked
// and tightened on the descriptor — and refuses a folder of ours that is a link or belongs to another uid, as
// OpenSSH refuses a ControlPath folder it does not own.
import CDescriptorShims
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

public enum PrivateDirectory {
    private static let O_PATH = cshims_o_path()

    /// Opens `path` as a folder only this uid can use, making what is missing, and returns an O_PATH descriptor of
    /// it (for `*at` calls and `path(of:)`): the caller closes it.
    ///
    /// `root` is where sshelf's own part starts (a DataLocations folder; `path` itself when nil). The folder `root`
    /// names and every one below it must be owned by this uid and is made 0700; below it (`warm`, `agent`,
    /// `keys`: folders sshelf makes) a link is refused whoever owns it. `root` itself and the folders above it
    /// (HOME, XDG_RUNTIME_DIR, ~/.config linked to a dotfiles checkout) may be links, followed only when this uid
    /// or root owns the link: one another user planted in a shared folder (/tmp/sshelf) is refused. Folders this
    /// call makes are 0700 wherever they are.
    public static func open(_ path: String, within root: String? = nil) throws(FileSystemError) -> Int32 {
        let components = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let rootCount = root.flatMap { prefixCount(of: $0, in: path) } ?? components.count
        var parent = PrivateFiles.retrying {
            Glibc.open(path.hasPrefix("/") ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC)
        }
        guard parent >= 0 else { throw FileSystemError(path: path, operation: "open", code: errno) }
        var walked = path.hasPrefix("/") ? "" : "."
        for (index, name) in components.enumerated() {
            walked += "/" + name
            if name == "." { continue }
            // At or below the root: ours (owner checked, 0700); strictly below it: no link either.
            let ours = index + 1 >= max(1, rootCount) && name != ".."
            let noLink = index + 1 > max(1, rootCount) && name != ".."
            let child: Int32
            do throws(FileSystemError) {
                child = try step(parent, name, at: walked, ours: ours, noLink: noLink)
            } catch {
                close(parent)
                throw error
            }
            close(parent)
            parent = child
        }
        return parent
    }

    /// A path that reaches the folder `fd` (an O_PATH descriptor) itself, wherever it has been moved since: binding
    /// a socket or naming a file through it never follows the folder's name again.
    public static func path(of fd: Int32) -> String? {
        let link = "/proc/self/fd/\(fd)"
        var info = stat()
        return stat(link, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR ? link : nil
    }

    /// Opens (making it when missing) one component below `parent`.
    private static func step(_ parent: Int32, _ name: String, at path: String, ours: Bool, noLink: Bool)
        throws(FileSystemError) -> Int32
    {
        var created = false
        var fd = PrivateFiles.retrying { openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        if fd < 0 && errno == ENOENT {
            if PrivateFiles.retrying({ mkdirat(parent, name, PrivateFiles.directoryMode) }) == 0 {
                created = true
            } else if errno != EEXIST {
                throw FileSystemError(path: path, operation: "create directory", code: errno)
            }
            fd = PrivateFiles.retrying { openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        }
        if fd < 0 && (errno == ELOOP || errno == ENOTDIR) {
            fd = try throughLink(parent, name, at: path, noLink: noLink)
        }
        guard fd >= 0 else { throw FileSystemError(path: path, operation: "open directory", code: errno) }
        guard ours || created else { return fd }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw FileSystemError(path: path, operation: "look at", code: code)
        }
        if info.st_uid != geteuid() {
            close(fd)
            throw FileSystemError(
                path: path, operation: "use", code: EPERM,
                reason: "\(path) is owned by \(user(info.st_uid)), not by you (\(user(geteuid()))): sshelf keeps its "
                    + "files and sockets only in folders of its own, and another user made this one; remove it "
                    + "(as its owner or root), or point XDG_RUNTIME_DIR (or SSHELF_HOME) at a folder only you can "
                    + "write")
        }
        if info.st_mode & 0o7777 != PrivateFiles.directoryMode {
            do throws(FileSystemError) { try tighten(fd, at: path) } catch {
                close(fd)
                throw error
            }
        }
        return fd
    }

    /// `name` is not a folder opened without following: a link, or something else. A link is refused below
    /// sshelf's root, and elsewhere unless this uid or root owns it (another user's link in a shared folder).
    private static func throughLink(_ parent: Int32, _ name: String, at path: String, noLink: Bool)
        throws(FileSystemError) -> Int32
    {
        var info = stat()
        guard fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw FileSystemError(path: path, operation: "look at", code: errno)
        }
        guard (info.st_mode & S_IFMT) == S_IFLNK else {
            throw FileSystemError(path: path, operation: "use as a directory", code: ENOTDIR)
        }
        if noLink {
            throw FileSystemError(
                path: path, operation: "use", code: ELOOP,
                reason: "\(path) is a symbolic link (owned by \(user(info.st_uid))): sshelf does not follow links "
                    + "for its own folders, where another user's link would lead it to tighten and fill a folder of "
                    + "their choosing; remove the link (rm \(path)) and run again, and sshelf makes a real folder")
        }
        if info.st_uid != geteuid() && info.st_uid != 0 {
            throw FileSystemError(
                path: path, operation: "use", code: EPERM,
                reason: "\(path) is a symbolic link owned by \(user(info.st_uid)), not by you or root: sshelf does not "
                    + "follow it, as another user may have planted it; remove it (rm \(path)), or point "
                    + "XDG_RUNTIME_DIR (or SSHELF_HOME) at a folder only you can write")
        }
        return PrivateFiles.retrying { openat(parent, name, O_PATH | O_DIRECTORY | O_CLOEXEC) }
    }

    /// 0700 on the folder the descriptor holds (an O_PATH descriptor takes no fchmod: a real one is opened from
    /// it, or its /proc name when this uid may not read the folder yet).
    private static func tighten(_ fd: Int32, at path: String) throws(FileSystemError) {
        let readable = PrivateFiles.retrying { openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if readable >= 0 {
            defer { close(readable) }
            if fchmod(readable, PrivateFiles.directoryMode) == 0 { return }
        } else if let named = self.path(of: fd), chmod(named, PrivateFiles.directoryMode) == 0 {
            return
        }
        throw FileSystemError(path: path, operation: "set permissions of", code: errno)
    }

    /// How many components of `path` make up `root`, when `root` is `path` or a folder above it.
    private static func prefixCount(of root: String, in path: String) -> Int? {
        let rootParts = root.split(separator: "/", omittingEmptySubsequences: true)
        let pathParts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard root.hasPrefix("/") == path.hasPrefix("/"), rootParts.count <= pathParts.count,
            Array(pathParts.prefix(rootParts.count)) == rootParts
        else { return nil }
        return rootParts.count
    }

    /// "uid 65534 (nobody)", for the messages.
    static func user(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return "uid \(uid) (\(String(cString: name)))"
    }
}
