// HostFolders: where `sshelf cp @group:SRC… DST/` puts each host's files — DST/HOST/, one folder per host named
// after it (NAME@ID-PREFIX when names repeat; a '/' or a leading '.' in a name written as '_', so no name reaches
// outside DST), made when the host's copy starts. DST itself must be a directory, or end in '/' to be made.
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
        let counts = Dictionary(hosts.map { ($0.name.lowercased(), 1) }, uniquingKeysWith: +)
        names = Dictionary(
            hosts.map { host in
                let shared = (counts[host.name.lowercased()] ?? 0) > 1
                return (host.id, Self.folderName(shared ? "\(host.name)@\(Display.shortID(host.id))" : host.name))
            }, uniquingKeysWith: { first, _ in first })
    }

    /// The host's folder, made if missing.
    func make(for host: ShelfCore.Host) throws(SSHError) -> String {
        let folder = (destination.hasSuffix("/") ? destination : destination + "/") + (names[host.id] ?? "_")
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
