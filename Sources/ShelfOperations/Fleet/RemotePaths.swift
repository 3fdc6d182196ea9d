// RemotePaths: a path on the host as `scp` takes it — `~/` is the login's home (SFTP paths are relative to it), and a
// wildcard (`*`, `?`, `[…]`) in any part is matched against the host's directory listings, as OpenSSH's sftp-mode
// scp does, since no shell on the host expands it. Hidden names match only a pattern that starts with a dot.
import FoundationEssentials
import Glibc
import ShelfSSH

public enum RemotePaths {
    /// `~` and `~/…` as paths relative to the home directory (where an SFTP session starts); anything else as given.
    /// `~user/` names another account's home, which SFTP cannot resolve: an error that says so.
    public static func home(_ path: String) throws(SSHError) -> String {
        if path == "~" { return "." }
        if path.hasPrefix("~/") { return String(path.dropFirst(2)).isEmpty ? "." : String(path.dropFirst(2)) }
        if path.hasPrefix("~") {
            throw SSHError(
                .channelFailed, "\(path): another account's home (~user) cannot be named over SFTP",
                hint: "give the path in full (/home/user/…)")
        }
        return path
    }

    static func hasWildcard(_ part: Substring) -> Bool { part.contains { $0 == "*" || $0 == "?" || $0 == "[" } }

    /// The host's paths `pattern` names, in name order: itself when it has no wildcard (it need not exist: the copy
    /// says so), else every match; no match is an error.
    public static func expand(_ pattern: String, in sftp: SftpSession) throws(SSHError) -> [String] {
        let path = try home(pattern)
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.contains(where: hasWildcard) else { return [path] }
        var found = [path.hasPrefix("/") ? "/" : ""]
        for (index, part) in parts.enumerated() {
            let last = index == parts.count - 1
            var next: [String] = []
            for base in found {
                guard hasWildcard(part) else {
                    next.append(join(base, String(part)))
                    continue
                }
                // A directory that cannot be listed (or is not one) matches nothing, as a shell's glob.
                guard let entries = try? sftp.list(base.isEmpty ? "." : base) else { continue }
                let names = entries.map(\.name).filter { $0 != "." && $0 != ".." }.sorted()
                for name in names where fnmatch(String(part), name, FNM_PERIOD) == 0 {
                    let candidate = join(base, name)
                    // Only directories lead on to the pattern's next part.
                    if last || (try? sftp.stat(candidate))?.isDirectory == true { next.append(candidate) }
                }
            }
            found = next
        }
        guard !found.isEmpty else {
            throw SSHError(.channelFailed, "\(pattern): no match on the host", hint: "check the pattern and the path")
        }
        return found
    }

    private static func join(_ base: String, _ name: String) -> String {
        base.isEmpty ? name : base.hasSuffix("/") ? base + name : base + "/" + name
    }
}
