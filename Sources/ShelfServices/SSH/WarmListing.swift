// WarmListing: `sshelf warm list` — the warm sessions of this user, as `ssh -O check` tells of a master: every keeper
// socket in the runtime directory that a live keeper answers, with that keeper's pid (SO_PEERCRED on the
// connection, never a pid file a keeper could leave behind) and when it started (/proc). A socket nobody answers is
// a leftover and is removed, as `warm stop` removes it. Nothing is sent: the keeper drops the silent caller.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

public enum WarmListing {
    public struct Entry: Sendable, Equatable {
        public var hostID: UUID
        public var pid: pid_t
        public var started: Date?
    }

    /// The running keepers, in the order of their host ids.
    public static func entries(_ locations: DataLocations) -> [Entry] {
        let directory = WarmSocket.directory(locations)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".sock") }.sorted().compactMap { name in
            guard let hostID = UUID(uuidString: String(name.dropLast(5))) else { return nil }
            let path = directory + "/" + name
            guard let fd = PrivateSocket.connect(path) else {
                if errno == ECONNREFUSED { unlink(path) }
                return nil
            }
            defer { close(fd) }
            guard let peer = PrivateSocket.peer(fd) else { return nil }
            return Entry(hostID: hostID, pid: peer.pid, started: startTime(of: peer.pid))
        }
    }

    /// When `pid` started: its start in clock ticks after boot (/proc/PID/stat, field 22) plus the boot time.
    static func startTime(of pid: pid_t) -> Date? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")"),
            let system = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let bootLine = system.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
            let boot = Double(bootLine.dropFirst(6).filter { !$0.isWhitespace })
        else { return nil }
        // After the command name: state is field 3, so starttime (22) is the 20th from there.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
        return Date(timeIntervalSince1970: boot + ticks / Double(sysconf(Int32(_SC_CLK_TCK))))
    }
}
