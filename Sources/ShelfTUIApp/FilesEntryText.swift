// FilesEntryText: what the file pane shows of an entry that needs the system — a time in local time
// (`2026-12-06 09:03`), a local owner's and group's names, and a remote owner and group from the server's long line.
import FoundationEssentials
import Glibc
import ShelfUI

enum FilesEntryText {
    static func time(_ seconds: UInt64?) -> String {
        guard let seconds else { return "" }
        var value = time_t(truncatingIfNeeded: Int64(clamping: seconds))
        var parts = tm()
        guard localtime_r(&value, &parts) != nil else { return "" }
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min))"
    }

    /// A local user's name (its number when it has none), remembered per number for the rest of a listing.
    static func user(_ uid: uid_t, cache: inout [uid_t: String]) -> String {
        if let known = cache[uid] { return known }
        var entry = passwd(), result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let name =
            getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0 && result != nil && entry.pw_name != nil
            ? FileName.shown(Array(String(cString: entry.pw_name).utf8)) : String(uid)
        cache[uid] = name
        return name
    }

    static func group(_ gid: gid_t, cache: inout [gid_t: String]) -> String {
        if let known = cache[gid] { return known }
        var entry = Glibc.group(), result: UnsafeMutablePointer<Glibc.group>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let name =
            getgrgid_r(gid, &entry, &buffer, buffer.count, &result) == 0 && result != nil && entry.gr_name != nil
            ? FileName.shown(Array(String(cString: entry.gr_name).utf8)) : String(gid)
        cache[gid] = name
        return name
    }

    /// The owner and group of a remote entry: the third and fourth fields of the server's `ls -l` line (OpenSSH's
    /// server writes names there), escaped and cut; the numbers when the line has no such fields.
    static func remoteOwner(_ longEntry: [UInt8], uid: UInt32?, gid: UInt32?) -> (String, String) {
        let fields = longEntry.split(separator: 0x20, maxSplits: 4, omittingEmptySubsequences: true)
        if fields.count >= 5, fields[0].count == 10 {
            return (FileName.shown(Array(fields[2].prefix(32))), FileName.shown(Array(fields[3].prefix(32))))
        }
        return (uid.map(String.init) ?? "", gid.map(String.init) ?? "")
    }
}
