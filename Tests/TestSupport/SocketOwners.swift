// SocketOwners: which process holds each established TCP connection to a port, read from /proc (the tests run as
// root) — so a test can see on the server side which sshd session carried a forwarded connection.
import Foundation

public enum SocketOwners {
    /// pid → number of its established sockets whose remote port is `port`.
    public static func connections(toPort port: Int) -> [Int32: Int] {
        var inodes: Set<String> = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to the end: proc files report no size, and one read may return only the header.
            guard let file = FileHandle(forReadingAtPath: table) else { continue }
            let text = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
            file.closeFile()
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, fields[3] == "01",
                    let remotePort = fields[2].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
                    remotePort == port
                else { continue }
                inodes.insert(String(fields[9]))
            }
        }
        var owners: [Int32: Int] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry),
                let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(entry)/fd")
            else { continue }
            for fd in fds {
                guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(entry)/fd/\(fd)"),
                    link.hasPrefix("socket:["), inodes.contains(String(link.dropFirst(8).dropLast()))
                else { continue }
                owners[pid, default: 0] += 1
            }
        }
        return owners
    }

    public static func command(_ pid: Int32) -> String {
        ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The sshd processes (one per logged-in session) holding connections to `port`, and how many each holds.
    public static func sshdConnections(toPort port: Int) -> [Int32: Int] {
        connections(toPort: port).filter { command($0.key) == "sshd" }
    }
}
