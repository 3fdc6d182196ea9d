// HostFolders: where `sshelf cp @group:SRC… DST/` puts each host's files — DST/HOST/, one folder per host named
// after it (a '/' or a leading '.' in a name written as '_', so no name reaches outside DST), made when the host's
// copy starts. No two hosts share a folder: hosts whose folders would be the same (ignoring case: `g/x` and `g_x`,
// `.gy` and `_gy`, two `web`) each get NAME@ID-PREFIX, stable across runs. DST must be a directory, or end in '/'.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH

struct HostFolders: Sendable {
    let destination: String
    let names: [UUID: String]

    init(_ hosts: [ShelfCore.Host], in destination: String) throws {
        var info = stat()
        let exists = fstatat(AT_FDCWD, destination, &info, 0) == 0
        if exists && info.st_mode & S_IFMT != S_IFDIR {
            throw ShelfError(
                .usage,
                "cp: \(Display.safe(destination)) is not a directory; from several hosts, each host's files "
                    + "go into DST/HOST/", hint: "name a directory (one ending in / is made)")
        }
        if !exists {
            guard destination.hasSuffix("/") else {
                throw ShelfError(
                    .notFound,
                    "cp: \(Display.safe(destination)): no such directory; from several hosts, each host's "
                        + "files go into DST/HOST/", hint: "name a directory (one ending in / is made)")
            }
            guard mkdir(destination, 0o777) == 0 || errno == EEXIST else {
                throw ShelfError(
                    .failure, "cp: cannot make \(Display.safe(destination)): \(String(cString: strerror(errno)))")
            }
        }
        self.destination = destination
        names = Self.names(hosts)
    }

    /// Each host's folder name, no two alike ignoring case: hosts that would share one get `@` and their id's first
    /// eight digits (stable: the id never changes); were those to meet another name still, `@` and the whole id
    /// (two hosts that still shared a name differ after it, as their ids do).
    static func names(_ hosts: [ShelfCore.Host]) -> [UUID: String] {
        var names: [UUID: String] = [:]
        for host in hosts { names[host.id] = folderName(host.name) }
        for round in 0...hosts.count {
            let counts = Dictionary(names.values.map { ($0.lowercased(), 1) }, uniquingKeysWith: +)
            let shared = hosts.filter { (counts[names[$0.id, default: ""].lowercased()] ?? 0) > 1 }
            if shared.isEmpty { break }
            for host in shared {
                names[host.id] =
                    round == 0
                    ? folderName(host.name) + "@" + Display.shortID(host.id)
                    : names[host.id, default: ""] + "@" + host.id.uuidString.lowercased()
            }
        }
        return names
    }

    /// Where the host's files go (DST/NAME), for the report.
    func folder(for host: ShelfCore.Host) -> String {
        (destination.hasSuffix("/") ? destination : destination + "/") + (names[host.id] ?? "_")
    }

    /// The host's folder, made if missing.
    func make(for host: ShelfCore.Host) throws(SSHError) -> String {
        let folder = folder(for: host)
        guard mkdir(folder, 0o777) == 0 || errno == EEXIST else {
            throw SSHError(.channelFailed, "cannot make the directory \(folder): \(String(cString: strerror(errno)))")
        }
        return folder
    }

    static func folderName(_ name: String) -> String {
        var folder = String(name.map { $0 == "/" ? "_" : $0 })
        if folder.hasPrefix(".") { folder = "_" + folder.dropFirst() }
        return folder.isEmpty ? "_" : folder
    }
}
