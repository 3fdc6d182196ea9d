// KnownHostsCache: the entries of the known_hosts files a connection reads — at login twice (the host key algorithms
// ordered by the types known for the host, then the key checked) and, kept open (a warm keeper), before every
// command — parsed again only when a file changed (its inode, size, modification or change time), so each read
// after the first costs a stat per file, not a parse of a file of thousands of lines.
import FoundationEssentials
import Glibc

final class KnownHostsCache {
    private struct Stamp: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: [Int]
        var changed: [Int]
    }

    private var files: [String: (stamp: Stamp, entries: [KnownHostEntry]?)] = [:]

    /// The file's entries as `KnownHostsFile.load` gives them (nil: unreadable), from the last parse while it has
    /// not changed.
    func entries(_ path: String) -> [KnownHostEntry]? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            files[path] = nil
            return (try? KnownHostsFile.load(path))?.entries
        }
        let stamp = Stamp(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: [info.st_mtim.tv_sec, info.st_mtim.tv_nsec], changed: [info.st_ctim.tv_sec, info.st_ctim.tv_nsec])
        if let cached = files[path], cached.stamp == stamp { return cached.entries }
        let entries = (try? KnownHostsFile.load(path))?.entries
        files[path] = (stamp, entries)
        return entries
    }
}
